import { logger } from '../../log'
import type { CallEvents, CallReport, Carrier, DialRequest, OpenCall } from '../carrier'
import type { SeatRelay } from '../media-stream/contract'
import { createSeatRelay } from '../media-stream/relay'
import type { CarrierCallRecord } from '../ports'
import { callbackUrl, CALLBACK_STEPS, initialCarrierState, LEAD_RING_SECONDS, LEG_STEPS, planOf, type CallbackStep, type CallPlan, type CarrierState } from './call-plan'
import { applyEvent, lookupEvent, runStep, tellEnded, type RestAction, type StepContext } from './callback-steps'
import { failedReport, noteOf } from './failures'
import { TwilioRestClient, type TwilioAccount } from './rest-client'
import { countEnd, refuseCallback, timed, verifiedParams } from './callback-audit'
import { warnIfLoopback } from './public-url'
import { seatInterrupted, onSeatNext } from './seat-next-steps'
import { applyFailure } from './seat-controls'
import { TwilioSeatHost } from './seat-host'
import { seatAgentConnector } from './seat-agents'
import type { CallbackInput, CallbackReply, TwilioCarrierDeps } from './carrier-types'
import { DELETE_RETRIES_MS, deleteTwilioCopy, downloadRecording, startRecording, waitForRecording, type RecordingCopyDeps } from './recording-copy'

export type { CallbackInput, CallbackReply, TwilioCarrierDeps } from './carrier-types'

/**
 * Twilio Programmable Voice as a carrier (docs/telephony.md): a person-first power dialer. The
 * dial places the call through the REST API once its rows are durable; Twilio's signed
 * callbacks (callback-routes.ts) move the call through lifecycle.ts, each in one
 * transaction with the call-service events it causes; REST work they call for (redirects,
 * hang-ups, the recording download) starts only once that transaction is durable.
 */

/** How long an ended call waits for its recording before the service is told without it. */
export const RECORDING_WAIT_MS = 60_000
/** The watchdog asks Twilio about a call it has heard nothing of for this long. */
export const QUIET_CALL_MS = 15 * 60_000

export class TwilioCarrier implements Carrier {
  readonly name = 'twilio'
  private events: CallEvents | null = null

  /** Set when the service closes: a REST reply that comes later is dropped (the next boot's reconcile reads it from Twilio). */
  private stopped = false

  /** AI-seated calls' streams (stream-routes.ts hands it Twilio's sockets); its host is this carrier's rows. */
  readonly relay: SeatRelay

  constructor(protected readonly deps: TwilioCarrierDeps) {
    const host = new TwilioSeatHost({ ...deps, carrier: this.name, events: () => this.requireEvents() })
    this.relay = createSeatRelay({ host, metrics: deps.seatMetrics, connectAgent: seatAgentConnector(deps.realtime) })
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
    const account = this.deps.account(request.orgId)
    const from = request.callerId
    if (!account || !from) {
      const note = !account ? 'The organization\u2019s Twilio settings could not be read; the call was not placed.' : 'The organization has no caller ID to call from.'
      logger.warn('twilio_dial_skipped', { call_id: request.callId, reason: !account ? 'no_account' : 'no_caller_id' })
      this.deps.metrics?.callEnded('not_placed')
      return events.ended(request.callId, failedReport(note, 'unavailable'))
    }
    const plan = planOf(request, from)
    warnIfLoopback(this.deps.publicUrl)
    const now = clock.now()
    this.deps.transaction(() =>
      store.insert({ callId: request.callId, orgId: request.orgId, carrier: this.name, carrierCallId: null, plan, state: initialCarrierState(plan), open: true, created: now, updated: now }),
    )
    this.deps.afterDurable(() => void this.place(request.callId, account, plan))
  }

