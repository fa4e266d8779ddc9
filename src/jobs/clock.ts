/** The one source of "now" (unix milliseconds). Nothing else calls Date.now(). */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** Time that stands still until a test (or POST /admin/clock) moves it. */
export class FakeClock implements Clock {
  #now: number

  constructor(start: number = Date.UTC(2026, 0, 5, 15, 0, 0)) {
    this.#now = start
  }

  now(): number {
    return this.#now
  }

  /** Only the scheduler moves fake time, and only forwards. */
  set(ms: number): void {
    if (ms > this.#now) this.#now = ms
  }
}

let lastIsoMs = NaN
let lastIso = ''
/** ISO 8601 with milliseconds. The last answer is kept: the rows of one request share their millisecond. */
export const iso = (ms: number): string => {
  if (ms !== lastIsoMs) {
    lastIso = new Date(ms).toISOString()
    lastIsoMs = ms
  }
  return lastIso
}
export const isoOrNull = (ms: number | null | undefined): string | null => (ms == null ? null : iso(ms))
