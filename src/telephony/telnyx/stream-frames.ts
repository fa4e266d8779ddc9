import { base64Bytes, MULAW_BYTES_PER_MS, overFrameLimit } from '../media-stream/agent-frames'
import type { CarrierFrame } from '../media-stream/carrier-frames'
import type { CarrierReader, StreamDialect } from '../media-stream/dialect'
import type { RelayTimers } from '../media-stream/contract'
import { STREAM_TOKEN_PARAMETER } from '../media-stream/stream-token'

/**
 * Telnyx's media stream (developers.telnyx.com/api-reference/websockets/stream-call-media-over-websocket)
 * as the relay's dialect. Telnyx sends `connected`, `start` (`stream_id`, `start.call_control_id`
 * = the TeXML CallSid, `start.custom_parameters` = the `<Parameter>`s, `start.media_format`),
 * `media` (`media.payload`, `chunk`, `timestamp`, `track`), `dtmf`, `mark`, `stop` and `error`,
 * each but `connected` with a `sequence_number`; it takes `media` (`media.payload`), `mark`
 * (`mark.name`) and `clear`, no stream id needed. The agent gets Twilio's frames for each
 * (twilio.com/docs/voice/media-streams/websocket-messages), numbered as it receives them.
 */

/**
 * Telnyx: "Media frame order is not guaranteed." Frames after a missing one are held, in
 * `sequence_number` order, until it comes, at most this many frames ...
 */
export const REORDER_MAX_FRAMES = 5
/** ... and at most this long (real time); then the gap is skipped. A frame that comes later still goes on. */
export const REORDER_MAX_MS = 60

/** What the agent is told the audio is; a stream in anything else is refused (the agent hears μ-law 8 kHz). */
const MULAW = { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } as const
const CONNECTED = JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' })
const CLEAR = JSON.stringify({ event: 'clear' })
const SEQUENCE = /^\d{1,15}$/

type Json = Record<string, unknown>
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const text = (v: unknown): string => (typeof v === 'string' ? v : '')
const numberOf = (v: unknown): number | null =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : typeof v === 'string' && SEQUENCE.test(v) ? Number(v) : null

/** PCMU at 8 kHz, one channel (channels may be left out). */
export function isPcmu8k(format: unknown): boolean {
  if (!isRecord(format)) return false
  const channels = format.channels === undefined ? 1 : numberOf(format.channels)
  return text(format.encoding).toUpperCase() === 'PCMU' && numberOf(format.sample_rate) === 8000 && channels === 1
}

/** The track the lead's audio is on; the other track (when a stream asks for both) is not the agent's to hear. */
const isInbound = (track: unknown): boolean => track === undefined || track === 'inbound' || track === 'inbound_track'

class TelnyxReader implements CarrierReader {
  private started = false
  private streamSid = ''
  private callSid = ''
  private accountSid = ''
  /** Twilio's sequenceNumber for the agent's frames (its `start` is 1). */
  private numbered = 0
  private chunks = 0
  private audioMs = 0
  /** The sequence_number the agent should get next; null until known. */
  private expected: number | null = null
  private held: { seq: number; frame: Json }[] = []
  private timer: unknown = null

  constructor(private readonly emit: (frame: CarrierFrame) => void, private readonly timers: RelayTimers) {}

  read(data: string): void {
    if (overFrameLimit(data)) return this.emit({ kind: 'drop', reason: 'carrier_too_large' })
    let frame: unknown
    try {
      frame = JSON.parse(data)
    } catch {
      return this.emit({ kind: 'drop', reason: 'carrier_not_json' })
    }
    if (!isRecord(frame)) return this.emit({ kind: 'drop', reason: 'carrier_not_json' })
    const event = frame.event
    if (event === 'connected') return this.emit({ kind: 'connected', raw: CONNECTED })
    if (event === 'start') return this.start(frame)
    if (event === 'stop') {
      // The stream is over: what is held goes on first, in order.
      this.release(Number.POSITIVE_INFINITY)
      return this.deliver(frame)
    }
    const seq = numberOf(frame.sequence_number)
    if (seq === null) return this.deliver(frame)
    if (this.expected === null && this.started) this.expected = seq
    if (this.expected !== null && seq <= this.expected) {
      // The next one, or a late one (its gap was skipped): on at once.
      if (seq === this.expected) this.expected++
      this.deliver(frame)
      return this.drain()
    }
    this.hold(seq, frame)
  }

  close(): void {
    this.held = []
    this.timers.clear(this.timer)
    this.timer = null
  }

