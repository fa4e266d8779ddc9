import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { nextCallableAt } from '../../src/domain/calling-hours/calling-window'
import { placeLead, type PlacementInput, type RulesAnswer } from '../../src/domain/leads/placement'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * placeLead: where a lead goes now (spec lead status table: held with held_reason, scheduled
 * with scheduled_reason and scheduled_for, else queued; DESIGN.md calling hours "every one of
 * its zones inside the window"). The calling rules come as the engine's verdict; here a
 * stand-in answers from one window in the lead's zones (the engine has tests of its own).
 */

const at = (iso: string): number => {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) throw new Error(`bad ISO in test: ${iso}`)
  return ms
}
const HOUR = 3_600_000

/** Monday 2026-01-05 15:00 UTC: 10:00 New York, 07:00 Los Angeles. */
const NOW = at('2026-01-05T15:00:00.000Z')
const NEW_YORK = ['America/New_York']
const LOS_ANGELES = ['America/Los_Angeles']

type Campaign = PlacementInput['campaign'] & { callingHoursStart: string; callingHoursEnd: string }
const ACTIVE: Campaign = { status: 'active', callingHoursStart: '08:00', callingHoursEnd: '21:00', cooldownHours: 0 }

/** The verdict at `at` of a single window in every zone (what the engine answers for a lead with no state rules). */
function windowRules(zones: readonly string[], campaign: Campaign): (at: number) => RulesAnswer {
  return (at) => {
    const opens = nextCallableAt(zones, { start: campaign.callingHoursStart, end: campaign.callingHoursEnd }, at)
    return opens === at ? { allowed: true, nextAllowedAt: at, reason: null } : { allowed: false, nextAllowedAt: opens, reason: 'outside_calling_hours' }
  }
}

function input(overrides: Partial<PlacementInput> & { zones?: readonly string[] } = {}, campaign: Partial<Campaign> = {}): PlacementInput {
  const { zones = NEW_YORK, ...rest } = overrides
  const c = { ...ACTIVE, ...campaign }
  const now = rest.now ?? NOW
  return {
    campaign: c,
    now,
    lastContactAt: null,
    notBefore: null,
    spendCapReached: false,
    rules: windowRules(zones, c),
    ...rest,
  }
}

describe('held', () => {
  test('a paused campaign holds the lead: campaign_paused', () => {
    expect(placeLead(input({}, { status: 'paused' }))).toEqual({ status: 'held', reason: 'campaign_paused' })
  })

  test('a draft campaign holds the lead: campaign_not_started', () => {
    expect(placeLead(input({}, { status: 'draft' }))).toEqual({ status: 'held', reason: 'campaign_not_started' })
  })

  test('a reached spend cap holds the lead: spend_cap_reached', () => {
    expect(placeLead(input({ spendCapReached: true }))).toEqual({ status: 'held', reason: 'spend_cap_reached' })
  })

  test('held wins over any wait: paused, outside hours, in a cooldown, with a future notBefore', () => {
    const waiting = {
      zones: LOS_ANGELES,
      lastContactAt: NOW - HOUR,
      notBefore: { at: NOW + HOUR, reason: 'retry_after_outcome' as const },
      spendCapReached: true,
    }
    expect(placeLead(input(waiting, { status: 'paused', cooldownHours: 2 }))).toEqual({ status: 'held', reason: 'campaign_paused' })
    expect(placeLead(input(waiting, { status: 'draft', cooldownHours: 2 }))).toEqual({ status: 'held', reason: 'campaign_not_started' })
    expect(placeLead(input(waiting, { cooldownHours: 2 }))).toEqual({ status: 'held', reason: 'spend_cap_reached' })
  })
})

