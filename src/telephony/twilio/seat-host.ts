import type { Clock } from '../../jobs/clock'
import { logger } from '../../log'
import type { AiUsage } from '../call-values'
import type { CallEvents } from '../carrier'
import type { ControlResult, SeatAgent, SeatControl, SeatFailure, SeatHost, SeatTicket } from '../media-stream/contract'
import { readStreamToken } from '../media-stream/stream-token'
import type { CarrierCallPort, CarrierCallRecord, CarrierPorts } from '../ports'
import type { AiPlan, CallPlan, CarrierState } from './call-plan'
import { applyControl, applyFailure } from './seat-controls'

/**
 * The Twilio carrier's side of the AI seat (media-stream/contract.ts SeatHost): each method is
 * one transaction on the call's carrier row, with the call events it causes. The relay calls it
 * in the order things happened on the sockets.
 */

export interface SeatHostDeps {
  store: CarrierCallPort
  transaction: <T>(work: () => T) => T
  clock: Clock
  /** Signs the stream tokens; absent: no stream is admitted. */
  streamKey?: Uint8Array
  /** The carrier's kind: a row of another carrier is never this host's. */
  carrier: string
  /** Its call ids (absent: Twilio's CA…). */
  callSid?: RegExp
  events: () => CallEvents
  /** An openai_realtime seat's key and prompt, read at its stream's start (absent or null: the call is taken back). */
  realtimeAgentOf?: CarrierPorts['realtimeAgentOf']
}

const NOTHING: ControlResult = { applied: false, endsStream: false }
const CALL_SID = /^CA[0-9a-fA-F]{32}$/

export class TwilioSeatHost implements SeatHost {
  constructor(private readonly deps: SeatHostDeps) {}

  /**
   * A valid, unexpired token of a live call of that organization whose seat waits for its stream
   * (served, not started), and Twilio's callSid is the call's: the stream starts (once).
   */
  admit(stream: { token: string; callSid: string; streamSid: string }): SeatTicket | null {
    const key = this.deps.streamKey
    const claim = key ? readStreamToken(key, stream.token, this.deps.clock.now()) : null
    if (!claim || !(this.deps.callSid ?? CALL_SID).test(stream.callSid)) return this.refused('token', claim?.callId)
    return this.deps.transaction(() => {
      const row = this.deps.store.get(claim.callId)
      if (!row || row.orgId !== claim.orgId || row.carrier !== this.deps.carrier) return this.refused('unknown_call', claim.callId)
      const plan = row.plan as CallPlan
      const state = row.state as CarrierState
      const seat = state.seat
      if (!plan.ai || !seat || seat.stage !== 'waiting' || seat.streamStarted || state.reported || state.life.stage === 'ended') return this.refused('not_waiting', row.callId)
      if (row.carrierCallId !== null && row.carrierCallId !== stream.callSid) return this.refused('other_call', row.callId)
      const agent = agentOf(plan.ai, plan.ai.kind === 'openai_realtime' ? (this.deps.realtimeAgentOf?.(row.callId) ?? null) : null)
      if (!agent) {
        // The key does not open (the secret key changed): 'seat-next' takes the call back.
        const failed = applyFailure(plan, state, 'unreachable')
        if (failed) this.save(row, failed)
        return this.refused('no_agent_key', row.callId)
      }
      const now = this.deps.clock.now()
      const next: CarrierState = { ...state, seat: { ...seat, stage: 'streaming', streamStarted: true, streamSid: stream.streamSid.slice(0, 64), startedAt: now } }
      this.save(row, next)
      this.deps.events().seated?.(row.callId)
      return ticketOf(row, plan, agent)
    })
  }

  firstAudio(callId: string, ms: number): void {
    this.deps.transaction(() => {
      const row = this.deps.store.get(callId)
      if (row && (row.plan as CallPlan).ai) this.deps.events().agentAudio?.(callId, Math.max(0, Math.round(ms)))
    })
  }

  control(callId: string, control: SeatControl): ControlResult {
    return this.deps.transaction(() => {
      const row = this.deps.store.get(callId)
      if (!row) return NOTHING
      const ctx = { callId, plan: row.plan as CallPlan, now: this.deps.clock.now(), events: this.deps.events() }
      const step = applyControl(ctx, row.state as CarrierState, control)
      if (step.state !== row.state) this.save(row, step.state)
      return step.result
    })
  }

  failed(callId: string, failure: SeatFailure): void {
    logger.warn('twilio_seat_taken_back', { call_id: callId, reason: failure })
    this.deps.transaction(() => {
      const row = this.deps.store.get(callId)
      const next = row ? applyFailure(row.plan as CallPlan, row.state as CarrierState, failure) : null
      if (row && next) this.save(row, next)
    })
  }

  usage(callId: string, usage: AiUsage): void {
    this.deps.transaction(() => {
      if (this.deps.store.get(callId)) this.deps.events().aiUsage?.(callId, usage)
    })
  }

  /** Twilio's socket closed: nothing changes here (the `<Connect action>` or the call's own end follows). */
  closed(callId: string): void {
    logger.debug('twilio_seat_stream_closed', { call_id: callId })
  }

  private save(row: CarrierCallRecord, state: CarrierState): void {
    this.deps.store.update(row.callId, { state, updated: this.deps.clock.now() })
  }

  private refused(reason: string, callId: string | undefined): null {
    logger.warn('twilio_seat_stream_refused', { reason, ...(callId ? { call_id: callId } : {}) })
    return null
  }
}

/** The seat's agent: the campaign's socket, or the service's Realtime agent with the key and prompt opened now (null: they could not be). */
function agentOf(ai: AiPlan, secrets: { apiKey: string; instructions: string } | null): SeatAgent | null {
  if (ai.kind !== 'openai_realtime') return { kind: 'stream', url: ai.url, parameters: ai.parameters, firstAudioMs: ai.firstAudioMs }
  if (!secrets || !ai.realtime) return null
  const { model, voice, baseUrl } = ai.realtime
  return { kind: 'openai_realtime', baseUrl, model, voice, instructions: secrets.instructions, apiKey: secrets.apiKey, firstAudioMs: ai.firstAudioMs }
}

/** Who the agent is and what it is told: the campaign's parameters, then the service's own names. */
function ticketOf(row: CarrierCallRecord, plan: CallPlan, agent: SeatAgent): SeatTicket {
  const ai = plan.ai!
  return {
    callId: row.callId,
    orgId: row.orgId,
    agent,
    customParameters: {
      ...ai.parameters,
      dialer_call_id: row.callId,
      dialer_lead_id: ai.leadId,
      lead_name: plan.leadName ?? '',
      campaign_name: plan.campaignName ?? '',
    },
  }
}
