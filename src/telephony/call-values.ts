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
 * A campaign's AI agent as stored (defaults filled): `stream` relays the call's audio to `url` in
 * Twilio's Media Streams protocol (src/telephony/media-stream/); `openai_realtime` is an agent the
 * service runs itself against OpenAI's Realtime API (src/telephony/realtime/), its key sealed
 * apart (campaigns.ai_agent_key), never in this object.
 */
export type AiAgentSettings = StreamAgentSettings | RealtimeAgentSettings

export interface StreamAgentSettings {
  kind: 'stream'
  /** wss:// (ws:// only to a loopback address). */
  url: string
  /** Sent to the agent in `start.customParameters` (at most 20; no name starts with dialer_). */
  parameters: Record<string, string>
  /** The agent must send audio within this many ms of Twilio's `start` (500-5000). */
  first_audio_ms: number
  disclosure: AiDisclosure
}

export interface RealtimeAgentSettings {
  kind: 'openai_realtime'
  /** Passed through as given (OpenAI decides); not empty. */
  model: string
  voice: string
  /** A template (at most 20,000 characters): {{lead.name}}, {{lead.phone}}, {{lead.email}}, {{lead.fields.<key>}}, {{campaign.name}}, {{org.name}}. */
  instructions: string
  first_audio_ms: number
  disclosure: AiDisclosure
  /** The full Realtime endpoint (wss://; ws:// only to loopback); the model is added as ?model=. */
  base_url: string
}

/** A model's usage on one call, as the Realtime API reported it (response.done usage), summed. */
export interface AiUsage {
  input_tokens: number
  output_tokens: number
  input_text_tokens: number
  input_audio_tokens: number
  /** Input tokens served from OpenAI's cache (part of input_tokens). */
  input_cached_tokens: number
  output_text_tokens: number
  output_audio_tokens: number
}

/**
 * An organization's price per model for AI cost (USD per million tokens); a model with no price
 * has no cost shown. Nothing is hard-coded.
 */
export interface AiModelPrice {
  input_text: number
  input_audio: number
  input_cached: number
  output_text: number
  output_audio: number
}
export type AiPrices = Record<string, AiModelPrice>
