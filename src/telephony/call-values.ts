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
