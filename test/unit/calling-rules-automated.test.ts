import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { callingRules, type LeadReach } from '../../src/domain/calling-rules'
import { US_STATE_ZONES } from '../../src/domain/calling-hours/lead-zones'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const ORG = 'America/New_York'
const WINDOW = { start: '08:00', end: '21:00' }
const reach = (phone: string, address: string | null = null) => callingRules.reachOf(phone, address, ORG)
const verdict = (r: LeadReach, iso: string, automated: boolean, callTimes: number[] = []) =>
  callingRules.evaluate({ reach: r, campaignWindow: WINDOW, callTimes, now: Date.parse(iso), automated })
const blockers = (r: LeadReach, iso: string, automated: boolean, callTimes: number[] = []) =>
  verdict(r, iso, automated, callTimes).blockedBy.map((b) => `${b.rule_id}:${b.reason}`)

const CA = reach('+14155551234')
const IL = reach('+13125551234')
const SC = reach('+18035551234')
const NE = reach('+14025551234')
const NV = reach('+17025551234')
const MN = reach('+16125551234')
const ME = reach('+12075551234')
const MS = reach('+16015551234')

describe('automated rows: only for automated calls, at the edges of each window', () => {
  // [reach, instant (UTC), automated call blocked by, person call allowed]
  test.each([
    // California 2872(c): not between 21:00 and 09:00 Pacific (PDT = UTC-7 in July).
    ['CA 08:59 PDT', CA, '2026-07-15T15:59:00Z', ['CA-automated:outside_calling_hours']],
    ['CA 09:00 PDT', CA, '2026-07-15T16:00:00Z', []],
    ['CA 20:30 PDT', CA, '2026-07-16T03:30:00Z', []],
    // Illinois 815 ILCS 305/15(a): 09:00-21:00 Central (CDT = UTC-5).
    ['IL 08:59 CDT', IL, '2026-07-15T13:59:00Z', ['IL-automated:outside_calling_hours']],
    ['IL 09:00 CDT', IL, '2026-07-15T14:00:00Z', []],
    // South Carolina 16-17-446(C)(3): not after 19:00 or before 08:00 Eastern (EDT = UTC-4).
    ['SC 18:59 EDT', SC, '2026-07-15T22:59:00Z', []],
    ['SC 19:00 EDT', SC, '2026-07-15T23:00:00Z', ['SC-automated:outside_calling_hours']],
    // Nebraska: Sundays 13:00-21:00 Central; weekdays from 08:00. 2026-07-19 is a Sunday.
    ['NE Sun 12:59 CDT', NE, '2026-07-19T17:59:00Z', ['NE-automated:outside_calling_hours']],
    ['NE Sun 13:00 CDT', NE, '2026-07-19T18:00:00Z', []],
    ['NE Wed 08:00 CDT', NE, '2026-07-15T13:00:00Z', []],
    // Nebraska's holidays: Independence Day 2026 is a Saturday (observed Friday 3 July): 13:00 on.
    ['NE holiday 10:00 CDT', NE, '2026-07-03T15:00:00Z', ['NE-automated:outside_calling_hours']],
    ['NE holiday 13:00 CDT', NE, '2026-07-03T18:00:00Z', []],
    // Nevada 597.814(2)(a): 09:00-21:00 for automated calls (the ordinary row already ends at 20:00).
    ['NV 08:59 PDT', NV, '2026-07-15T15:59:00Z', ['NV-hours:outside_calling_hours', 'NV-automated:outside_calling_hours']],
    // Minnesota 325E.27.
    ['MN 08:59 CDT', MN, '2026-07-15T13:59:00Z', ['MN-hours:outside_calling_hours', 'MN-automated:outside_calling_hours']],
    // Maine 1498(3): weekdays 09:00-17:00 Eastern, none on weekends.
    ['ME 16:59 EDT', ME, '2026-07-15T20:59:00Z', []],
    ['ME 17:00 EDT', ME, '2026-07-15T21:00:00Z', ['ME-automated:outside_calling_hours']],
    ['ME Sat 12:00 EDT', ME, '2026-07-18T16:00:00Z', ['ME-automated:outside_calling_hours']],
  ] as const)('%s', (_name, r, iso, automatedBlocks) => {
    expect(blockers(r, iso, true)).toEqual([...automatedBlocks])
    // A person call sees no automated row at all.
    const person = verdict(r, iso, false)
    expect(person.rules.some((rule) => rule.kind === 'automated')).toBe(false)
    expect(person.blockedBy.some((b) => b.rule_id.endsWith('-automated'))).toBe(false)
  })

  test('the automated rows are listed with their state for an automated call', () => {
    const rule = verdict(CA, '2026-07-15T18:00:00Z', true).rules.find((r) => r.id === 'CA-automated')!
    expect(rule).toMatchObject({ kind: 'automated', state: 'CA', source: 'Cal. Pub. Util. Code 2872(c)', hours: [{ start: '09:00', end: '21:00', days: 'all' }] })
    expect(verdict(NE, '2026-07-15T18:00:00Z', true).rules.find((r) => r.id === 'NE-automated')!.holidays!.length).toBeGreaterThan(5)
  })

  test('California: 08:30 Pacific waits for 09:00 for an automated call only; 21:00 is closed for both', () => {
    // 20:30 PDT: both allowed; 21:00 PDT: both blocked (campaign window, federal floor), an automated call by CA-automated too.
    expect(verdict(CA, '2026-07-16T03:30:00Z', true).allowed).toBe(true)
    expect(blockers(CA, '2026-07-16T04:00:00Z', true)).toEqual(['campaign-hours:outside_calling_hours', 'US-hours:outside_calling_hours', 'CA-automated:outside_calling_hours'])
    // 08:30 PDT: a person call may start, an automated one waits for 09:00.
    expect(verdict(CA, '2026-07-15T15:30:00Z', false).allowed).toBe(true)
    const robot = verdict(CA, '2026-07-15T15:30:00Z', true)
    expect(robot.nextAllowedAt).toBe(Date.parse('2026-07-15T16:00:00Z'))
  })

  test("Maine's cap: one automated call per rolling 8 hours, blocked_by names ME-automated with recent_contact_cooldown", () => {
    const at = Date.parse('2026-07-15T14:00:00Z')
    const v = verdict(ME, '2026-07-15T14:00:00Z', true, [at - 2 * 3_600_000])
    expect(v.reason).toBe('recent_contact_cooldown')
    expect(v.blockedBy).toEqual([{ rule_id: 'ME-automated', reason: 'recent_contact_cooldown', until: at + 6 * 3_600_000 }])
    expect(v.nextAllowedAt).toBe(at + 6 * 3_600_000)
    expect(verdict(ME, '2026-07-15T14:00:00Z', false, [at - 2 * 3_600_000]).allowed).toBe(true)
    expect(callingRules.needsCallHistory(ME, true)).toBe(true)
    expect(callingRules.needsCallHistory(ME, false)).toBe(false)
  })
})

