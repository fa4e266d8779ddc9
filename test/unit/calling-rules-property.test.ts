import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import Holidays from 'date-holidays'
import fc from 'fast-check'
import { callingRules, type RuleView, type Verdict } from '../../src/domain/calling-rules'
import { AREA_STATES } from '../../src/domain/calling-rules/area-states.generated'
import { EXTRA_HOLIDAYS } from '../../src/domain/calling-rules/holidays'
import { STATE_RULES } from '../../src/domain/calling-rules/state-rules'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/*
 * An oracle independent of the engine's memos and offset math: each zone's wall clock straight
 * from Intl, holidays straight from date-holidays, caps by counting. When evaluate says allowed,
 * every rule it lists must allow the call in every zone; when it says not, one must not.
 */

const MINUTE = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000
const ORG = 'America/Chicago'
const AREAS = AREA_STATES.split(',').map((pair) => pair.split('=')[0]!)
const WEEKDAY: Record<string, number> = { Sun: 0, Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6 }

const formats = new Map<string, Intl.DateTimeFormat>()
function wall(zone: string, t: number): { date: string; weekday: number; minute: number } {
  let format = formats.get(zone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', weekday: 'short',
    })
    formats.set(zone, format)
  }
  const p: Record<string, string> = {}
  for (const part of format.formatToParts(t)) p[part.type] = part.value
  return { date: `${p.year}-${p.month}-${p.day}`, weekday: WEEKDAY[p.weekday!]!, minute: Number(p.hour) * 60 + Number(p.minute) }
}

const holidaySets = new Map<string, Set<string>>()
function holidaysOf(state: string, year: number): Set<string> {
  const key = `${state}|${year}`
  let set = holidaySets.get(key)
  if (!set) {
    const calendar = new Holidays('US', state)
    for (const extra of EXTRA_HOLIDAYS[state] ?? []) calendar.setHoliday(extra.rule, { name: extra.name, type: 'public' })
    set = new Set(calendar.getHolidays(year).filter((h) => h.type === 'public').map((h) => h.date.slice(0, 10)))
    holidaySets.set(key, set)
  }
  return set
}

const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/** Whether one rule allows a call at t in every zone (its own fixed zone when it names one; caps: given the calls). */
function ruleAllows(rule: RuleView, zones: readonly string[], calls: readonly number[], t: number): boolean {
  if (rule.kind === 'recording') return true
  const capOk = rule.max === undefined || calls.filter((c) => c > t - rule.period_hours! * HOUR).length < rule.max
  if (rule.kind === 'cap' || (rule.kind === 'automated' && !rule.hours)) return capOk
  return capOk && (rule.timezone ? [rule.timezone] : zones).every((zone) => {
    const { date, weekday, minute } = wall(zone, t)
    if (rule.kind === 'day') return !rule.days!.includes(weekday)
    if (rule.kind === 'holiday') return !holidaysOf(rule.state!, Number(date.slice(0, 4))).has(date)
    const window = rule.hours!.find((h) =>
      h.weekdays ? h.weekdays.includes(weekday)
        : h.days === 'weekdays' ? weekday >= 1 && weekday <= 5
          : h.days === 'weekends' ? weekday === 0 || weekday === 6
            : true)
    const inside = (w: { start: string; end: string }) => toMinutes(w.start) <= minute && minute < toMinutes(w.end)
    const holiday = rule.holiday_hours && holidaysOf(rule.state!, Number(date.slice(0, 4))).has(date)
    return window !== undefined && inside(window) && (!holiday || inside(rule.holiday_hours!))
  })
}

const oracle = (v: Verdict, zones: readonly string[], calls: readonly number[], t: number) =>
  v.rules.every((rule) => ruleAllows(rule, zones, calls, t))

const ADDRESSES = [
  null, '', 'nowhere at all', '1 Main St, Miami, FL 33101', '2 Elm St, Los Angeles, CA 90012-1234', '3 Oak Ave, Birmingham, AL 35203',
  'New Orleans, LA 70112', 'Jackson, Mississippi', 'Providence, RI 02903', 'Salt Lake City, UT 84101', 'Austin, TX 78701',
  'Portland, ME 04101', 'Baltimore, MD 21201', 'Tulsa, OK', 'Anchorage, AK 99501', 'Honolulu, HI 96813', 'Toronto, ON',
  'Somewhere 00000', 'Pittsburgh, Pennsylvania 15222', 'Louisville, KY 40202', 'El Paso, TX 79901',
]
const WINDOWS = [
  { start: '08:00', end: '21:00' }, { start: '00:00', end: '24:00' }, { start: '09:30', end: '17:00' },
  { start: '22:00', end: '23:00' }, { start: '07:00', end: '20:30' },
]

