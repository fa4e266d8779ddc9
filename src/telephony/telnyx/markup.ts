import { streamUrlOf } from '../twilio/ai-seat-steps'
import { escapeXml } from '../twilio/twiml'

/**
 * The call engine's TwiML as TeXML (developers.telnyx.com/docs/voice/programmable-voice/texml-twiml-compatibility:
 * Say, Play, Pause, Gather, Dial with Number and Conference, Redirect, Hangup, Start/Stop,
 * Connect/Stream and Transcription are supported with TwiML's attributes). The engine builds its
 * markup once, with URLs under DIALER_PUBLIC_URL/twilio/; this gives Telnyx's:
 * - the service's own URLs under /telnyx/ (the engine's are the only ones starting with them);
 * - `<Stream>` in PCMU both ways (codec: the lead's audio as μ-law whatever the call negotiated;
 *   bidirectional RTP/PCMU back): TeXML's default bidirectionalMode is mp3, which an
 *   agent speaking μ-law cannot use (…/texml-verbs/stream);
 * - `<Start><Transcription>` in TeXML's attributes: transcriptionCallback, the inbound track only
 *   (a Telnyx line does not say its track, so only the lead's side is transcribed; …/texml-verbs/transcription);
 * - no `answerOnBridge` (not among TeXML's Dial attributes).
 * Pure string work on the engine's exact output (twiml.ts builds every element the same way).
 */
export function texmlOf(twiml: string, publicUrl: string): string {
  const own = escapeXml(`${publicUrl}/twilio/`)
  const stream = escapeXml(streamUrlOf(publicUrl))
  return twiml
    .replaceAll(stream, stream.replace(/\/twilio\/streams$/, '/telnyx/streams'))
    .replaceAll(own, escapeXml(`${publicUrl}/telnyx/`))
    .replace(/<Stream url="([^"]*)"/g, '<Stream url="$1" codec="PCMU" bidirectionalMode="rtp" bidirectionalCodec="PCMU"')
    .replace(/<Transcription statusCallbackUrl="([^"]*)"[^>]*\/>/g, '<Transcription transcriptionCallback="$1" transcriptionTracks="inbound"/>')
    .replaceAll(' answerOnBridge="true"', '')
}

/** A URL the engine built (a REST request's callback) as Telnyx's. */
export function telnyxUrlOf(url: string, publicUrl: string): string {
  const own = `${publicUrl}/twilio/`
  return url.startsWith(own) ? `${publicUrl}/telnyx/${url.slice(own.length)}` : url
}

/**
 * A TeXML transcription callback (Transcript, IsFinal, Confidence: no event, track or sequence)
 * in the words of Twilio's that the engine reads (transcription-steps.ts): a final content line
 * of the lead, numbered by a hash of the call and the text (a retried callback adds nothing; the
 * same sentence said twice counts once).
 */
export function normalizeTranscription(params: Record<string, string>): Record<string, string> {
  if (params.Transcript === undefined || params.TranscriptionEvent !== undefined) return params
  let hash = 2166136261
  for (const ch of `${params.CallSid ?? ''}|${params.Transcript}`) hash = Math.imul(hash ^ ch.charCodeAt(0), 16777619) >>> 0
  return {
    ...params,
    TranscriptionEvent: 'transcription-content',
    Final: params.IsFinal === 'false' ? 'false' : 'true',
    Track: 'inbound_track',
    TranscriptionData: JSON.stringify({ transcript: params.Transcript }),
    SequenceId: String(hash % 1_000_000_000),
  }
}
