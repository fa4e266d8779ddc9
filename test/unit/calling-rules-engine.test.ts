import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { callingRules, RULES_VERSION, type EvaluateInput, type LeadReach } from '../../src/domain/calling-rules'
import { parseAddress, zipPlace } from '../../src/domain/calling-rules/reach'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const ORG = 'America/New_York'
const WINDOW = { start: '08:00', end: '21:00' }
const HOUR = 3_600_000

const at = (iso: string): number => {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) throw new Error(`bad ISO in test: ${iso}`)
  return ms
}
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

function check(reach: LeadReach, now: string, more: Partial<EvaluateInput> = {}) {
  const v = callingRules.evaluate({ reach, campaignWindow: WINDOW, callTimes: [], now: at(now), ...more })
  return {
    allowed: v.allowed,
    next: iso(v.nextAllowedAt),
    reason: v.reason,
    blocked: v.blockedBy.map((b) => `${b.rule_id}@${iso(b.until)}`),
    rules: v.rules.map((r) => r.id),
    calls: v.callsLast24h,
    verdict: v,
  }
}

const NY = callingRules.reachOf('+12125551234', null, ORG)
const FL = callingRules.reachOf('+13055551234', null, ORG)
const AL = callingRules.reachOf('+12055551234', null, ORG)
const TX = callingRules.reachOf('+12145551234', null, ORG)
const ON = callingRules.reachOf('+14165551234', null, ORG)

describe('reachOf', () => {
  test('the area code gives the state, the country and the zones', () => {
    expect(NY).toEqual({ country: 'US', states: ['NY'], zones: ['America/New_York'], notes: [] })
    expect(FL.states).toEqual(['FL'])
    expect(ON).toEqual({ country: 'CA', states: ['ON'], zones: ['America/Toronto'], notes: [] })
    expect(callingRules.reachOf('+17875551234', null, ORG).states).toEqual(['PR'])
  })

  test('toll-free and non-geographic numbers: US, no state, every US state clock (not the organization zone)', () => {
    expect(callingRules.reachOf('+18005551234', null, 'America/Chicago')).toEqual({
      country: 'US', states: [], zones: ['America/New_York', 'America/Chicago', 'America/Denver', 'America/Phoenix', 'America/Los_Angeles', 'America/Anchorage', 'Pacific/Honolulu'], notes: [],
    })
  })

  test('a ZIP in the address adds its state and zone', () => {
    const reach = callingRules.reachOf('+12125551234', '200 N Spring St, Los Angeles, CA 90012', ORG)
    expect(reach.states).toEqual(['CA', 'NY'])
    expect([...reach.zones].sort()).toEqual(['America/Los_Angeles', 'America/New_York'])
    // ZIP+4 and a trailing country are read too.
    expect(callingRules.reachOf('+12125551234', '1 Main St, Miami, FL 33101-1234, USA', ORG).states).toEqual(['FL', 'NY'])
  })

  test('a state alone adds the state and all its zones', () => {
    const reach = callingRules.reachOf('+12125551234', 'Austin, Texas', ORG)
    expect(reach.states).toEqual(['NY', 'TX'])
    expect([...reach.zones].sort()).toEqual(['America/Chicago', 'America/Denver', 'America/New_York'])
    expect(callingRules.reachOf('+12125551234', 'Springfield, IL', ORG).states).toEqual(['IL', 'NY'])
  })

  test('an unknown ZIP is noted and adds nothing; an address with nothing recognizable adds nothing', () => {
    const reach = callingRules.reachOf('+12125551234', '12 Nowhere Rd, 00000', ORG)
    expect(reach).toEqual({ country: 'US', states: ['NY'], zones: ['America/New_York'], notes: ['zip_unknown:00000'] })
    expect(callingRules.reachOf('+12125551234', '10 Downing Street, London', ORG)).toBe(NY)
    expect(callingRules.reachOf('+12125551234', '', ORG)).toBe(NY)
  })

  test('parseAddress reads only the end of the address', () => {
    expect(parseAddress('12345 Main St, Springfield')).toEqual({ zip: null, states: [] })
    expect(parseAddress('New York, NY 10001-1234 USA')).toEqual({ zip: '10001', states: ['NY'] })
    expect(parseAddress('5 Elm St, Charleston, West Virginia')).toEqual({ zip: null, states: ['WV'] })
    expect(zipPlace('10001')).toEqual({ state: 'NY', zone: 'America/New_York' })
    expect(zipPlace('99999')).toBeNull()
  })

  test('reach objects are shared per area code and address (no allocation per lead)', () => {
    expect(callingRules.reachOf('+12125559999', null, ORG)).toBe(NY)
    const a = callingRules.reachOf('+12125551234', 'x, Miami, FL 33101', ORG)
    expect(callingRules.reachOf('+12125550000', 'y, Miami FL 33101', ORG)).toBe(a)
  })
})

