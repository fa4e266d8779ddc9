import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import {
  isCallableNow,
  localDateOf,
  nextCallableAt,
  zonedTime,
  type DailyWindow,
} from '../../src/domain/calling-hours/calling-window'
import { zonesForPhone } from '../../src/domain/calling-hours/lead-zones'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const HOURS: DailyWindow = { start: '08:00', end: '21:00' }
const ORG = 'Europe/Berlin'

const at = (iso: string): number => {
  const ms = Date.parse(iso)
  if (Number.isNaN(ms)) throw new Error(`bad ISO in test: ${iso}`)
  return ms
}
const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

/** nextCallableAt as ISO, checking isCallableNow agrees with it. */
function next(zones: readonly string[], now: string, window: DailyWindow = HOURS): string | null {
  const result = nextCallableAt(zones, window, at(now))
  expect(isCallableNow(zones, window, at(now))).toBe(result === at(now))
  return iso(result)
}

describe('nextCallableAt: one zone, 08:00-21:00', () => {
  test.each([
    // New York, EST (UTC-5): 08:00 = 13:00Z, 21:00 = 02:00Z next day.
    ['America/New_York', '2026-01-15T15:00:00.000Z', '2026-01-15T15:00:00.000Z', 'inside: now'],
    ['America/New_York', '2026-01-15T13:00:00.000Z', '2026-01-15T13:00:00.000Z', 'opening minute is inside'],
    ['America/New_York', '2026-01-15T12:59:59.999Z', '2026-01-15T13:00:00.000Z', 'a millisecond early'],
    ['America/New_York', '2026-01-15T10:00:00.000Z', '2026-01-15T13:00:00.000Z', 'before opening: today'],
    ['America/New_York', '2026-01-16T01:59:59.999Z', '2026-01-16T01:59:59.999Z', 'last millisecond'],
    ['America/New_York', '2026-01-16T02:00:00.000Z', '2026-01-16T13:00:00.000Z', 'closing is outside: tomorrow'],
    ['America/New_York', '2026-01-16T04:30:00.000Z', '2026-01-16T13:00:00.000Z', '23:30 local: tomorrow'],
    // New York, EDT (UTC-4): 08:00 = 12:00Z.
    ['America/New_York', '2026-07-15T11:59:00.000Z', '2026-07-15T12:00:00.000Z', 'summer: opens an hour earlier in UTC'],
    ['America/New_York', '2026-07-16T01:00:00.000Z', '2026-07-16T12:00:00.000Z', 'summer: after closing'],
    // Spring forward Sunday 2026-03-08: Saturday opens 13:00Z (EST), Sunday 12:00Z (EDT).
    ['America/New_York', '2026-03-07T12:00:00.000Z', '2026-03-07T13:00:00.000Z', 'Saturday before DST'],
    ['America/New_York', '2026-03-08T03:00:00.000Z', '2026-03-08T12:00:00.000Z', 'Saturday night -> DST Sunday'],
    ['America/New_York', '2026-03-09T00:59:00.000Z', '2026-03-09T00:59:00.000Z', 'DST Sunday 20:59 EDT: inside'],
    ['America/New_York', '2026-03-09T01:00:00.000Z', '2026-03-09T12:00:00.000Z', 'DST Sunday closes 01:00Z, an hour early in UTC'],
    // Fall back Sunday 2026-11-01: Saturday opens 12:00Z (EDT), Sunday 13:00Z (EST).
    ['America/New_York', '2026-10-31T11:00:00.000Z', '2026-10-31T12:00:00.000Z', 'Saturday before fall back'],
    ['America/New_York', '2026-11-01T02:00:00.000Z', '2026-11-01T13:00:00.000Z', 'Saturday night -> Sunday EST'],
    ['America/New_York', '2026-11-02T02:00:00.000Z', '2026-11-02T13:00:00.000Z', 'Sunday closes 02:00Z'],
    // Arizona: UTC-7 all year, 08:00 = 15:00Z on both DST dates.
    ['America/Phoenix', '2026-03-08T05:00:00.000Z', '2026-03-08T15:00:00.000Z', 'Phoenix on spring-forward day'],
    ['America/Phoenix', '2026-11-01T05:00:00.000Z', '2026-11-01T15:00:00.000Z', 'Phoenix on fall-back day'],
    ['America/Phoenix', '2026-07-15T05:00:00.000Z', '2026-07-15T15:00:00.000Z', 'Phoenix in summer'],
    ['America/Phoenix', '2026-07-16T04:00:00.000Z', '2026-07-16T15:00:00.000Z', 'Phoenix closes 04:00Z'],
    // Alaska: AKST UTC-9, AKDT UTC-8.
    ['America/Anchorage', '2026-01-15T12:00:00.000Z', '2026-01-15T17:00:00.000Z', 'Anchorage in winter'],
    ['America/Anchorage', '2026-07-15T12:00:00.000Z', '2026-07-15T16:00:00.000Z', 'Anchorage in summer'],
    // Hawaii: UTC-10 all year.
    ['Pacific/Honolulu', '2026-01-15T12:00:00.000Z', '2026-01-15T18:00:00.000Z', 'Honolulu in winter'],
    ['Pacific/Honolulu', '2026-07-15T12:00:00.000Z', '2026-07-15T18:00:00.000Z', 'Honolulu in summer'],
    ['Pacific/Honolulu', '2026-01-16T07:00:00.000Z', '2026-01-16T18:00:00.000Z', 'Honolulu closes 07:00Z'],
    // Canada.
    ['America/Vancouver', '2026-01-15T12:00:00.000Z', '2026-01-15T16:00:00.000Z', 'Vancouver, PST'],
    ['America/St_Johns', '2026-01-15T10:00:00.000Z', '2026-01-15T11:30:00.000Z', "St John's, NST UTC-3:30"],
    ['America/St_Johns', '2026-07-15T10:00:00.000Z', '2026-07-15T10:30:00.000Z', "St John's, NDT UTC-2:30"],
    ['America/St_Johns', '2026-03-08T02:00:00.000Z', '2026-03-08T10:30:00.000Z', "St John's DST day"],
    ['America/Jamaica', '2026-07-15T12:00:00.000Z', '2026-07-15T13:00:00.000Z', 'Jamaica, UTC-5 all year'],
  ])('%s at %s -> %s (%s)', (zone, now, expected) => {
    expect(next([zone], now)).toBe(expected)
  })

  test('a window ending at 24:00 closes at local midnight', () => {
    const late = { start: '08:00', end: '24:00' }
    expect(next(['America/New_York'], '2026-01-16T04:59:59.999Z', late)).toBe('2026-01-16T04:59:59.999Z')
    expect(next(['America/New_York'], '2026-01-16T05:00:00.000Z', late)).toBe('2026-01-16T13:00:00.000Z')
  })
})

