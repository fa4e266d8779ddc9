import { randomBytes } from 'node:crypto'
import type { Principal } from '../domain/access/permissions'
import type { ConsoleSession } from '../domain/console/sessions'
import type { BodyRule } from './body-reader'

/** What the pipeline learns about one request as it passes through. */
export interface RequestState {
  readonly id: string
  readonly startedAt: number
  readonly pathname: string
  /** The matched route pattern, when a route took the request (for the log). */
  route: string | null
  /** The client's address, looked up only when needed (failed-auth limiting). */
  clientAddress: () => string
  /** The API key that authenticated it (external API). */
  principal: Principal | null
  /** True once the admin token was checked (admin API, /metrics). */
  admin: boolean
  /** The console session that signed the request (console API). */
  console: ConsoleSession | null
  /**
   * Headers every reply carries (Request-Id, RateLimit-*). Given to Elysia before it builds the
   * reply: setting headers on a finished Response costs Bun more than the rest of the request.
   */
  replyHeaders: Record<string, string>
  /** Key whose concurrency slot this request holds, released once the reply is sent. */
  slotHeldBy: string | null
  /** Set while an Idempotency-Key request runs, so its reply can be stored. */
  idempotency: { keyId: string; key: string; fingerprint: string } | null
  /** How the routed body is read, found by the gateway from the route (null: the JSON default). */
  bodyRule: BodyRule | null
}

const states = new WeakMap<Request, RequestState>()

// A random prefix per process start plus a counter: unique across restarts, and cheap. The
// counter starts at 2^48, so its hex form is always 13 digits wide without padding.
const bootPrefix = `req_${randomBytes(6).toString('hex')}`
let counter = 2 ** 48
export const newRequestId = (): string => bootPrefix + (counter++).toString(16)

export function startRequest(request: Request, pathname: string, clientAddress: () => string): RequestState {
  const id = newRequestId()
  const state: RequestState = {
    id,
    startedAt: performance.now(),
    pathname,
    route: null,
    clientAddress,
    principal: null,
    admin: false,
    console: null,
    replyHeaders: { 'request-id': id },
    slotHeldBy: null,
    idempotency: null,
    bodyRule: null,
  }
  states.set(request, state)
  return state
}

export const stateOf = (request: Request): RequestState | undefined => states.get(request)
