/**
 * Calling hours: a lead may be dialed only while every one of its zones is inside the campaign's
 * daily window (DESIGN.md). Pure: every function takes the instant as unix ms; nothing reads the
 * clock, so intake, the queue and tests agree on the same `now`.
 *
 * This runs on every lead intake, so the expensive part (Intl formatting) is memoized: zone
 * offsets per 15-minute UTC block, and each zone's window per local date. An unknown zone or a
 * malformed window throws RangeError: zones come from the generated table or a validated org zone.
 */

import { describeCache, registerPureMemo, type CacheInfo } from '../../cache-registry'

/** "HH:MM" wall-clock times in the lead's zone; start < end on the same day; end may be "24:00". */
export interface DailyWindow {
  start: string
  end: string
}

export interface LocalDate {
  y: number
  m: number
  d: number
}

interface Interval {
  start: number
  end: number
}

const MINUTE = 60_000
const DAY = 86_400_000
const SEARCH_DAYS = 14
/*
 * Zones change offset only at quarter-hour UTC instants (offsets are whole quarter hours and
 * changes happen on the hour, local time). A per-hour memo would be wrong for half an hour in
 * St_Johns, which changes at 05:30 UTC.
 */
const BLOCK = 15 * MINUTE
/** Bound on each memo; a long-running server keeps moving forward in time. */
const CACHE_LIMIT = 50_000

const formatters = new Map<string, Intl.DateTimeFormat>()
const offsetsByZone = new Map<string, Map<number, number>>()
const windows = new Map<string, Interval>()
// Pure memos (the answers depend only on the zone database): a rollback leaves them.
const pure = (name: string, holds: string, bound: string, gain: string): CacheInfo =>
  describeCache({ name, holds, bound, clearedBy: 'nothing (pure)', gain, source: 'pure' })
registerPureMemo(pure(
  'zone-formatters', 'an Intl.DateTimeFormat per IANA zone', 'one per zone in use',
  '43 vs 110 µs an offset miss (a new formatter each time)',
), () => formatters.clear())
registerPureMemo(pure(
  'zone-offsets', "each zone's UTC offset per 15-minute UTC block", '50,000 blocks a zone; full, that zone is emptied',
  '0.4–0.5 vs 4.6–5.1 µs a calling-hours check',
), () => offsetsByZone.clear())
registerPureMemo(pure(
  'zone-windows', "a zone's calling window on a local day, as instants", '50,000 windows; full, it is emptied',
  '0.15–0.44 vs 0.4–1.1 µs a calling-hours check',
), () => windows.clear())

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone)
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      // h23: midnight is 00, never 24 as some engines print with hour12: false.
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
    formatters.set(zone, format)
  }
  return format
}

/** Milliseconds to add to a UTC instant to get the zone's wall clock (negative west of UTC). */
function offsetAt(zone: string, instant: number): number {
  let offsets = offsetsByZone.get(zone)
  if (!offsets) {
    offsets = new Map()
    offsetsByZone.set(zone, offsets)
  }
  const block = Math.floor(instant / BLOCK)
  let offset = offsets.get(block)
  if (offset === undefined) {
    if (offsets.size >= CACHE_LIMIT) offsets.clear()
    const blockStart = block * BLOCK
    const f: Record<string, number> = {}
    for (const part of formatter(zone).formatToParts(blockStart)) f[part.type] = Number(part.value)
    offset = Date.UTC(f.year!, f.month! - 1, f.day!, f.hour!, f.minute!, f.second!) - blockStart
    offsets.set(block, offset)
  }
  return offset
}

/** Days since 1970-01-01 of the zone's local date at `instant`. */
function localDay(zone: string, instant: number): number {
  return Math.floor((instant + offsetAt(zone, instant)) / DAY)
}

/**
 * The instant at which the zone's clock reads `wall` (a wall time written as if it were UTC ms).
 * Repeated (fall back): the first. Skipped (spring forward): the end of the gap, the first
 * instant the clock reads later than `wall`, which is when a window starting then opens.
 */
function wallToInstant(zone: string, wall: number): number {
  // Offsets a day either side bracket any change near `wall` (no zone changes twice a day).
  const before = offsetAt(zone, wall - DAY)
  const after = offsetAt(zone, wall + DAY)
  const early = wall - Math.max(before, after)
  const late = wall - Math.min(before, after)
  if (offsetAt(zone, early) + early === wall) return early
  if (offsetAt(zone, late) + late === wall) return late
  // In the gap: the change is in (wall - after, wall - before]; find its block.
  let lo = Math.floor((wall - after) / BLOCK)
  let hi = Math.ceil((wall - before) / BLOCK)
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2)
    if (offsetAt(zone, mid * BLOCK) === after) hi = mid
    else lo = mid
  }
  return hi * BLOCK
}

