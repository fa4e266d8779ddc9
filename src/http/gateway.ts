import type { Server } from 'bun'
import type { AnyElysia } from 'elysia'
import { checkKey } from '../domain/access/api-keys'
import { ADMIN_ACCOUNT } from '../domain/access/guess-guard'
import { ApiError, maskSensitive } from '../errors'
import { logger, maskSecrets } from '../log'
import type { Services } from '../services'
import { readBasicCredentials } from './basic-auth'
import { bodyRulesOf, refuseDeclaredSize } from './body-reader'
import { errorResponse, toApiError } from './errors'
import { startRequest, type RequestState } from './request-state'
import { admitConsole, CONSOLE_API_PREFIX } from './console-door'
import { rememberServer } from './websocket-door'

export const EXTERNAL_PREFIX = '/api/v1/external'
export const ADMIN_PREFIX = '/api/v1/admin'
export const OPENAPI_PATH = `${EXTERNAL_PREFIX}/openapi.json`

export type RequestHandler = ((request: Request, server?: Server<unknown> | null) => Response | Promise<Response>) & {
  /** Requests taken and not yet answered (a stop waits for them before closing the database). */
  readonly inFlight: () => number
}

/**
 * The path of a request URL, exactly as the router reads it: from the first "/" after the
 * scheme's "//" to the "?". Elysia slices the same string the same way (its
 * `standardHostname: false`, set in app.ts), and the pipeline refuses a request whose routed
 * path differs, so the path that is authorized is always the path that is routed.
 */
export function pathnameOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2)
  if (start < 0) return '/'
  const end = url.indexOf('?', start)
  return end < 0 ? url.slice(start) : url.slice(start, end)
}

/** Which door a request goes through: API key, admin token, console session, or none. */
export type Door = 'external' | 'admin' | 'console' | 'open'

/**
 * The door of a path. Trailing slashes do not change it: the router takes `/metrics/` for
 * `/metrics`. Anything under a prefix is behind that prefix's door, routed or not (fail closed).
 */
export function doorOf(pathname: string): Door {
  let end = pathname.length
  while (end > 1 && pathname.charCodeAt(end - 1) === 47) end--
  const path = end === pathname.length ? pathname : pathname.slice(0, end)
  if (path.startsWith(EXTERNAL_PREFIX)) return path === OPENAPI_PATH ? 'open' : 'external'
  if (path.startsWith(ADMIN_PREFIX) || path === '/metrics') return 'admin'
  if (path.startsWith(CONSOLE_API_PREFIX)) return 'console'
  return 'open'
}

/**
 * The client's address for the failed-authentication limit. Behind `trustedHops` proxies you
 * run, each appends the address it received from to X-Forwarded-For, so the client is
 * `trustedHops` entries from the right of [...X-Forwarded-For, socket peer]. Entries to the
 * left of that are whatever the client wrote and are never read.
 */
export function clientAddressOf(forwardedFor: string | null, peer: string, trustedHops: number): string {
  if (trustedHops === 0 || !forwardedFor) return peer
  const hops = forwardedFor.split(',')
  // The peer is the last trusted proxy; the next `trustedHops - 1` entries are the others.
  const index = hops.length - trustedHops
  const hop = hops[Math.max(0, index)]!.trim()
  return hop === '' ? peer : hop.slice(0, 64)
}

/**
 * A failed authentication: counted against the client's address, 401 while the address is
 * within its budget (DIALER_AUTH_FAILURES_PER_MINUTE), 429 once it is over. For API keys only
 * failures are ever refused for it: a key is checked first, so valid ones from the same
 * address (many clients behind one proxy) still pass; 256 random bits are not guessed.
 */
function refuseAuthentication(s: Services, state: RequestState, reason: string, message: string, challenge: string): never {
  const headers = state.replyHeaders
  const limit = s.config.authFailuresPerMinute
  const counted = s.limits.authFailures.tryAdd(state.clientAddress(), 1, limit)
  headers['ratelimit-limit'] = String(limit)
  headers['ratelimit-remaining'] = String(counted.remaining)
  headers['ratelimit-reset'] = String(counted.reset)
  if (!counted.allowed) {
    throw new ApiError('rate_limited', 'Too many failed authentications from this address; wait and retry.', {
      retryAfter: counted.reset,
      extras: { reason: 'authentication_failures' },
    })
  }
  headers['www-authenticate'] = challenge
  throw new ApiError('authentication_failed', message, { extras: { reason } })
}

