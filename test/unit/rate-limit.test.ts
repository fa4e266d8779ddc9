import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { FakeClock } from '../../src/jobs/clock'
import { ConcurrencyGate, MinuteCounter, RequestRateLimiter } from '../../src/http/rate-limit'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** 2026-01-05 15:00:00 UTC, exactly on a clock minute. */
const MINUTE_START = Date.UTC(2026, 0, 5, 15, 0, 0)

const limits = (over: Partial<Parameters<RequestRateLimiter['take']>[0]> = {}) => ({
  keyId: 'dk_live_a',
  orgId: 'org-1',
  requestsPerMinute: 120,
  burst: 20,
  planRequestsPerMinute: 600,
  ...over,
})

function takeN(limiter: RequestRateLimiter, n: number, l = limits()) {
  const decisions = []
  for (let i = 0; i < n; i++) decisions.push(limiter.take(l))
  return decisions
}

describe('RequestRateLimiter: burst token bucket', () => {
  test('a burst of 20 at once passes, the 21st waits for a token', () => {
    const clock = new FakeClock(MINUTE_START)
    const limiter = new RequestRateLimiter(clock)
    const burst = takeN(limiter, 20)
    expect(burst.every((d) => d.allowed)).toBe(true)
    expect(burst.map((d) => d.remaining)).toEqual(Array.from({ length: 20 }, (_, i) => 119 - i))

    const refused = limiter.take(limits())
    // 120 a minute = one token every 0.5 s, rounded up to whole seconds.
    expect(refused).toEqual({ allowed: false, retryAfter: 1, limit: 120, remaining: 100, reset: 60 })
  })

  test('tokens refill at rpm/60 per second', () => {
    const clock = new FakeClock(MINUTE_START)
    const limiter = new RequestRateLimiter(clock)
    takeN(limiter, 20)
    clock.set(MINUTE_START + 499)
    expect(limiter.take(limits()).allowed).toBe(false)
    clock.set(MINUTE_START + 500)
    expect(limiter.take(limits()).allowed).toBe(true)
    expect(limiter.take(limits()).allowed).toBe(false)
    // 5 s later: 10 more tokens (2 a second).
    clock.set(MINUTE_START + 5500)
    const after = takeN(limiter, 11)
    expect(after.filter((d) => d.allowed)).toHaveLength(10)
  })

  test('the bucket never holds more than burst', () => {
    const clock = new FakeClock(MINUTE_START)
    const limiter = new RequestRateLimiter(clock)
    limiter.take(limits())
    clock.set(MINUTE_START + 50_000)
    expect(takeN(limiter, 21).filter((d) => d.allowed)).toHaveLength(20)
  })

  test('retryAfter for a slow key is the time to the next token', () => {
    const clock = new FakeClock(MINUTE_START)
    const limiter = new RequestRateLimiter(clock)
    // 6 a minute: one token every 10 s.
    const slow = limits({ requestsPerMinute: 6, burst: 1 })
    expect(limiter.take(slow).allowed).toBe(true)
    const refused = limiter.take(slow)
    expect(refused.allowed).toBe(false)
    if (!refused.allowed) expect(refused.retryAfter).toBe(10)
    clock.set(MINUTE_START + 4000)
    const later = limiter.take(slow)
    if (later.allowed) throw new Error('expected a refusal')
    expect(later.retryAfter).toBe(6)
  })
})