describe('nextCallableAt: every zone of the lead must be inside', () => {
  test.each([
    // 907: Anchorage (AKST, 17:00Z-06:00Z) and Adak (HST, 18:00Z-07:00Z) -> 18:00Z-06:00Z.
    ['+19071001234', '2026-01-15T12:00:00.000Z', '2026-01-15T18:00:00.000Z', 'opens with Adak'],
    ['+19071001234', '2026-01-15T17:30:00.000Z', '2026-01-15T18:00:00.000Z', 'Anchorage open, Adak not yet'],
    ['+19071001234', '2026-01-16T05:59:00.000Z', '2026-01-16T05:59:00.000Z', 'both open'],
    ['+19071001234', '2026-01-16T06:00:00.000Z', '2026-01-16T18:00:00.000Z', 'closes with Anchorage'],
    // 605: North_Dakota/Center (CST, 14:00Z-03:00Z) and Denver (MST, 15:00Z-04:00Z) -> 15:00Z-03:00Z.
    ['+16055551234', '2026-01-15T14:30:00.000Z', '2026-01-15T15:00:00.000Z', 'opens with Denver'],
    ['+16055551234', '2026-01-16T03:00:00.000Z', '2026-01-16T15:00:00.000Z', 'closes with Central'],
    // 208 2xx: Boise (MST, 15:00Z-04:00Z) and Los_Angeles (PST, 16:00Z-05:00Z) -> 16:00Z-04:00Z.
    ['+12082001234', '2026-01-15T15:30:00.000Z', '2026-01-15T16:00:00.000Z', 'opens with Los Angeles'],
    ['+12082001234', '2026-01-16T04:00:00.000Z', '2026-01-16T16:00:00.000Z', 'closes with Boise'],
    ['+12082001234', '2026-07-15T15:30:00.000Z', '2026-07-15T15:30:00.000Z', 'summer: PDT opened 15:00Z'],
    // 709: Puerto_Rico (AST, 12:00Z-01:00Z) and St_Johns (NST, 11:30Z-00:30Z) -> 12:00Z-00:30Z.
    ['+17095551234', '2026-01-15T11:45:00.000Z', '2026-01-15T12:00:00.000Z', 'opens with Puerto Rico'],
    ['+17095551234', '2026-01-16T00:30:00.000Z', '2026-01-16T12:00:00.000Z', "closes with St John's"],
    // Toll-free: the organization's zone (Berlin, CET UTC+1: 07:00Z-20:00Z).
    ['+18005551234', '2026-01-15T06:00:00.000Z', '2026-01-15T07:00:00.000Z', 'toll-free uses the org zone'],
  ])('%s at %s -> %s (%s)', (phone, now, expected) => {
    expect(next(zonesForPhone(phone, ORG), now)).toBe(expected)
  })

  test('zones on different calendar dates: Guam (UTC+10) and New York overlap 22:00Z-02:00Z', () => {
    expect(next(['Pacific/Guam', 'America/New_York'], '2026-01-15T03:00:00.000Z')).toBe('2026-01-15T22:00:00.000Z')
    expect(next(['Pacific/Guam', 'America/New_York'], '2026-01-16T01:00:00.000Z')).toBe('2026-01-16T01:00:00.000Z')
  })

  test.each([
    [['Pacific/Guam', 'America/New_York'], { start: '09:00', end: '10:00' }],
    [['Pacific/Honolulu', 'Asia/Tokyo', 'Europe/London'], { start: '09:00', end: '17:00' }],
  ])('no overlap within 14 days -> null (%p)', (zones, window) => {
    expect(next(zones, '2026-01-15T12:00:00.000Z', window)).toBeNull()
  })

  test('no zones: nothing to wait for', () => {
    expect(next([], '2026-01-15T03:00:00.000Z')).toBe('2026-01-15T03:00:00.000Z')
  })
})

