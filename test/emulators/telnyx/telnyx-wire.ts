import { type KeyObject, randomBytes, randomUUID } from 'node:crypto'
import type { StreamRecord } from '../twilio/emulator-stream'
import type { CallStatus, EmulatedCall, SentCallback } from '../twilio/emulator-types'
import { type EmulatorWire, readServerFrame, type StreamDialect } from '../twilio/emulator-wire'
import { signedHeaders } from './telnyx-signing'

/**
 * Telnyx's TeXML wire for the shared call engine, from Telnyx's published reference:
 * - ids: a CallSid is the call_control_id, `v3:` and URL-safe base64
 *   (developers.telnyx.com/api-reference/callbacks/texml-call-initiated); recordings, conferences
 *   and streams are UUIDs (…/texml-recording-completed, the media streaming start frame).
 * - every TeXML request carries AccountSid, CallSid, CallSidLegacy, From, To, ConnectionId,
 *   ApiVersion and CallStatus (developers.telnyx.com/docs/voice/programmable-voice/texml-instruction-fetching).
 * - call-progress callbacks add CallbackSource, SequenceNumber, Timestamp (ISO), CallInitiatedAt,
 *   ShakenStirAttestation/ShakenStirValidated (initiated, ringing, answered), CallDuration, and on
 *   the end EndTime, HangupCause and HangupSource (…/texml-call-initiated, -ringing, -answered,
 *   -completed). HangupCause values other than normal_clearing are Call Control's, an emulator choice.
 * - signed with Ed25519 over `timestamp|body` (telnyx-signing.ts).
 * - transcription lines: AccountSid, CallSid, CallSidLegacy, Transcript, IsFinal, Confidence, for
 *   the `transcriptionTracks` asked (inbound by default); no started/stopped events, no track field
 *   (developers.telnyx.com/docs/voice/programmable-voice/texml-verbs/transcription).
 * - media stream frames in snake_case (developers.telnyx.com/api-reference/websockets/stream-call-media-over-websocket).
 */

export interface TelnyxWireContext {
  /** The method of a callback of this kind about this call (the create's, else the application's). */
  method(call: EmulatedCall, kind: SentCallback['kind']): 'GET' | 'POST'
  /** The TeXML application (ConnectionId) of the call's account. */
  applicationSid(call: EmulatedCall): string
  /** The attestation reported for an outbound call (null: none). */
  attestation(call: EmulatedCall): string | null
  /** Whether a recording callback of this source carries RecordingUrl (SendRecordingUrl). */
  sendsRecordingUrl(call: EmulatedCall, source: string): boolean
  privateKey(): KeyObject
  /** Seconds added to the clock for telnyx-timestamp (negative: stale). */
  clockSkew(): number
  /** True once per callback that is to be signed with another key (corruptNext). */
  corruptOne(): boolean
  otherKey(): KeyObject
  /** Duplicates carry fresh timestamps and signatures (else the same bytes again). */
  resign: boolean
  /** Media frames sent out of order within this many frames (0: in order). */
  reorderWindow: number
  random: () => number
}

export const newCallControlId = (): string => `v3:${randomBytes(40).toString('base64url')}`

const iso = (ms: number) => new Date(ms).toISOString()

const HANGUP_CAUSE: Partial<Record<CallStatus, string>> = { completed: 'normal_clearing', busy: 'user_busy', 'no-answer': 'timeout', failed: 'call_rejected', canceled: 'originator_cancel' }

/** Twilio's parameters a TeXML request does not carry (the service must not need them). */
const NOT_SENT = ['Called', 'Caller', 'Direction', 'DialBridged']

