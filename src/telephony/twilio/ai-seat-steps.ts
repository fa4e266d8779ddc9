import type { TranscriptLine } from '../call-values'
import { mintStreamToken, STREAM_TOKEN_PARAMETER, STREAM_TOKEN_TTL_MS } from '../media-stream/stream-token'
import {
  answerTwiml, callbackUrl, noticeTwiml, owesNotice, transcriptionOf,
  type AiPlan, type AiSeatState, type CallPlan, type CarrierState,
} from './call-plan'
import type { Effect } from './lifecycle'
import type { StepContext, StepResult } from './step-types'
import { STREAM_PATH } from './stream-routes'
import { connectStream, hangup, say } from './twiml'

/**
 * The AI seat on Twilio (docs/telephony.md "The AI seat"): a person who answers an AI-seated
 * campaign's call hears the recording notice where it is owed, then the campaign's disclosure,
 * then is streamed (`<Connect><Stream>`) to the service's relay, which carries the call to the
 * campaign's agent. The dial mode applies only to the handover (seat-next-steps.ts). Pure but
 * for the call events, inside the callback's transaction.
 */

/** Who the transcript names on our side while the seat has the call. */
export const AI_NAME = 'AI assistant'

export const takebackText = (orgName: string): string =>
  `Sorry, ${orgName.trim() || 'we'} cannot continue this call right now. We will call you back. Goodbye.`

/** DIALER_PUBLIC_URL's origin with wss for https (ws for http), and the relay's path: one for every call, the token names the call. */
export function streamUrlOf(publicUrl: string): string {
  const url = new URL(publicUrl)
  return `${url.protocol === 'https:' ? 'wss:' : 'ws:'}//${url.host}${STREAM_PATH}`
}

const newSeat = (): AiSeatState => ({
  stage: 'waiting', streamStarted: false, streamSid: null, decision: null, summary: null, agentTranscript: false, held: [], endedAt: null,
})

/** The disclosure and the stream, with a fresh token for the call (it may start the stream once, within its lifetime). */
export function seatTwiml(ctx: StepContext, ai: AiPlan, transcription: boolean): string | null {
  if (!ctx.streamKey || !ctx.orgId) return null
  const token = mintStreamToken(ctx.streamKey, { callId: ctx.callId, orgId: ctx.orgId, expiresAt: ctx.now + STREAM_TOKEN_TTL_MS })
  const disclosure = 'audio_url' in ai.disclosure ? { audioUrl: ai.disclosure.audio_url } : { say: ai.disclosure.say }
  return connectStream({
    disclosure,
    transcription: transcription ? transcriptionOf(ctx.publicUrl, ctx.callId) : undefined,
    streamUrl: streamUrlOf(ctx.publicUrl),
    actionUrl: callbackUrl(ctx.publicUrl, ctx.callId, 'seat-next'),
    parameters: { [STREAM_TOKEN_PARAMETER]: token },
  })
}

/**
 * A known person is served the seat: the organization's artificial voice speaks at once, so the
 * ledger's connection is now. A repeated request before the stream started gets the seat again
 * (a new token); after, the call has moved on and this request changes nothing.
 */
export function openSeat(ctx: StepContext, state: CarrierState, transcription: boolean): StepResult {
  const ai = ctx.plan.ai
  if (!ai || state.life.stage === 'ended' || state.reported) return { state, twiml: hangup(), actions: [] }
  if (state.seat && state.seat.stage !== 'waiting') return { state, twiml: hangup(), actions: [] }
  const twiml = seatTwiml(ctx, ai, transcription)
  if (twiml === null) {
    // No key to sign a stream with: the call is taken back at once (a callback in 2 h).
    const seat: AiSeatState = { ...newSeat(), stage: 'over', decision: { kind: 'takeback', why: 'unreachable' }, endedAt: ctx.now }
    return { state: { ...state, routed: true, seat }, twiml: say(takebackText(ai.orgName)), actions: [] }
  }
  if (!state.seat) ctx.events.connected?.(ctx.callId, ctx.now)
  return { state: { ...state, routed: true, seat: state.seat ?? newSeat() }, twiml, actions: [] }
}

