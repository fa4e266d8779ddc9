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
  /** The seat a live lead call is with: its conference is where a supervisor joins. */
  ofCall(callId: string): { seatId: string; conference: string; conferenceSid: string | null; carrierCallId: string | null; personName: string } | null
}