describe('history', () => {
  test('only leads with a capped state need call history', () => {
    expect(callingRules.needsCallHistory(NY)).toBe(false)
    expect(callingRules.historyWindowMs(NY)).toBe(0)
    expect(callingRules.needsCallHistory(FL)).toBe(true)
    expect(callingRules.historyWindowMs(FL)).toBe(24 * HOUR)
    const maine = callingRules.reachOf('+12075551234', null, ORG)
    expect(callingRules.historyWindowMs(maine)).toBe(0)
    expect(callingRules.historyWindowMs(maine, true)).toBe(8 * HOUR)
  })
})

describe('evaluate', () => {
  test('the federal floor, at minute edges', () => {
    expect(check(NY, '2026-11-23T13:00:00Z').allowed).toBe(true) // 08:00 EST
    const early = check(NY, '2026-11-23T12:59:00Z')
    expect(early.allowed).toBe(false)
    expect(early.next).toBe('2026-11-23T13:00:00.000Z')
    expect(early.blocked).toEqual(['campaign-hours@2026-11-23T13:00:00.000Z', 'US-hours@2026-11-23T13:00:00.000Z'])
    expect(early.reason).toBe('outside_calling_hours')
    expect(check(NY, '2026-11-24T01:59:59Z').allowed).toBe(true) // 20:59:59 EST
    expect(check(NY, '2026-11-24T02:00:00Z').allowed).toBe(false) // 21:00 EST
  })

  test('a campaign window of 00:00-24:00 is clamped to the floor', () => {
    const late = check(NY, '2026-11-24T02:30:00Z', { campaignWindow: { start: '00:00', end: '24:00' } })
    expect(late.allowed).toBe(false)
    expect(late.blocked).toEqual(['campaign-hours@2026-11-24T13:00:00.000Z', 'US-hours@2026-11-24T13:00:00.000Z'])
    const campaign = late.verdict.rules[0]!
    expect(campaign.id).toBe('campaign-hours')
    expect(campaign.hours).toEqual([{ start: '08:00', end: '21:00', days: 'all' }])
    expect(campaign.note).toContain('clamped')
    // A narrower campaign window is kept as is.
    expect(check(NY, '2026-11-23T14:30:00Z', { campaignWindow: { start: '10:00', end: '17:00' } }).next).toBe('2026-11-23T15:00:00.000Z')
    // A window wholly outside the floor never opens.
    const never = check(NY, '2026-11-23T14:30:00Z', { campaignWindow: { start: '22:00', end: '23:00' } })
    expect(never.next).toBeNull()
    expect(never.blocked).toEqual(['campaign-hours@null'])
  })

  test('DST edges: the window follows the local clock', () => {
    // Spring forward 2026-03-08: 08:00 EDT is 12:00Z.
    expect(check(NY, '2026-03-08T11:59:00Z').next).toBe('2026-03-08T12:00:00.000Z')
    // Fall back 2026-11-01: 08:00 EST is 13:00Z; 21:00 EST is 02:00Z.
    expect(check(NY, '2026-11-01T12:30:00Z').next).toBe('2026-11-01T13:00:00.000Z')
    expect(check(NY, '2026-11-02T01:30:00Z').allowed).toBe(true)
    expect(check(NY, '2026-11-02T02:00:00Z').next).toBe('2026-11-02T13:00:00.000Z')
  })

  test('state hours: Florida ends at 20:00, Kentucky starts at 10:00', () => {
    const fl = check(FL, '2026-11-24T01:30:00Z') // 20:30 EST
    expect(fl.blocked).toEqual(['FL-hours@2026-11-24T13:00:00.000Z'])
    expect(fl.next).toBe('2026-11-24T13:00:00.000Z')
    const ky = callingRules.reachOf('+15025551234', null, ORG)
    expect(check(ky, '2026-11-23T14:30:00Z').next).toBe('2026-11-23T15:00:00.000Z')
  })

  test('Texas: Sunday calls start at noon', () => {
    const sunday = check(TX, '2026-11-22T17:30:00Z') // 11:30 CST
    expect(sunday.blocked).toEqual(['TX-hours@2026-11-22T18:00:00.000Z'])
    expect(check(TX, '2026-11-21T15:00:00Z').allowed).toBe(true) // Saturday 09:00 CST
  })

  test('Alabama: no calls on Sunday', () => {
    const sunday = check(AL, '2026-11-22T18:00:00Z') // Sunday 12:00 CST
    expect(sunday.allowed).toBe(false)
    expect(sunday.rules).toEqual(['campaign-hours', 'US-hours', 'AL-hours', 'AL-sunday', 'AL-holidays'])
    expect(sunday.blocked).toEqual(['AL-sunday@2026-11-23T06:00:00.000Z'])
    expect(sunday.next).toBe('2026-11-23T14:00:00.000Z') // Monday 08:00 CST
  })

  test('Alabama: an observed holiday (Independence Day 2026 on a Saturday, observed Friday)', () => {
    const friday = check(AL, '2026-07-03T15:00:00Z') // Friday 10:00 CDT
    expect(friday.allowed).toBe(false)
    // The holiday rule alone: Friday and Saturday barred, Sunday is not a holiday.
    expect(friday.blocked).toEqual(['AL-holidays@2026-07-05T05:00:00.000Z'])
    // Monday 08:00 CDT: Sunday is barred by AL-sunday.
    expect(friday.next).toBe('2026-07-06T13:00:00.000Z')
    expect(friday.verdict.rules.find((r) => r.id === 'AL-holidays')!.holidays).toContain('Independence Day')
    expect(check(AL, '2026-07-02T15:00:00Z').allowed).toBe(true)
  })

  test('Florida cap: the fourth call in 24 hours waits for the oldest to leave', () => {
    const now = at('2026-11-23T16:00:00Z') // 11:00 EST
    const calls = [now - 20 * HOUR, now - 3 * HOUR, now - HOUR]
    const capped = check(FL, iso(now)!, { callTimes: calls })
    expect(capped.allowed).toBe(false)
    expect(capped.reason).toBe('recent_contact_cooldown')
    expect(capped.calls).toBe(3)
    expect(capped.blocked).toEqual([`FL-cap@${iso(calls[0]! + 24 * HOUR)}`])
    // Oldest + 24 h is 12:00 EST next day: inside the window.
    expect(capped.next).toBe(iso(calls[0]! + 24 * HOUR))
    expect(check(FL, iso(now)!, { callTimes: calls.slice(1) }).allowed).toBe(true)
    // Oldest + 24 h at 20:30 EST, after Florida's 20:00 end: the next window opening.
    const night = [at('2026-11-23T01:30:00Z'), now - 3 * HOUR, now - HOUR]
    expect(check(FL, iso(now)!, { callTimes: night }).next).toBe('2026-11-24T13:00:00.000Z')
    expect(check(FL, '2026-11-23T13:30:00Z', { callTimes: [at('2026-11-23T13:00:00Z'), at('2026-11-23T13:10:00Z'), at('2026-11-23T13:20:00Z')] }).next)
      .toBe('2026-11-24T13:00:00.000Z')
  })

  test('calls are not counted for a state without a cap', () => {
    const now = at('2026-11-23T16:00:00Z')
    const v = check(NY, iso(now)!, { callTimes: [now - HOUR, now - 2 * HOUR, now - 3 * HOUR, now - 4 * HOUR] })
    expect(v.allowed).toBe(true)
    expect(v.calls).toBe(4)
  })

  test('Canada: CRTC weekend hours, and the federal floor on weekdays', () => {
    expect(check(ON, '2026-11-21T22:30:00Z').allowed).toBe(true) // Saturday 17:30 EST
    const evening = check(ON, '2026-11-21T23:30:00Z') // Saturday 18:30 EST
    expect(evening.blocked).toEqual(['CA-hours@2026-11-22T15:00:00.000Z'])
    expect(evening.next).toBe('2026-11-22T15:00:00.000Z') // Sunday 10:00 EST
    expect(check(ON, '2026-11-23T13:30:00Z').next).toBe('2026-11-23T14:00:00.000Z') // Monday 09:00 EST
    const weekday = check(ON, '2026-11-24T02:15:00Z') // Monday 21:15 EST: CRTC allows, the floor does not
    expect(weekday.blocked).toEqual(['campaign-hours@2026-11-24T13:00:00.000Z', 'US-hours@2026-11-24T13:00:00.000Z'])
  })

  test('every zone: a New York number with a Los Angeles address waits for 08:00 in Los Angeles', () => {
    const reach = callingRules.reachOf('+12125551234', '200 N Spring St, Los Angeles, CA 90012', ORG)
    expect(check(reach, '2026-11-23T14:00:00Z').next).toBe('2026-11-23T16:00:00.000Z')
    // And 21:00 in New York ends it.
    expect(check(reach, '2026-11-24T01:59:00Z').allowed).toBe(true)
    expect(check(reach, '2026-11-24T02:00:00Z').next).toBe('2026-11-24T16:00:00.000Z')
  })

  test('rules_version is the table version', () => {
    expect(callingRules.rulesVersion).toBe(RULES_VERSION)
    expect(RULES_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}\.\d+$/)
  })
})
