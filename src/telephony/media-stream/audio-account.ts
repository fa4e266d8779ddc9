import { MAX_AHEAD_MS } from './contract'

/**
 * How far the agent's audio runs ahead of real time at the carrier. Frames are passed on at once
 * (no delay is added); this only keeps the account, so audio more than MAX_AHEAD_MS ahead is
 * dropped rather than buffered without bound, and a decision knows how long the audio already
 * sent still plays.
 */
export class AudioAccount {
  /** When the audio sent so far ends playing (the timers' ms). */
  private playsUntil = 0

  /** A frame of `ms` audio at `now`: false when it would end more than MAX_AHEAD_MS from now (it is not counted). */
  take(ms: number, now: number): boolean {
    const from = Math.max(now, this.playsUntil)
    if (from + ms - now > MAX_AHEAD_MS) return false
    this.playsUntil = from + ms
    return true
  }

  /** The carrier emptied its buffer (`clear`). */
  reset(now: number): void {
    this.playsUntil = now
  }

  /** Audio sent and not yet played. */
  queuedMs(now: number): number {
    return Math.max(0, this.playsUntil - now)
  }
}