const KEY_FAILURES = {
  missing: 'Send the key ID and secret with HTTP Basic authentication.',
  wrong: 'The key ID or secret is wrong.',
  revoked: 'This key was revoked.',
  expired: 'This key has expired.',
  disabled: 'This key is disabled.',
} as const

/**
 * Authentication and the limits that come before a request is read (spec "Authentication",
 * "Limits"): key check (failures limited per address), concurrency slot, requests a minute.
 * Throws ApiError; fills the RateLimit-* headers on the way.
 */
function admitExternal(s: Services, request: Request, state: RequestState): void {
  const headers = state.replyHeaders
  const credentials = readBasicCredentials(request.headers.get('authorization'))
  const result = credentials
    ? checkKey(s.keys.findForAuth(credentials.keyId), credentials.secret, s.clock.now())
    : ({ ok: false, reason: 'missing' } as const)
  if (!result.ok) refuseAuthentication(s, state, result.reason, KEY_FAILURES[result.reason], 'Basic realm="dialer"')
  const principal = result.principal
  state.principal = principal

  if (!s.limits.concurrency.tryAcquire(principal.keyId, principal.maxConcurrent)) {
    const info = s.limits.requests.peek(principal)
    headers['ratelimit-limit'] = String(info.limit)
    headers['ratelimit-remaining'] = String(info.remaining)
    headers['ratelimit-reset'] = String(info.reset)
    throw new ApiError('too_many_concurrent_requests', `This key already has ${principal.maxConcurrent} requests running.`, {
      retryAfter: 1,
    })
  }
  state.slotHeldBy = principal.keyId

  const rate = s.limits.requests.take(principal)
  headers['ratelimit-limit'] = String(rate.limit)
  headers['ratelimit-remaining'] = String(rate.remaining)
  headers['ratelimit-reset'] = String(rate.reset)
  if (!rate.allowed) {
    throw new ApiError('rate_limited', 'Too many requests this minute for this key or organization.', {
      retryAfter: rate.retryAfter,
    })
  }
  s.tally.count(principal.orgId, principal.livemode, principal.keyId, s.clock.now())
}

const ADMIN_FAILURE = 'Send the admin token as "Authorization: Bearer <token>".'

/**
 * The admin token is a secret one may guess, unlike a key's: over its address's or its
 * account's budget (guess-guard.ts, shared with the console's sign-in) a token is refused
 * unread, right or wrong.
 */
function admitAdmin(s: Services, request: Request, state: RequestState): void {
  const header = request.headers.get('authorization') ?? ''
  const match = /^bearer\s+(\S+)\s*$/i.exec(header)
  if (!match) refuseAuthentication(s, state, 'missing', ADMIN_FAILURE, 'Bearer realm="dialer-admin"')
  const headers = state.replyHeaders
  const address = state.clientAddress()
  const attempt = s.limits.guesses.begin(address, ADMIN_ACCOUNT)
  if (!attempt.allowed) {
    headers['ratelimit-limit'] = String(s.config.authFailuresPerMinute)
    headers['ratelimit-remaining'] = String(s.limits.guesses.remaining(address))
    headers['ratelimit-reset'] = String(attempt.retryAfter)
    throw new ApiError('rate_limited', attempt.scope === 'account'
      ? 'Too many failed attempts with the admin token; wait and retry.'
      : 'Too many failed authentications from this address; wait and retry.', {
      retryAfter: attempt.retryAfter,
      extras: { reason: attempt.scope === 'account' ? 'account_failures' : 'authentication_failures' },
    })
  }
  if (!s.adminToken.matches(match[1]!)) {
    headers['ratelimit-limit'] = String(s.config.authFailuresPerMinute)
    headers['ratelimit-remaining'] = String(s.limits.guesses.remaining(address))
    headers['ratelimit-reset'] = String(s.limits.guessFailures.resetIn())
    headers['www-authenticate'] = 'Bearer realm="dialer-admin"'
    throw new ApiError('authentication_failed', ADMIN_FAILURE, { extras: { reason: 'wrong' } })
  }
  s.limits.guesses.succeeded(attempt)
  state.admin = true
}

