import { ApiError } from '../errors'
import { ConcurrencyGate, RequestRateLimiter } from '../http/rate-limit'
import type { Clock } from '../jobs/clock'

/** Requests a minute per console session, with a burst (the API keys' token bucket). */
export const CONSOLE_REQUESTS_PER_MINUTE = 600
export const CONSOLE_BURST = 100
/** Campaign streams a session may hold open (a few tabs). */
export const STREAMS_PER_SESSION = 4
/** A search lease not given back (a reply that never ended) frees itself after this long. */
const SEARCH_LEASE_MS = 30_000
/** Sessions whose counters are kept; past it, those idle for two minutes are forgotten. */
const REMEMBERED = 10_000

/**
 * What one console session may hold: requests a minute (600, burst 100), four open campaign
 * streams and one search at a time. A signed-in person is one budget whatever the organization
 * page; a loop from one session cannot take the event loop from everyone else.
 */
export class ConsoleLimiter {
  private readonly rate: RequestRateLimiter
  private readonly streams = new ConcurrencyGate()
  private readonly searches = new Map<string, number>()
  private readonly lastSeen = new Map<string, number>()

  constructor(private readonly clock: Clock) {
    this.rate = new RequestRateLimiter(clock)
  }

  /** Takes one request of the session's budget; throws 429 `rate_limited` with Retry-After past it. */
  take(session: string): void {
    const now = this.clock.now()
    if (!this.lastSeen.has(session) && this.lastSeen.size >= REMEMBERED) this.sweep(now)
    this.lastSeen.set(session, now)
    const decision = this.rate.take({
      keyId: session, orgId: 'console', requestsPerMinute: CONSOLE_REQUESTS_PER_MINUTE, burst: CONSOLE_BURST, planRequestsPerMinute: Number.MAX_SAFE_INTEGER,
    })
    if (!decision.allowed) {
      throw new ApiError('rate_limited', `Too many console requests from this session (${CONSOLE_REQUESTS_PER_MINUTE} a minute, ${CONSOLE_BURST} at once); slow down.`, {
        retryAfter: decision.retryAfter, extras: { reason: 'console_session' },
      })
    }
  }

  /** A stream slot of the session, or 429; give it back with `closeStream`. */
  openStream(session: string): void {
    if (!this.streams.tryAcquire(session, STREAMS_PER_SESSION)) {
      throw new ApiError('rate_limited', `This session already has ${STREAMS_PER_SESSION} live campaign boards open; close one.`, {
        retryAfter: 5, extras: { reason: 'console_streams' },
      })
    }
  }

  closeStream(session: string): void {
    this.streams.release(session)
  }

  openStreams(session: string): number {
    return this.streams.held(session)
  }

  /** The session's one search, or 429 while another of its searches is running. */
  startSearch(session: string): void {
    const now = this.clock.now()
    const since = this.searches.get(session)
    if (since !== undefined && now - since < SEARCH_LEASE_MS) {
      throw new ApiError('rate_limited', 'This session is already searching; wait for that search to answer.', {
        retryAfter: 1, extras: { reason: 'console_search' },
      })
    }
    this.searches.set(session, now)
  }

  endSearch(session: string): void {
    this.searches.delete(session)
  }

  /** Forgets a session's request counters (signed out). */
  forget(session: string): void {
    this.rate.forget(session)
    this.lastSeen.delete(session)
  }

  private sweep(now: number): void {
    for (const [session, at] of this.lastSeen) {
      if (now - at > 120_000) this.forget(session)
    }
  }
}