describe('RequestRateLimiter: requests per minute window', () => {
  test('at the limit: refused with remaining 0 and Retry-After = seconds to the next minute', () => {
    const clock = new FakeClock(MINUTE_START)
    const limiter = new RequestRateLimiter(clock)
    const l = limits({ requestsPerMinute: 5, burst: 5 })
    const ok = takeN(limiter, 5, l)
    expect(ok.map((d) => d.allowed)).toEqual([true, true, true, true, true])
    expect(ok.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0])
    expect(limiter.take(l)).toEqual({ allowed: false, retryAfter: 60, limit: 5, remaining: 0, reset: 60 })

    // Halfway through the minute: tokens have refilled, but the window is still full.
    clock.set(MINUTE_START + 30_000)
    expect(limiter.take(l)).toEqual({ allowed: false, retryAfter: 30, limit: 5, remaining: 0, reset: 30 })
  })

  test('the window is the clock minute: it resets at :00, not 60 s after the first request', () => {
    const clock = new FakeClock(MINUTE_START + 45_000)
    const limiter = new RequestRateLimiter(clock)
    const l = limits({ requestsPerMinute: 5, burst: 5 })
    takeN(limiter, 5, l)
    const refused = limiter.take(l)
    expect(refused.allowed).toBe(false)
    expect(refused.reset).toBe(15)

    clock.set(MINUTE_START + 59_999)
    expect(limiter.take(l).allowed).toBe(false)
    clock.set(MINUTE_START + 60_000)
    const next = limiter.take(l)
    expect(next).toEqual({ allowed: true, limit: 5, remaining: 4, reset: 60 })
  })

  test('reset counts whole seconds up, never 0', () => {
    const clock = new FakeClock(MINUTE_START + 59_900)
    const limiter = new RequestRateLimiter(clock)
    expect(limiter.take(limits()).reset).toBe(1)
    clock.set(MINUTE_START + 60_000 + 10_500)
    expect(limiter.take(limits()).reset).toBe(50)
  })

  test('keys have their own windows', () => {
    const clock = new FakeClock(MINUTE_START)
    const limiter = new RequestRateLimiter(clock)
    const a = limits({ keyId: 'a', requestsPerMinute: 2, burst: 2 })
    const b = limits({ keyId: 'b', requestsPerMinute: 2, burst: 2 })
    takeN(limiter, 2, a)
    expect(limiter.take(a).allowed).toBe(false)
    expect(limiter.take(b).allowed).toBe(true)
  })

  test('forget() clears a key after its limits change', () => {
    const clock = new FakeClock(MINUTE_START)
    const limiter = new RequestRateLimiter(clock)
    const l = limits({ requestsPerMinute: 2, burst: 2 })
    takeN(limiter, 2, l)
    expect(limiter.take(l).allowed).toBe(false)
    limiter.forget(l.keyId)
    expect(limiter.take(l).allowed).toBe(true)
  })
})

describe('RequestRateLimiter: organization plan', () => {
  test('the plan limit counts all keys of the organization together', () => {
    const clock = new FakeClock(MINUTE_START)
    const limiter = new RequestRateLimiter(clock)
    const a = limits({ keyId: 'a', planRequestsPerMinute: 3 })
    const b = limits({ keyId: 'b', planRequestsPerMinute: 3 })
    expect(limiter.take(a)).toEqual({ allowed: true, limit: 3, remaining: 2, reset: 60 })
    expect(limiter.take(b)).toEqual({ allowed: true, limit: 3, remaining: 1, reset: 60 })
    expect(limiter.take(a)).toEqual({ allowed: true, limit: 3, remaining: 0, reset: 60 })
    expect(limiter.take(b)).toEqual({ allowed: false, retryAfter: 60, limit: 3, remaining: 0, reset: 60 })
    // Another organization is unaffected.
    expect(limiter.take(limits({ keyId: 'c', orgId: 'org-2', planRequestsPerMinute: 3 })).allowed).toBe(true)
    clock.set(MINUTE_START + 60_000)
    expect(limiter.take(b).allowed).toBe(true)
  })

  test.each([
    [120, 600, 120],
    [1000, 600, 600],
    [300, 300, 300],
  ])('key %i a minute, plan %i: RateLimit-Limit %i', (rpm, plan, expected) => {
    const limiter = new RequestRateLimiter(new FakeClock(MINUTE_START))
    const decision = limiter.take(limits({ requestsPerMinute: rpm, planRequestsPerMinute: plan }))
    expect(decision.limit).toBe(expected)
    expect(decision.remaining).toBe(expected - 1)
  })

  test('remaining is the tighter of what the key and the plan have left', () => {
    const limiter = new RequestRateLimiter(new FakeClock(MINUTE_START))
    // Another key used 595 of the plan's 600.
    const other = limits({ keyId: 'other', requestsPerMinute: 1000, burst: 1000 })
    takeN(limiter, 595, other)
    expect(limiter.take(limits()).remaining).toBe(4)
  })

  test('refused requests do not count', () => {
    const clock = new FakeClock(MINUTE_START)
    const limiter = new RequestRateLimiter(clock)
    const l = limits({ requestsPerMinute: 3, burst: 1, planRequestsPerMinute: 600 })
    expect(limiter.take(l).allowed).toBe(true)
    // Refused by the bucket: the window keeps its 2 remaining.
    expect(takeN(limiter, 5, l).map((d) => [d.allowed, d.remaining])).toEqual(Array(5).fill([false, 2]))
  })
})

