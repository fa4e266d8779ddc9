import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { callingRules } from '../../src/domain/calling-rules'
import { firstCallable, placeLead, type PlacementInput, type Wait } from '../../src/domain/leads/placement'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Every placement asks the calling rules (the real engine) at the instant the lead's wait
 * ends: a retry after an outcome, a booked callback, call now. The clock is the `now` given;
 * the calls that count toward caps are given as their start instants.
 */

const at = (iso: string): number => {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) throw new Error(`bad ISO in test: ${iso}`)
  return ms
}
const S = 1000
const MIN = 60 * S
const HOUR = 60 * MIN

const CAMPAIGN = { status: 'active' as const, cooldownHours: 0 }
const WINDOW = { start: '08:00', end: '21:00' }

/** The engine's verdict for `phone` at any instant, with `calls` to the number so far. */
function rulesFor(phone: string, calls: readonly number[] = []): (at: number) => ReturnType<typeof callingRules.evaluate> {
  const reach = callingRules.reachOf(phone, null, 'America/New_York')
  return (t) => callingRules.evaluate({ reach, campaignWindow: WINDOW, callTimes: calls.filter((c) => c <= t), now: t })
}

function callable(phone: string, now: number, wait: Wait | null, calls: readonly number[] = [], extra: Partial<PlacementInput> = {}): Wait {
  return firstCallable({ campaign: CAMPAIGN, now, lastContactAt: null, rules: rulesFor(phone, calls), notBefore: wait, ...extra })
}

/** Placing the lead again when its time comes queues it: no re-placement loop at due time. */
function dueThenQueued(phone: string, due: Wait, calls: readonly number[] = []): void {
  expect(placeLead({ campaign: CAMPAIGN, now: due.at, lastContactAt: null, spendCapReached: false, rules: rulesFor(phone, calls) })).toEqual({ status: 'queued' })
  expect(placeLead({ campaign: CAMPAIGN, now: due.at - 1, lastContactAt: null, spendCapReached: false, rules: rulesFor(phone, calls) }).status).toBe('scheduled')
}

// Monday 2026-01-05 15:00 UTC: 10:00 in Miami and New York.
const MONDAY_10 = at('2026-01-05T15:00:00.000Z')

describe('a retry after an outcome', () => {
  // Three unanswered calls 6 minutes apart, each ringing 30 s; retry_minutes 5.
  const calls = [MONDAY_10, MONDAY_10 + 6 * MIN, MONDAY_10 + 12 * MIN]
  const endOf = (i: number) => calls[i]! + 30 * S

  test('Florida, after the second unanswered call: the retry keeps its time (two calls in 24 h)', () => {
    const wait: Wait = { at: endOf(1) + 5 * MIN, reason: 'retry_after_outcome' }
    expect(callable('+13055550002', endOf(1), wait, calls.slice(0, 2))).toEqual(wait)
  })

  test('Florida, after the third unanswered call: recent_contact_cooldown 24 h after the first call (FL-cap), not 5 minutes later', () => {
    const due = callable('+13055550002', endOf(2), { at: endOf(2) + 5 * MIN, reason: 'retry_after_outcome' }, calls)
    expect(due).toEqual({ at: MONDAY_10 + 24 * HOUR, reason: 'recent_contact_cooldown' })
    dueThenQueued('+13055550002', due, calls)
  })

  test('New York (no cap): the third retry keeps its time', () => {
    const wait: Wait = { at: endOf(2) + 5 * MIN, reason: 'retry_after_outcome' }
    expect(callable('+12125550002', endOf(2), wait, calls)).toEqual(wait)
  })

  test('landing at 20:58 in Florida (its hours end at 20:00): the next morning at 08:00, outside_calling_hours', () => {
    // The call ended at 19:58 Miami time; retry_minutes 60.
    const ended = at('2026-01-06T00:58:00.000Z')
    const due = callable('+13055550002', ended, { at: ended + HOUR, reason: 'retry_after_outcome' }, [ended - 30 * S])
    expect(due).toEqual({ at: at('2026-01-06T13:00:00.000Z'), reason: 'outside_calling_hours' })
    dueThenQueued('+13055550002', due, [ended - 30 * S])
  })

  test('the same retry for a New York lead (federal 21:00) keeps 20:58', () => {
    const ended = at('2026-01-06T00:58:00.000Z')
    expect(callable('+12125550002', ended, { at: ended + HOUR, reason: 'retry_after_outcome' })).toEqual({ at: ended + HOUR, reason: 'retry_after_outcome' })
  })

  test('a wait already over (an outcome filed late) is asked about now: kept when allowed, else the rules decide', () => {
    const wait: Wait = { at: MONDAY_10 - MIN, reason: 'retry_after_outcome' }
    expect(callable('+12125550002', MONDAY_10, wait)).toEqual(wait)
    const night = at('2026-01-06T03:00:00.000Z')
    expect(callable('+12125550002', night, { at: night - MIN, reason: 'retry_after_outcome' })).toEqual({
      at: at('2026-01-06T13:00:00.000Z'), reason: 'outside_calling_hours',
    })
  })

  test("the campaign's cooldown ending after the retry wins, and the rules are asked when it ends", () => {
    const campaign = { status: 'active' as const, cooldownHours: 12 }
    const lastContactAt = MONDAY_10
    // The cooldown ends at 22:00 New York: the rules move it to 08:00.
    const due = callable('+12125550002', MONDAY_10 + MIN, { at: MONDAY_10 + 5 * MIN, reason: 'retry_after_outcome' }, [], { campaign, lastContactAt })
    expect(due).toEqual({ at: at('2026-01-06T13:00:00.000Z'), reason: 'outside_calling_hours' })
    const earlier = { status: 'active' as const, cooldownHours: 2 }
    expect(callable('+12125550002', MONDAY_10 + MIN, { at: MONDAY_10 + 5 * MIN, reason: 'retry_after_outcome' }, [], { campaign: earlier, lastContactAt })).toEqual({
      at: MONDAY_10 + 2 * HOUR, reason: 'recent_contact_cooldown',
    })
  })
})

