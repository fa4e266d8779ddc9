/** The service clock, shifted so a benchmark's New York leads are inside their calling hours. */
import { systemClock } from '../../src/jobs/clock'
import { localMinutes } from '../../test/process/daytime-clock'
import { fmt, log } from './lib'

const HOUR = 3_600_000

/**
 * The calling rules (issue 17) dial the bench's New York numbers only from 08:00 to 21:00
 * there. So the service clock runs at real speed but shifted to the next whole hour that is
 * 09:00 in New York: twelve hours of open window whatever the hour the bench starts, with the
 * real scheduler and its timers, unlike the fake clock. Call the returned function to restore it.
 */
export function shiftToNewYorkMorning(): () => void {
  const now = Date.now()
  let at = (Math.floor(now / HOUR) + 1) * HOUR
  while (Math.floor(localMinutes(at, 'America/New_York') / 60) !== 9) at += HOUR
  const shift = at - now
  const realNow = systemClock.now
  systemClock.now = () => Date.now() + shift
  log(`service clock shifted by ${fmt(shift / HOUR, 2)} h to ${new Date(at).toISOString()} (09:00 in New York)`)
  return () => {
    systemClock.now = realNow
  }
}

