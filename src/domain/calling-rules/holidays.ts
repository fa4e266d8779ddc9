/**
 * State holidays on which a state bars calls (rows of kind "holiday" in state-rules.ts), from
 * date-holidays: the state's public holidays plus EXTRA_HOLIDAYS, observed days included (date-holidays lists a
 * Saturday holiday's Friday and a Sunday holiday's Monday as "substitute" days). Built once per
 * state and year, then a lookup is one Set probe.
 */
import Holidays from 'date-holidays'
import { describeCache, registerPureMemo } from '../../cache-registry'

const DAY = 86_400_000
/** Per "ST|year": local days (days since 1970-01-01) that are barred. */
const byStateYear = new Map<string, ReadonlySet<number>>()
const calendars = new Map<string, Holidays>()
registerPureMemo(describeCache({
  name: 'state-holidays',
  holds: "a state's barred holiday dates per year (date-holidays)",
  bound: 'one per state with a holiday rule and year in use',
  clearedBy: 'nothing (pure)',
  gain: 'under 0.1 vs about 1,500 µs a window miss in a state with a holiday rule',
  source: 'pure',
}), () => byStateYear.clear())

/**
 * Days a state's law bars that date-holidays does not list as its public holidays (date-holidays
 * rule syntax). PA: the 2019 amendment's list [dnc.com] names Good Friday and Election Day; AL:
 * Mardi Gras is a holiday in Baldwin and Mobile counties only, barred state-wide (stricter: the
 * county is not known).
 */
export const EXTRA_HOLIDAYS: Readonly<Record<string, readonly { rule: string; name: string }[]>> = {
  PA: [{ rule: 'easter -2', name: 'Good Friday' }, { rule: 'tuesday after 1st monday in November', name: 'Election Day' }],
  AL: [{ rule: 'easter -47', name: 'Mardi Gras' }],
}

function calendar(state: string): Holidays {
  let holidays = calendars.get(state)
  if (!holidays) {
    holidays = new Holidays('US', state)
    for (const extra of EXTRA_HOLIDAYS[state] ?? []) holidays.setHoliday(extra.rule, { name: extra.name, type: 'public' })
    calendars.set(state, holidays)
  }
  return holidays
}

/** The state's barred days of `year`, as days since 1970-01-01 (local calendar dates). */
export function holidayDays(state: string, year: number): ReadonlySet<number> {
  const key = `${state}|${year}`
  let days = byStateYear.get(key)
  if (!days) {
    const set = new Set<number>()
    for (const holiday of calendar(state).getHolidays(year)) {
      if (holiday.type !== 'public') continue
      const [y, m, d] = holiday.date.slice(0, 10).split('-').map(Number)
      set.add(Date.UTC(y!, m! - 1, d!) / DAY)
    }
    days = set
    // A server running for years adds one entry per state a year: no bound needed.
    byStateYear.set(key, days)
  }
  return days
}

/** Whether local day `day` (days since 1970-01-01) is a barred holiday in `state`. */
export function isHoliday(state: string, day: number): boolean {
  const year = new Date(day * DAY).getUTCFullYear()
  return holidayDays(state, year).has(day)
}

/** The holiday names of `state` in `year` (substitute days folded into their holiday), for the rules view. */
export function holidayNames(state: string, year: number): string[] {
  const names = new Set<string>()
  for (const holiday of calendar(state).getHolidays(year)) {
    if (holiday.type === 'public') names.add(holiday.name.replace(/ \(substitute day\)$/, ''))
  }
  return [...names]
}
