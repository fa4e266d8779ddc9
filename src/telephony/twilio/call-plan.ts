import type { Outcome } from '../../domain/outcomes'
import type { AiDisclosure, ConsentNotice, TranscriptLine, Voicemail } from '../call-values'
import type { BridgePerson, CallReport, DialRequest } from '../carrier'
import type { SeatFailure } from '../media-stream/contract'
import { initialState, type LifecycleState } from './lifecycle'
import { bridgeLeg, hangup, holdForDetection, noticeThen, pressOne, say, voicemailDrop, type TranscriptionStart } from './twiml'

/**
 * What one Twilio call asked for (kept with the call, so TwiML requests are answered the same
 * after a restart) and where its callback state stands. Pure: no I/O.
 */

/** The callback routes, under DIALER_PUBLIC_URL (src/telephony/twilio/callback-routes.ts). */
export const CALLBACK_STEPS = ['answer', 'status', 'amd', 'bridge', 'leg-answered', 'leg-action', 'whisper', 'keypress', 'voicemail', 'voicemail-done', 'recording', 'transcription', 'announced', 'optout', 'seat', 'seat-next'] as const
export type CallbackStep = (typeof CALLBACK_STEPS)[number]

/** Steps whose reply is TwiML the call runs next. */
export const TWIML_STEPS: ReadonlySet<CallbackStep> = new Set(['answer', 'bridge', 'leg-action', 'whisper', 'keypress', 'voicemail', 'voicemail-done', 'announced', 'optout', 'seat', 'seat-next'])

/** Steps Twilio sends from a person's own leg: CallSid is that leg, ParentCallSid the lead's call. */
export const LEG_STEPS: ReadonlySet<CallbackStep> = new Set(['leg-answered', 'whisper', 'keypress'])

export const CALLBACK_PREFIX = '/twilio/calls/'

export interface CallPlan {
  to: string
  from: string
  leadName: string | null
  /** Named in the press-1 briefing (absent on older rows). */
  campaignName?: string | null
  agentName: string
  machineDetection: boolean
  record: boolean
  bridge: BridgePerson[]
  voicemail: Voicemail | null
  /** Every party must consent (a state of the lead says so): created unrecorded, the notice first, recording after it (absent on older rows). */
  consent?: ConsentNotice | null
  /** power/predictive: the answer joins a waiting seat's conference, else the abandon message plays (absent on older rows: bridge). */
  dialMode?: 'bridge' | 'power' | 'predictive'
  /** Played inside a one-digit Gather (9 opts out) when no seat waits (absent on older rows). */
  abandonMessage?: Voicemail | null
  /** Whose seats the answer claims (absent on older rows). */
  campaignId?: string
  /** The campaign's AI seat (ai-seat-steps.ts): a person is streamed to its agent first (absent or null: people first). */
  ai?: AiPlan | null
}

/** What the AI seat needs of the dial, kept with the call. */
export interface AiPlan {
  /** Absent on rows from before the built-in agent: stream. */
  kind?: 'stream' | 'openai_realtime'
  /** stream: the agent's socket (empty for openai_realtime). */
  url: string
  parameters: Record<string, string>
  /** openai_realtime: what the service's own agent asks OpenAI for (the key and the rendered instructions are read at the stream's start: CarrierPorts.realtimeAgentOf). */
  realtime?: { model: string; voice: string; baseUrl: string }
  firstAudioMs: number
  disclosure: AiDisclosure
  leadId: string
  /** Said when the service takes the call back from its agent. */
  orgName: string
}

/** How the AI seat ended for the call (seat-controls.ts decides; seat-next-steps.ts acts). */
export type SeatDecision =
  | { kind: 'handover' }
  | { kind: 'callback'; at: number }
  | { kind: 'opt_out'; via: 'agent' | 'dtmf' }
  | { kind: 'end'; outcome: Outcome; note: string | null }
  /** `ended`: the stream ended with no decision and the call went on (Twilio requested the action). */
  | { kind: 'takeback'; why: SeatFailure | 'ended' }

/** An AI-seated call's seat, from the TwiML served to a person on. */
export interface AiSeatState {
  /** waiting: the seat's TwiML was served; streaming: the agent has the call; over: the stream ended (or the call did). */
  stage: 'waiting' | 'streaming' | 'over'
  streamStarted: boolean
  streamSid: string | null
  decision: SeatDecision | null
  /** The agent's summary with its interest, read in the handover's briefing. */
  summary: string | null
  /** The agent sent its own transcript lines: Twilio's of the seat are dropped. */
  agentTranscript: boolean
  /** Twilio's lines of the seat, told at its end only if the agent sent none. */
  held: TranscriptLine[]
  /** Unix ms the seat ended (later Twilio lines stamped before it belong to the seat). */
  endedAt: number | null
  /** Unix ms the stream was admitted (absent on rows from before AI minutes were kept): the seat's time runs from it. */
  startedAt?: number
}

