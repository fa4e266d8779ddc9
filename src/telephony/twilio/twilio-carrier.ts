import { logger } from '../../log'
import type { CallEvents, CallReport, Carrier, DialRequest, OpenCall } from '../carrier'
import type { SeatRelay } from '../media-stream/contract'
import { createSeatRelay } from '../media-stream/relay'
import type { CarrierCallRecord } from '../ports'
import { callbackUrl, CALLBACK_STEPS, initialCarrierState, LEAD_RING_SECONDS, LEG_STEPS, planOf, type CallbackStep, type CallPlan, type CarrierState } from './call-plan'
import { applyEvent, lookupEvent, runStep, tellEnded, type RestAction, type StepContext } from './callback-steps'
import { failedReport, noteOf } from './failures'
import { countEnd, refuseCallback, timed } from './callback-audit'
import { warnIfLoopback } from './public-url'
import { seatInterrupted, onSeatNext } from './seat-next-steps'
import { applyFailure } from './seat-controls'
import { TwilioSeatHost } from './seat-host'
import { seatAgentConnector } from './seat-agents'
import type { CallbackInput, CallbackReply, EngineDeps, TwilioCarrierDeps } from './carrier-types'
import { DELETE_RETRIES_MS, deleteTwilioCopy, waitForRecording, type RecordingCopyDeps } from './recording-copy'
import { ReplyMemory, runAction } from './engine-actions'
import type { CallRest, CarrierWire } from './wire'
import { twilioWire } from './twilio-wire'

export type { CallbackInput, CallbackReply, EngineDeps, TwilioCarrierDeps } from './carrier-types'

/**
 * The call engine of the TwiML carriers (docs/telephony.md): a person-first power dialer. The
 * dial places the call through the REST API once its rows are durable; the carrier's signed
 * callbacks (callback-routes.ts) move the call through lifecycle.ts, each in one
 * transaction with the call-service events it causes; REST work they call for (redirects,
 * hang-ups, the recording download) starts only once that transaction is durable. What differs
 * between Twilio and Telnyx (REST, signatures, ids, URLs, markup) is the wire (wire.ts).
 */

/** How long an ended call waits for its recording before the service is told without it. */
export const RECORDING_WAIT_MS = 60_000
/** The watchdog asks Twilio about a call it has heard nothing of for this long. */
export const QUIET_CALL_MS = 15 * 60_000

export class CallEngine implements Carrier {
  readonly name: string
  private events: CallEvents | null = null
  /** Set when the service closes: a REST reply that comes later is dropped (the next boot's reconcile reads it from the carrier). */
  private stopped = false
  private readonly replies = new ReplyMemory()
  /** AI-seated calls' streams (stream-routes.ts hands it Twilio's sockets); its host is this carrier's rows. */
  readonly relay: SeatRelay

  constructor(protected readonly deps: EngineDeps, readonly wire: CarrierWire) {
    this.name = wire.kind
    const host = new TwilioSeatHost({ ...deps, carrier: this.name, callSid: wire.callSid, events: () => this.requireEvents() })
    this.relay = createSeatRelay({ host, metrics: deps.seatMetrics, connectAgent: seatAgentConnector(deps.realtime), ...(wire.streamDialect ? { dialect: wire.streamDialect } : {}) })
  }

  stop(): void {
    this.stopped = true
    this.relay.stop()
  }

  /** Where callbacks go: the call service's events (wired once in src/services.ts). */
  connect(events: CallEvents): void {
    this.events = events
  }

  dial(request: DialRequest, events: CallEvents): void {
    this.events ??= events
    const { store, clock } = this.deps
    const rest = this.wire.rest(request.orgId)
    const from = request.callerId
    if (!rest || !from) {
      const note = !rest ? `The organization\u2019s ${this.wire.label} settings could not be read; the call was not placed.` : 'The organization has no caller ID to call from.'
      logger.warn(`${this.name}_dial_skipped`, { call_id: request.callId, reason: !rest ? 'no_account' : 'no_caller_id' })
      this.deps.metrics?.callEnded('not_placed')
      return events.ended(request.callId, { ...failedReport(note, 'unavailable'), notPlaced: true })
    }
    const plan = planOf(request, from)
    warnIfLoopback(this.deps.publicUrl)
    const now = clock.now()
    this.deps.transaction(() =>
      store.insert({ callId: request.callId, orgId: request.orgId, carrier: this.name, carrierCallId: null, plan, state: initialCarrierState(plan), open: true, created: now, updated: now }),
    )
    this.deps.afterDurable(() => void this.place(request.callId, rest, plan))
  }