  private async place(callId: string, account: TwilioAccount, plan: CallPlan): Promise<void> {
    const url = (step: CallbackStep) => callbackUrl(this.deps.publicUrl, callId, step)
    const result = await this.client(account).createCall({
      to: plan.to, from: plan.from, url: url('answer'), statusCallback: url('status'), machineDetection: plan.machineDetection,
      // Where every party must consent the call starts unrecorded: recording starts after the notice (start-recording).
      asyncAmdStatusCallback: url('amd'), record: plan.record && !plan.consent, recordingStatusCallback: url('recording'), timeoutSeconds: LEAD_RING_SECONDS,
    })
    if (this.stopped) return
    if (result.ok) {
      // A status callback may have named the call first (it adopts the sid): same value.
      this.deps.transaction(() => {
        const row = this.deps.store.get(callId)
        if (row && row.carrierCallId === null) this.deps.store.update(callId, { carrierCallId: result.value.sid, updated: this.deps.clock.now() })
      })
      return
    }
    const failure = result.error
    this.deps.metrics?.callEnded('not_placed')
    logger.warn('twilio_dial_failed', { call_id: callId, kind: failure.kind, status: failure.status, code: failure.code })
    this.finish(callId, failedReport(noteOf(failure), failure.kind === 'rejected' ? undefined : failure.kind))
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

  /** A signed callback from Twilio: checked, applied in one transaction, answered (TwiML where Twilio waits for it). */
  handle(input: CallbackInput): CallbackReply {
    return timed(this.deps.metrics, () => this.handleChecked(input))
  }

  private handleChecked(input: CallbackInput): CallbackReply {
    if (!(CALLBACK_STEPS as readonly string[]).includes(input.step)) return { status: 404, twiml: null }
    const step = input.step as CallbackStep
    const row = this.deps.store.get(input.callId)
    const account = row ? this.deps.account(row.orgId) : null
    // Unknown call, or an organization without a token to check with: nobody can prove who sent it.
    if (!row || !account) return refuseCallback(this.deps.metrics, input, 'unknown_call')
    const checked = verifiedParams(account, input)
    if ('refused' in checked) return refuseCallback(this.deps.metrics, input, checked.refused)
    const params = checked.params
    this.deps.metrics?.callback(step)
    const sid = LEG_STEPS.has(step) ? params.ParentCallSid : params.CallSid
    let actions: RestAction[] = []
    const reply = this.deps.transaction((): CallbackReply => {
      const current = this.deps.store.get(input.callId)!
      // Callbacks carry the call's sid; the first one may come before the create reply stored it.
      if (sid === undefined || (current.carrierCallId !== null && current.carrierCallId !== sid) || !/^CA[0-9a-fA-F]{32}$/.test(sid)) {
        return { status: 200, twiml: null }
      }
      const result = runStep(this.context(current), current.state as CarrierState, step, input.leg, params)
      actions = result.actions
      countEnd(this.deps.metrics, current.state as CarrierState, result.state, params.CallStatus)
      this.save(current, result.state, sid)
      return { status: 200, twiml: result.twiml }
    })
    for (const action of actions) this.deps.afterDurable(() => void this.act(input.callId, action))
    return reply
  }

  /**
   * Boot: asks Twilio how a call that was up has gone since. A call Twilio never named (the
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

  /** Open calls Twilio has told nothing of for QUIET_CALL_MS are looked up (a lost final callback). */
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
    const account = row ? this.deps.account(row.orgId) : null
    if (!row || !row.carrierCallId || !account) {
      if (row) this.finish(callId, failedReport('The call could not be looked up at Twilio after a restart.', 'unavailable'))
      return
    }
    const fetched = await this.client(account).fetchCall(row.carrierCallId)
    if (this.stopped) return
    if (!fetched.ok) {
      logger.warn('twilio_reconcile_failed', { call_id: callId, kind: fetched.error.kind, status: fetched.error.status })
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
    return { callId: row.callId, orgId: row.orgId, plan: row.plan as CallPlan, publicUrl, now: this.deps.clock.now(), events: this.requireEvents(), seats, streamKey }
  }

  private save(row: CarrierCallRecord, state: CarrierState, sid: string): void {
    const open = !(state.reported && state.life.stage === 'ended') || state.twilioCopy === 'delete'
    this.deps.store.update(row.callId, { state, open, carrierCallId: row.carrierCallId ?? sid, updated: this.deps.clock.now() })
  }

  protected requireEvents(): CallEvents {
    if (!this.events) throw new Error('TwilioCarrier.connect was not called')
    return this.events
  }

  private client(account: TwilioAccount): TwilioRestClient {
    return new TwilioRestClient(account, this.deps.rest)
  }

  /** REST work a callback called for, once its change is durable. Failures are logged: the call's own callbacks still end it. */
  private async act(callId: string, action: RestAction): Promise<void> {
    if (action.type === 'wait-for-recording') return this.waitForRecording(callId, RECORDING_WAIT_MS)
    if (action.type === 'download-recording') return downloadRecording(this.copyDeps(), callId, action.recordingSid, 0)
    if (action.type === 'start-recording') return startRecording(this.copyDeps(), this.deps.publicUrl, callId)
    const row = this.deps.store.get(callId)
    const account = row ? this.deps.account(row.orgId) : null
    if (!row?.carrierCallId || !account) return
    if (action.type === 'redirect') {
      // The answer's TwiML may have routed the call already (an AMD result that came first).
      const claimed = this.deps.transaction(() => {
        const current = this.deps.store.get(callId)!
        const state = current.state as CarrierState
        if (state.routed || state.life.stage === 'ended') return false
        this.deps.store.update(callId, { state: { ...state, routed: true }, updated: this.deps.clock.now() })
        return true
      })
      if (!claimed) return
    }
    const update = action.type === 'hang-up' ? { status: 'completed' as const }
      : action.type === 'cancel' ? { status: 'canceled' as const }
      : action.type === 'twiml' ? { twiml: action.twiml }
        : { url: callbackUrl(this.deps.publicUrl, callId, action.step) }
    const result = await this.client(account).updateCall(row.carrierCallId, update)
    if (!result.ok) logger.warn('twilio_update_failed', { call_id: callId, action: action.type, kind: result.error.kind, status: result.error.status, code: result.error.code })
  }

  private waitForRecording(callId: string, ms: number): void {
    waitForRecording(this.copyDeps(), callId, ms)
  }

  /** The recording's download, storage and deletion at Twilio (recording-copy.ts). */
  private copyDeps(): RecordingCopyDeps {
    const save = (row: CarrierCallRecord, state: CarrierState) => this.save(row, state, row.carrierCallId ?? '')
    return { ...this.deps, client: (account) => this.client(account), stopped: () => this.stopped, save, events: () => this.requireEvents() }
  }
}
