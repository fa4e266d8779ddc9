import type { Clock } from '../jobs/clock'

const MINUTE = 60_000

export interface RateLimitInfo {
  /** The tighter of the key's and the plan's requests a minute. */
  limit: number
  remaining: number
  /** Seconds until the minute restarts. */
  reset: number
}

export type RateDecision = ({ allowed: true } | { allowed: false; retryAfter: number }) & RateLimitInfo

interface KeyWindow {
  windowStart: number
  count: number
  tokens: number
  refilledAt: number
}

interface CountWindow {
  windowStart: number
  count: number
}

/**
 * Requests a minute: per key a fixed 60-second window plus a token bucket (`burst` tokens,
 * refilled at requests_per_minute/60 a second), and per organization a 60-second window
 * on its plan limit (DESIGN.md "Rate limits"). Windows are clock minutes.
 */
export class RequestRateLimiter {
  private readonly keys = new Map<string, KeyWindow>()
  private readonly orgs = new Map<string, CountWindow>()

  constructor(private readonly clock: Clock) {}

  take(limits: { keyId: string; orgId: string; requestsPerMinute: number; burst: number; planRequestsPerMinute: number }): RateDecision {
    const now = this.clock.now()
    const windowStart = now - (now % MINUTE)
    const reset = Math.max(1, Math.ceil((windowStart + MINUTE - now) / 1000))
    const perMs = limits.requestsPerMinute / MINUTE

    let key = this.keys.get(limits.keyId)
    if (!key) {
      key = { windowStart, count: 0, tokens: limits.burst, refilledAt: now }
      this.keys.set(limits.keyId, key)
    }
    if (key.windowStart !== windowStart) {
      key.windowStart = windowStart
      key.count = 0
    }
    key.tokens = Math.min(limits.burst, key.tokens + (now - key.refilledAt) * perMs)
    key.refilledAt = now

    let org = this.orgs.get(limits.orgId)
    if (!org) {
      org = { windowStart, count: 0 }
      this.orgs.set(limits.orgId, org)
    }
    if (org.windowStart !== windowStart) {
      org.windowStart = windowStart
      org.count = 0
    }

    const limit = Math.min(limits.requestsPerMinute, limits.planRequestsPerMinute)

    if (key.count >= limits.requestsPerMinute || org.count >= limits.planRequestsPerMinute) {
      return { allowed: false, retryAfter: reset, limit, remaining: 0, reset }
    }
    if (key.tokens < 1) {
      const retryAfter = Math.max(1, Math.ceil((1 - key.tokens) / perMs / 1000))
      return { allowed: false, retryAfter, limit, remaining: remainingOf(limits, key, org), reset }
    }
    key.count++
    org.count++
    key.tokens -= 1
    return { allowed: true, limit, remaining: remainingOf(limits, key, org), reset }
  }

  /** The headers' figures without taking a request (for replies refused before the limiter). */
  peek(limits: { keyId: string; orgId: string; requestsPerMinute: number; planRequestsPerMinute: number }): RateLimitInfo {
    const now = this.clock.now()
    const windowStart = now - (now % MINUTE)
    const key = this.keys.get(limits.keyId)
    const org = this.orgs.get(limits.orgId)
    const keyUsed = key && key.windowStart === windowStart ? key.count : 0
    const orgUsed = org && org.windowStart === windowStart ? org.count : 0
    return {
      limit: Math.min(limits.requestsPerMinute, limits.planRequestsPerMinute),
      remaining: Math.max(0, Math.min(limits.requestsPerMinute - keyUsed, limits.planRequestsPerMinute - orgUsed)),
      reset: Math.max(1, Math.ceil((windowStart + MINUTE - now) / 1000)),
    }
  }

  /** Forgets a key's counters (after its limits change). */
  forget(keyId: string): void {
    this.keys.delete(keyId)
  }
}

function remainingOf(limits: { requestsPerMinute: number; planRequestsPerMinute: number }, key: KeyWindow, org: CountWindow): number {
  return Math.max(0, Math.min(limits.requestsPerMinute - key.count, limits.planRequestsPerMinute - org.count))
}

/** Counts in fixed clock-minute windows per name; used for new leads per key and failed auth per address. */
export class MinuteCounter {
  private readonly windows = new Map<string, CountWindow>()

  /** `maxNames`: past it, names of past minutes are dropped, then the oldest of this one (rotating addresses cannot grow it). */
  constructor(private readonly clock: Clock, private readonly maxNames = 50_000) {}