  private async place(callId: string, rest: CallRest, plan: CallPlan): Promise<void> {
    const url = (step: CallbackStep) => this.wire.url(callbackUrl(this.deps.publicUrl, callId, step))
    const result = await rest.createCall({
      to: plan.to, from: plan.from, url: url('answer'), statusCallback: url('status'), machineDetection: plan.machineDetection,
      // Where every party must consent the call starts unrecorded: recording starts after the notice (start-recording).
      asyncAmdStatusCallback: url('amd'), record: plan.record && !plan.consent, recordingStatusCallback: url('recording'), timeoutSeconds: LEAD_RING_SECONDS,
    })
    if (this.stopped) return
    if (result.ok) {
      // A status callback may have named the call first (it adopts the sid): same value. A carrier
      // that names it only in its callbacks (Telnyx) leaves it to the first one.
      const sid = result.value.sid
      if (sid === null) return
      this.deps.transaction(() => {
        const row = this.deps.store.get(callId)
        if (row && row.carrierCallId === null) this.deps.store.update(callId, { carrierCallId: sid, updated: this.deps.clock.now() })
      })
      return
    }
    const failure = result.error
    this.deps.metrics?.callEnded('not_placed')
    logger.warn(`${this.name}_dial_failed`, { call_id: callId, kind: failure.kind, status: failure.status, code: failure.code })
    // Not placed: a pool's next carrier may dial it (throttled, unavailable; never a rejected number).
    this.finish(callId, { ...failedReport(noteOf(failure, this.wire.label), failure.kind === 'rejected' ? undefined : failure.kind), notPlaced: true })
  }

  /** Ends a call the carrier never placed (or lost): told once, the row closed. */
  private finish(callId: string, report: CallReport): void {
    this.deps.transaction(() => {
      const row = this.deps.store.get(callId)
      if (!row) return
      const state = tellEnded({ callId, events: this.requireEvents() }, row.state as CarrierState, report)
      this.deps.store.update(callId, { state: { ...state, life: { ...state.life, stage: 'ended' } }, open: false, updated: this.deps.clock.now() })
    })
  }

  hangUp(callId: string): void {
    this.relay.end(callId)
    const row = this.deps.store.get(callId)
    if (row) this.deps.afterDurable(() => void this.act(row.callId, { type: 'hang-up' }))
  }

  recording(call: { id: string }): Uint8Array | null {
    return this.deps.recordings.read(call.id)
  }

  /** A signed callback from the carrier: checked, applied in one transaction, answered (TwiML where it waits for it). */
  handle(input: CallbackInput): CallbackReply {
    return timed(this.deps.metrics, () => this.handleChecked(input))
  }

  /** A callback its route verified already (an incoming call's status, found by its sid): applied as the call's step. */
  protected handleVerified(input: CallbackInput, params: Record<string, string>): CallbackReply {
    return this.handleChecked(input, params)
  }

