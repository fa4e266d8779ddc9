import type { AgentFrame } from './agent-frames'
import { readCarrierFrame, type CarrierFrame } from './carrier-frames'
import type { RelayTimers } from './contract'

/**
 * A carrier's stream protocol as the relay meets it. The agent always speaks Twilio's Media
 * Streams protocol (docs/agents.md), whichever carrier the call is on: a dialect reads the
 * carrier's frames into the relay's `CarrierFrame`s, whose `raw` (and a `start`'s message) are
 * Twilio's shapes, and writes what the agent sends back in the carrier's shapes.
 */
export interface StreamDialect {
  readonly name: string
  /** A reader for one stream socket: `emit` gets its frames in the order the agent should see them. */
  reader(emit: (frame: CarrierFrame) => void, timers: RelayTimers): CarrierReader
  /** The carrier's text for the agent's `media`, `mark` or `clear`. */
  toCarrier(frame: CarrierBound): string
  /** The relay's own `mark` (after a decision) and `clear` (a cut-off) on stream `streamSid`. */
  mark(streamSid: string, name: string): string
  clear(streamSid: string): string
}

/** What the agent sends that goes on to the carrier. */
export type CarrierBound = Extract<AgentFrame, { kind: 'media' | 'mark' | 'clear' }>

export interface CarrierReader {
  /** A text frame from the carrier: none, one or more frames are emitted (a dialect may hold some to reorder them). */
  read(data: string): void
  /** The socket is gone: held frames are forgotten, timers cleared. */
  close(): void
}

/** Twilio's frames are the agent's protocol: read once, passed both ways as the very bytes sent. */
export const twilioDialect: StreamDialect = {
  name: 'twilio',
  reader: (emit) => ({ read: (data) => emit(readCarrierFrame(data)), close() {} }),
  toCarrier: (frame) => frame.raw,
  mark: (streamSid, name) => JSON.stringify({ event: 'mark', streamSid, mark: { name } }),
  clear: (streamSid) => JSON.stringify({ event: 'clear', streamSid }),
}