  /** Adds `amount` unless that would pass `limit`; all or nothing. */
  tryAdd(name: string, amount: number, limit: number): { allowed: boolean; retryAfter: number; remaining: number; reset: number } {
    const now = this.clock.now()
    const windowStart = now - (now % MINUTE)
    const reset = Math.max(1, Math.ceil((windowStart + MINUTE - now) / 1000))
    let window = this.windows.get(name)
    if (!window || window.windowStart !== windowStart) {
      if (this.windows.size >= this.maxNames) this.sweep(windowStart)
      window = { windowStart, count: 0 }
      // Moved to the end: the first names in the map are the ones counted longest ago.
      this.windows.delete(name)
      this.windows.set(name, window)
    }
    if (window.count + amount > limit) {
      return { allowed: false, retryAfter: reset, remaining: Math.max(0, limit - window.count), reset }
    }
    window.count += amount
    return { allowed: true, retryAfter: 0, remaining: limit - window.count, reset }
  }

  /** How many are counted in the current window. */
  used(name: string): number {
    const now = this.clock.now()
    const window = this.windows.get(name)
    return window && window.windowStart === now - (now % MINUTE) ? window.count : 0
  }

  /** Names held (tests: the cap). */
  get size(): number {
    return this.windows.size
  }

  /** Seconds until the current minute ends. */
  resetIn(): number {
    const now = this.clock.now()
    return Math.max(1, Math.ceil((now - (now % MINUTE) + MINUTE - now) / 1000))
  }

  /** Takes back `amount` added at `at`, if its minute is still the current one (a reservation that was not needed). */
  giveBack(name: string, amount: number, at: number): void {
    const window = this.windows.get(name)
    if (window && window.windowStart === at - (at % MINUTE)) window.count = Math.max(0, window.count - amount)
  }

  private sweep(current: number): void {
    for (const [name, window] of this.windows) if (window.windowStart !== current) this.windows.delete(name)
    // Down to nine tenths: the next sweep is a tenth of maxNames away, not the next new name.
    const keep = Math.floor(this.maxNames * 0.9)
    for (const name of this.windows.keys()) {
      if (this.windows.size <= keep) break
      this.windows.delete(name)
    }
  }
}

/**
 * Failures per name in a sliding window (an account's failed sign-ins): `limit` of them within
 * `windowMs` close the name until the oldest of those is `windowMs` old. At most `maxNames`
 * names are held; past that the one that failed longest ago is forgotten first, so an attacker
 * rotating names cannot grow memory.
 */
export class FailureWindow {
  private readonly failures = new Map<string, number[]>()

  constructor(
    private readonly clock: Clock,
    readonly limit: number,
    readonly windowMs: number,
    private readonly maxNames = 50_000,
  ) {}

  /** Seconds until `name` may be tried again; 0 while it is under its limit. */
  closedFor(name: string): number {
    const times = this.recent(name)
    if (times.length < this.limit) return 0
    return Math.max(1, Math.ceil((times[times.length - this.limit]! + this.windowMs - this.clock.now()) / 1000))
  }

  /** Counts a failure now; returns its time (for `remove`). */
  add(name: string): number {
    const at = this.clock.now()
    const times = this.recent(name)
    times.push(at)
    // Only the newest `limit` decide anything.
    if (times.length > this.limit) times.splice(0, times.length - this.limit)
    this.failures.delete(name)
    this.failures.set(name, times)
    if (this.failures.size > this.maxNames) this.failures.delete(this.failures.keys().next().value!)
    return at
  }

  /** Takes back the failure counted at `at` (an attempt that turned out right). */
  remove(name: string, at: number): void {
    const times = this.failures.get(name)
    const index = times ? times.lastIndexOf(at) : -1
    if (index >= 0) times!.splice(index, 1)
  }

  /** Names held (tests: the cap). */
  get size(): number {
    return this.failures.size
  }

  private recent(name: string): number[] {
    const times = this.failures.get(name)
    if (!times) return []
    const since = this.clock.now() - this.windowMs
    let stale = 0
    while (stale < times.length && times[stale]! <= since) stale++
    if (stale > 0) times.splice(0, stale)
    return times
  }
}

/** Simultaneous requests per key. */
export class ConcurrencyGate {
  private readonly inFlight = new Map<string, number>()

  tryAcquire(keyId: string, max: number): boolean {
    const current = this.inFlight.get(keyId) ?? 0
    if (current >= max) return false
    this.inFlight.set(keyId, current + 1)
    return true
  }

  release(keyId: string): void {
    const current = this.inFlight.get(keyId) ?? 0
    if (current <= 1) this.inFlight.delete(keyId)
    else this.inFlight.set(keyId, current - 1)
  }

  held(keyId: string): number {
    return this.inFlight.get(keyId) ?? 0
  }
}
