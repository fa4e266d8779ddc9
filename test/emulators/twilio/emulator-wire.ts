import { signTwilioRequest } from '../../../src/telephony/twilio/signature'
import type { StreamRecord } from './emulator-stream'
import { isBase64 } from './emulator-stream-audio'
import { type CallStatus, type EmulatedCall, newSid, rfc2822, type SentCallback } from './emulator-types'

/**
 * What differs between carriers whose markup copies TwiML (Twilio, Telnyx's TeXML) while the
 * call engine stays one: ids, the parameters of each callback, how a callback is signed, where
 * a recording is fetched, and the media stream's frames. The Twilio wire below is the engine's
 * default and keeps the Twilio emulator's behaviour as it was; the Telnyx emulator brings its own
 * (test/emulators/telnyx/telnyx-wire.ts).
 */

/** A server message on a media stream, as the carrier reads it (or why it refuses it). */
export type StreamInbound = { event: 'media'; payload: string } | { event: 'mark'; name: string } | { event: 'clear' } | { error: string }

/** How a carrier's media stream writes its frames and reads the server's (emulator-stream.ts). */
export interface StreamDialect {
  newStreamSid(): string
  /** Options of the <Stream> noun the run depends on (null: the stream is usable as asked). */
  refuse?(attrs: Record<string, string>): string | null
  /** True: the server's `media` is played only if it passes `playable` (e.g. a one-way MP3 stream). */
  playable?(attrs: Record<string, string>, payload: string): boolean
  /** Media frames to the server leave in a shuffled order within `window` frames (a carrier that does not guarantee their order). */
  reorder?: { window: number; random: () => number }
  connected(): object
  start(record: StreamRecord, call: EmulatedCall, seq: number, attrs: Record<string, string>): object
  media(record: StreamRecord, seq: number, chunk: number, timestamp: number, payload: string): object
  dtmf(record: StreamRecord, seq: number, digit: string): object
  mark(record: StreamRecord, seq: number, name: string): object
  stop(record: StreamRecord, call: EmulatedCall, seq: number): object
  read(message: unknown, record: StreamRecord): StreamInbound
}

export interface EmulatorWire {
  newCallSid(): string
  newConferenceSid(): string
  newRecordingSid(): string
  newTranscriptionSid(): string
  /** The parameters every request about the call carries. */
  base(call: EmulatedCall): Record<string, string>
  /** A status callback's parameters (event: the StatusCallbackEvent it answers). */
  statusParams(call: EmulatedCall, status: CallStatus, event: string): Record<string, string>
  /** The last word on any callback's parameters (e.g. legacy ids a carrier adds, fields it lacks). */
  finalize(call: EmulatedCall, kind: SentCallback['kind'], params: Record<string, string>): Record<string, string>
  /** Where a recording of the call is fetched. */
  recordingUrl(apiBaseUrl: string, call: EmulatedCall, recordingSid: string): string
  /** The HTTP method of a callback (default POST); a GET carries the parameters in the query and signs an empty body. */
  method?(call: EmulatedCall, kind: SentCallback['kind']): 'GET' | 'POST'
  /** A callback's headers and the signature kept in `sent` (token: the same for a replay). */
  sign(call: EmulatedCall, url: string, params: Record<string, string>, body: string, token: string): { signature: string; headers: Record<string, string> }
  /** Where <Start><Transcription> sends its lines (undefined: it is not started). */
  transcriptionUrl(attrs: Record<string, string>): string | undefined
  /** A transcription callback's parameters (null: this carrier sends none for that event or track). */
  transcription(call: EmulatedCall, event: 'started' | 'content' | 'stopped', line?: { track: 'inbound_track' | 'outbound_track'; text: string }): Record<string, string> | null
  readonly stream: StreamDialect
}

