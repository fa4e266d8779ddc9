/**
 * Calendar dates written YYYY-MM-DD (query filters, export ranges, the API version): one check
 * for all of them. Date.parse rolls 2026-02-30 over to March 2 and Date.UTC reads years 0-99 as
 * 1900-1999, so neither is the check; the days of each month are counted here instead.
 */

export interface CalendarDate {
  y: number
  /** 1-12. */
  m: number
  /** 1-31. */
  d: number
}

const SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

const isLeapYear = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)

/** Days in month `m` (1-12) of year `y`, Gregorian. */
export const daysInMonth = (y: number, m: number) => (m === 2 && isLeapYear(y) ? 29 : DAYS[m - 1]!)

/** The date written `value` (exactly YYYY-MM-DD, a day that exists), or null. */
export function parseCalendarDate(value: string): CalendarDate | null {
  const match = SHAPE.exec(value)
  if (!match) return null
  const y = Number(match[1])
  const m = Number(match[2])
  const d = Number(match[3])
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return null
  return { y, m, d }
}

export const isCalendarDate = (value: string): boolean => parseCalendarDate(value) !== null

/** Midnight UTC of `date`, unix ms. */
export function utcMidnight(date: CalendarDate): number {
  const at = new Date(0)
  at.setUTCFullYear(date.y, date.m - 1, date.d)
  return at.getTime()
}
