import { MAX_AGENT_FRAME_BYTES, type SeatControl } from './contract'
import { readControl } from './control-messages'

/**
 * What an agent's frame is to the relay. Media Streams messages Twilio takes from a server
 * (twilio.com/docs/voice/media-streams/websocket-messages: `media`, `mark`, `clear`) go on to
 * the carrier as the very bytes the agent sent (another carrier's dialect writes them in its own
 * shapes from the payload and name, dialect.ts); `dialer.*` ones are controls for the host;
 * anything else is dropped and counted (Twilio ends a stream on a message it does not know).
 */
export type AgentFrame =
  | { kind: 'media'; raw: string; payload: string; audioMs: number }
  | { kind: 'mark'; raw: string; name: string }
  | { kind: 'clear'; raw: string }
  | { kind: 'control'; control: SeatControl }
  | { kind: 'drop'; reason: AgentDropReason }

export type AgentDropReason = 'not_json' | 'too_large' | 'bad_media' | 'unknown_event' | 'malformed_control' | 'unknown_outcome' | 'malformed_frame'

/** μ-law at 8 kHz, the only format Twilio plays back on a bidirectional stream: 8 bytes a millisecond. */
export const MULAW_BYTES_PER_MS = 8

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

/** Bytes a well-formed base64 string decodes to; -1 when it is not base64 (or empty). */
export function base64Bytes(payload: string): number {
  const n = payload.length
  if (n === 0 || n % 4 !== 0 || !BASE64.test(payload)) return -1
  const padding = payload.endsWith('==') ? 2 : payload.endsWith('=') ? 1 : 0
  return (n / 4) * 3 - padding
}

/** UTF-8 size over the limit, without encoding the common (small) frame. */
export function overFrameLimit(data: string): boolean {
  // A UTF-16 code unit is at most 3 UTF-8 bytes.
  if (data.length * 3 <= MAX_AGENT_FRAME_BYTES) return false
  return data.length > MAX_AGENT_FRAME_BYTES || Buffer.byteLength(data, 'utf8') > MAX_AGENT_FRAME_BYTES
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export function readAgentFrame(data: unknown): AgentFrame {
  if (typeof data !== 'string') {
    // Twilio's protocol is text frames only.
    const size = data instanceof ArrayBuffer || ArrayBuffer.isView(data) ? data.byteLength : 0
    return { kind: 'drop', reason: size > MAX_AGENT_FRAME_BYTES ? 'too_large' : 'not_json' }
  }
  if (overFrameLimit(data)) return { kind: 'drop', reason: 'too_large' }
  let frame: unknown
  try {
    frame = JSON.parse(data)
  } catch {
    return { kind: 'drop', reason: 'not_json' }
  }
  if (!isRecord(frame) || typeof frame.event !== 'string') return { kind: 'drop', reason: 'unknown_event' }
  switch (frame.event) {
    case 'media': {
      const media = frame.media
      const payload = isRecord(media) ? media.payload : undefined
      const bytes = typeof payload === 'string' ? base64Bytes(payload) : -1
      if (bytes <= 0) return { kind: 'drop', reason: 'bad_media' }
      return { kind: 'media', raw: data, payload: payload as string, audioMs: bytes / MULAW_BYTES_PER_MS }
    }
    case 'mark':
      return isRecord(frame.mark) && typeof frame.mark.name === 'string' ? { kind: 'mark', raw: data, name: frame.mark.name } : { kind: 'drop', reason: 'malformed_frame' }
    case 'clear':
      return { kind: 'clear', raw: data }
    default: {
      if (!frame.event.startsWith('dialer.')) return { kind: 'drop', reason: 'unknown_event' }
      const read = readControl(frame)
      return read.ok ? { kind: 'control', control: read.control } : { kind: 'drop', reason: read.reason }
    }
  }
}
