import type { TranscriptLine } from '../db/schema'
import type { Outcome } from '../domain/outcomes'

export type AnsweredBy = 'person' | 'machine' | 'unknown'

/** What the dialer asks a carrier to do: one outbound call. */
export interface DialRequest {
  callId: string
  /** E.164 */
  to: string
  livemode: boolean
  /** Record the call (the organization records calls). */
  record: boolean
  leadName: string | null
  /** The person who takes a handover, for the transcript's agent lines. */
  agentName: string
  /** The lead's time zone, for times the lead says in their own time ("tomorrow at 10"). */
  leadZone: string
}

/** How a call ended, as the carrier (and the AI on it) saw it. */
export interface CallReport {
  /** The AI's outcome; null when a person took the call and files the outcome. */
  outcome: Outcome | null
  note: string | null
  voicemailDelivered: boolean
  /** A callback time the lead asked for (unix ms). */
  callbackAt: number | null
  /** The lead asked not to be called again. */
  optOut: boolean
  durationSeconds: number
  transcript: TranscriptLine[]
  recorded: boolean
}

/** What happens on a call, told to the dialer as it happens. */
export interface CallEvents {
  answered(callId: string, by: AnsweredBy): void
  /** The AI heard buying intent. */
  intent(callId: string, excerpt: string, confidence: number): void
  /** A person on our side took the call. */
  handover(callId: string): void
  ended(callId: string, report: CallReport): void
}

/**
 * A telephone carrier. The dialer only talks to this interface, so a real carrier adapter
 * can be added beside the simulator without touching the dialer.
 */
export interface Carrier {
  readonly name: string
  /** Called only once the call's rows are durable (DatabaseHandle.afterDurable): a dial cannot be taken back. */
  dial(request: DialRequest, events: CallEvents): void
  hangUp(callId: string): void
  /** The recording audio (WAV) of a recorded call, as the carrier serves it. */
  recording(call: { id: string; durationSeconds: number | null }): Uint8Array | null
}
