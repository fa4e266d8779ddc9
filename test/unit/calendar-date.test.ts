import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { t } from 'elysia'
import { FormatRegistry } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import { daysInMonth, isCalendarDate, parseCalendarDate, utcMidnight } from '../../src/domain/calendar-date'
import '../../src/domain/shapes'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// One check for every YYYY-MM-DD the service reads: query filters, export ranges, the API version.

describe('parseCalendarDate', () => {
  test.each([
    ['2026-03-02', { y: 2026, m: 3, d: 2 }],
    ['2026-01-31', { y: 2026, m: 1, d: 31 }],
    ['2026-02-28', { y: 2026, m: 2, d: 28 }],
    ['2028-02-29', { y: 2028, m: 2, d: 29 }],
    ['2000-02-29', { y: 2000, m: 2, d: 29 }],
    ['2026-04-30', { y: 2026, m: 4, d: 30 }],
    ['2026-12-31', { y: 2026, m: 12, d: 31 }],
    ['0050-06-15', { y: 50, m: 6, d: 15 }],
    ['9999-12-31', { y: 9999, m: 12, d: 31 }],
  ])('%s is a day', (value, expected) => {
    expect(parseCalendarDate(value)).toEqual(expected)
    expect(isCalendarDate(value)).toBe(true)
  })

  test.each([
    // Days that do not exist.
    '2026-02-31', '2026-02-30', '2026-02-29', '1900-02-29', '2100-02-29', '2026-04-31', '2026-06-31', '2026-09-31', '2026-11-31',
    // Out of range.
    '2026-13-01', '2026-00-10', '2026-01-00', '2026-01-32',
    // Not the shape.
    '2026-1-05', '2026-01-5', '26-01-05', '20260105', '2026/01/05', ' 2026-01-05', '2026-01-05 ', '2026-01-05T00:00:00Z',
    '+2026-01-05', '２０２６-01-05', '', 'today',
  ])('%p is refused', (value) => {
    expect(parseCalendarDate(value)).toBeNull()
    expect(isCalendarDate(value)).toBe(false)
  })
})

const pad = (n: number, width: number) => String(n).padStart(width, '0')
const write = (y: number, m: number, d: number) => `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`

describe('against Date in UTC', () => {
  test('a date accepted round-trips through Date; midnight UTC is that day', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), (y, m, d) => {
        const value = write(y, m, d)
        const parsed = parseCalendarDate(value)
        // The reference: Date rolls a day past the month's end into the next month.
        const probe = new Date(0)
        probe.setUTCFullYear(y, m - 1, d)
        const exists = probe.getUTCFullYear() === y && probe.getUTCMonth() === m - 1 && probe.getUTCDate() === d
        expect(parsed !== null).toBe(exists)
        if (parsed) {
          expect(utcMidnight(parsed)).toBe(probe.getTime())
          expect(new Date(utcMidnight(parsed)).toISOString().slice(0, 10)).toBe(value)
        }
      }),
      { numRuns: 5000 },
    )
  })

  test('every day of a year is accepted and the next day after the last of a month is not', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 1, max: 12 }), (y, m) => {
        const last = daysInMonth(y, m)
        expect(isCalendarDate(write(y, m, last))).toBe(true)
        expect(isCalendarDate(write(y, m, last + 1))).toBe(false)
      }),
    )
  })

  test('any other string is refused unless it is exactly YYYY-MM-DD', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (value) => {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) expect(isCalendarDate(value)).toBe(false)
      }),
    )
  })
})

describe("TypeBox format 'date' (reply schemas)", () => {
  // Elysia registers a looser 'date' (anything Date reads); src/domain/shapes.ts replaces it.
  const schema = t.String({ format: 'date' })

  test.each(['2026-02-31', '2026-02-29', '2026-13-01', '2026-03-02T10:00:00Z', '03/02/2026'])('%p fails the schema', (value) => {
    expect(Value.Check(schema, value)).toBe(false)
  })

  test.each(['2026-03-02', '2028-02-29'])('%p passes the schema', (value) => {
    expect(Value.Check(schema, value)).toBe(true)
  })

  test('the registered check is the calendar-date check', () => {
    expect(FormatRegistry.Get('date')).toBe(isCalendarDate)
  })
})