/** A power or predictive call's place (conference-steps.ts): set at the answer. */
export interface SeatedCall {
  /** joined: in the seat's conference; message: hearing the abandon message; voicemail: a machine moved to the drop; left: out of the conference. */
  stage: 'joined' | 'message' | 'voicemail' | 'left'
  seatId: string | null
  conference: string | null
  person: Pick<BridgePerson, 'id' | 'name' | 'role'> | null
  /** The seat's person was told as the handover (once the party is known to be a person). */
  handedOver: boolean
  /** The lead pressed 9 at the abandon message. */
  optedOut: boolean
}

export interface CarrierState {
  life: LifecycleState
  /** The TwiML after the answer (bridge, voicemail or the nobody-took message) has been given: no second redirect. */
  routed: boolean
  /** Every SDR and closer was rung and nobody picked up: a callback is booked. */
  nobodyTook: boolean
  /** Transcription SequenceIds already stored (a repeated callback adds nothing). */
  transcriptSeqs: string[]
  transcriptLines: number
  recordingSid: string | null
  recorded: boolean
  /** Twilio said no recording was made (RecordingStatus absent or failed): nothing to wait for. */
  recordingAbsent?: boolean
  /** The recording is stored here; its copy at Twilio is still to be deleted (the row stays open, the watchdog retries). */
  twilioCopy?: 'delete' | 'deleted'
  /** The call has ended and waits for its recording before the service is told (at most RECORDING_WAIT_MS). */
  pendingEnd: CallReport | null
  /** The service has been told the call ended. */
  reported: boolean
  /** We answered Twilio's fetch of the call's first TwiML (absent on rows saved before it was kept). */
  answerServed?: boolean
  /** The service was asked whether the call may still ring the lead (late-ring.ts). */
  windowChecked?: boolean
  /** It may not (the lead's calling window closed while Twilio held the call): cancelled, never connected. */
  windowClosed?: boolean
  /** Unix ms the recording notice ended (the 'announced' step); recording was asked for then. */
  announcedAt?: number
  /** Unix ms Twilio answered: its fetch of the answer TwiML, or the in-progress status if that came first (the ledger's answered_at). */
  answeredAt?: number
  /** A hang-up was asked before the carrier named the call (Telnyx names it in its first callback): sent then. */
  hangUpOwed?: boolean
  /** power/predictive: where the answer put the lead (absent until then, and on bridge calls). */
  seated?: SeatedCall
  /** AI-seated campaigns: the seat (absent until a person is served it, and on other calls). */
  seat?: AiSeatState
}

export function initialCarrierState(plan: CallPlan): CarrierState {
  return {
    life: initialState({ amdExpected: plan.machineDetection, legs: plan.bridge.length, pressOne: true }),
    routed: false,
    nobodyTook: false,
    transcriptSeqs: [],
    transcriptLines: 0,
    recordingSid: null,
    recorded: false,
    pendingEnd: null,
    reported: false,
    answerServed: false,
  }
}

/** What the dial asked for, kept with the call. */
export function planOf(request: DialRequest, from: string): CallPlan {
  return {
    to: request.to, from, leadName: request.leadName, campaignName: request.campaignName ?? null, agentName: request.agentName, machineDetection: request.machineDetection,
    record: request.record, bridge: request.onAnswer.bridge, voicemail: request.onAnswer.voicemail, consent: request.record ? (request.consent ?? null) : null,
    dialMode: request.dialMode ?? 'bridge', abandonMessage: request.abandonMessage ?? null, campaignId: request.campaignId,
    ai: request.aiAgent ? {
      kind: request.aiAgent.kind,
      url: request.aiAgent.kind === 'stream' ? request.aiAgent.url : '',
      parameters: request.aiAgent.kind === 'stream' ? request.aiAgent.parameters : {},
      ...(request.aiAgent.kind === 'openai_realtime' ? { realtime: { model: request.aiAgent.model, voice: request.aiAgent.voice, baseUrl: request.aiAgent.base_url } } : {}),
      firstAudioMs: request.aiAgent.first_audio_ms, disclosure: request.aiAgent.disclosure,
      leadId: request.leadId ?? '', orgName: request.orgName ?? '',
    } : null,
  }
}

export function callbackUrl(publicUrl: string, callId: string, step: CallbackStep, leg?: number): string {
  return `${publicUrl}${CALLBACK_PREFIX}${callId}/${step}${leg === undefined ? '' : `?leg=${leg}`}`
}

/**
 * `Timeout` of every lead call: seconds Twilio lets the phone ring before it gives up
 * (twilio.com/docs/voice/api/call-resource, Timeout; default 60). The rules ask for at least 15.
 */
export const LEAD_RING_SECONDS = 30
/** Seconds each SDR or closer rings before the next is tried. */
export const LEG_RING_SECONDS = 20
/** How long the answered call waits quietly for the AMD result (Twilio decides within 30 s by default). */
export const HOLD_SECONDS = 40
export const NOBODY_TOOK_MESSAGE = 'Thanks for picking up. Everyone on our team is busy right now; we will call you back shortly. Goodbye.'

