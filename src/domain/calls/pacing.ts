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
  /**
   * The campaign's 30-day ledger (live calls): `abandoned` over the whole 30 days, `answered` over
   * the part every answer of a line dialed now still sees (from WINDOW_MS - ANSWER_LOOKAHEAD_MS ago).
   */
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

/** The ledger's window: a campaign's abandonment rate is counted over 30 days. */
export const WINDOW_MS = 30 * 86_400_000
/**
 * A line dialed now is answered within this (Twilio rings 30 s; a call may queue at the carrier
 * first): calls answered longer ago than WINDOW_MS minus this may leave the window before it.
 */
export const ANSWER_LOOKAHEAD_MS = 5 * 60_000
/** Lead lines per waiting seat with the whole abandonment budget free. */
export const PREDICTIVE_MAX_RATIO = 3
// Rates are products of decimals (0.03 * 100): a budget a rounding error below a whole call is that call.
const EPSILON = 1e-9

/**
 * The pacing controller: lines beyond one per waiting seat. Every lead line without a seat is
 * counted as an abandonment to come (the worst case: no seat frees up before it is answered),
 * so the lines allowed never exceed what the window can still absorb at max_abandon_rate
 * (abandoned + lines <= rate * answered). Within that the ratio of lines to seats falls from
 * PREDICTIVE_MAX_RATIO with no abandonment to 1 as the window's rate nears the bound; at or
 * past it, and without history, predictive dials as power (one line per waiting seat).
 */
export function predictiveExtra(input: PacingInput): number {
  const seats = input.waitingSeats
  if (seats === 0) return 0
  const { answered, abandoned } = input.window
  const bound = input.maxAbandonRate
  if (answered <= 0 || !(bound > 0)) return 0
  const budget = Math.floor(bound * answered - abandoned + EPSILON)
  const headroom = Math.min(1, Math.max(0, 1 - abandoned / answered / bound))
  const byRatio = Math.floor(seats * (PREDICTIVE_MAX_RATIO - 1) * headroom + EPSILON)
  return Math.max(0, Math.min(byRatio, budget - seats))
}
