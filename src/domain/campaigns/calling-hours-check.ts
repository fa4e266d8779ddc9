/** A campaign's calling_hours as the admin API and the console accept them: HH:MM, within the federal floor. */
import { invalid } from '../../errors'

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/

/** The federal floor in minutes of the called party's local day: 08:00 and 21:00. */
const FLOOR_START = 8 * 60
const FLOOR_END = 21 * 60

export const minutesOfDay = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

export function checkHours(hours: { start: string; end: string } | undefined): void {
  if (!hours) return
  if (!HHMM.test(hours.start)) throw invalid('calling_hours.start must be HH:MM.', 'calling_hours.start')
  if (!HHMM.test(hours.end)) throw invalid('calling_hours.end must be HH:MM.', 'calling_hours.end')
  if (minutesOfDay(hours.start) >= minutesOfDay(hours.end)) {
    throw invalid('calling_hours.start must be before calling_hours.end (same day).', 'calling_hours')
  }
  // The federal floor (47 CFR 64.1200(c)(1)): no window may reach outside 08:00-21:00.
  if (minutesOfDay(hours.start) < FLOOR_START) {
    throw invalid('calling_hours.start must not be before 08:00 (federal calling hours, 47 CFR 64.1200(c)(1)).', 'calling_hours.start')
  }
  if (minutesOfDay(hours.end) > FLOOR_END) {
    throw invalid('calling_hours.end must not be after 21:00 (federal calling hours, 47 CFR 64.1200(c)(1)).', 'calling_hours.end')
  }
}