describe('a booked callback', () => {
  test('booked for 22:00 New York: due at 08:00 the next day, outside_calling_hours', () => {
    const booked = at('2026-01-06T03:00:00.000Z')
    const due = callable('+12125550014', at('2026-01-06T01:00:50.000Z'), { at: booked, reason: null })
    expect(due).toEqual({ at: at('2026-01-06T13:00:00.000Z'), reason: 'outside_calling_hours' })
    dueThenQueued('+12125550014', due)
  })

  test('booked for 10:00 the next day: due at its booked time, no reason of its own', () => {
    const booked = at('2026-01-06T15:00:00.000Z')
    expect(callable('+12125550006', MONDAY_10, { at: booked, reason: null })).toEqual({ at: booked, reason: null })
  })

  test('a Florida callback after a third call in 24 h: due when the cap allows, recent_contact_cooldown', () => {
    const calls = [MONDAY_10, MONDAY_10 + HOUR, MONDAY_10 + 2 * HOUR]
    const due = callable('+13055550014', MONDAY_10 + 2 * HOUR + MIN, { at: MONDAY_10 + 4 * HOUR, reason: null }, calls)
    expect(due).toEqual({ at: MONDAY_10 + 24 * HOUR, reason: 'recent_contact_cooldown' })
  })
})

describe('call now', () => {
  const place = (phone: string, now: number, calls: readonly number[] = []) =>
    placeLead({ campaign: CAMPAIGN, now, lastContactAt: null, spendCapReached: false, rules: rulesFor(phone, calls) })

  test('at 23:00 New York: scheduled for 08:00, outside_calling_hours', () => {
    expect(place('+12125550002', at('2026-01-06T04:00:00.000Z'))).toEqual({
      status: 'scheduled', dueAt: at('2026-01-06T13:00:00.000Z'), reason: 'outside_calling_hours',
    })
  })

  test('an Alabama lead at 23:00 on a Saturday (no Sunday calls): Monday 08:00 Chicago', () => {
    // Saturday 2026-01-10 23:00 Chicago = Sunday 05:00 UTC.
    expect(place('+12055550002', at('2026-01-11T05:00:00.000Z'))).toEqual({
      status: 'scheduled', dueAt: at('2026-01-12T14:00:00.000Z'), reason: 'outside_calling_hours',
    })
  })

  test('inside the hours, under the cap: queued', () => {
    expect(place('+13055550002', MONDAY_10, [MONDAY_10 - HOUR])).toEqual({ status: 'queued' })
  })
})