const lead = fc.record({
  phone: fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...AREAS).map((area) => `+1${area}555`) },
    { weight: 1, arbitrary: fc.constantFrom('+1800555', '+1888555', '+1876555', '+1242555') },
  ).chain((prefix) => fc.integer({ min: 1000, max: 9999 }).map((n) => `${prefix}${n}`)),
  address: fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...ADDRESSES) },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 99_999 }).map((zip) => `1 Main St, ${String(zip).padStart(5, '0')}`) },
  ),
  window: fc.constantFrom(...WINDOWS),
  // 2026-2027, often near a DST change or a holiday.
  now: fc.oneof(
    fc.integer({ min: Date.parse('2026-01-01T00:00:00Z'), max: Date.parse('2027-12-31T00:00:00Z') }),
    fc.constantFrom('2026-03-08T07:00:00Z', '2026-11-01T06:00:00Z', '2026-07-03T12:00:00Z', '2026-12-25T12:00:00Z', '2027-01-01T12:00:00Z')
      .chain((iso) => fc.integer({ min: -2 * DAY, max: 2 * DAY }).map((d) => Date.parse(iso) + d)),
  ),
  ago: fc.array(fc.integer({ min: 0, max: 30 * HOUR }), { maxLength: 5 }),
  automated: fc.boolean(),
})

describe('calling rules, for all leads and instants', () => {
  test('allowed exactly when every listed rule allows the call in every zone; the rules follow the table', () => {
    fc.assert(fc.property(lead, ({ phone, address, window, now, ago, automated }) => {
      const reach = callingRules.reachOf(phone, address, ORG)
      const calls = ago.map((a) => now - a)
      const v = callingRules.evaluate({ reach, campaignWindow: window, callTimes: calls, now, automated })
      const ids = v.rules.map((r) => r.id)
      expect(ids.slice(0, 2)).toEqual(['campaign-hours', 'US-hours'])
      for (const state of reach.states) {
        // Automated rows are listed exactly for automated calls.
        for (const row of STATE_RULES[state] ?? []) expect(ids.includes(row.id)).toBe(automated || row.kind !== 'automated')
      }
      expect(v.allowed).toBe(oracle(v, reach.zones, calls, now))
      expect(v.blockedBy.length === 0).toBe(v.allowed)
      expect(v.callsLast24h).toBe(calls.filter((c) => c > now - DAY).length)
      if (v.allowed) expect(v.nextAllowedAt).toBe(now)
      for (const block of v.blockedBy) {
        const rule = v.rules.find((r) => r.id === block.rule_id)!
        expect(ruleAllows(rule, reach.zones, calls, now)).toBe(false)
        if (block.until !== null) expect(ruleAllows(rule, reach.zones, calls, block.until)).toBe(true)
      }
    }), { numRuns: 2000 })
  })

  test('nextAllowedAt is allowed, and no earlier minute is', () => {
    fc.assert(fc.property(lead, ({ phone, address, window, now, ago, automated }) => {
      const reach = callingRules.reachOf(phone, address, ORG)
      const calls = ago.map((a) => now - a)
      const evaluate = (t: number) => callingRules.evaluate({ reach, campaignWindow: window, callTimes: calls, now: t, automated })
      const next = evaluate(now).nextAllowedAt
      if (next !== null) {
        expect(next).toBeGreaterThanOrEqual(now)
        const at = evaluate(next)
        expect(at.allowed).toBe(true)
        expect(oracle(at, reach.zones, calls, next)).toBe(true)
        for (let t = now + MINUTE; t < next; t += MINUTE) if (evaluate(t).allowed) throw new Error(`allowed at ${new Date(t).toISOString()} before ${new Date(next).toISOString()}`)
      } else {
        for (let t = now; t <= now + 14 * DAY; t += 15 * MINUTE) expect(evaluate(t).allowed).toBe(false)
      }
    }), { numRuns: 150 })
  })

  test('an automated call is never allowed when a person call is not (its rows only add limits), and nextAllowedAt is never earlier', () => {
    fc.assert(fc.property(lead, ({ phone, address, window, now, ago }) => {
      const reach = callingRules.reachOf(phone, address, ORG)
      const callTimes = ago.map((a) => now - a)
      const person = callingRules.evaluate({ reach, campaignWindow: window, callTimes, now })
      const robot = callingRules.evaluate({ reach, campaignWindow: window, callTimes, now, automated: true })
      if (!person.allowed) expect(robot.allowed).toBe(false)
      if (person.nextAllowedAt === null) expect(robot.nextAllowedAt).toBeNull()
      else if (robot.nextAllowedAt !== null) expect(robot.nextAllowedAt).toBeGreaterThanOrEqual(person.nextAllowedAt)
    }), { numRuns: 2000 })
  })
})
