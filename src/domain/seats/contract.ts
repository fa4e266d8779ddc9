/**
 * What the rest of the service asks of seats (dial_mode power and predictive): the admin API
 * and console routes, the dialer's pacing, supervise and inbound calls. Implemented by
 * seat-board.ts, wired as `services.seats`.
 */
import type { Seat, CreateSeatBody } from './seat-shape'

export interface SeatBoard {
  /** A person of the campaign, found by phone (400 `param` phone otherwise): the seat row, its call placed once committed. */
  create(campaignId: string, body: CreateSeatBody): Seat
  /** A campaign's seats, newest first, ended ones too (404 unknown campaign). */
  list(campaignId: string, limit: number, startingAfter?: string): Seat[]
  /** Every seat of an organization that has not ended (the floor view). */
  live(orgId: string): Seat[]
  /** Ends a seat (its leg is hung up); an ended seat is returned as it is; 404 when not the campaign's. */
  end(campaignId: string, seatId: string): Seat
  /** Seats waiting now, free for a lead (the dialer's pacing). */
  waiting(campaignId: string): number
  /** Seats of the campaign with an outbound lead call now (a lead who called in is not one of the dialer's lines): the dialer counts lead lines not yet with a seat. */
  onCall(campaignId: string): number
  /**
   * At a lead's answer (power, predictive), inside the caller's transaction: a waiting seat of the
   * campaign becomes on_call with this lead call; null when none waits (the abandon message plays).
   */
  claim(campaignId: string, leadCallId: string, at: number): { seatId: string; conference: string; person: { id: string; name: string; role: 'sdr' | 'closer' } } | null
  /** The lead call left the seat's conference (or never joined): the seat waits again (unless ended) and the dialer is pumped. */
  release(leadCallId: string, at: number): void
  /** The seat a live lead call is with: its conference is where a supervisor joins. */
  ofCall(callId: string): { seatId: string; conference: string; conferenceSid: string | null; carrierCallId: string | null; personName: string } | null
}
