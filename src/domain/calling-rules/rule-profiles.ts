/**
 * A rule compiled to a "profile": an allowed local window per weekday plus barred holiday
 * states (hours, day and holiday rules), or a cap. Each profile memoizes its window per zone and
 * local day as instants, using calling-window.ts for the zone offset math; `nextAllowed` walks
 * those windows and the caps to the first instant a call may start.
 */
import { describeCache, registerPureMemo } from '../../cache-registry'
import { localDateOf, zonedTime } from '../calling-hours/calling-window'
import type { RuleView } from './contract'
import { isHoliday } from './holidays'

export const HOUR = 3_600_000
export const DAY = 86_400_000
const HORIZON = 14 * DAY
export const CACHE_LIMIT = 50_000
export const FULL_DAY: Span = [0, 1440]

/** Allowed local minutes [start, end) of one weekday; null: none that day. */
export type Span = readonly [number, number]
export type Week = readonly (Span | null)[]

interface Interval {
  start: number
  end: number
}

export interface Profile {
  week: Week
  holidayStates: readonly string[]
  /** On a holiday of holidayStates: the window allowed (within the weekday's), or null when the day is barred. */
  holidaySpan: Span | null
  /** zone -> local day -> the allowed interval as instants (null: none that day). */
  memo: Map<string, Map<number, Interval | null>>
  generation: number
}

export interface Cap {
  id: string
  max: number
  period: number
}

export interface Compiled {
  view: RuleView
  profile: Profile | null
  cap: Cap | null
  /** A fixed zone the profile is read in (the rule's `timezone`) instead of the lead's zones; null for the lead's. */
  zone: string | null
}

/** A profile and the zones it must allow in. */
export interface Part {
  profile: Profile
  zones: readonly string[]
}

