import { Elysia } from 'elysia'
import { adminRoutes } from './admin/routes'
import { campaignRoutes } from './api/campaigns/routes'
import { dncRoutes } from './api/dnc/routes'
import { docsRoutes } from './api/docs'
import { healthRoutes } from './api/health'
import { EXTERNAL_PREFIX, requestPipeline } from './http/pipeline'
import type { Services } from './services'
import { VERSION } from './version'

/** The whole HTTP surface: pipeline first (its hooks apply to every route after it). */
export function createApp(s: Services) {
  return new Elysia({ normalize: false })
    .use(requestPipeline(s))
    .use(healthRoutes(s))
    .use(docsRoutes(VERSION))
    .group(EXTERNAL_PREFIX, (api) => api.use(campaignRoutes(s)).use(dncRoutes(s)))
    .use(adminRoutes(s))
}

export type App = ReturnType<typeof createApp>
