import { Elysia, type AnyElysia } from 'elysia'
import { adminRoutes } from './admin/routes'
import { abandonmentRoutes } from './admin/abandonment-routes'
import { superviseRoutes } from './admin/supervise-routes'
import { seatRoutes } from './admin/seat-routes'
import { callRoutes, recordingRoutes } from './api/calls/routes'
import { campaignRoutes } from './api/campaigns/routes'
import { dncRoutes } from './api/dnc/routes'
import { docsRoutes } from './api/docs'
import { eventRoutes } from './api/events/routes'
import { exportDownloadRoutes, exportRoutes } from './api/exports/routes'
import { usageRoutes } from './api/usage/routes'
import { healthRoutes } from './api/health'
import { webhookRoutes } from './api/webhooks/routes'
import { consolePages } from './console/pages'
import { consoleRoutes } from './console/routes'
import { leadRoutes } from './api/leads/routes'
import { createGateway, EXTERNAL_PREFIX, type RequestHandler } from './http/gateway'
import { markRoute, requestPipeline } from './http/pipeline'
import type { Services } from './services'
import { carrierRoutes } from './telephony/registry'

/** The routes: body parsing and the error envelope first, then every route module. */
export function createApp(s: Services) {
  // normalize off: unknown fields are refused, not dropped. encodeSchema off: replies are plain
  // JSON values, so they are checked against their schema, not encoded through it row by row.
  // standardHostname off: Elysia finds the path from the first "/" after "http://", as the
  // gateway does; on, it skips 11 characters and a short Host header moved the path it routes.
  const app = new Elysia({ normalize: false, encodeSchema: false, handler: { standardHostname: false } })
    .use(requestPipeline(s))
    .use(healthRoutes(s))
    .use(docsRoutes(s.config.publicUrl))
    .use(recordingRoutes(s))
    .use(exportDownloadRoutes(s))
    // Each carrier's callbacks, at its own paths (the gateway lets them in without a key).
    .use(carrierRoutes(s.carriers, { publicUrl: s.config.publicUrl, markRoute }))
    .use(consoleRoutes(s))
    .use(consolePages())
    .group(EXTERNAL_PREFIX, (api) => api.use(campaignRoutes(s)).use(leadRoutes(s)).use(callRoutes(s)).use(dncRoutes(s)).use(eventRoutes(s)).use(webhookRoutes(s)).use(usageRoutes(s)).use(exportRoutes(s)))
    .use(adminRoutes(s))
    .use(abandonmentRoutes(s))
    .use(superviseRoutes(s))
    .use(seatRoutes(s))
  if (!s.config.checkReplies) skipReplyChecks(app)
  keepBodylessRoutesSync(app)
  return app
}

/**
 * Reply schemas stay on the routes (they are the OpenAPI document) but are not checked at run
 * time unless DIALER_CHECK_REPLIES is on. Elysia skips a schema marked `noValidate`; each is
 * replaced by a marked copy, so schema objects shared between routes stay as they are.
 * Runs before the first request, when Elysia compiles each route from these hooks.
 */
function skipReplyChecks(app: AnyElysia): void {
  for (const route of app.routes) {
    const replies = (route.hooks as { response?: Record<string, object> }).response
    if (!replies) continue
    for (const status of Object.keys(replies)) replies[status] = { ...replies[status], noValidate: true }
  }
}

/**
 * Elysia compiles a route as an async function whenever it has a parse hook, even a GET whose
 * body it never reads; the global body parser gives every route one. GET and HEAD routes drop
 * it, so a GET that does not wait is answered without a promise (see createGateway). Nothing
 * else changes: Elysia runs parse hooks only for methods that carry a body.
 * Runs before the first request, like skipReplyChecks. Kept because every measured pair
 * favoured it (docs/architecture.md, "Where the time goes").
 */
function keepBodylessRoutesSync(app: AnyElysia): void {
  for (const route of app.routes) {
    if (route.method !== 'GET' && route.method !== 'HEAD') continue
    const hooks = route.hooks as { parse?: unknown[] }
    if (hooks.parse?.length) hooks.parse = []
  }
}

export type App = ReturnType<typeof createApp>

/** What a server calls for every request: the gateway (auth, limits, headers, log) around the app. */
export function createHandler(s: Services): { app: App; handle: RequestHandler } {
  const app = createApp(s)
  return { app, handle: createGateway(s, app) }
}
