import { randomBytes } from 'node:crypto'
import type { Plan, Script } from './emulator-scenarios'
import type { StreamRecord } from './emulator-stream'
import type { EmulatorWire } from './emulator-wire'

/** The emulator's shared shapes: one emulated call, one callback it sent, and the engine other parts drive. */

export type CallStatus = 'queued' | 'initiated' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled'

/** Who is on the far end of a call: a lead (the simulator's scenario table) or one of the organization's people (a seat, a supervisor). */
export type Role = 'lead' | 'person'

/** What the lead first heard after the answer: a person (a bridged leg or a conference with a person in it) or a message (a <Say>/<Play> on its leg). */
export interface Heard {
  kind: 'person' | 'message'
  /** Emulated seconds since the call started (as answeredAt). */
  at: number
}

export interface EmulatedCall {
  sid: string
  accountSid: string
  authToken: string
  to: string
  from: string
  /** outbound-api (created through Calls.json or Participants.json) or inbound (emulator.callIn). */
  direction: 'outbound-api' | 'inbound'
  role: Role
  url: string | null
  twiml: string | null
  statusCallback: string | null
  events: Set<string>
  amd: 'async' | 'sync' | null
  amdCallback: string | null
  record: boolean
  recordingCallback: string | null
  /** RecordingStatusCallbackEvent (Twilio's default: completed only). */
  recordingEvents: Set<string>
  /** What the test changed for calls to this number. */
  script: Script
  /** The Timeout the call was created with (seconds; Twilio's default 60). */
  timeout: number
  /** Emulated seconds the call waits in `queued` (the account's calls per second) before it starts. */
  queuedFor?: number
  scenario: string
  /** How the far end behaves: the scenario's plan for a lead, a person's phone plan for people. */
  plan: Plan
  status: CallStatus
  /** AnsweredBy as AMD told it (null: no detection, or not yet). */
  answeredBy: string | null
  /** Who really answered, in AMD's words, whether or not detection runs (null: not answered). */
  party: string | null
  startedAt: number
  answeredAt: number | null
  endedAt: number | null
  duration: number | null
  recordingSid: string | null
  /** Said or played to its end: the text (a <Play>'s URL) and the emulated second it ended. */
  spoken?: { text: string; endedAt: number }[]
  /** Keys this call's own phone pressed at a <Gather> on its leg. */
  pressed?: string[]
  /** The first thing a lead heard after the answer (null until then; never set for people's calls). */
  heard: Heard | null
  /** A Participants API call: the conference it joins on answer, with its participant options. */
  joins?: { conferenceSid: string; options: ParticipantOptions }
  /** Started on the live call (POST .../Calls/{Sid}/Recordings.json) at `startedAt` emulated seconds. */
  liveRecording?: { sid: string; startedAt: number; callback: string | null; events: Set<string> }
  gen: number
  wakers: Set<() => void>
  /** Timers a redirect does not stop (the lead hanging up, AMD, transcript lines); cleared when the call ends. */
  timers: Set<ReturnType<typeof setTimeout>>
  dial: { legSid: string; action: string | null; answeredAt: number | null; answeredStatus: string; bridged?: boolean } | null
  /** Every person's leg rung by a <Dial><Number>: what its <Number url> said to them, the key pressed, whether it was bridged. */
  legs?: { to: string; heard: string[]; key: string | null; bridged: boolean }[]
  /** The call's latest <Connect><Stream> and all of them, oldest first (emulator-stream.ts). */
  stream?: StreamRecord
  streams?: StreamRecord[]
  /** A running <Start><Transcription>: where its lines go, its labels and the noun's attributes. */
  transcription: { url: string; sid: string; seq: number; labels: { inbound_track: string; outbound_track: string }; attrs?: Record<string, string> } | null
  /** Notifications held to be sent in shuffled order (the shuffle option). */
  held: { kind: SentCallback['kind']; url: string; params: Record<string, string>; token: string }[]
  flushTimer: ReturnType<typeof setTimeout> | null
  chain: Promise<unknown>
  seq: number
  done: Promise<void>
  finish: () => void
}

/** How a participant sits in a conference (TwiML <Conference> attributes or Participants API parameters). */
export interface ParticipantOptions {
  muted: boolean
  /** Coaching: heard only by the participant `callSidToCoach`. */
  coaching: boolean
  callSidToCoach: string | null
  startConferenceOnEnter: boolean
  endConferenceOnExit: boolean
  beep: string
  /** null: Twilio's default hold music; '' silence. */
  waitUrl: string | null
  label: string | null
  /** The conference's statusCallback and events, when this participant is the first to name them. */
  statusCallback: string | null
  statusCallbackEvents: Set<string>
}

export interface SentCallback {
  kind: 'status' | 'amd' | 'twiml' | 'redirect' | 'action' | 'leg-status' | 'recording' | 'transcription' | 'screen' | 'gather' | 'conference' | 'incoming'
  callSid: string
  url: string
  params: Record<string, string>
  signature: string
  /** The headers it was sent with (set by wires other than Twilio's: e.g. Telnyx's timestamp and signature). */
  headers?: Record<string, string>
  /** GET or POST (set by wires other than Twilio's, whose callbacks are all POSTs). */
  method?: 'GET' | 'POST'
  status: number | null
  body: string
}

/** The call engine as the emulator's other parts (dial, conferences, media, inbound) use it. */
export interface Engine {
  /** Emulated seconds since the call started. */
  now(call: EmulatedCall): number
  /** Waits emulated seconds; true when a redirect, hang-up or the call's end cut it short. */
  sleep(call: EmulatedCall, seconds: number): Promise<boolean>
  /** Waits for `until`; true when a redirect, hang-up or the call's end came first. */
  hold(call: EmulatedCall, until: Promise<unknown>): Promise<boolean>
  /** Runs `fn` after emulated seconds unless the call has ended by then. */
  after(call: EmulatedCall, seconds: number, fn: () => void): void
  end(call: EmulatedCall, status: CallStatus): Promise<void>
  post(call: EmulatedCall, kind: SentCallback['kind'], url: string, params: Record<string, string>): Promise<SentCallback>
  /** The parameters every request about the call carries. */
  base(call: EmulatedCall): Record<string, string>
  /** Notes what a lead heard first (kept only once, and only after the answer). */
  heard(call: EmulatedCall, kind: Heard['kind']): void
  /** The key this call's own phone presses at a <Gather> (null: none). */
  keyOf(call: EmulatedCall): string | null
  readonly apiBaseUrl: () => string
  readonly trackLabels: boolean
  /** The carrier's ids, parameters, signature and stream frames. */
  readonly wire: EmulatorWire
}

export const newSid = (prefix: string): string => prefix + randomBytes(16).toString('hex')

export const rfc2822 = (d: Date): string => d.toUTCString().replace('GMT', '+0000')

/**
 * The key a person's phone presses at a press-1 Gather, by its last two digits: 11 presses 1,
 * 12 nothing, 13 presses 2, 14 is a voicemail box (answers, no key). Any other phone that
 * answers presses 1, so scripts written before press 1 keep their meaning.
 */
export function keyFor(phone: string): string | null {
  const digits = phone.slice(-2)
  return digits === '12' || digits === '14' ? null : digits === '13' ? '2' : '1'
}

/** A person (not a machine) answered: AMD's human or unknown, or no detection result at all. */
export const isPersonAnswer = (answeredBy: string | null): boolean => answeredBy === null || answeredBy === 'human' || answeredBy === 'unknown'
