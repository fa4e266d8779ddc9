import { randomBytes } from 'node:crypto'
import type { Principal } from '../domain/access/permissions'

/** What the pipeline learns about one request as it passes through. */
export interface RequestState {
  readonly id: string
  readonly startedAt: number
  readonly pathname: string
  readonly clientAddress: string
  principal: Principal | null
  /** Key whose concurrency slot this request holds, released once the reply is sent. */
  slotHeldBy: string | null
  /** Set while an Idempotency-Key request runs, so its reply can be stored. */
  idempotency: { keyId: string; key: string; fingerprint: string } | null
}

const states = new WeakMap<Request, RequestState>()

export const newRequestId = (): string => `req_${randomBytes(12).toString('hex')}`

export function startRequest(request: Request, pathname: string, clientAddress: string): RequestState {
  const state: RequestState = {
    id: newRequestId(),
    startedAt: performance.now(),
    pathname,
    clientAddress,
    principal: null,
    slotHeldBy: null,
    idempotency: null,
  }
  states.set(request, state)
  return state
}

export const stateOf = (request: Request): RequestState | undefined => states.get(request)