export function telnyxWire(ctx: TelnyxWireContext): EmulatorWire {
  /** A replay sends the same timestamp again (so the same bytes and signature), unless resign. */
  const stamps = new Map<string, number>()
  const wire: EmulatorWire = {
    newCallSid: newCallControlId,
    newConferenceSid: randomUUID,
    newRecordingSid: randomUUID,
    newTranscriptionSid: randomUUID,
    base: (call) => ({
      AccountSid: call.accountSid, ApiVersion: '2010-04-01', CallSid: call.sid, CallSidLegacy: call.sid, CallStatus: call.status,
      ConnectionId: ctx.applicationSid(call), From: call.from, To: call.to,
    }),
    statusParams(call, status, event) {
      const params: Record<string, string> = {
        ...wire.base(call), CallStatus: status, CallbackSource: 'call-progress-events', SequenceNumber: String(call.seq++),
        Timestamp: iso(Date.now()), CallInitiatedAt: iso(call.startedAt),
      }
      const attestation = call.direction === 'outbound-api' ? ctx.attestation(call) : null
      if (attestation !== null && event !== 'completed') Object.assign(params, { ShakenStirAttestation: attestation, ShakenStirValidated: 'true' })
      if (event !== 'initiated') params.CallDuration = String(call.duration ?? 0)
      if (event === 'answered') Object.assign(params, { AnsweredTime: iso(Date.now()), Codec: 'PCMU', SamplingRate: '8000' })
      if (event === 'completed') {
        params.EndTime = iso(Date.now())
        if (call.answeredAt !== null) params.AnsweredTime = iso(call.startedAt + (call.answeredAt * 1000))
        params.HangupCause = HANGUP_CAUSE[status] ?? 'normal_clearing'
        params.HangupSource = status === 'canceled' ? 'caller' : 'callee'
      }
      return params
    },
    finalize(call, kind, given) {
      const params = { ...given }
      for (const name of NOT_SENT) delete params[name]
      for (const id of ['CallSid', 'DialCallSid', 'ParentCallSid']) if (params[id] !== undefined) params[`${id}Legacy`] = params[id]!
      if (kind === 'recording') {
        params.ConnectionId = ctx.applicationSid(call)
        if (!ctx.sendsRecordingUrl(call, params.RecordingSource ?? '')) delete params.RecordingUrl
      }
      return params
    },
    method: (call, kind) => ctx.method(call, kind),
    recordingUrl: (apiBaseUrl, _call, sid) => `${apiBaseUrl}/media/recordings/${sid}.wav`,
    sign(_call, _url, _params, body, token) {
      const now = Math.floor(Date.now() / 1000) + ctx.clockSkew()
      let timestamp = now
      if (!ctx.resign) {
        timestamp = stamps.get(token) ?? now
        stamps.set(token, timestamp)
        if (stamps.size > 10_000) stamps.delete(stamps.keys().next().value!)
      }
      const headers = signedHeaders(ctx.corruptOne() ? ctx.otherKey() : ctx.privateKey(), timestamp, body)
      return { signature: headers['telnyx-signature-ed25519'], headers }
    },
    transcriptionUrl: (attrs) => attrs.transcriptionCallback || undefined,
    transcription(call, event, line) {
      if (event !== 'content' || !line) return null
      const tracks = call.transcription?.attrs?.transcriptionTracks ?? 'inbound'
      const wanted = tracks === 'both' || (tracks === 'inbound' ? line.track === 'inbound_track' : line.track === 'outbound_track')
      if (!wanted) return null
      return { AccountSid: call.accountSid, CallSid: call.sid, Transcript: line.text, IsFinal: 'true', Confidence: '0.93' }
    },
    stream: telnyxStream(ctx),
  }
  return wire
}

/** Is this payload an MP3 file (an ID3 tag or an MPEG audio frame sync)? The only audio a stream in mp3 mode plays. */
function isMp3(payload: string): boolean {
  const head = Buffer.from(payload.slice(0, 8), 'base64')
  return (head[0] === 0x49 && head[1] === 0x44 && head[2] === 0x33) || (head[0] === 0xff && (head[1]! & 0xe0) === 0xe0)
}

/**
 * The Telnyx media stream (developers.telnyx.com/docs/voice/programmable-voice/texml-verbs/stream):
 * `bidirectionalMode` defaults to mp3, where what the server sends back must be MP3 files; only
 * `bidirectionalMode="rtp"` plays base64 RTP payloads (PCMU by default, the only codec the emulator
 * plays). Frames to the server: connected, start, media, dtmf, mark, stop in snake_case with
 * `stream_id` and `sequence_number`; from the server media/mark/clear, `stream_id` optional
 * (pipecat's serializer sends none).
 */
function telnyxStream(ctx: TelnyxWireContext): StreamDialect {
  const callSessions = new Map<string, string>()
  const session = (call: EmulatedCall) => callSessions.get(call.sid) ?? callSessions.set(call.sid, randomUUID()).get(call.sid)!
  return {
    newStreamSid: () => randomUUID().toUpperCase(),
    refuse(attrs) {
      const codec = attrs.bidirectionalCodec ?? 'PCMU'
      return attrs.bidirectionalMode === 'rtp' && codec !== 'PCMU' ? `the emulator plays PCMU only, not ${codec}` : null
    },
    playable: (attrs, payload) => (attrs.bidirectionalMode === 'rtp' ? true : isMp3(payload)),
    reorder: ctx.reorderWindow > 1 ? { window: ctx.reorderWindow, random: ctx.random } : undefined,
    connected: () => ({ event: 'connected', version: '1.0.0' }),
    start: (record, call, seq, attrs) => ({
      event: 'start', sequence_number: String(seq), stream_id: record.streamSid,
      start: {
        user_id: call.accountSid, call_control_id: call.sid, call_session_id: session(call), from: call.from, to: call.to, tags: [], client_state: null,
        custom_parameters: record.parameters,
        media_format: { encoding: attrs.codec && attrs.codec !== 'default' ? attrs.codec : 'PCMU', sample_rate: 8000, channels: 1 },
      },
    }),
    media: (record, seq, chunk, timestamp, payload) => ({
      event: 'media', sequence_number: String(seq), stream_id: record.streamSid, media: { track: 'inbound', chunk: String(chunk), timestamp: String(timestamp), payload },
    }),
    dtmf: (record, seq, digit) => ({ event: 'dtmf', sequence_number: String(seq), stream_id: record.streamSid, dtmf: { digit } }),
    mark: (record, seq, name) => ({ event: 'mark', sequence_number: String(seq), stream_id: record.streamSid, mark: { name } }),
    stop: (record, call, seq) => ({ event: 'stop', sequence_number: String(seq), stream_id: record.streamSid, stop: { user_id: call.accountSid, call_control_id: call.sid } }),
    read(message: unknown, record: StreamRecord) {
      const msg = message as { event?: unknown; stream_id?: unknown } | null
      if (msg === null || typeof msg !== 'object' || !['media', 'mark', 'clear'].includes(msg.event as string)) return { error: `unsupported event ${String(msg?.event)}` }
      if (msg.stream_id !== undefined && msg.stream_id !== record.streamSid) return { error: 'another stream_id' }
      return readServerFrame(msg)
    },
  }
}