describe('zonedTime', () => {
  test.each([
    ['America/New_York', 2026, 1, 15, '08:00', '2026-01-15T13:00:00.000Z', 'EST'],
    ['America/New_York', 2026, 7, 15, '08:00', '2026-07-15T12:00:00.000Z', 'EDT'],
    ['America/New_York', 2026, 1, 15, '24:00', '2026-01-16T05:00:00.000Z', '24:00 is the next midnight'],
    ['America/New_York', 2026, 1, 32, '08:00', '2026-02-01T13:00:00.000Z', 'day 32 rolls into February'],
    ['America/New_York', 2026, 12, 32, '08:00', '2027-01-01T13:00:00.000Z', 'and into next year'],
    // Spring forward 2026-03-08: 02:00-02:59 EST does not exist; the clock reads 03:00 EDT at 07:00Z.
    ['America/New_York', 2026, 3, 8, '01:59', '2026-03-08T06:59:00.000Z', 'just before the gap'],
    ['America/New_York', 2026, 3, 8, '02:00', '2026-03-08T07:00:00.000Z', 'gap start -> end of gap'],
    ['America/New_York', 2026, 3, 8, '02:30', '2026-03-08T07:00:00.000Z', 'inside the gap -> end of gap'],
    ['America/New_York', 2026, 3, 8, '03:00', '2026-03-08T07:00:00.000Z', 'end of gap'],
    ['America/New_York', 2026, 3, 8, '08:00', '2026-03-08T12:00:00.000Z', 'opening after spring forward'],
    // Fall back 2026-11-01: 01:00-01:59 happens twice; take the first (EDT).
    ['America/New_York', 2026, 11, 1, '00:59', '2026-11-01T04:59:00.000Z', 'before the repeat'],
    ['America/New_York', 2026, 11, 1, '01:30', '2026-11-01T05:30:00.000Z', 'repeated: first occurrence'],
    ['America/New_York', 2026, 11, 1, '02:00', '2026-11-01T07:00:00.000Z', 'after the repeat: EST'],
    ['America/New_York', 2026, 11, 1, '08:00', '2026-11-01T13:00:00.000Z', 'opening after fall back'],
    ['America/Phoenix', 2026, 3, 8, '02:30', '2026-03-08T09:30:00.000Z', 'Phoenix has no gap'],
    ['America/St_Johns', 2026, 3, 8, '02:30', '2026-03-08T05:30:00.000Z', "St John's gap ends at 05:30Z"],
    ['America/St_Johns', 2026, 3, 8, '03:00', '2026-03-08T05:30:00.000Z', "St John's 03:00 NDT"],
    ['Pacific/Apia', 2011, 12, 30, '12:00', '2011-12-30T10:00:00.000Z', 'Samoa skipped 2011-12-30 entirely'],
  ])('%s %i-%i-%i %s -> %s (%s)', (zone, y, m, d, hhmm, expected) => {
    expect(iso(zonedTime(zone, { y, m, d }, hhmm))).toBe(expected)
  })

  test.each(['8:00', '25:00', '24:01', '12:60', '', '08:00:00'])('rejects %p', (hhmm) => {
    expect(() => zonedTime('America/New_York', { y: 2026, m: 1, d: 15 }, hhmm)).toThrow(RangeError)
  })

  test('a window must start before it ends', () => {
    expect(() => nextCallableAt(['America/New_York'], { start: '21:00', end: '08:00' }, 0)).toThrow(RangeError)
    expect(() => isCallableNow(['America/New_York'], { start: '08:00', end: '08:00' }, 0)).toThrow(RangeError)
  })
})

