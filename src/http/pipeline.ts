import { Elysia } from 'elysia'
import { checkKey } from '../domain/access/api-keys'
import { requirePermission, type Permission, type Principal } from '../domain/access/permissions'
import { ApiError, errorBody } from '../errors'
import { logger } from '../log'
import type { Services } from '../services'
import { readBasicCredentials } from './basic-auth'
import { toApiError } from './errors'
import { fingerprintOf, readIdempotencyKey } from './idempotency'
import { startRequest, stateOf, type RequestState } from './request-state'

export const EXTERNAL_PREFIX = '/api/v1/external'
export const ADMIN_PREFIX = '/api/v1/admin'
export const OPENAPI_PATH = `${EXTERNAL_PREFIX}/openapi.json`
/** Spec "Limits": request body 1 MB. */
export const MAX_BODY_BYTES = 1_000_000

type Headers = Record<string, string | number>

function pathnameOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const end = url.indexOf('?', start)
  return end < 0 ? url.slice(start) : url.slice(start, end)
}

function clientAddress(request: Request, server: { requestIP(r: Request): { address: string } | null } | null, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get('x-forwarded-for')
    if (forwarded) return forwarded.split(',')[0]!.trim()
  }
  return server?.requestIP(request)?.address ?? 'unknown'
}

/**
 * Authentication and the limits that come before a request is read (spec "Authentication",
 * "Limits"): failed-auth limit per address, key check, concurrency slot, requests a minute.
 * Throws ApiError; sets RateLimit-* headers on the way.
 */
function admitExternal(s: Services, request: Request, state: RequestState, headers: Headers): void {
  const failLimit = s.config.authFailuresPerMinute
  const failures = s.limits.authFailures
  const used = failures.used(state.clientAddress)
  if (used >= failLimit) {
    const probe = failures.tryAdd(state.clientAddress, 0, failLimit)
    headers['ratelimit-limit'] = failLimit
    headers['ratelimit-remaining'] = 0
    headers['ratelimit-reset'] = probe.reset
    throw new ApiError('rate_limited', 'Too many failed authentications from this address; wait and retry.', {
      retryAfter: probe.reset,
      extras: { reason: 'authentication_failures' },
    })
  }
  const credentials = readBasicCredentials(request.headers.get('authorization'))
  const result = credentials
    ? checkKey(s.keys.findForAuth(credentials.keyId), credentials.secret, s.clock.now())
    : ({ ok: false, reason: 'missing' } as const)
  if (!result.ok) {
    const counted = failures.tryAdd(state.clientAddress, 1, failLimit)
    headers['ratelimit-limit'] = failLimit
    headers['ratelimit-remaining'] = counted.remaining
    headers['ratelimit-reset'] = counted.reset
    headers['www-authenticate'] = 'Basic realm="dialer"'
    const messages = {
      missing: 'Send the key ID and secret with HTTP Basic authentication.',
      wrong: 'The key ID or secret is wrong.',
      revoked: 'This key was revoked.',
      expired: 'This key has expired.',
      disabled: 'This key is disabled.',
    }
    throw new ApiError('authentication_failed', messages[result.reason], { extras: { reason: result.reason } })
  }
  const principal = result.principal
  state.principal = principal

  if (!s.limits.concurrency.tryAcquire(principal.keyId, principal.maxConcurrent)) {
    throw new ApiError('too_many_concurrent_requests', `This key already has ${principal.maxConcurrent} requests running.`, {
      retryAfter: 1,
    })
  }
  state.slotHeldBy = principal.keyId

  const rate = s.limits.requests.take(principal)
  headers['ratelimit-limit'] = rate.limit
  headers['ratelimit-remaining'] = rate.remaining
  headers['ratelimit-reset'] = rate.reset
  if (!rate.allowed) {
    throw new ApiError('rate_limited', 'Too many requests this minute for this key or organization.', {
      retryAfter: rate.retryAfter,
    })
  }
}

function admitAdmin(s: Services, request: Request, state: RequestState): void {
  const header = request.headers.get('authorization') ?? ''
  const match = /^bearer\s+(\S+)\s*$/i.exec(header)
  if (!match || !s.adminToken.matches(match[1]!)) {
    s.limits.authFailures.tryAdd(state.clientAddress, 1, s.config.authFailuresPerMinute)
    throw new ApiError('authentication_failed', 'Send the admin token as "Authorization: Bearer <token>".', {
      extras: { reason: match ? 'wrong' : 'missing' },
    })
  }
}

/** Reads a body of at most MAX_BODY_BYTES, stopping early when a chunked body runs over. */
async function readCappedBody(request: Request): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array()
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

