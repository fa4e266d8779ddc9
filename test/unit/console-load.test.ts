import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { boardHub, type BoardSubscriber } from '../../src/console/board-stream'
import { ConsoleLimiter } from '../../src/console/console-limits'
import { FakeClock } from '../../src/jobs/clock'
import { refusalOf } from './thrown'

setDefaultTimeout(60_000)

describe('console limiter (per session)', () => {
  test('a burst of 100, then 10 a second; 600 a clock minute at most; sessions apart', () => {
    const clock = new FakeClock(Date.UTC(2026, 0, 5, 15, 0, 0))
    const limits = new ConsoleLimiter(clock)
    for (let i = 0; i < 100; i++) expect(refusalOf(() => limits.take('a'))).toBeNull()
    const refused = refusalOf(() => limits.take('a'))
    expect(refused).toMatchObject({ code: 'rate_limited', retryAfter: 1 })
    expect(refused!.extras.reason).toBe('console_session')
    expect(refusalOf(() => limits.take('b'))).toBeNull()
    clock.set(clock.now() + 1_000)
    for (let i = 0; i < 10; i++) expect(refusalOf(() => limits.take('a'))).toBeNull()
    expect(refusalOf(() => limits.take('a'))).not.toBeNull()
    // Steady 10 a second for the rest of the minute: the window's 600 is the cap.
    let taken = 110
    for (let s = 2; s < 59 && taken < 600; s++) {
      clock.set(Date.UTC(2026, 0, 5, 15, 0, s))
      for (let i = 0; i < 10 && taken < 600; i++, taken++) expect(refusalOf(() => limits.take('a'))).toBeNull()
    }
    clock.set(Date.UTC(2026, 0, 5, 15, 0, 59))
    expect(refusalOf(() => limits.take('a'))).toMatchObject({ code: 'rate_limited' })
  })

  test('four streams a session; the fifth refused until one closes', () => {
    const limits = new ConsoleLimiter(new FakeClock())
    for (let i = 0; i < 4; i++) limits.openStream('a')
    expect(refusalOf(() => limits.openStream('a'))).toMatchObject({ code: 'rate_limited', retryAfter: 5 })
    expect(refusalOf(() => limits.openStream('b'))).toBeNull()
    limits.closeStream('a')
    expect(refusalOf(() => limits.openStream('a'))).toBeNull()
    expect(limits.openStreams('a')).toBe(4)
  })

  test('one search at a time a session; a lease never given back frees itself after 30 s', () => {
    const clock = new FakeClock()
    const limits = new ConsoleLimiter(clock)
    limits.startSearch('a')
    expect(refusalOf(() => limits.startSearch('a'))).toMatchObject({ code: 'rate_limited', retryAfter: 1 })
    expect(refusalOf(() => limits.startSearch('b'))).toBeNull()
    limits.endSearch('a')
    expect(refusalOf(() => limits.startSearch('a'))).toBeNull()
    clock.set(clock.now() + 30_000)
    expect(refusalOf(() => limits.startSearch('a'))).toBeNull()
  })
})

describe('campaign board streams', () => {
  const subscriber = (allowed: { value: boolean }) => {
    const got: string[] = []
    let ended = 0
    const s: BoardSubscriber = {
      stillAllowed: () => allowed.value,
      send: (bytes) => (got.push(new TextDecoder().decode(bytes)), true),
      end: () => void ended++,
    }
    return { s, got, ended: () => ended }
  }

  test('one board computation per organization a tick, whatever the number of streams', () => {
    const computed: string[] = []
    const hub = boardHub({ board: (org) => (computed.push(org), [{ org }]), at: () => 'now', everyMs: 2_000, timers: false })
    const streams = Array.from({ length: 50 }, () => subscriber({ value: true }))
    for (const x of streams) hub.subscribe('org-a', x.s)
    const other = subscriber({ value: true })
    hub.subscribe('org-b', other.s)
    // Streams opened within a tick share its board.
    expect(computed).toEqual(['org-a', 'org-b'])
    expect(streams.every((x) => x.got.length === 1)).toBe(true)
    hub.tick('org-a')
    hub.tick('org-b')
    hub.tick('org-a')
    expect(computed).toEqual(['org-a', 'org-b', 'org-a', 'org-b', 'org-a'])
    expect(streams.every((x) => x.got.length === 3 && x.got[0] === 'event: campaigns\ndata: {"data":[{"org":"org-a"}],"at":"now"}\n\n')).toBe(true)
    expect(hub.open('org-a')).toBe(50)
  })

  test('a stream whose session no longer holds ends at the next tick; the others go on; the last one gone stops the organization', () => {
    let boards = 0
    const hub = boardHub({ board: () => ++boards, at: () => 'now', everyMs: 2_000, timers: false })
    const keep = subscriber({ value: true })
    const flag = { value: true }
    const lose = subscriber(flag)
    hub.subscribe('org', keep.s)
    const unsubscribe = hub.subscribe('org', lose.s)
    flag.value = false
    hub.tick('org')
    expect(lose.ended()).toBe(1)
    expect(keep.ended()).toBe(0)
    expect(hub.open('org')).toBe(1)
    unsubscribe()
    expect(lose.ended()).toBe(1)
    // No stream allowed: no board is computed for nobody.
    const before = boards
    const denied = subscriber({ value: false })
    hub.subscribe('other', denied.s)
    expect(denied.ended()).toBe(1)
    expect(boards).toBe(before)
    expect(hub.open('other')).toBe(0)
  })
})