  private start(frame: Json): void {
    if (this.started) return
    const start = isRecord(frame.start) ? frame.start : {}
    if (!isPcmu8k(start.media_format)) return this.emit({ kind: 'refused', reason: 'carrier_media_format' })
    this.started = true
    this.streamSid = text(frame.stream_id)
    this.callSid = text(start.call_control_id)
    this.accountSid = text(start.user_id)
    const custom = isRecord(start.custom_parameters) ? start.custom_parameters : {}
    const parameters: Record<string, string> = {}
    for (const [name, value] of Object.entries(custom)) if (name !== STREAM_TOKEN_PARAMETER && typeof value === 'string') parameters[name] = value
    const message = {
      event: 'start', sequenceNumber: String(++this.numbered), streamSid: this.streamSid,
      start: { accountSid: this.accountSid, streamSid: this.streamSid, callSid: this.callSid, tracks: ['inbound'], mediaFormat: MULAW, customParameters: {} },
    }
    this.emit({ kind: 'start', start: { token: text(custom[STREAM_TOKEN_PARAMETER]), callSid: this.callSid, streamSid: this.streamSid, message, parameters } })
    // Frames that came before their start wait for it.
    const seq = numberOf(frame.sequence_number)
    if (seq !== null) this.expected = seq + 1
    else if (this.held.length > 0) this.expected = this.held[0]!.seq
    this.drain()
  }

  private hold(seq: number, frame: Json): void {
    let at = this.held.length
    while (at > 0 && this.held[at - 1]!.seq > seq) at--
    this.held.splice(at, 0, { seq, frame })
    if (this.held.length > REORDER_MAX_FRAMES) return this.release(this.held[0]!.seq)
    if (this.timer === null && this.started) this.timer = this.timers.set(() => this.expire(), REORDER_MAX_MS)
  }

  private expire(): void {
    this.timer = null
    if (this.held.length > 0) this.release(this.held[0]!.seq)
  }

  /** Skip the gap up to `seq`: what is held up to it, and what follows on from it, goes on. */
  private release(seq: number): void {
    while (this.held.length > 0 && this.held[0]!.seq <= seq) {
      const next = this.held.shift()!
      this.expected = next.seq + 1
      this.deliver(next.frame)
    }
    this.drain()
  }

  private drain(): void {
    while (this.expected !== null && this.held.length > 0 && this.held[0]!.seq <= this.expected) {
      const next = this.held.shift()!
      if (next.seq === this.expected) this.expected++
      this.deliver(next.frame)
    }
    if (this.held.length === 0 && this.timer !== null) {
      this.timers.clear(this.timer)
      this.timer = null
    } else if (this.held.length > 0 && this.timer === null && this.started) {
      this.timer = this.timers.set(() => this.expire(), REORDER_MAX_MS)
    }
  }

  /** One Telnyx frame as Twilio's frame for the agent. */
  private deliver(frame: Json): void {
    const streamSid = this.streamSid
    switch (frame.event) {
      case 'media': {
        const media = isRecord(frame.media) ? frame.media : {}
        if (!isInbound(media.track)) return this.emit({ kind: 'drop', reason: 'carrier_other_track' })
        const payload = text(media.payload)
        const timestamp = String(Math.round(this.audioMs))
        this.audioMs += Math.max(0, base64Bytes(payload)) / MULAW_BYTES_PER_MS
        const raw = JSON.stringify({
          event: 'media', sequenceNumber: String(++this.numbered),
          media: { track: 'inbound', chunk: String(++this.chunks), timestamp, payload }, streamSid,
        })
        return this.emit({ kind: 'media', raw, payload })
      }
      case 'dtmf': {
        const digit = isRecord(frame.dtmf) ? text(frame.dtmf.digit) : ''
        const raw = JSON.stringify({ event: 'dtmf', streamSid, sequenceNumber: String(++this.numbered), dtmf: { track: 'inbound_track', digit } })
        return this.emit({ kind: 'dtmf', raw, digit })
      }
      case 'mark': {
        const name = isRecord(frame.mark) ? text(frame.mark.name) : ''
        return this.emit({ kind: 'mark', raw: JSON.stringify({ event: 'mark', sequenceNumber: String(++this.numbered), streamSid, mark: { name } }), name })
      }
      case 'stop': {
        const stop = { accountSid: this.accountSid, callSid: this.callSid }
        return this.emit({ kind: 'stop', raw: JSON.stringify({ event: 'stop', sequenceNumber: String(++this.numbered), streamSid, stop }) })
      }
      default:
        // `error` and anything new: no Twilio frame matches (it still takes its place in the order).
        return this.emit({ kind: 'drop', reason: 'carrier_unknown_event' })
    }
  }
}

/** Telnyx's stream for a relay: `createSeatRelay({ …, dialect: telnyxStreamDialect })`. */
export const telnyxStreamDialect: StreamDialect = {
  name: 'telnyx',
  reader: (emit, timers) => new TelnyxReader(emit, timers),
  toCarrier(frame) {
    switch (frame.kind) {
      case 'media':
        return JSON.stringify({ event: 'media', media: { payload: frame.payload } })
      case 'mark':
        return JSON.stringify({ event: 'mark', mark: { name: frame.name } })
      case 'clear':
        return CLEAR
    }
  },
  mark: (_streamSid, name) => JSON.stringify({ event: 'mark', mark: { name } }),
  clear: () => CLEAR,
}
