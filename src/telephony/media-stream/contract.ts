import type { Outcome } from '../../domain/outcomes'
import type { AiUsage } from '../call-values'

/**
 * The AI seat (docs/agents.md): a person who answers an AI-seated campaign's call is streamed
 * to the campaign's agent. The relay (relay.ts) speaks Twilio's Media Streams protocol to the
 * agent and the carrier's through its dialect (dialect.ts); a carrier that seats calls implements
 * SeatHost and hands each incoming stream socket to a relay built with its dialect.
 */

/**
 * The agent a seat connects to, fixed for the call when its stream is admitted: a socket speaking
 * Twilio's Media Streams (`stream`), or the service's own agent for OpenAI's Realtime API
 * (`openai_realtime`, src/telephony/realtime/: it speaks the same protocol to the relay).
 */
export type SeatAgent = StreamSeatAgent | RealtimeSeatAgent

export interface StreamSeatAgent {
  kind: 'stream'
  /** wss:// (ws:// to loopback). */
  url: string
  /** Sent in `start.customParameters` with the dialer_* names and lead_name, campaign_name. */
  parameters: Record<string, string>
  /** Real-time ms from the carrier's `start` within which the agent must send `media`. */
  firstAudioMs: number
}

export interface RealtimeSeatAgent {
  kind: 'openai_realtime'
  /** The full Realtime endpoint (the model is added as ?model=). */
  baseUrl: string
  model: string
  voice: string
  /** Rendered for this call. */
  instructions: string
  /** Opened from the campaign's sealed key for this stream only; never logged or stored in the clear. */
  apiKey: string
  firstAudioMs: number
}

/** What a built-in agent tells the seat besides the protocol (the relay passes it to the host). */
export interface AgentHooks {
  /** A response's usage (response.done), to be added to the call's. */
  usage(usage: AiUsage): void
}

/** A stream the host let in: whose call it is and what the agent is told. */
export interface SeatTicket {
  callId: string
  orgId: string
  agent: SeatAgent
  /**
   * Added to the carrier's `start.customParameters` for the agent (the stream token is never
   * among them): the campaign's parameters, dialer_call_id, dialer_lead_id, lead_name, campaign_name.
   */
  customParameters: Record<string, string>
}

/** A control message the agent sent (or the lead's 9), parsed and checked by the relay. */
export type SeatControl =
  | { event: 'dialer.interested'; excerpt: string; confidence: number; summary: string }
  /** `at`: unix ms the agent asked for (the calling rules may move it later). */
  | { event: 'dialer.callback'; at: number }
  /** `via`: the agent's message, or the lead pressed 9 (47 CFR 64.1200(b)(3)). */
  | { event: 'dialer.opt_out'; via: 'agent' | 'dtmf' }
  | { event: 'dialer.end'; outcome: Outcome; note: string | null }
  | { event: 'dialer.transcript'; speaker: 'ai' | 'lead'; text: string }

export type SeatControlEvent = SeatControl['event']

/** Why the service takes a call back from its agent (the lead hears a message; a callback is booked 2 h later). */
export type SeatFailure = 'unreachable' | 'silent' | 'dropped' | 'restart'

/** What the host did with a control message. */
export interface ControlResult {
  /** False: a repeat or too late (the call has left the seat): nothing changed. */
  applied: boolean
  /** The call leaves the seat: the relay ends the stream (after what the agent already sent has played). */
  endsStream: boolean
}

/**
 * A carrier's side of the seat. Each method runs its change in one transaction; the relay calls
 * them in the order things happened on the sockets.
 */
export interface SeatHost {
  /**
   * A stream's `start`: `token` is the `<Parameter>` the carrier's TwiML carried. A ticket only
   * for a valid, unexpired token of a live, seated call of that organization whose stream has not
   * started before (the stream is marked started); null: the relay closes the socket at once and
   * nothing changes.
   */
  admit(stream: { token: string; callSid: string; streamSid: string }): SeatTicket | null
  /** The agent's first `media` frame, `ms` after `start` (real time). */
  firstAudio(callId: string, ms: number): void
  control(callId: string, control: SeatControl): ControlResult
  /** The agent failed the call: the host takes it back (message, hang-up, callback in 2 h). */
  failed(callId: string, failure: SeatFailure): void
  /** The carrier's socket closed (the lead hung up, or the stream ended after a decision). */
  closed(callId: string): void
  /** A built-in agent's usage for one response: added to the call's (calls.ai_usage). */
  usage?(callId: string, usage: AiUsage): void
}

/** One side of a relayed stream as the relay sees it (a Bun ServerWebSocket or WebSocket fits). */
export interface StreamSocket {
  send(data: string): void
  close(code?: number, reason?: string): void
}

/** What the relay counts for GET /metrics (src/http/metrics.ts). */
export interface SeatMetrics {
  /** A frame dropped: not_json, too_large, bad_media, unknown_event, malformed_control, unknown_outcome, malformed_frame, ahead_of_time, carrier_not_json, carrier_too_large, carrier_unknown_event, carrier_other_track, agent_not_open; or a stream refused: refused_stream, no_start, carrier_media_format. */
  dropped(reason: string): void
  /** A control message applied (or ignored as a repeat), by event. */
  control(event: SeatControlEvent, applied: boolean): void
  /** A call taken back from its agent, by why. */
  failed(failure: SeatFailure): void
  /** Seats relaying right now. */
  open(delta: 1 | -1): void
}

/** Real-time clock and timers (never the service's scheduler: a fake service clock must not stretch a seat's deadlines). */
export interface RelayTimers {
  now(): number
  set(run: () => void, ms: number): unknown
  clear(handle: unknown): void
}

/** The largest agent frame accepted (bigger ones are dropped and counted). */
export const MAX_AGENT_FRAME_BYTES = 64 * 1024
/** Agent audio further ahead of real time than this is dropped, never buffered without bound. */
export const MAX_AHEAD_MS = 10_000
/** At most this many parameters on a campaign's agent (and their names may not start with dialer_). */
export const MAX_AGENT_PARAMETERS = 20

/** A carrier's stream socket as the relay keeps it: the route feeds it what the socket says. */
export interface SeatSession {
  /** A text frame from the carrier (Twilio: connected, start, media, dtmf, mark, stop). */
  message(data: string): void
  /** The carrier's socket closed. */
  closed(): void
}

/** The relay (relay.ts): one per carrier that seats calls, built with its host. */
export interface SeatRelay {
  /** A carrier's stream socket opened from address `from` (nothing is admitted before its `start`). */
  open(carrier: StreamSocket, from?: string): SeatSession
  /** The call is over for the carrier (hung up from our side): its seat, if any, closes both sockets and applies nothing more. */
  end(callId: string): void
  /** Seats relaying now. */
  readonly size: number
  /** The service is stopping: every socket closes, nothing more is applied (the next boot takes the calls back). */
  stop(): void
}
