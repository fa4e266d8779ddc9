import { logger } from '../../log'
import type { SeatLegRequest } from '../carrier'
import type { SeatLegPort } from '../ports'
import { refuseCallback, timed } from './callback-audit'
import { FloorCallEngine } from './inbound-carrier'
import { runSeatStep, SEAT_RING_SECONDS, SEAT_STEPS, seatUrl, type SeatStep } from './seat-steps'
import type { CallbackReply } from './twilio-carrier'
import type { CallRest } from './wire'

/** A signed callback of a seat's leg (seat-routes.ts). */
export interface SeatCallbackInput {
  seatId: string
  step: string
  /** The URL Twilio requested: DIALER_PUBLIC_URL, the path and the query. */
  url: string
  body: string
  signature: string | null
  timestamp?: string | null
}

/**
 * The call engine with seats' own legs (docs/telephony.md "Seats"): the person's call placed
 * once the seat is committed, its signed callbacks (seat-steps.ts) moving the seat through the
 * board's port, and a hang-up when the seat is ended.
 */
export class SeatedCallEngine extends FloorCallEngine {
  private seatsStopped = false

  override stop(): void {
    this.seatsStopped = true
    super.stop()
  }

  placeSeat(request: SeatLegRequest): void {
    void this.placeSeatLeg(request)
  }

  /** POST Calls.json for the seat's person; a refusal ends the seat (failed). */
  async placeSeatLeg(request: SeatLegRequest): Promise<void> {
    const legs = this.deps.seatLegs
    if (!legs) return
    const rest = this.wire.rest(request.orgId)
    if (!rest) return this.seatFailed(legs, request.seatId, 'no_account')
    const url = (step: SeatStep) => this.wire.url(seatUrl(this.deps.publicUrl, request.seatId, step))
    const created = await rest.createCall({
      to: request.to, from: request.from, url: url('answer'), statusCallback: url('status'), machineDetection: false, record: false, timeoutSeconds: SEAT_RING_SECONDS,
    })
    if (this.seatsStopped) return
    if (!created.ok) {
      logger.warn(`${this.name}_seat_call_failed`, { seat_id: request.seatId, kind: created.error.kind, status: created.error.status, code: created.error.code })
      return this.seatFailed(legs, request.seatId, created.error.kind)
    }
    const sid = created.value.sid
    // Telnyx names the leg in its first callback: the seat's callbacks adopt it (and hang up a seat ended meanwhile).
    if (sid === null) return
    const endedMeanwhile = this.deps.transaction(() => {
      const leg = legs.get(request.seatId)
      if (!leg) return false
      // A status callback may have named the leg first: same value.
      if (leg.carrierCallId === null) legs.save(request.seatId, { carrierCallId: sid })
      return leg.state === 'ended'
    })
    // Ended while its call was being placed (DELETE): hung up now that the carrier named it.
    if (endedMeanwhile) this.deps.afterDurable(() => void this.hangUpSeat(rest, request.seatId, sid))
  }

  endSeat(seat: { seatId: string; orgId: string; carrierCallId: string | null }): void {
    const rest = this.wire.rest(seat.orgId)
    // Not named yet: placeSeatLeg (or the leg's first callback) hangs it up once it is.
    if (!rest || !seat.carrierCallId) return
    void this.hangUpSeat(rest, seat.seatId, seat.carrierCallId)
  }

  private async hangUpSeat(rest: CallRest, seatId: string, sid: string): Promise<void> {
    // completed hangs up a call in progress and one still ringing (twilio.com/docs/voice/api/call-resource#update-a-call-resource).
    const result = await rest.updateCall(sid, { status: 'completed' })
    if (!result.ok) logger.warn(`${this.name}_seat_hangup_failed`, { seat_id: seatId, kind: result.error.kind, status: result.error.status, code: result.error.code })
  }

  private seatFailed(legs: SeatLegPort, seatId: string, why: string): void {
    logger.warn(`${this.name}_seat_not_placed`, { seat_id: seatId, reason: why })
    this.deps.transaction(() => legs.ended(seatId, 'failed', this.deps.clock.now()))
  }

  /**
   * A seat leg's signed callback: checked as a call's (the organization's token, its AccountSid,
   * the leg's CallSid), applied in one transaction, answered with TwiML where Twilio waits for it.
   */
  handleSeat(input: SeatCallbackInput): CallbackReply {
    return timed(this.deps.metrics, () => {
      if (!(SEAT_STEPS as readonly string[]).includes(input.step)) return { status: 404, twiml: null }
      const step = input.step as SeatStep
      const legs = this.deps.seatLegs
      const leg = legs?.get(input.seatId)
      const refused = { callId: input.seatId, step: `seat-${step}`, url: input.url }
      if (!legs || !leg) return refuseCallback(this.deps.metrics, refused, 'unknown_call', this.name)
      const checked = this.wire.verify(leg.orgId, input)
      if ('refused' in checked) {
        if (checked.refused === 'replay') return this.replayed(checked.key)
        return refuseCallback(this.deps.metrics, refused, checked.refused, this.name)
      }
      const params = checked.params
      this.deps.metrics?.callback(`seat-${step}`)
      let hangUp: { rest: CallRest; sid: string } | null = null
      const reply = this.deps.transaction((): CallbackReply => {
        const current = legs.get(input.seatId)!
        const sid = params.CallSid
        // The room's callbacks name whichever participant moved; the leg's own carry its CallSid.
        if (step !== 'conference') {
          if (sid === undefined || !this.wire.callSid.test(sid) || (current.carrierCallId !== null && current.carrierCallId !== sid)) return { status: 200, twiml: null }
          if (current.carrierCallId === null) {
            // Telnyx signs no URL: another call's signed callback sent to this path must not name (and hang up) that call.
            if (this.deps.store.bySid?.(sid) !== undefined || legs.named?.(sid)) return { status: 200, twiml: null }
            legs.save(input.seatId, { carrierCallId: sid })
            // Ended before the carrier named its leg: hung up now.
            const rest = current.state === 'ended' ? this.wire.rest(current.orgId) : null
            if (rest) hangUp = { rest, sid }
          }
        }
        const result = runSeatStep(this.deps.publicUrl, current, step, params, this.wire.conferenceSid)
        if (result.state !== current.carrierState || result.conferenceSid) {
          legs.save(input.seatId, { carrierState: result.state, ...(result.conferenceSid ? { conferenceSid: result.conferenceSid } : {}) })
        }
        const now = this.deps.clock.now()
        if (result.move?.kind === 'sat') legs.sat(input.seatId, now)
        else if (result.move?.kind === 'ended') legs.ended(input.seatId, result.move.reason, now)
        return { status: 200, twiml: result.twiml === null ? null : this.wire.markup(result.twiml) }
      })
      const owed = hangUp as { rest: CallRest; sid: string } | null
      if (owed) this.deps.afterDurable(() => void this.hangUpSeat(owed.rest, input.seatId, owed.sid))
      return this.remember(checked.key, reply)
    })
  }
}