/** Twilio's Media Streams frames (twilio.com/docs/voice/media-streams/websocket-messages). */
const twilioStream: StreamDialect = {
  newStreamSid: () => newSid('MZ'),
  connected: () => ({ event: 'connected', protocol: 'Call', version: '1.0.0' }),
  start: (record, call, seq) => ({
    event: 'start', sequenceNumber: String(seq),
    start: {
      accountSid: call.accountSid, streamSid: record.streamSid, callSid: call.sid, tracks: ['inbound'], customParameters: record.parameters,
      mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
    },
    streamSid: record.streamSid,
  }),
  media: (record, seq, chunk, timestamp, payload) => ({
    event: 'media', sequenceNumber: String(seq), media: { track: 'inbound', chunk: String(chunk), timestamp: String(timestamp), payload }, streamSid: record.streamSid,
  }),
  dtmf: (record, seq, digit) => ({ event: 'dtmf', streamSid: record.streamSid, sequenceNumber: String(seq), dtmf: { track: 'inbound_track', digit } }),
  mark: (record, seq, name) => ({ event: 'mark', sequenceNumber: String(seq), streamSid: record.streamSid, mark: { name } }),
  stop: (record, call, seq) => ({ event: 'stop', sequenceNumber: String(seq), streamSid: record.streamSid, stop: { accountSid: call.accountSid, callSid: call.sid } }),
  read(message, record) {
    const msg = message as { event?: unknown; streamSid?: unknown; media?: { payload?: unknown }; mark?: { name?: unknown } } | null
    if (msg === null || typeof msg !== 'object' || !['media', 'mark', 'clear'].includes(msg.event as string)) return { error: `unsupported event ${String(msg?.event)}` }
    if (msg.streamSid !== record.streamSid) return { error: 'no or another streamSid' }
    return readServerFrame(msg)
  },
}

/** The body of a server's media/mark/clear (the same in both dialects once the stream id is checked). */
export function readServerFrame(msg: { event?: unknown; media?: { payload?: unknown }; mark?: { name?: unknown } }): StreamInbound {
  if (msg.event === 'media' && isBase64(msg.media?.payload)) return { event: 'media', payload: msg.media.payload }
  if (msg.event === 'mark' && typeof msg.mark?.name === 'string') return { event: 'mark', name: msg.mark.name }
  if (msg.event === 'clear') return { event: 'clear' }
  return { error: `malformed ${String(msg.event)}` }
}

/** The Twilio emulator's wire (twilio.com/docs/usage/webhooks/voice-webhooks, /docs/usage/security). */
export const twilioWire: EmulatorWire = {
  newCallSid: () => newSid('CA'),
  newConferenceSid: () => newSid('CF'),
  newRecordingSid: () => newSid('RE'),
  newTranscriptionSid: () => newSid('GT'),
  base: (call) => ({
    AccountSid: call.accountSid, ApiVersion: '2010-04-01', CallSid: call.sid, CallStatus: call.status, Called: call.to, Caller: call.from,
    Direction: call.direction, From: call.from, To: call.to,
  }),
  statusParams(call, status, event) {
    const params: Record<string, string> = { ...this.base(call), CallStatus: status, CallbackSource: 'call-progress-events', SequenceNumber: String(call.seq++), Timestamp: rfc2822(new Date()) }
    if (event === 'completed') {
      params.CallDuration = String(call.duration ?? 0)
      params.Duration = String(Math.ceil((call.duration ?? 0) / 60))
    }
    return params
  },
  finalize: (_call, _kind, params) => params,
  recordingUrl: (apiBaseUrl, call, sid) => `${apiBaseUrl}/2010-04-01/Accounts/${call.accountSid}/Recordings/${sid}`,
  sign(call, url, params, _body, token) {
    const signature = signTwilioRequest(call.authToken, url, params)
    return { signature, headers: { 'X-Twilio-Signature': signature, 'I-Twilio-Idempotency-Token': token } }
  },
  transcriptionUrl: (attrs) => attrs.statusCallbackUrl || undefined,
  transcription(call, event, line) {
    const t = call.transcription!
    const base = { AccountSid: call.accountSid, CallSid: call.sid, TranscriptionSid: t.sid, Timestamp: new Date().toISOString(), SequenceId: String(++t.seq) }
    if (event !== 'content' || !line) return { ...base, TranscriptionEvent: `transcription-${event}` }
    return {
      ...base, TranscriptionEvent: 'transcription-content', LanguageCode: 'en-US', Track: t.labels[line.track],
      TranscriptionData: JSON.stringify({ transcript: line.text, confidence: 0.93 }), Final: 'true',
    }
  },
  stream: twilioStream,
}