/** Campaign windows are a few strings read for every lead placed: each is parsed once. */
const minutesByText = new Map<string, number>()
registerPureMemo(pure(
  'window-minutes', 'minutes of the day by "HH:MM" text', '50,000 texts; full, it is emptied',
  '0.15–0.49 vs 0.45–0.72 µs a calling-hours check',
), () => minutesByText.clear())

function minutesOf(hhmm: string): number {
  let minutes = minutesByText.get(hhmm)
  if (minutes === undefined) {
    minutes = parseMinutes(hhmm)
    if (minutesByText.size >= CACHE_LIMIT) minutesByText.clear()
    minutesByText.set(hhmm, minutes)
  }
  return minutes
}

function parseMinutes(hhmm: string): number {
  const match = /^(?:([01]\d|2[0-3]):([0-5]\d)|24:00)$/.exec(hhmm)
  if (!match) throw new RangeError(`not an HH:MM time: ${hhmm}`)
  return match[1] === undefined ? 24 * 60 : Number(match[1]) * 60 + Number(match[2])
}

function windowMinutes(window: DailyWindow): [number, number] {
  const start = minutesOf(window.start)
  const end = minutesOf(window.end)
  if (start >= end) throw new RangeError(`calling window must start before it ends: ${window.start}-${window.end}`)
  return [start, end]
}

/** The zone's window on local day `day`, as instants [start, end); empty only inside a DST gap. */
function windowOn(zone: string, day: number, start: number, end: number): Interval {
  const key = `${zone}|${day}|${start}|${end}`
  let interval = windows.get(key)
  if (!interval) {
    if (windows.size >= CACHE_LIMIT) windows.clear()
    interval = {
      start: wallToInstant(zone, day * DAY + start * MINUTE),
      end: wallToInstant(zone, day * DAY + end * MINUTE),
    }
    windows.set(key, interval)
  }
  return interval
}

/** The zone's window that contains `t`, else the next one after `t`. */
function windowAtOrAfter(zone: string, t: number, start: number, end: number): Interval {
  for (let day = localDay(zone, t); ; day++) {
    const interval = windowOn(zone, day, start, end)
    if (interval.end > t && interval.start < interval.end) return interval
  }
}

/** The zone's local calendar date at `instant`. */
export function localDateOf(zone: string, instant: number): LocalDate {
  const wall = new Date(instant + offsetAt(zone, instant))
  return { y: wall.getUTCFullYear(), m: wall.getUTCMonth() + 1, d: wall.getUTCDate() }
}

/**
 * The instant the zone's clock reads `hhmm` ("HH:MM", "24:00" allowed) on local `date`. `d` may
 * overflow (32 is the next month's 1st). A skipped time gives the end of the gap; a repeated one
 * its first occurrence.
 */
export function zonedTime(zone: string, date: LocalDate, hhmm: string): number {
  return wallToInstant(zone, Date.UTC(date.y, date.m - 1, date.d) + minutesOf(hhmm) * MINUTE)
}

/** Whether every zone is inside its local window at `now` (start inclusive, end exclusive). */
export function isCallableNow(zones: readonly string[], window: DailyWindow, now: number): boolean {
  const [start, end] = windowMinutes(window)
  return zones.every((zone) => {
    const interval = windowOn(zone, localDay(zone, now), start, end)
    return interval.start <= now && now < interval.end
  })
}

/**
 * `now` when every zone is inside its window; else the earliest later instant when all are;
 * null when that is more than 14 days away (zones too far apart for the window).
 */
export function nextCallableAt(zones: readonly string[], window: DailyWindow, now: number): number | null {
  const [start, end] = windowMinutes(window)
  const limit = now + SEARCH_DAYS * DAY
  let t = now
  while (t <= limit) {
    // Nothing before the latest of the zones' next openings can be in all windows.
    let opens = t
    let closes = Infinity
    for (const zone of zones) {
      const interval = windowAtOrAfter(zone, t, start, end)
      opens = Math.max(opens, interval.start)
      closes = Math.min(closes, interval.end)
    }
    if (opens < closes) return opens <= limit ? opens : null
    t = opens
  }
  return null
}