describe('localDateOf', () => {
  test.each([
    ['America/New_York', '2026-01-15T04:59:59.999Z', '2026-01-14'],
    ['America/New_York', '2026-01-15T05:00:00.000Z', '2026-01-15'],
    ['America/New_York', '2026-03-08T04:59:59.999Z', '2026-03-07'],
    ['America/New_York', '2026-03-08T05:00:00.000Z', '2026-03-08'],
    ['America/New_York', '2026-11-01T03:59:59.999Z', '2026-10-31'],
    ['America/New_York', '2026-11-01T04:00:00.000Z', '2026-11-01'],
    ['America/New_York', '2026-11-02T04:59:59.999Z', '2026-11-01'],
    ['Pacific/Honolulu', '2026-01-15T09:59:59.999Z', '2026-01-14'],
    ['Pacific/Honolulu', '2026-01-15T10:00:00.000Z', '2026-01-15'],
    ['America/St_Johns', '2026-01-15T03:29:59.999Z', '2026-01-14'],
    ['America/St_Johns', '2026-01-15T03:30:00.000Z', '2026-01-15'],
    ['Pacific/Guam', '2026-01-14T13:59:59.999Z', '2026-01-14'],
    ['Pacific/Guam', '2026-01-14T14:00:00.000Z', '2026-01-15'],
    ['UTC', '2026-12-31T23:59:59.999Z', '2026-12-31'],
    ['America/Los_Angeles', '2027-01-01T07:59:59.999Z', '2026-12-31'],
    ['America/Los_Angeles', '2027-01-01T08:00:00.000Z', '2027-01-01'],
  ])('%s at %s -> %s', (zone, instant, expected) => {
    const { y, m, d } = localDateOf(zone, at(instant))
    expect(`${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`).toBe(expected)
  })
})
