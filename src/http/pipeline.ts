import { Elysia } from 'elysia'
import { requirePermission, type Permission, type Principal } from '../domain/access/permissions'
import { ApiError, errorBody, invalid } from '../errors'
import type { Services } from '../services'
import { bodyCheckOf, unsafeValueIn, type BodyCheck } from './body-check'
import { JSON_BODY, readText, UNREAD_BODY } from './body-reader'
import { toApiError } from './errors'
import { fingerprintOf, readIdempotencyKey, replayBody } from './idempotency'
import { JSON_LIMITS, jsonShape } from './json-depth'
import { stateOf } from './request-state'

export { ADMIN_PREFIX, EXTERNAL_PREFIX, OPENAPI_PATH } from './gateway'

/**
 * The `permission` route option. Before the body is validated, the key must hold the
 * permission (403 otherwise); the handler gets the typed `principal`. POST and PATCH routes
 * also honour Idempotency-Key (spec: every write endpoint): a stored reply is replayed, a new
 * one stored once the handler answers (errors are stored by the error handler).
 */
/** Routes outside apiContext (admin, health, signed links) name their pattern for the log and metrics. */
export const markRoute = ({ request, route }: { request: Request; route: string }): void => {
  const state = stateOf(request)
  if (state) state.route = route
}

const notAuthenticated = () => new ApiError('authentication_failed', 'This request was not authenticated.')

/**
 * Admin routes and /metrics: the gateway must have checked the admin token. It always has
 * when the paths agree (see doorOf); this stops a route from ever answering if they do not.
 */
export const markAdminRoute = ({ request, route }: { request: Request; route: string }): void => {
  const state = stateOf(request)
  if (!state?.admin) throw notAuthenticated()
  state.route = route
}

export function apiContext(s: Services) {
  return new Elysia().macro({
    // One permission, or several that all must be held (POST /exports: leads:read and calls:read).
    permission(permission: Permission | readonly Permission[]) {
      const needed: readonly Permission[] = typeof permission === 'string' ? [permission] : permission
      // This route's schemas, read when the route is added (see body-check.ts).
      let checkBody: BodyCheck | null = null
      return {
        introspect(hook: { body?: unknown; params?: unknown; query?: unknown }) {
          checkBody = bodyCheckOf(hook)
        },
        transform({ request, body, params, query }) {
          const principal = stateOf(request)?.principal
          // Fail closed: an external route never runs without the key the gateway checked.
          if (!principal) throw notAuthenticated()
          for (const each of needed) requirePermission(principal, each)
          // After the permission: a key that lacks it learns that before anything about its body.
          const unsafe = unsafeValueIn(body, false)
          if (unsafe) throw unsafe
          checkBody?.(body, params, query)
        },
        resolve({ request, route }) {
          const state = stateOf(request)!
          state.route = route
          return { principal: state.principal as Principal }
        },
        beforeHandle({ request, body, set }) {
          if (request.method !== 'POST' && request.method !== 'PATCH') return
          const state = stateOf(request)
          const key = readIdempotencyKey(request.headers.get('idempotency-key'))
          if (!state?.principal || key === null) return
          const url = request.url
          const fingerprint = fingerprintOf(request.method, url.slice(url.indexOf('/', url.indexOf('//') + 2)), body)
          const begun = s.idempotency.begin(state.principal.keyId, key, fingerprint)
          if (begun.kind === 'replay') {
            set.headers['idempotent-replayed'] = 'true'
            if (begun.requestId) set.headers['original-request'] = begun.requestId
            return new Response(replayBody(begun.body, state.id), { status: begun.status, headers: { 'content-type': 'application/json;charset=utf-8' } })
          }
          state.idempotency = { keyId: state.principal.keyId, key, fingerprint }
        },
        afterHandle({ request, response, set }) {
          const state = stateOf(request)
          const pending = state?.idempotency
          if (!state || !pending || response instanceof Response) return
          s.idempotency.finish(pending.keyId, pending.key, pending.fingerprint, Number(set.status ?? 200), JSON.stringify(response), state.id)
          state.idempotency = null
        },
      }
    },
  })
}

/** The gateway's reply headers, body parsing and the error envelope, for everything Elysia serves. */
export function requestPipeline(s: Services) {
  return new Elysia({ name: 'request-pipeline' })
    .onRequest((context) => {
      const state = stateOf(context.request)
      if (!state) return
      Object.assign(context.set.headers, state.replyHeaders)
      // The path Elysia routes (its context has it, its type does not) must be the one the
      // gateway authorized (gateway.ts pathnameOf).
      if ((context as unknown as { path: string }).path !== state.pathname) throw new ApiError('invalid_request', 'The request path could not be read.')
    })
    .onParse({ as: 'global' }, async ({ request }) => {
      // The body rule the gateway found for the route (body-reader.ts): files and Twilio's
      // signed forms are left unread for their routes to read.
      const rule = stateOf(request)?.bodyRule ?? JSON_BODY
      if (rule.parse !== 'json') return UNREAD_BODY
      const text = await readText(request, rule)
      // Every other body is JSON, whatever its Content-Type: a text body let Elysia read a
      // deep array past the shape check below.
      if (text.trim() === '') return {}
      // The shape is read off the text first: a deep or wide body is refused before anything walks it.
      const shape = jsonShape(text, JSON_LIMITS)
      if (shape.depth > JSON_LIMITS.depth) throw invalid(`The request body nests deeper than ${JSON_LIMITS.depth} levels.`)
      if (shape.members > JSON_LIMITS.members) throw invalid(`An object in the request body has more than ${JSON_LIMITS.members} members.`)
      if (shape.values > JSON_LIMITS.values) throw invalid(`The request body has more than ${JSON_LIMITS.values} values.`)
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        throw new ApiError('invalid_request', 'The request body is not valid JSON.')
      }
      // No route takes a string, and Elysia parses a string given for an object once more, past the shape check.
      if (typeof body === 'string') throw invalid('The request body must be a JSON object, not a string.')
      // External routes check their bodies after the permission (apiContext). Elysia checks the
      // others itself, and its error printing fails on toString members: those are refused here.
      if (!stateOf(request)?.principal) {
        const unsafe = unsafeValueIn(body, true)
        if (unsafe) throw unsafe
      }
      return body
    })
    .onError({ as: 'global' }, ({ request, code, error, set }) => {
      const apiError = toApiError(code, error)
      const state = stateOf(request)
      set.status = apiError.status
      // Every 429 a route answers passes here (the gateway counts the ones it answers itself).
      if (apiError.status === 429) s.metrics.rateLimited.inc(apiError.extras.reason ?? apiError.code)
      if (apiError.retryAfter !== undefined) set.headers['retry-after'] = String(apiError.retryAfter)
      const body = { error: errorBody(apiError, state?.id ?? null) }
      const pending = state?.idempotency
      if (pending) {
        s.idempotency.finish(pending.keyId, pending.key, pending.fingerprint, apiError.status, JSON.stringify(body), state.id)
        state.idempotency = null
      }
      return body
    })
}
