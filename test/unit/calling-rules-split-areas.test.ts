import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { NANP_ZONES, SPLIT_AREA_ZONES } from '../../src/domain/calling-hours/area-zones.generated'
import { callingRules, type LeadReach } from '../../src/domain/calling-rules'
import { leadRulesOf } from '../../src/domain/leads/lead-rules'
import type { Stores } from '../../src/db/stores'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * An unlisted exchange of an area code split across zones is checked in every zone of its
 * area code (the clock is the `now` handed to the engine). January: Eastern is UTC-5, Central UTC-6.
 */
const ORG = 'America/New_York'
const WINDOW = { start: '08:00', end: '21:00' }
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function check(phone: string, now: string) {
  const reach = callingRules.reachOf(phone, null, ORG)
  const v = callingRules.evaluate({ reach, campaignWindow: WINDOW, callTimes: [], now: Date.parse(now) })
  return { reach, allowed: v.allowed, next: iso(v.nextAllowedAt), blocked: v.blockedBy.map((b) => `${b.rule_id}@${iso(b.until)}`), verdict: v }
}

describe('unlisted exchanges of split area codes', () => {
  test('850 unlisted, 07:30 Central = 08:30 Eastern: deferred until 08:00 Central', () => {
    const c = check('+18505551234', '2026-01-06T13:30:00Z')
    expect([...c.reach.zones].sort()).toEqual(['America/Chicago', 'America/New_York'])
    expect(c.reach.guessedZones).toEqual(['America/Chicago'])
    expect(c.allowed).toBe(false)
    expect(c.next).toBe('2026-01-06T14:00:00.000Z')
    expect(c.blocked).toContain('US-hours@2026-01-06T14:00:00.000Z')
  })

  test('850, a listed exchange keeps its single zone (Central), nothing guessed', () => {
    const c = check('+18502001234', '2026-01-06T14:30:00Z')
    expect(c.reach.zones).toEqual(['America/Chicago'])
    expect(c.reach.guessedZones).toBeUndefined()
    expect(c.allowed).toBe(true)
  })

  test('219 unlisted at 07:00 Central is refused; 270 unlisted at 09:00 Central waits for Kentucky\'s 10:00 there', () => {
    expect(check('+12195551234', '2026-01-06T13:00:00Z')).toMatchObject({ allowed: false, next: '2026-01-06T14:00:00.000Z' })
    const ky = check('+12705551234', '2026-01-06T15:00:00Z')
    expect(ky.allowed).toBe(false)
    expect(ky.blocked).toContain('KY-hours@2026-01-06T16:00:00.000Z')
  })

  test('423 unlisted at 21:30 Eastern (20:30 Central) is refused, next at 08:00 Central the next morning', () => {
    const c = check('+14235551234', '2026-01-07T02:30:00Z')
    expect([...c.reach.zones].sort()).toEqual(['America/Chicago', 'America/New_York'])
    expect(c.allowed).toBe(false)
    expect(c.blocked).toContain('US-hours@2026-01-07T14:00:00.000Z')
    expect(c.next).toBe('2026-01-07T14:00:00.000Z')
  })

  test('an address that gives the guessed zone makes it known', () => {
    const reach = callingRules.reachOf('+18505551234', '1 Main St, Pensacola FL 32501', ORG)
    expect([...reach.zones].sort()).toEqual(['America/Chicago', 'America/New_York'])
    expect(reach.guessedZones).toBeUndefined()
  })

  test('guessCaused: a block by the guessed zone only is exchange_unknown; one the default zone shares, or a cap, is not', () => {
    const rules = leadRulesOf({} as Stores, callingRules)
    const morning = check('+18505551234', '2026-01-06T13:30:00Z')
    expect(rules.guessCaused(morning.reach, { callingHoursStart: '08:00', callingHoursEnd: '21:00', automatedVoice: false, aiAgent: null }, 'US-hours', Date.parse('2026-01-06T13:30:00Z'), morning.verdict.rules)).toBe(true)
    // 06:30 Eastern: the default zone blocks too.
    expect(rules.guessCaused(morning.reach, { callingHoursStart: '08:00', callingHoursEnd: '21:00', automatedVoice: false, aiAgent: null }, 'US-hours', Date.parse('2026-01-06T11:30:00Z'), morning.verdict.rules)).toBe(false)
    expect(rules.guessCaused(morning.reach, { callingHoursStart: '08:00', callingHoursEnd: '21:00', automatedVoice: false, aiAgent: null }, 'FL-cap', Date.parse('2026-01-06T13:30:00Z'), morning.verdict.rules)).toBe(false)
  })

  test('property: a number of a split area code with an unlisted exchange is allowed only when every zone of its area code allows it', () => {
    const listed = (digits: string) => Object.keys(NANP_ZONES).some((prefix) => prefix.length > 4 && digits.startsWith(prefix))
    const start = Date.parse('2026-01-04T00:00:00Z')
    fc.assert(fc.property(
      fc.constantFrom(...Object.keys(SPLIT_AREA_ZONES)), fc.stringMatching(/^[2-9]\d{6}$/), fc.integer({ min: 0, max: 14 * 96 }),
      (area, rest, quarter) => {
        const digits = area + rest
        fc.pre(!listed(digits))
        const now = start + quarter * 15 * 60_000
        const reach = callingRules.reachOf(`+${digits}`, null, ORG)
        const all = SPLIT_AREA_ZONES[area]!.split('&')
        for (const zone of all) expect(reach.zones).toContain(zone)
        if (!callingRules.evaluate({ reach, campaignWindow: WINDOW, callTimes: [], now }).allowed) return
        for (const zone of all) {
          const one: LeadReach = { ...reach, zones: [zone] }
          expect(callingRules.evaluate({ reach: one, campaignWindow: WINDOW, callTimes: [], now }).allowed).toBe(true)
        }
      },
    ), { numRuns: 1000 })
  })
})
