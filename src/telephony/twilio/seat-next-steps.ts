import type { CallReport } from '../carrier'
import type { SeatFailure } from '../media-stream/contract'
import { closeSeat, takebackText } from './ai-seat-steps'
import { bridgeTwiml, nobodyTookTwiml, type CarrierState, type SeatDecision } from './call-plan'
import { isSeated, OPTED_OUT_MESSAGE } from './conference-steps'
import type { StepContext, StepResult } from './step-types'
import { hangup, joinConference, say } from './twiml'

/**
 * After the AI seat (docs/telephony.md "The AI seat"): the service ends a stream by closing
 * Twilio's socket, and Twilio then requests the `<Connect action>` ('seat-next'): "Twilio resumes
 * the remaining TwiML only after your server closes the WebSocket connection"
 * (twilio.com/docs/api/errors/31921). Its TwiML carries out the seat's decision.
 */

export const OPT_OUT_NOTE_AGENT = 'The lead asked the AI assistant not to be called again: the number is on the Do Not Call list.'
export const OPT_OUT_NOTE_DTMF = 'The lead pressed 9 while the AI assistant had the call: the number is on the Do Not Call list.'
export const CALLBACK_NOTE = 'The lead asked the AI assistant for a callback.'
export const HUNG_UP_NOTE = 'The lead hung up while the AI assistant had the call.'

const TAKEBACK_NOTES: Record<SeatFailure | 'ended', string> = {
  unreachable: 'The AI agent could not be reached; the lead heard that we would call back, and a callback was booked.',
  silent: 'The AI agent sent no audio in time; the lead heard that we would call back, and a callback was booked.',
  dropped: 'The AI agent dropped the call; the lead heard that we would call back, and a callback was booked.',
  restart: 'The service restarted while the AI assistant had the call; the lead was told we would call back, and a callback was booked.',
  ended: 'The AI agent\u2019s stream ended with no decision; the lead heard that we would call back, and a callback was booked.',
}

/**
 * 'seat-next': the stream is over. `fallback` is the decision when the agent made none (the
 * stream ended by itself, or a restart took the call back). Once: a repeated request gets the
 * decision's TwiML again and claims or books nothing twice.
 */
export function onSeatNext(ctx: StepContext, state: CarrierState, fallback: SeatFailure | 'ended' = 'ended'): StepResult {
  const seat = state.seat
  if (!ctx.plan.ai || !seat || state.reported || state.life.stage === 'ended') return { state, twiml: hangup(), actions: [] }
  if (seat.stage === 'over' && seat.decision) return { state, twiml: repeatTwiml(ctx, state, seat.decision), actions: [] }
  const decision: SeatDecision = seat.decision ?? { kind: 'takeback', why: fallback }
  const next = closeSeat(ctx, { ...state, seat: { ...seat, decision } })
  switch (decision.kind) {
    case 'handover':
      return handOver(ctx, next)
    case 'callback':
    case 'end':
      // The agent's own goodbye has played to its end (the relay waited for it).
      return { state: next, twiml: hangup(), actions: [] }
    case 'opt_out':
      return { state: next, twiml: say(OPTED_OUT_MESSAGE), actions: [] }
    case 'takeback':
      return { state: next, twiml: say(takebackText(ctx.plan.ai.orgName)), actions: [] }
  }
}

/**
 * Interest: power/predictive claim a waiting seat and the lead joins its room (that person is
 * the handover); else, and in bridge mode, the press-1 bridge whose briefing reads the AI's
 * summary; nobody on the campaign: the nobody-took message and a callback.
 */
function handOver(ctx: StepContext, state: CarrierState): StepResult {
  const { plan, callId } = ctx
  const seat = isSeated(plan) && plan.campaignId ? (ctx.seats?.claim(plan.campaignId, callId, ctx.now) ?? null) : null
  if (seat) {
    ctx.events.handover(callId, seat.person)
    const seated = { stage: 'joined' as const, seatId: seat.seatId, conference: seat.conference, person: seat.person, handedOver: true, optedOut: false }
    // Transcription runs since the seat's TwiML: a second <Start> would fork it twice.
    return { state: { ...state, seated }, twiml: joinConference(seat.conference), actions: [] }
  }
  const leg = bridgeTwiml(ctx.publicUrl, callId, plan, state.life.currentLeg, false)
  if (leg !== null && !state.life.bridgeOver) return { state, twiml: leg, actions: [] }
  return { state: { ...state, nobodyTook: true }, twiml: nobodyTookTwiml(), actions: [] }
}

function repeatTwiml(ctx: StepContext, state: CarrierState, decision: SeatDecision): string {
  if (decision.kind === 'opt_out') return say(OPTED_OUT_MESSAGE)
  if (decision.kind === 'takeback') return say(takebackText(ctx.plan.ai?.orgName ?? ''))
  if (decision.kind !== 'handover') return hangup()
  if (state.seated?.stage === 'joined' && state.seated.conference) return joinConference(state.seated.conference)
  if (state.nobodyTook) return nobodyTookTwiml()
  return bridgeTwiml(ctx.publicUrl, ctx.callId, ctx.plan, state.life.currentLeg, false) ?? hangup()
}

/**
 * How an AI-seated call a person answered ended (null: as any call: a machine, or a handover,
 * which the person who took it files as on a bridge call).
 */
export function aiReport(ctx: Pick<StepContext, 'plan' | 'now'>, state: CarrierState, base: CallReport, nobodyTookMs: number): CallReport | null {
  const seat = state.seat
  if (!ctx.plan.ai || !seat) return null
  const decision = seat.decision
  if (!decision) return { ...base, outcome: 'hung_up', note: HUNG_UP_NOTE }
  switch (decision.kind) {
    case 'handover':
      return null
    case 'callback':
      return { ...base, outcome: 'callback', note: CALLBACK_NOTE, callbackAt: decision.at }
    case 'opt_out':
      return { ...base, outcome: 'dnc', optOut: true, dncSource: 'ai', note: decision.via === 'dtmf' ? OPT_OUT_NOTE_DTMF : OPT_OUT_NOTE_AGENT }
    case 'end':
      return { ...base, outcome: decision.outcome, note: decision.note, ...(decision.outcome === 'dnc' ? { optOut: true, dncSource: 'ai' as const } : {}) }
    case 'takeback':
      return { ...base, outcome: 'callback', note: TAKEBACK_NOTES[decision.why], callbackAt: ctx.now + nobodyTookMs }
  }
}

/** The seat had the call when the process stopped (its sockets died with it). */
export const seatInterrupted = (state: CarrierState): boolean => state.seat?.stage === 'streaming' && !state.reported && state.life.stage !== 'ended'
