import type { TranscriptLine } from '../call-values'
import { seatLine } from './ai-seat-steps'
import type { CallPlan, CarrierState } from './call-plan'
import type { StepContext } from './step-types'
import { TRACK_LABELS } from './twiml'

/**
 * Twilio's real-time transcription of a call (`<Start><Transcription>`): final lines, once each,
 * told to the call service as they come (an AI seat holds its own: ai-seat-steps.ts seatLine).
 */

/** Lines kept per call: a stuck transcription stream cannot fill the database. */
export const MAX_TRANSCRIPT_LINES = 2000
const MAX_LINE_CHARS = 2000

/**
 * Whose words a transcription line is: Track is inbound_track/outbound_track, or the label our
 * <Transcription> gave the track (twilio.com/docs/voice/twiml/transcription, inboundTrackLabel).
 */
function speakerOf(track: string | undefined): 'lead' | 'agent' | null {
  if (track === 'inbound_track' || track === TRACK_LABELS.inbound) return 'lead'
  if (track === 'outbound_track' || track === TRACK_LABELS.outbound) return 'agent'
  return null
}

/** A final transcription-content line, stored once (by SequenceId): inbound is the lead, outbound our side. */
export function onTranscription(ctx: StepContext, state: CarrierState, params: Record<string, string>): CarrierState {
  if (params.TranscriptionEvent !== 'transcription-content' || params.Final === 'false') return state
  const seq = params.SequenceId ?? ''
  if (!/^\d{1,10}$/.test(seq) || state.transcriptSeqs.includes(seq) || state.transcriptLines >= MAX_TRANSCRIPT_LINES) return state
  const text = textOf(params.TranscriptionData)
  const speaker = speakerOf(params.Track)
  if (text === null || speaker === null) return state
  const at = Date.parse(params.Timestamp ?? '')
  const line: TranscriptLine = {
    speaker,
    name: speaker === 'lead' ? (ctx.plan.leadName ?? 'Lead') : handlerName(ctx.plan, state),
    text: text.slice(0, MAX_LINE_CHARS),
    at: Number.isFinite(at) && Math.abs(at - ctx.now) < 3_600_000 ? at : ctx.now,
  }
  const counted: CarrierState = { ...state, transcriptSeqs: [...state.transcriptSeqs, seq], transcriptLines: state.transcriptLines + 1 }
  const seat = seatLine(ctx.plan, counted, line)
  if (seat) {
    if (seat.tell.length > 0) ctx.events.transcribed(ctx.callId, seat.tell)
    return seat.state
  }
  ctx.events.transcribed(ctx.callId, [line])
  return counted
}

/** Our side of the call: the person who took it, else whoever the bridge is ringing (a greeting), else the owner. */
function handlerName(plan: CallPlan, state: CarrierState): string {
  const leg = state.life.handoverLeg ?? (state.life.answeredBy === 'person' ? state.life.currentLeg : null)
  return state.seated?.person?.name ?? (leg !== null ? plan.bridge[leg]?.name : undefined) ?? plan.agentName
}

function textOf(data: string | undefined): string | null {
  if (!data || data.length > 20_000) return null
  try {
    const parsed = JSON.parse(data) as { transcript?: unknown }
    return typeof parsed.transcript === 'string' && parsed.transcript.trim() !== '' ? parsed.transcript.trim() : null
  } catch {
    return null
  }
}
