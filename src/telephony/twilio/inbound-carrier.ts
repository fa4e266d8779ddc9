import { logger } from '../../log'
import type { SuperviseRequest } from '../carrier'
import type { CarrierCallRecord } from '../ports'
import type { CallPlan, CarrierState } from './call-plan'
import { refuseCallback, timed } from './callback-audit'
import { runStep } from './callback-steps'
import { answerIncoming } from './inbound-steps'
import type { TwilioFailure, TwilioResult } from './rest-client'
import { hangup, say } from './twiml'
import { CallEngine, type CallbackReply } from './twilio-carrier'

/** Twilio's incoming-call webhook to one of an organization's numbers (its voice URL and status callback). */
export interface IncomingInput {
  orgId: string
  /** The URL Twilio requested: DIALER_PUBLIC_URL, the path and the query. */
  url: string
  body: string
  signature: string | null
  timestamp?: string | null
}
/** Seconds a supervisor's phone rings before Twilio gives up (Participants API Timeout). */
export const SUPERVISOR_RING_SECONDS = 30
export const NO_SEAT_PHONE_MESSAGE = 'Nobody takes calls at this number. Goodbye.'

/**
 * The call engine with the floor's parts (docs/telephony.md): supervisors called into a seat's
 * conference through the Participants API, and calls leads make to the organization's numbers.
 */
export class FloorCallEngine extends CallEngine {
  /** A supervisor's phone into the seat's room; failures are logged (the event stands: the supervisor was called for). */
  supervise(request: SuperviseRequest): void {
    void this.addSupervisor(request)
  }

  async addSupervisor(request: SuperviseRequest): Promise<TwilioResult<{ callSid: string | null }>> {
    const client = this.wire.rest(request.orgId)
    const row = this.deps.store.get(request.callId)
    if (!client || !row) return this.supervisorFailed(request, { kind: 'unavailable', status: null, code: null, message: `No ${this.wire.label} account or call.` })
    let sid = request.conferenceSid
    if (!sid) {
      const found = await client.findConference(request.conference)
      if (!found.ok) return this.supervisorFailed(request, found.error)
      if (!found.value) return this.supervisorFailed(request, { kind: 'rejected', status: null, code: null, message: 'The seat\u2019s conference is not running.' })
      sid = found.value
    }
    const added = await client.addParticipant(sid, {
      from: (row.plan as CallPlan).from, to: request.phone, mode: request.mode, coach: request.seatCallId, timeoutSeconds: SUPERVISOR_RING_SECONDS,
    })
    if (!added.ok) return this.supervisorFailed(request, added.error)
    logger.info(`${this.name}_supervisor_added`, { call_id: request.callId, mode: request.mode })
    return added
  }

  private supervisorFailed<T>(request: SuperviseRequest, error: TwilioFailure): TwilioResult<T> {
    logger.warn(`${this.name}_supervise_failed`, { call_id: request.callId, mode: request.mode, kind: error.kind, status: error.status, code: error.code })
    return { ok: false, error }
  }

  /**
   * The number's voice URL: a known lead's inbound call (a waiting seat, else the press-1 bridge),
   * an unknown caller the organization's message. Signed with the organization's token; a webhook
   * repeated for the same CallSid gets the call's TwiML again and writes nothing.
   */
  answerIncoming(input: IncomingInput): CallbackReply {
    return timed(this.deps.metrics, () => {
      const checked = this.verified(input, 'incoming')
      if (checked === null) return { status: 403, twiml: null }
      if ('replay' in checked) return this.replayed(checked.replay)
      const { params, key } = checked
      const { CallSid: sid, From: from, To: to } = params
      if (!sid || !this.wire.callSid.test(sid) || !from || !to) return { status: 200, twiml: this.wire.markup(hangup()) }
      this.deps.metrics?.callback('incoming')
      return this.remember(key, this.deps.transaction((): CallbackReply => {
        const known = this.deps.store.bySid?.(sid)
        if (known) return { status: 200, twiml: this.wire.markup(this.replay(known, params)) }
        const opened = this.deps.inbound?.open(input.orgId, { from, to }) ?? { kind: 'unknown' as const, message: NO_SEAT_PHONE_MESSAGE }
        if (opened.kind === 'unknown') return { status: 200, twiml: this.wire.markup(say(opened.message)) }
        const now = this.deps.clock.now()
        const ctx = { publicUrl: this.deps.publicUrl, now, events: this.requireEvents(), seats: this.deps.seats }
        const answered = answerIncoming(ctx, opened, { from, to }, params)
        this.deps.store.insert({ callId: opened.callId, orgId: input.orgId, carrier: this.name, carrierCallId: sid, plan: answered.plan, state: answered.state, open: true, created: now, updated: now })
        logger.info(`${this.name}_incoming_call`, { call_id: opened.callId, seated: answered.plan.dialMode === 'power' })
        return { status: 200, twiml: this.wire.markup(answered.twiml) }
      }))
    })
  }

  /** The number's status callback: the incoming call's progress, by its CallSid, as any call's 'status' step. */
  incomingStatus(input: IncomingInput): CallbackReply {
    const checked = this.verified(input, 'incoming-status')
    if (checked === null) return { status: 403, twiml: null }
    if ('replay' in checked) return this.replayed(checked.replay)
    const params = checked.params
    const row = params.CallSid ? this.deps.store.bySid?.(params.CallSid) : undefined
    // An unknown caller's call (no row): nothing to follow.
    if (!row) return { status: 200, twiml: null }
    return this.handleVerified({ callId: row.callId, step: 'status', leg: null, url: input.url, body: input.body, signature: input.signature }, params)
  }

  /** The form's fields once the signature (the organization's key) and AccountSid check out; null: refused. */
  private verified(input: IncomingInput, step: string): { params: Record<string, string>; key?: string } | { replay: string | undefined } | null {
    const checked = this.wire.verify(input.orgId, input)
    if (!('refused' in checked)) return checked
    if (checked.refused === 'replay') return { replay: checked.key }
    refuseCallback(this.deps.metrics, { callId: input.orgId, step, url: input.url }, checked.refused, this.name)
    return null
  }

  /** The same webhook again: what the call runs now (the seat's room, or the bridge's current leg). */
  private replay(row: CarrierCallRecord, params: Record<string, string>): string {
    const state = row.state as CarrierState
    if (state.life.stage === 'ended') return hangup()
    const step = (row.plan as CallPlan).dialMode === 'power' ? 'answer' : 'bridge'
    return runStep(this.context(row), state, step, null, params).twiml ?? hangup()
  }
}
