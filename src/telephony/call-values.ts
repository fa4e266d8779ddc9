/**
 * Values a carrier reports and reads, owned here so telephony needs nothing from the database
 * layer; the schema stores them as they are (src/db/schema `$type<>` points at these).
 */

/** One line of a call's transcript. */
export interface TranscriptLine {
  speaker: 'ai' | 'lead' | 'agent'
  name: string
  text: string
  /** unix ms */
  at: number
}

/** What a real carrier plays on an answering machine: a recording, or text read aloud. */
export type Voicemail = { audio_url: string } | { say: string }

/** Said or played after the answer where every party must consent to recording; recording starts once it has ended. */
export type RecordingNotice = { audio_url: string } | { say: string }

/** The notice of a campaign that set none. */
export const DEFAULT_RECORDING_NOTICE = 'This call may be recorded.'

/** A call that records only after its notice: whose law asks for it, and what the lead hears. */
export interface ConsentNotice {
  /** States of the lead that require every party's consent, sorted. */
  requiredBy: string[]
  notice: RecordingNotice
}

/** Said or played before an AI seat takes the call (an artificial voice identifies itself first: 47 CFR 64.1200(b)). */
export type AiDisclosure = { say: string } | { audio_url: string }

/**
 * A campaign's AI agent as stored (defaults filled): the call's audio is relayed to `url` in
 * Twilio's Media Streams protocol (src/telephony/media-stream/). `kind` leaves room for agents
 * the service runs itself.
 */
export interface AiAgentSettings {
  kind: 'stream'
  /** wss:// (ws:// only to a loopback address). */
  url: string
  /** Sent to the agent in `start.customParameters` (at most 20; no name starts with dialer_). */
  parameters: Record<string, string>
  /** The agent must send audio within this many ms of Twilio's `start` (500-5000). */
  first_audio_ms: number
  disclosure: AiDisclosure
}