describe('Mississippi: 08:00-20:00 Central Standard Time all year', () => {
  test.each([
    // July (CDT, UTC-5): 08:30 CDT = 07:30 CST, early; 09:00 CDT = 08:00 CST, allowed; 20:30 CDT = 19:30 CST allowed; 21:00 CDT: federal floor.
    ['July 08:30 CDT', '2026-07-15T13:30:00Z', false],
    ['July 09:00 CDT', '2026-07-15T14:00:00Z', true],
    ['July 20:30 CDT', '2026-07-16T01:30:00Z', true],
    // January (CST): 08:00 CST allowed, 20:00 CST not.
    ['January 08:00 CST', '2026-01-14T14:00:00Z', true],
    ['January 19:59 CST', '2026-01-15T01:59:00Z', true],
    ['January 20:00 CST', '2026-01-15T02:00:00Z', false],
  ] as const)('%s', (_name, iso, allowed) => {
    const v = verdict(MS, iso, false)
    expect(v.allowed).toBe(allowed)
    if (!allowed) expect(v.blockedBy.map((b) => b.rule_id)).toContain('MS-hours')
  })

  test('the row shows its fixed zone, the July block ends at 09:00 CDT, and there is no holiday row', () => {
    const v = verdict(MS, '2026-07-15T13:30:00Z', false)
    expect(v.rules.find((r) => r.id === 'MS-hours')).toMatchObject({ timezone: 'Etc/GMT+6', hours: [{ start: '08:00', end: '20:00', days: 'all' }] })
    expect(v.blockedBy).toEqual([{ rule_id: 'MS-hours', reason: 'outside_calling_hours', until: Date.parse('2026-07-15T14:00:00Z') }])
    expect(v.nextAllowedAt).toBe(Date.parse('2026-07-15T14:00:00Z'))
    expect(v.rules.some((r) => r.id === 'MS-holidays')).toBe(false)
    // Christmas 2026 is a Friday: no longer barred in Mississippi.
    expect(verdict(MS, '2026-12-25T16:00:00Z', false).allowed).toBe(true)
  })
})

describe('toll-free and non-geographic numbers: every US state clock', () => {
  test('reach: US, no state, the seven zones from Eastern to Hawaii', () => {
    for (const phone of ['+18005551234', '+18885551234', '+18335551234', '+15005551234']) {
      expect(reach(phone)).toEqual({ country: 'US', states: [], zones: US_STATE_ZONES, notes: [] })
    }
    expect(US_STATE_ZONES).toContain('Pacific/Honolulu')
    expect(US_STATE_ZONES).toContain('America/Anchorage')
  })

  test.each([
    // July: Honolulu is UTC-10, so 08:00 HST = 14:00 EDT; New York's 21:00 ends it.
    ['July 13:30 EDT', '2026-07-15T17:30:00Z', false],
    ['July 14:00 EDT', '2026-07-15T18:00:00Z', true],
    ['July 20:30 EDT', '2026-07-16T00:30:00Z', true],
    ['July 21:00 EDT', '2026-07-16T01:00:00Z', false],
    // January: 08:00 HST = 13:00 EST.
    ['January 12:30 EST', '2026-01-14T17:30:00Z', false],
    ['January 13:30 EST', '2026-01-14T18:30:00Z', true],
    ['January 20:30 EST', '2026-01-15T01:30:00Z', true],
  ] as const)('+1 800 at %s', (_name, iso, allowed) => {
    expect(verdict(reach('+18005551234'), iso, false).allowed).toBe(allowed)
  })
})