describe('MinuteCounter', () => {
  test('tryAdd is all or nothing', () => {
    const clock = new FakeClock(MINUTE_START + 20_000)
    const counter = new MinuteCounter(clock)
    expect(counter.tryAdd('key', 50, 60)).toEqual({ allowed: true, retryAfter: 0, remaining: 10, reset: 40 })
    // A batch of 11 does not fit in the 10 left: nothing is added.
    expect(counter.tryAdd('key', 11, 60)).toEqual({ allowed: false, retryAfter: 40, remaining: 10, reset: 40 })
    expect(counter.used('key')).toBe(50)
    expect(counter.tryAdd('key', 10, 60)).toEqual({ allowed: true, retryAfter: 0, remaining: 0, reset: 40 })
    expect(counter.tryAdd('key', 1, 60).allowed).toBe(false)
    expect(counter.used('key')).toBe(60)
  })

  test('a batch over the limit on an empty window is refused', () => {
    const counter = new MinuteCounter(new FakeClock(MINUTE_START))
    expect(counter.tryAdd('key', 61, 60).allowed).toBe(false)
    expect(counter.used('key')).toBe(0)
  })

  test('windows are per name and restart at the next clock minute', () => {
    const clock = new FakeClock(MINUTE_START + 59_000)
    const counter = new MinuteCounter(clock)
    expect(counter.tryAdd('10.0.0.1', 20, 20).allowed).toBe(true)
    expect(counter.tryAdd('10.0.0.1', 1, 20).allowed).toBe(false)
    expect(counter.tryAdd('10.0.0.2', 1, 20).allowed).toBe(true)
    clock.set(MINUTE_START + 60_000)
    expect(counter.used('10.0.0.1')).toBe(0)
    expect(counter.tryAdd('10.0.0.1', 1, 20)).toEqual({ allowed: true, retryAfter: 0, remaining: 19, reset: 60 })
  })
})

describe('ConcurrencyGate', () => {
  test('up to max slots per key, given back on release', () => {
    const gate = new ConcurrencyGate()
    expect([1, 2, 3].map(() => gate.tryAcquire('a', 2))).toEqual([true, true, false])
    expect(gate.held('a')).toBe(2)
    // Another key has its own slots.
    expect(gate.tryAcquire('b', 2)).toBe(true)
    gate.release('a')
    expect(gate.held('a')).toBe(1)
    expect(gate.tryAcquire('a', 2)).toBe(true)
    expect(gate.tryAcquire('a', 2)).toBe(false)
  })

  test('releasing more than held never goes below zero', () => {
    const gate = new ConcurrencyGate()
    gate.tryAcquire('a', 1)
    gate.release('a')
    gate.release('a')
    expect(gate.held('a')).toBe(0)
    expect(gate.tryAcquire('a', 1)).toBe(true)
    expect(gate.tryAcquire('a', 1)).toBe(false)
  })

  test('a lowered max applies to the next acquire', () => {
    const gate = new ConcurrencyGate()
    gate.tryAcquire('a', 20)
    gate.tryAcquire('a', 20)
    expect(gate.tryAcquire('a', 2)).toBe(false)
    expect(gate.tryAcquire('a', 3)).toBe(true)
  })
})