  private handleChecked(input: CallbackInput, verified?: Record<string, string>): CallbackReply {
    if (!(CALLBACK_STEPS as readonly string[]).includes(input.step)) return { status: 404, twiml: null }
    const step = input.step as CallbackStep
    const row = this.deps.store.get(input.callId)
    // Unknown call, or an organization without a key to check with: nobody can prove who sent it.
    if (!row || row.carrier !== this.name) return refuseCallback(this.deps.metrics, input, 'unknown_call', this.name)
    const checked = verified ? { params: verified } : this.wire.verify(row.orgId, input)
    if ('refused' in checked) {
      if (checked.refused === 'replay') return this.replayed(checked.key)
      return refuseCallback(this.deps.metrics, input, checked.refused, this.name)
    }
    const params = checked.params
    this.deps.metrics?.callback(step)
    const sid = LEG_STEPS.has(step) ? params.ParentCallSid : params.CallSid
    let actions: RestAction[] = []
    const reply = this.deps.transaction((): CallbackReply => {
      const current = this.deps.store.get(input.callId)!
      // The call's own sid (the first callback may come before the create reply), never another call's (Telnyx signs no URL).
      const taken = (s: string) => this.deps.store.bySid?.(s) !== undefined || this.deps.seatLegs?.named?.(s) === true
      if (sid === undefined || (current.carrierCallId !== null && current.carrierCallId !== sid) || !this.wire.callSid.test(sid) || (current.carrierCallId === null && taken(sid))) {
        return { status: 200, twiml: null }
      }
      const before = current.state as CarrierState
      const result = runStep(this.context(current), before, step, input.leg, params)
      actions = result.actions
      // A hang-up asked before the carrier named the call is sent now that it has.
      if (before.hangUpOwed && current.carrierCallId === null) {
        result.state = { ...result.state, hangUpOwed: false }
        actions = [...actions, { type: 'hang-up' }]
      }
      // A carrier that reports the call's STIR/SHAKEN attestation (Telnyx's call-progress callbacks) tells it; kept once.
      const level = params.ShakenStirAttestation
      if (step === 'status' && (level === 'A' || level === 'B' || level === 'C')) this.requireEvents().attested?.(input.callId, level)
      countEnd(this.deps.metrics, before, result.state, params.CallStatus)
      this.save(current, result.state, sid)
      return { status: 200, twiml: result.twiml === null ? null : this.wire.markup(result.twiml) }
    })
    for (const action of actions) this.deps.afterDurable(() => void this.act(input.callId, action))
    return this.remember('key' in checked ? checked.key : undefined, reply)
  }

  /** The same signed request again (a carrier's retry, or someone replaying it): the first answer, nothing applied. */
  protected replayed(key: string | undefined): CallbackReply {
    return { status: 200, twiml: this.replies.get(key) }
  }

  protected remember(key: string | undefined, reply: CallbackReply): CallbackReply {
    if (reply.status === 200) this.replies.keep(key, reply.twiml)
    return reply
  }

  /**
   * Boot: asks the carrier how a call that was up has gone since. A call Twilio never named (the
   * process stopped between the commit and Twilio's reply) cannot be looked up: closed as failed.
   */
  resume(call: OpenCall, events: CallEvents): boolean {
    this.events ??= events
    const row = this.deps.store.get(call.id)
    if (!row || row.carrierCallId === null) {
      if (row) this.deps.store.update(call.id, { open: false, updated: this.deps.clock.now() })
      return false
    }
    const state = row.state as CarrierState
    if (state.pendingEnd) this.waitForRecording(call.id, 0)
    else void this.reconcile(call.id, true)
    return true
  }

  /** Open calls the carrier has told nothing of for QUIET_CALL_MS are looked up (a lost final callback). */
  watch(): number {
    const quiet = this.deps.store.openSince(this.deps.clock.now() - QUIET_CALL_MS, 100)
    for (const row of quiet) {
      const state = row.state as CarrierState
      if (state.pendingEnd) this.waitForRecording(row.callId, 0)
      else if (state.reported && state.twilioCopy === 'delete') void deleteTwilioCopy(this.copyDeps(), row.callId, DELETE_RETRIES_MS.length)
      else void this.reconcile(row.callId)
    }
    return quiet.length
  }

