import type { ControlResult, SeatControl, SeatFailure } from '../media-stream/contract'
import type { CallPlan, CarrierState, SeatDecision } from './call-plan'
import { AI_NAME } from './ai-seat-steps'
import { MAX_TRANSCRIPT_LINES } from './transcription-steps'
import type { StepContext } from './step-types'

/**
 * What an AI seat's agent decided, applied to the call's state (pure but for the call events,
 * inside the host's transaction: seat-host.ts). A decision is taken once: interest hands the
 * lead to people, a callback, an opt-out (the agent's or the lead's 9) or an end closes the
 * call; a later one changes nothing. Transcript lines are told as they come.
 */

export interface ControlStep {
  state: CarrierState
  result: ControlResult
}

const NOTHING: ControlResult = { applied: false, endsStream: false }

/** The seat has the call: its stream started and the call has not ended. */
export const seatLive = (plan: CallPlan, state: CarrierState): boolean =>
  !!plan.ai && state.seat?.stage === 'streaming' && !state.reported && state.life.stage !== 'ended'

export function applyControl(ctx: Pick<StepContext, 'callId' | 'plan' | 'now' | 'events'>, state: CarrierState, control: SeatControl): ControlStep {
  const seat = state.seat
  if (!seat || !seatLive(ctx.plan, state)) return { state, result: NOTHING }
  if (control.event === 'dialer.transcript') {
    if (state.transcriptLines >= MAX_TRANSCRIPT_LINES) return { state, result: NOTHING }
    const name = control.speaker === 'ai' ? AI_NAME : (ctx.plan.leadName ?? 'Lead')
    ctx.events.transcribed(ctx.callId, [{ speaker: control.speaker, name, text: control.text, at: ctx.now }])
    // The agent's lines win over Twilio's of the seat (held ones are dropped).
    const next: CarrierState = { ...state, transcriptLines: state.transcriptLines + 1, seat: { ...seat, agentTranscript: true, held: [] } }
    return { state: next, result: { applied: true, endsStream: false } }
  }
  if (seat.decision) return { state, result: NOTHING }
  let decision: SeatDecision
  let summary = seat.summary
  switch (control.event) {
    case 'dialer.interested':
      ctx.events.intent(ctx.callId, control.excerpt, control.confidence)
      decision = { kind: 'handover' }
      summary = control.summary.trim() || null
      break
    case 'dialer.callback':
      // A time in the past is now; the lead's calling rules move it to the next allowed instant.
      decision = { kind: 'callback', at: Math.max(control.at, ctx.now) }
      break
    case 'dialer.opt_out':
      decision = { kind: 'opt_out', via: control.via }
      break
    case 'dialer.end':
      decision = { kind: 'end', outcome: control.outcome, note: control.note }
      break
  }
  return { state: { ...state, seat: { ...seat, decision, summary } }, result: { applied: true, endsStream: true } }
}

/** The agent failed the call (or the process restarted under it): taken back, unless it decided already. */
export function applyFailure(plan: CallPlan, state: CarrierState, failure: SeatFailure): CarrierState | null {
  const seat = state.seat
  if (!plan.ai || !seat || seat.stage === 'over' || seat.decision || state.reported || state.life.stage === 'ended') return null
  return { ...state, seat: { ...seat, decision: { kind: 'takeback', why: failure } } }
}