const tooLarge = () => new ApiError('invalid_request', 'The request body is larger than 1 MB.')

const permissionMacro = {
  /** Route option: the permission a key needs; checked before the body is validated. */
  permission(permission: Permission) {
    return {
      transform({ request }: { request: Request }) {
        const principal = stateOf(request)?.principal
        if (principal) requirePermission(principal, permission)
      },
    }
  },
}

/** Route modules `.use()` this for the `permission` option and a typed `principal`. */
export const apiContext = new Elysia({ name: 'api-context' })
  .macro(permissionMacro)
  .derive({ as: 'global' }, ({ request }) => ({
    principal: stateOf(request)?.principal as Principal,
  }))

/**
 * Everything every request passes through: request id, authentication, limits, body
 * reading, idempotency, the error envelope and the request log.
 */
export function requestPipeline(s: Services) {
  return new Elysia({ name: 'request-pipeline' })
    .onRequest(({ request, set, server }) => {
      const pathname = pathnameOf(request.url)
      const state = startRequest(request, pathname, clientAddress(request, server, s.config.trustProxy))
      set.headers['request-id'] = state.id
      if (pathname.startsWith(EXTERNAL_PREFIX) && pathname !== OPENAPI_PATH) {
        admitExternal(s, request, state, set.headers as Headers)
      } else if (pathname.startsWith(ADMIN_PREFIX)) {
        admitAdmin(s, request, state)
      }
      const length = Number(request.headers.get('content-length') ?? 0)
      if (length > MAX_BODY_BYTES) throw tooLarge()
    })
    .onParse({ as: 'global' }, async ({ request, contentType }) => {
      const bytes = await readCappedBody(request)
      const text = new TextDecoder().decode(bytes)
      if (contentType?.startsWith('text/csv')) return text
      if (text.trim() === '') return {}
      try {
        return JSON.parse(text)
      } catch {
        throw new ApiError('invalid_request', 'The request body is not valid JSON.')
      }
    })
    .onBeforeHandle({ as: 'global' }, ({ request, body, set }) => {
      const state = stateOf(request)
      if (!state?.principal || (request.method !== 'POST' && request.method !== 'PATCH')) return
      const key = readIdempotencyKey(request.headers.get('idempotency-key'))
      if (key === null) return
      const url = request.url
      const fingerprint = fingerprintOf(request.method, url.slice(url.indexOf('/', url.indexOf('//') + 2)), body)
      const begun = s.idempotency.begin(state.principal.keyId, key, fingerprint)
      if (begun.kind === 'replay') {
        set.headers['idempotent-replayed'] = 'true'
        return new Response(begun.body, { status: begun.status, headers: { 'content-type': 'application/json;charset=utf-8' } })
      }
      state.idempotency = { keyId: state.principal.keyId, key, fingerprint }
    })
    .onAfterHandle({ as: 'global' }, ({ request, response, set }) => {
      const pending = stateOf(request)?.idempotency
      if (!pending || response instanceof Response) return
      s.idempotency.finish(pending.keyId, pending.key, pending.fingerprint, Number(set.status ?? 200), JSON.stringify(response))
      stateOf(request)!.idempotency = null
    })
    .onError({ as: 'global' }, ({ request, code, error, set }) => {
      const apiError = toApiError(code, error)
      const state = stateOf(request)
      set.status = apiError.status
      if (apiError.retryAfter !== undefined) set.headers['retry-after'] = String(apiError.retryAfter)
      const body = { error: errorBody(apiError, state?.id ?? null) }
      const pending = state?.idempotency
      if (pending) {
        s.idempotency.finish(pending.keyId, pending.key, pending.fingerprint, apiError.status, JSON.stringify(body))
        state.idempotency = null
      }
      return body
    })
    .onAfterResponse({ as: 'global' }, ({ request, set, route }) => {
      const state = stateOf(request)
      if (!state) return
      if (state.slotHeldBy) {
        s.limits.concurrency.release(state.slotHeldBy)
        state.slotHeldBy = null
      }
      if (state.idempotency) {
        // The handler never finished (client went away mid-way): let a retry run.
        s.idempotency.abandon(state.idempotency.keyId, state.idempotency.key)
        state.idempotency = null
      }
      if (s.config.logRequests) {
        logger.info('request', {
          request_id: state.id,
          method: request.method,
          route: route || state.pathname,
          status: Number(set.status ?? 200),
          key_id: state.principal?.keyId ?? null,
          duration_ms: Math.round((performance.now() - state.startedAt) * 100) / 100,
        })
      }
    })
}