export function transcriptionOf(publicUrl: string, callId: string): TranscriptionStart {
  return { statusCallbackUrl: callbackUrl(publicUrl, callId, 'transcription') }
}

/** One leg of the bridge (null past the last person). Transcription starts with the first leg when nothing started it before. */
export function bridgeTwiml(publicUrl: string, callId: string, plan: CallPlan, leg: number, startTranscription: boolean): string | null {
  return bridgeLeg({
    phones: plan.bridge.map((p) => p.phone),
    index: leg,
    callerId: plan.from,
    timeoutSeconds: LEG_RING_SECONDS,
    actionUrl: (i) => callbackUrl(publicUrl, callId, 'leg-action', i),
    screenUrl: (i) => callbackUrl(publicUrl, callId, 'whisper', i),
    transcription: startTranscription ? transcriptionOf(publicUrl, callId) : undefined,
  })
}

/** Seconds the person has to press 1 once the briefing ends. */
export const PRESS_ONE_SECONDS = 6
/** Each name is cut to this, so the briefing stays well under 15 s of speech. */
const BRIEF_NAME_CHARS = 60

/** The AI's summary is cut to this (about 15 s of speech). */
const BRIEF_SUMMARY_CHARS = 200

const clip = (text: string, chars = BRIEF_NAME_CHARS): string => (text.length > chars ? `${text.slice(0, chars).trimEnd()}\u2026` : text)

/** What the person the bridge rings hears on their own leg before the lead is put through (after an AI seat, its summary too). */
export function briefingText(plan: CallPlan, summary?: string | null): string {
  const lead = plan.leadName?.trim() ? clip(plan.leadName.trim()) : 'a lead'
  const campaign = plan.campaignName?.trim() ? ` for ${clip(plan.campaignName.trim())}` : ''
  const said = summary?.trim() ? ` The assistant says: ${clip(summary.trim(), BRIEF_SUMMARY_CHARS)}` : ''
  return `Call from ${lead}${campaign}.${said} Press 1 to take the call.`
}

/** The `<Number url>` TwiML of one leg: the briefing and a one-digit Gather posting to 'keypress'. */
export function whisperTwiml(publicUrl: string, callId: string, plan: CallPlan, leg: number, summary?: string | null): string {
  return pressOne(briefingText(plan, summary), callbackUrl(publicUrl, callId, 'keypress', leg), PRESS_ONE_SECONDS)
}

export const nobodyTookTwiml = (): string => say(NOBODY_TOOK_MESSAGE)

export function voicemailTwiml(publicUrl: string, callId: string, plan: CallPlan): string {
  const v = plan.voicemail
  if (!v) return hangup()
  return voicemailDrop('audio_url' in v ? { audioUrl: v.audio_url } : { say: v.say }, callbackUrl(publicUrl, callId, 'voicemail-done'))
}

/** The call still owes its recording notice: every party must consent and it has not played yet. */
export const owesNotice = (plan: CallPlan, state: CarrierState): boolean => !!plan.consent && state.announcedAt === undefined

/** The notice, then the 'announced' step (recording starts there, and the call goes on). */
export function noticeTwiml(publicUrl: string, callId: string, plan: CallPlan): string {
  const notice = plan.consent!.notice
  return noticeThen('audio_url' in notice ? { audioUrl: notice.audio_url } : { say: notice.say }, callbackUrl(publicUrl, callId, 'announced'))
}

/** After the notice: the voicemail drop on a machine, else the bridge's first leg (transcription starts with it). */
export function afterNoticeTwiml(publicUrl: string, callId: string, plan: CallPlan, state: CarrierState): string {
  if (state.life.answeredBy === 'machine') return voicemailTwiml(publicUrl, callId, plan)
  return bridgeTwiml(publicUrl, callId, plan, 0, true) ?? nobodyTookTwiml()
}

/**
 * The TwiML for the answer (the call's `Url`). With machine detection the call holds quietly
 * until the AMD result redirects it, unless that result is already in. Without, a person is
 * assumed and the bridge starts at once. Where every party must consent the notice plays first
 * (a machine without a voicemail to leave hears nothing and is not recorded), and nothing is
 * transcribed before it.
 */
export function answerTwiml(publicUrl: string, callId: string, plan: CallPlan, state: CarrierState): { twiml: string; routed: boolean } {
  const party = state.life.answeredBy ?? (plan.machineDetection ? null : 'person')
  const notice = owesNotice(plan, state)
  if (party === null) return { twiml: holdForDetection({ pauseSeconds: HOLD_SECONDS, transcription: notice ? undefined : transcriptionOf(publicUrl, callId) }), routed: false }
  if (notice && (party === 'person' || plan.voicemail)) return { twiml: noticeTwiml(publicUrl, callId, plan), routed: true }
  if (party === 'machine') return { twiml: voicemailTwiml(publicUrl, callId, plan), routed: true }
  return { twiml: bridgeTwiml(publicUrl, callId, plan, 0, true) ?? nobodyTookTwiml(), routed: true }
}