  /**
   * GET Calls/{Sid}.json and apply a final status as if its callback had come. After a restart an
   * AI seat that had the call lost its sockets: the call is taken back (still up: the takeback
   * TwiML now; ended: reported as taken back).
   */
  async reconcile(callId: string, afterRestart = false): Promise<void> {
    const row = this.deps.store.get(callId)
    const rest = row ? this.wire.rest(row.orgId) : null
    if (!row || !row.carrierCallId || !rest) {
      if (row) this.finish(callId, failedReport(`The call could not be looked up at ${this.wire.label} after a restart.`, 'unavailable'))
      return
    }
    const fetched = await rest.fetchCall(row.carrierCallId)
    if (this.stopped) return
    if (!fetched.ok) {
      logger.warn(`${this.name}_reconcile_failed`, { call_id: callId, kind: fetched.error.kind, status: fetched.error.status })
      // Asked again by the watchdog; touched so it waits its turn rather than looping.
      this.deps.transaction(() => this.deps.store.update(callId, { updated: this.deps.clock.now() }))
      return
    }
    const call = fetched.value
    const takeback = this.deps.transaction((): string | null => {
      const current = this.deps.store.get(callId)!
      const saved = current.state as CarrierState
      // An AI seat that had the call lost its sockets with the process: the call is taken back.
      const seatLost = afterRestart && seatInterrupted(saved)
      const before = seatLost ? (applyFailure(current.plan as CallPlan, saved, 'restart') ?? saved) : saved
      if (seatLost && call.status === 'in-progress') {
        const next = onSeatNext(this.context(current), before, 'restart')
        this.save(current, next.state, current.carrierCallId!)
        return next.twiml
      }
      // Still up at Twilio: nothing changes here, its callbacks go on. Ended: redirects that were
      // due no longer matter, and a recording callback sent while the process was down is lost
      // (the audio stays in the Twilio account): the service is told at once, without it.
      let state = applyEvent(this.context(current), before, lookupEvent(before, call), false).state
      countEnd(this.deps.metrics, saved, state, call.status)
      if (state.pendingEnd) state = tellEnded({ callId, events: this.requireEvents() }, state, state.pendingEnd)
      this.save(current, state, current.carrierCallId!)
      return null
    })
    if (takeback !== null) this.deps.afterDurable(() => void this.act(callId, { type: 'twiml', twiml: takeback }))
  }

  protected context(row: CarrierCallRecord): StepContext {
    const { publicUrl, seats, streamKey } = this.deps
    const { label, recordingSid } = this.wire
    return { callId: row.callId, orgId: row.orgId, plan: row.plan as CallPlan, publicUrl, now: this.deps.clock.now(), events: this.requireEvents(), seats, streamKey, label, recordingSid }
  }

  private save(row: CarrierCallRecord, state: CarrierState, sid: string): void {
    const open = !(state.reported && state.life.stage === 'ended') || state.twilioCopy === 'delete'
    this.deps.store.update(row.callId, { state, open, carrierCallId: row.carrierCallId ?? sid, updated: this.deps.clock.now() })
  }

  protected requireEvents(): CallEvents {
    if (!this.events) throw new Error(`${this.wire.label} carrier: connect was not called`)
    return this.events
  }

  /** REST work a callback called for, once its change is durable (engine-actions.ts). */
  private act(callId: string, action: RestAction): Promise<void> {
    const wait = (id: string) => this.waitForRecording(id, RECORDING_WAIT_MS)
    return runAction({ deps: this.deps, wire: this.wire, copyDeps: () => this.copyDeps(), waitForRecording: wait }, callId, action)
  }

  private waitForRecording(callId: string, ms: number): void {
    waitForRecording(this.copyDeps(), callId, ms)
  }

  /** The recording's download, storage and deletion at Twilio (recording-copy.ts). */
  private copyDeps(): RecordingCopyDeps {
    const save = (row: CarrierCallRecord, state: CarrierState) => this.save(row, state, row.carrierCallId ?? '')
    return { ...this.deps, rest: (orgId) => this.wire.rest(orgId), url: (url) => this.wire.url(url), label: this.name, stopped: () => this.stopped, save, events: () => this.requireEvents() }
  }
}

/** The engine on Twilio's wire (the plugin builds the seated one; tests build this). */
export class TwilioCarrier extends CallEngine {
  constructor(deps: TwilioCarrierDeps) {
    super(deps, twilioWire(deps.account, deps.rest))
  }
}
