import { logger } from '../../log'
import type { SeatLegRequest } from '../carrier'
import type { SeatLegPort } from '../ports'
import { refuseCallback, timed, verifiedParams } from './callback-audit'
import { FloorTwilioCarrier } from './inbound-carrier'
import { TwilioRestClient, type TwilioAccount } from './rest-client'
import { runSeatStep, SEAT_RING_SECONDS, SEAT_STEPS, seatUrl, type SeatStep } from './seat-steps'
import type { CallbackReply } from './twilio-carrier'

/** A signed callback of a seat's leg (seat-routes.ts). */
export interface SeatCallbackInput {
  seatId: string
  step: string
  /** The URL Twilio requested: DIALER_PUBLIC_URL, the path and the query. */
  url: string
  body: string
  signature: string | null
}

const CALL_SID = /^CA[0-9a-fA-F]{32}$/

/**
 * The Twilio carrier with seats' own legs (docs/telephony.md "Seats"): the person's call placed
 * once the seat is committed, its signed callbacks (seat-steps.ts) moving the seat through the
 * board's port, and a hang-up when the seat is ended.
 */
export class SeatedTwilioCarrier extends FloorTwilioCarrier {
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
    const account = this.deps.account(request.orgId)
    if (!account) return this.seatFailed(legs, request.seatId, 'no_account')
    const url = (step: SeatStep) => seatUrl(this.deps.publicUrl, request.seatId, step)
    const created = await this.restOf(account).createCall({
      to: request.to, from: request.from, url: url('answer'), statusCallback: url('status'), machineDetection: false, record: false, timeoutSeconds: SEAT_RING_SECONDS,
    })
    if (this.seatsStopped) return
    if (!created.ok) {
      logger.warn('twilio_seat_call_failed', { seat_id: request.seatId, kind: created.error.kind, status: created.error.status, code: created.error.code })
      return this.seatFailed(legs, request.seatId, created.error.kind)
    }
    const sid = created.value.sid
    const endedMeanwhile = this.deps.transaction(() => {
      const leg = legs.get(request.seatId)
      if (!leg) return false
      // A status callback may have named the leg first: same value.
      if (leg.carrierCallId === null) legs.save(request.seatId, { carrierCallId: sid })
      return leg.state === 'ended'
    })
    // Ended while its call was being placed (DELETE): hung up now that Twilio named it.
    if (endedMeanwhile) this.deps.afterDurable(() => void this.hangUpSeat(account, request.seatId, sid))
  }

  endSeat(seat: { seatId: string; orgId: string; carrierCallId: string | null }): void {
    const account = this.deps.account(seat.orgId)
    // Not named yet: placeSeatLeg hangs it up when the create reply comes.
    if (!account || !seat.carrierCallId) return
    void this.hangUpSeat(account, seat.seatId, seat.carrierCallId)
  }

  private async hangUpSeat(account: TwilioAccount, seatId: string, sid: string): Promise<void> {
    // completed hangs up a call in progress and one still ringing (twilio.com/docs/voice/api/call-resource#update-a-call-resource).
    const result = await this.restOf(account).updateCall(sid, { status: 'completed' })
    if (!result.ok) logger.warn('twilio_seat_hangup_failed', { seat_id: seatId, kind: result.error.kind, status: result.error.status, code: result.error.code })
  }

  private seatFailed(legs: SeatLegPort, seatId: string, why: string): void {
    logger.warn('twilio_seat_not_placed', { seat_id: seatId, reason: why })
    this.deps.transaction(() => legs.ended(seatId, 'failed', this.deps.clock.now()))
  }

  private restOf(account: TwilioAccount): TwilioRestClient {
    return new TwilioRestClient(account, this.deps.rest)
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
      const account = leg ? this.deps.account(leg.orgId) : null
      const refused = { callId: input.seatId, step: `seat-${step}`, url: input.url }
      if (!legs || !leg || !account) return refuseCallback(this.deps.metrics, refused, 'unknown_call')
      const checked = verifiedParams(account, input)
      if ('refused' in checked) return refuseCallback(this.deps.metrics, refused, checked.refused)
      const params = checked.params
      this.deps.metrics?.callback(`seat-${step}`)
      return this.deps.transaction((): CallbackReply => {
        const current = legs.get(input.seatId)!
        const sid = params.CallSid
        // The room's callbacks name whichever participant moved; the leg's own carry its CallSid.
        if (step !== 'conference') {
          if (sid === undefined || !CALL_SID.test(sid) || (current.carrierCallId !== null && current.carrierCallId !== sid)) return { status: 200, twiml: null }
          if (current.carrierCallId === null) legs.save(input.seatId, { carrierCallId: sid })
        }
        const result = runSeatStep(this.deps.publicUrl, current, step, params)
        if (result.state !== current.carrierState || result.conferenceSid) {
          legs.save(input.seatId, { carrierState: result.state, ...(result.conferenceSid ? { conferenceSid: result.conferenceSid } : {}) })
        }
        const now = this.deps.clock.now()
        if (result.move?.kind === 'sat') legs.sat(input.seatId, now)
        else if (result.move?.kind === 'ended') legs.ended(input.seatId, result.move.reason, now)
        return { status: 200, twiml: result.twiml }
      })
    })
  }
}