/**
 * The front door, around the Elysia app: request id, authentication and the limits that are
 * decided from headers alone, RateLimit-* and Request-Id for every reply (Elysia puts them on
 * the replies it builds, see requestPipeline; errors raised here carry them), the concurrency
 * slot given back once the reply exists, one log line per request. Doing this outside
 * Elysia's lifecycle keeps the per-route hook chain short (each global hook costs about 5%
 * of throughput).
 *
 * A reply that is ready at once is returned as it is, not wrapped in a promise: most GETs
 * never wait (Elysia compiles them synchronous, see keepBodylessRoutesSync), and a server
 * answers a plain Response with less work than a promise of one.
 */
export function createGateway(s: Services, app: AnyElysia): RequestHandler {
  let inFlight = 0
  // Each route's body limit and parser, as it declares them (body-reader.ts).
  const bodyRuleOf = bodyRulesOf(app.routes)

  function handle(request: Request, server?: Server<unknown> | null): Response | Promise<Response> {
    const pathname = pathnameOf(request.url)
    let address: string | undefined
    const state = startRequest(request, pathname, () =>
      (address ??= clientAddressOf(request.headers.get('x-forwarded-for'), server?.requestIP(request)?.address ?? 'unknown', s.config.trustedProxyHops)))
    // Counted until the reply exists: a stop waits for every request taken (serve.ts).
    inFlight++
    let routed: Response | Promise<Response>
    try {
      const door = doorOf(pathname)
      if (door === 'external') admitExternal(s, request, state)
      else if (door === 'admin') admitAdmin(s, request, state)
      else if (door === 'console') admitConsole(s, request, pathname, state)
      // Sockets (the AI seat's stream) open only on open paths; the address caps sockets not yet admitted.
      else if (server && request.headers.has('upgrade')) rememberServer(request, server, state.clientAddress())
      const method = request.method
      if (method !== 'GET' && method !== 'HEAD' && method !== 'DELETE') {
        const rule = bodyRuleOf(method, pathname)
        refuseDeclaredSize(request, rule)
        state.bodyRule = rule
      }
      routed = app.fetch(request)
    } catch (error) {
      return failed(request, state, error)
    }
    if (routed instanceof Promise) return routed.then((response) => afterRoute(request, state, response), (error) => failed(request, state, error))
    return afterRoute(request, state, routed)
  }

  function afterRoute(request: Request, state: RequestState, response: Response): Response | Promise<Response> {
    // Grouped commits: nothing is answered before the writes it may have seen are durable.
    const commit = s.database.pendingCommit()
    if (commit) return commit.then(() => finish(request, state, response), (error) => failed(request, state, error))
    return finish(request, state, response)
  }

  function failed(request: Request, state: RequestState, error: unknown): Response {
    const apiError = toApiError('UNKNOWN', error)
    // The gateway's own 429s (the routes' are counted by the services that refuse them).
    if (apiError.status === 429) s.metrics.rateLimited.inc(apiError.extras.reason ?? apiError.code)
    return finish(request, state, errorResponse(apiError, state.id, state.replyHeaders))
  }

  /** Every request ends here exactly once: the slot goes back, then metrics and the log line. */
  function finish(request: Request, state: RequestState, response: Response): Response {
    inFlight--
    if (state.slotHeldBy) {
      s.limits.concurrency.release(state.slotHeldBy)
      state.slotHeldBy = null
    }
    const elapsed = performance.now() - state.startedAt
    // Metrics by route pattern (ids would make a series per object); requests answered before routing (401, 429, 404) count as one.
    s.metrics.observe(request.method, state.route ?? '(unrouted)', response.status, elapsed / 1000)
    if (s.config.logRequests) {
      logger.request({
        request_id: state.id,
        method: request.method,
        // Unrouted (401, 429, 404): the path as sent, masked (it may hold a number or a pasted secret).
        route: state.route ?? maskSecrets(maskSensitive(state.pathname)),
        status: response.status,
        key_id: state.principal?.keyId ?? null,
        duration_ms: Math.round(elapsed * 100) / 100,
      })
    }
    return response
  }

  return Object.assign(handle, { inFlight: () => inFlight })
}