export const HHMM = Array.from({ length: 1441 }, (_, m) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`)
export const minutes = (hhmm: string): number => {
  const match = /^(?:([01]\d|2[0-3]):([0-5]\d)|24:00)$/.exec(hhmm)
  if (!match) throw new RangeError(`not an HH:MM time: ${hhmm}`)
  return match[1] === undefined ? 1440 : Number(match[1]) * 60 + Number(match[2])
}

export const profile = (week: Week, holidayStates: readonly string[] = [], holidaySpan: Span | null = null): Profile => ({
  week, holidayStates, holidaySpan, memo: new Map(), generation: 0,
})

function weekOfHours(view: RuleView): Week {
  const week: (Span | null)[] = [null, null, null, null, null, null, null]
  for (const window of view.hours ?? []) {
    const days = window.weekdays ?? (window.days === 'weekdays' ? [1, 2, 3, 4, 5] : window.days === 'weekends' ? [0, 6] : [0, 1, 2, 3, 4, 5, 6])
    for (const day of days) week[day] = [minutes(window.start), minutes(window.end)]
  }
  return week
}

const capOf = (view: RuleView): Cap => ({ id: view.id, max: view.max!, period: view.period_hours! * HOUR })

export function compile(view: RuleView): Compiled {
  const zone = view.timezone ?? null
  switch (view.kind) {
    case 'hours':
      return { view, profile: profile(weekOfHours(view)), cap: null, zone }
    case 'day':
      return { view, profile: profile([0, 1, 2, 3, 4, 5, 6].map((d) => (view.days!.includes(d) ? null : FULL_DAY))), cap: null, zone }
    case 'holiday':
      return { view, profile: profile(Array(7).fill(FULL_DAY), [view.state!]), cap: null, zone }
    case 'cap':
      return { view, profile: null, cap: capOf(view), zone }
    case 'recording':
      // Blocks nothing: read by the carrier through recordingConsent.
      return { view, profile: null, cap: null, zone }
    case 'automated': {
      // Hours and/or a cap; on the state's holidays, holiday_hours within the weekday's window.
      const holiday = view.holiday_hours
      const p = view.hours
        ? profile(weekOfHours(view), holiday ? [view.state!] : [], holiday ? [minutes(holiday.start), minutes(holiday.end)] : null)
        : null
      return { view, profile: p, cap: view.max !== undefined ? capOf(view) : null, zone }
    }
  }
}

/** Describes one of the engine's pure memos (src/cache-registry.ts). */
export const pure = (name: string, holds: string, bound: string, gain: string) =>
  describeCache({ name, holds, bound, clearedBy: 'nothing (pure)', gain, source: 'pure' })

/** Bumped to empty every profile's windows memo (each empties itself on next use). */
let windowGeneration = 0
registerPureMemo(pure(
  'rule-windows', "a rule's allowed interval per zone and local day, as instants", '50,000 days a zone a rule; full, that zone is emptied',
  '0.4–0.8 vs 1.2–2.2 µs an evaluate',
), () => {
  windowGeneration++
})

/** Days since 1970-01-01 of the zone's local date at `t`. */
function localDay(zone: string, t: number): number {
  const { y, m, d } = localDateOf(zone, t)
  return Date.UTC(y, m - 1, d) / DAY
}

/** The profile's allowed interval in `zone` on local `day`, as instants; null when none. */
function intervalOn(p: Profile, zone: string, day: number): Interval | null {
  if (p.generation !== windowGeneration) {
    p.memo.clear()
    p.generation = windowGeneration
  }
  let byDay = p.memo.get(zone)
  if (!byDay) {
    byDay = new Map()
    p.memo.set(zone, byDay)
  }
  let interval = byDay.get(day)
  if (interval === undefined) {
    // 1970-01-01 was a Thursday (4).
    const span = p.week[(day + 4) % 7]!
    interval = null
    const holiday = span !== null && p.holidayStates.some((state) => isHoliday(state, day))
    const open = holiday ? (p.holidaySpan ? [Math.max(span[0], p.holidaySpan[0]), Math.min(span[1], p.holidaySpan[1])] : null) : span
    if (open && open[0]! < open[1]!) {
      const date = { y: 1970, m: 1, d: day + 1 }
      const start = zonedTime(zone, date, HHMM[open[0]!]!)
      const end = zonedTime(zone, date, HHMM[open[1]!]!)
      if (start < end) interval = { start, end }
    }
    if (byDay.size >= CACHE_LIMIT) byDay.clear()
    byDay.set(day, interval)
  }
  return interval
}

export function allowedIn(p: Profile, zones: readonly string[], t: number): boolean {
  for (const zone of zones) {
    const interval = intervalOn(p, zone, localDay(zone, t))
    if (!interval || t < interval.start || t >= interval.end) return false
  }
  return true
}

/** The zone's allowed interval containing `t`, else the next one, or null within the horizon. */
function intervalAtOrAfter(p: Profile, zone: string, t: number, limit: number): Interval | null {
  const first = localDay(zone, t)
  const last = first + Math.ceil((limit - t) / DAY) + 1
  for (let day = first; day <= last; day++) {
    const interval = intervalOn(p, zone, day)
    if (interval && interval.end > t) return interval
  }
  return null
}

/** The earliest instant >= t (until `limit`) when the caps allow a call; `t` when they do now. */
export function capsAllowFrom(caps: readonly Cap[], calls: readonly number[], t: number): number {
  let until = t
  for (const cap of caps) until = Math.max(until, capAllowsFrom(cap, calls, t))
  return until
}

export function capAllowsFrom(cap: Cap, calls: readonly number[], t: number): number {
  // A call at c counts while t < c + period.
  const from = t - cap.period
  let count = 0
  for (const c of calls) if (c > from) count++
  if (count < cap.max) return t
  const counted = calls.filter((c) => c > from).sort((a, b) => a - b)
  // Enough of the oldest must leave for count to drop below max.
  return counted[count - cap.max]! + cap.period
}

/** Earliest instant in [now, now + 14 days] when every part (each in every zone of its own) and the caps allow a call. */
export function nextAllowed(parts: readonly Part[], caps: readonly Cap[], calls: readonly number[], now: number): number | null {
  const limit = now + HORIZON
  let t = now
  while (t <= limit) {
    let opens = t
    let closes = Infinity
    for (const { profile: p, zones } of parts) {
      for (const zone of zones) {
        const interval = intervalAtOrAfter(p, zone, t, limit)
        if (!interval) return null
        opens = Math.max(opens, interval.start)
        closes = Math.min(closes, interval.end)
      }
    }
    if (opens < closes) {
      const capped = capsAllowFrom(caps, calls, opens)
      if (capped === opens) return opens <= limit ? opens : null
      t = capped
    } else t = opens
  }
  return null
}

export function countSince(calls: readonly number[], from: number): number {
  let count = 0
  for (const c of calls) if (c > from) count++
  return count
}
