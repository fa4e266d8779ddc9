import { overFrameLimit } from './agent-frames'
import { STREAM_TOKEN_PARAMETER } from './stream-token'

/**
 * What the carrier's frame is to the relay (Twilio's messages to a server,
 * twilio.com/docs/voice/media-streams/websocket-messages): `connected`, `start`, `media`,
 * `dtmf`, `mark`, `stop`. Only `start` (its token and parameters) and `dtmf` / `mark` (the
 * digit, the name) are looked into; the rest is passed on as sent.
 */
export type CarrierFrame =
  | { kind: 'connected'; raw: string }
  | { kind: 'start'; start: StreamStart }
  | { kind: 'media'; raw: string; payload: string }
  | { kind: 'dtmf'; raw: string; digit: string }
  | { kind: 'mark'; raw: string; name: string }
  | { kind: 'stop'; raw: string }
  | { kind: 'other'; raw: string }
  | { kind: 'drop'; reason: CarrierDropReason }
  /** A `start` the relay cannot serve (a dialect's: audio the agent could not hear): the stream closes. */
  | { kind: 'refused'; reason: 'carrier_media_format' }

export type CarrierDropReason = 'carrier_not_json' | 'carrier_too_large' | 'carrier_unknown_event' | 'carrier_other_track'

export interface StreamStart {
  token: string
  callSid: string
  streamSid: string
  /** The whole parsed message, to be sent on with its parameters changed. */
  message: Record<string, unknown>
  /** The carrier's customParameters without the stream token. */
  parameters: Record<string, string>
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const text = (v: unknown): string => (typeof v === 'string' ? v : '')

export function readCarrierFrame(data: string): CarrierFrame {
  if (overFrameLimit(data)) return { kind: 'drop', reason: 'carrier_too_large' }
  let frame: unknown
  try {
    frame = JSON.parse(data)
  } catch {
    return { kind: 'drop', reason: 'carrier_not_json' }
  }
  if (!isRecord(frame)) return { kind: 'drop', reason: 'carrier_not_json' }
  switch (frame.event) {
    case 'media':
      return { kind: 'media', raw: data, payload: isRecord(frame.media) ? text(frame.media.payload) : '' }
    case 'connected':
      return { kind: 'connected', raw: data }
    case 'start': {
      const start = isRecord(frame.start) ? frame.start : {}
      const custom = isRecord(start.customParameters) ? start.customParameters : {}
      const parameters: Record<string, string> = {}
      for (const [name, value] of Object.entries(custom)) if (name !== STREAM_TOKEN_PARAMETER && typeof value === 'string') parameters[name] = value
      return {
        kind: 'start',
        start: {
          token: text(custom[STREAM_TOKEN_PARAMETER]),
          callSid: text(start.callSid),
          streamSid: text(frame.streamSid) || text(start.streamSid),
          message: frame,
          parameters,
        },
      }
    }
    case 'dtmf':
      return { kind: 'dtmf', raw: data, digit: isRecord(frame.dtmf) ? text(frame.dtmf.digit) : '' }
    case 'mark':
      return { kind: 'mark', raw: data, name: isRecord(frame.mark) ? text(frame.mark.name) : '' }
    case 'stop':
      return { kind: 'stop', raw: data }
    default:
      return { kind: 'other', raw: data }
  }
}

/** The `start` the agent gets: the carrier's, its parameters without the token plus the ticket's. */
export function agentStart(start: StreamStart, added: Record<string, string>): string {
  const inner = isRecord(start.message.start) ? start.message.start : {}
  return JSON.stringify({ ...start.message, start: { ...inner, customParameters: { ...start.parameters, ...added } } })
}