describe('scheduled', () => {
  test.each([
    ['retry_after_outcome' as const],
    ['next_dial_time' as const],
    ['outside_calling_hours' as const],
    ['recent_contact_cooldown' as const],
  ])('notBefore in the future: scheduled at it with its reason (%s)', (reason) => {
    const notBefore = { at: NOW + 90 * 60_000, reason }
    expect(placeLead(input({ notBefore }))).toEqual({ status: 'scheduled', dueAt: at('2026-01-05T16:30:00.000Z'), reason })
  })

  test('notBefore now or in the past is over: queued', () => {
    expect(placeLead(input({ notBefore: { at: NOW, reason: 'retry_after_outcome' } }))).toEqual({ status: 'queued' })
    expect(placeLead(input({ notBefore: { at: NOW - 1, reason: 'next_dial_time' } }))).toEqual({ status: 'queued' })
  })

  test('cooldown 2 h, last contact 1 h ago: scheduled recent_contact_cooldown at last contact + 2 h', () => {
    const lastContactAt = NOW - HOUR
    expect(placeLead(input({ lastContactAt }, { cooldownHours: 2 }))).toEqual({
      status: 'scheduled',
      dueAt: at('2026-01-05T16:00:00.000Z'),
      reason: 'recent_contact_cooldown',
    })
  })

  test('cooldown over (last contact 2 h ago, or 3 h ago): queued', () => {
    expect(placeLead(input({ lastContactAt: NOW - 2 * HOUR }, { cooldownHours: 2 }))).toEqual({ status: 'queued' })
    expect(placeLead(input({ lastContactAt: NOW - 3 * HOUR }, { cooldownHours: 2 }))).toEqual({ status: 'queued' })
  })

  test('no cooldown on the campaign: a recent contact does not wait', () => {
    expect(placeLead(input({ lastContactAt: NOW - 60_000 }, { cooldownHours: 0 }))).toEqual({ status: 'queued' })
  })

  test('no contact yet: no cooldown', () => {
    expect(placeLead(input({ lastContactAt: null }, { cooldownHours: 2 }))).toEqual({ status: 'queued' })
  })

  test('outside calling hours (07:00 Los Angeles): scheduled outside_calling_hours at the 08:00 opening', () => {
    expect(placeLead(input({ zones: LOS_ANGELES }))).toEqual({
      status: 'scheduled',
      dueAt: at('2026-01-05T16:00:00.000Z'),
      reason: 'outside_calling_hours',
    })
  })

  test('after closing (21:30 New York): scheduled at 08:00 the next day', () => {
    expect(placeLead(input({ now: at('2026-01-06T02:30:00.000Z') }))).toEqual({
      status: 'scheduled',
      dueAt: at('2026-01-06T13:00:00.000Z'),
      reason: 'outside_calling_hours',
    })
  })

  test("the campaign's own window: 11:00 to 17:00 opens at 11:00 New York", () => {
    expect(placeLead(input({}, { callingHoursStart: '11:00', callingHoursEnd: '17:00' }))).toEqual({
      status: 'scheduled',
      dueAt: at('2026-01-05T16:00:00.000Z'),
      reason: 'outside_calling_hours',
    })
  })

  test('several zones: waits until every zone is open', () => {
    expect(placeLead(input({ zones: ['America/New_York', 'America/Los_Angeles'] }))).toEqual({
      status: 'scheduled',
      dueAt: at('2026-01-05T16:00:00.000Z'),
      reason: 'outside_calling_hours',
    })
  })
})

describe('the calling rules decide last', () => {
  const blocked = (answer: RulesAnswer) => input({ rules: () => answer })

  test('a cap: scheduled recent_contact_cooldown at the next allowed instant', () => {
    expect(placeLead(blocked({ allowed: false, nextAllowedAt: NOW + 5 * HOUR, reason: 'recent_contact_cooldown' }))).toEqual({
      status: 'scheduled', dueAt: NOW + 5 * HOUR, reason: 'recent_contact_cooldown',
    })
  })

  test('no allowed instant within the horizon: looked at again a day later', () => {
    expect(placeLead(blocked({ allowed: false, nextAllowedAt: null, reason: 'outside_calling_hours' }))).toEqual({
      status: 'scheduled', dueAt: NOW + 24 * HOUR, reason: 'outside_calling_hours',
    })
  })

  test('the rules are not asked for a held lead; else once, at the instant its wait ends', () => {
    const asked: number[] = []
    const rules = (at: number) => {
      asked.push(at)
      return { allowed: true, nextAllowedAt: at, reason: null }
    }
    placeLead(input({ rules }, { status: 'paused' }))
    placeLead(input({ rules, spendCapReached: true }))
    expect(asked).toEqual([])
    placeLead(input({ rules, notBefore: { at: NOW + HOUR, reason: 'retry_after_outcome' } }))
    placeLead(input({ rules, lastContactAt: NOW - 60_000 }, { cooldownHours: 2 }))
    placeLead(input({ rules, notBefore: { at: NOW - HOUR, reason: 'retry_after_outcome' } }))
    expect(placeLead(input({ rules }))).toEqual({ status: 'queued' })
    expect(asked).toEqual([NOW + HOUR, NOW - 60_000 + 2 * HOUR, NOW, NOW])
  })
})

describe('queued', () => {
  test('inside calling hours, active campaign, nothing to wait for', () => {
    expect(placeLead(input())).toEqual({ status: 'queued' })
  })

  test('the opening minute is inside: 08:00 Los Angeles', () => {
    expect(placeLead(input({ zones: LOS_ANGELES, now: at('2026-01-05T16:00:00.000Z') }))).toEqual({ status: 'queued' })
  })

  test('one millisecond before closing is inside; closing is not', () => {
    expect(placeLead(input({ now: at('2026-01-06T01:59:59.999Z') }))).toEqual({ status: 'queued' })
    expect(placeLead(input({ now: at('2026-01-06T02:00:00.000Z') }))).toEqual({
      status: 'scheduled',
      dueAt: at('2026-01-06T13:00:00.000Z'),
      reason: 'outside_calling_hours',
    })
  })
})