/**
 * The answer (the call's `Url`) on an AI plan, once a call without detection is known to be a
 * person: the seat at once, unless the notice is owed (it plays first, then 'announced' serves
 * the seat) or the party is not yet known or a machine (as any call).
 */
export function onAiAnswer(ctx: StepContext, state: CarrierState): StepResult {
  const served: CarrierState = { ...state, answerServed: true }
  if (state.life.answeredBy === 'person' && !owesNotice(ctx.plan, state)) return openSeat(ctx, served, true)
  const answer = answerTwiml(ctx.publicUrl, ctx.callId, ctx.plan, state)
  return { state: { ...served, routed: answer.routed }, twiml: answer.twiml, actions: [] }
}

/** The 'seat' step: the AMD result's redirect for a person (transcription started with the hold unless the notice is owed, which plays now). */
export function onSeatStep(ctx: StepContext, state: CarrierState): StepResult {
  if (owesNotice(ctx.plan, state)) return { state, twiml: noticeTwiml(ctx.publicUrl, ctx.callId, ctx.plan), actions: [] }
  if (state.life.answeredBy !== 'person') return { state, twiml: hangup(), actions: [] }
  return openSeat(ctx, state, false)
}

/** The seat's phase is over for the call (the stream ended, or the call did): Twilio's held lines are told if the agent sent none, and the seat's time. */
export function closeSeat(ctx: StepContext, state: CarrierState): CarrierState {
  const seat = state.seat
  if (!seat || seat.stage === 'over') return state
  if (!seat.agentTranscript && seat.held.length > 0) ctx.events.transcribed(ctx.callId, seat.held)
  // AI minutes: the stream's time, start to end (told once: the seat is over after this).
  if (seat.startedAt !== undefined) ctx.events.aiSeatTime?.(ctx.callId, Math.max(0, ctx.now - seat.startedAt) / 1000)
  return { ...state, seat: { ...seat, stage: 'over', held: [], endedAt: ctx.now } }
}

/**
 * Lifecycle effects an AI plan answers its own way (null: as any call). A person known at the
 * answer is the seat's, whatever the bridge holds (the bridge and the nobody-took message wait
 * for the handover); once the seat is over, the bridge runs as on any call.
 */
export function onAiEffect(ctx: StepContext, state: CarrierState, effect: Effect): StepResult | null {
  if (!ctx.plan.ai || state.seat?.stage === 'over') return null
  if (effect.type !== 'bridge' && effect.type !== 'nobody-took') return null
  // Without detection the answer's TwiML seats the person; with it, the AMD result redirects the call.
  if (!ctx.plan.machineDetection || state.routed) return { state, twiml: null, actions: [] }
  return { state, twiml: null, actions: [{ type: 'redirect', step: 'seat' }] }
}

/**
 * A Twilio transcription line of an AI plan. During the seat (or stamped before it ended) the
 * outbound track is the AI; its lines are held and told at the seat's end only if the agent sent
 * none of its own (dropped when it did). null: an ordinary line (no seat, or after it).
 */
export function seatLine(plan: CallPlan, state: CarrierState, line: TranscriptLine): { state: CarrierState; tell: TranscriptLine[] } | null {
  const seat = state.seat
  if (!plan.ai || !seat) return null
  const during = seat.stage !== 'over' || (seat.endedAt !== null && line.at < seat.endedAt)
  if (!during) return null
  const ai: TranscriptLine = line.speaker === 'lead' ? line : { ...line, speaker: 'ai', name: AI_NAME }
  if (seat.agentTranscript) return { state, tell: [] }
  if (seat.stage === 'over') return { state, tell: [ai] }
  return { state: { ...state, seat: { ...seat, held: [...seat.held, ai] } }, tell: [] }
}
