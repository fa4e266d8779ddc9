/**
 * How many lead lines a campaign may have up at once, by dial mode (docs/telephony.md "Dial
 * modes"). Pure: the dialer asks it before each dial.
 */

export type DialMode = 'bridge' | 'power' | 'predictive'

export interface PacingInput {
  mode: DialMode
  /** The campaign's `lines`: never more than this, in any mode. */
  lines: number
  /** Seats waiting now (in their conference, with no lead). */
  waitingSeats: number
  /** Lead calls of the campaign up now (dialing, ringing, answered and not yet with a seat). */
  leadLinesUp: number
  /** The campaign's person-answered and abandoned calls in the last 30 days (live calls). */
  window: { answered: number; abandoned: number }
  /** The campaign's max_abandon_rate (0 < rate <= 0.03). */
  maxAbandonRate: number
}

/** The lead lines that may be up now (the dialer dials while leadLinesUp is below it). */
export function leadLinesAllowed(input: PacingInput): number {
  switch (input.mode) {
    case 'bridge':
      return input.lines
    case 'power':
      return Math.min(input.lines, input.waitingSeats)
    case 'predictive':
      return Math.min(input.lines, input.waitingSeats + predictiveExtra(input))
  }
}

/** Lines beyond one per waiting seat (filled in by the pacing controller; 0 falls back to power). */
export function predictiveExtra(input: PacingInput): number {
  if (input.waitingSeats === 0) return 0
  return 0
}
