import type { AgentHooks, SeatAgent, SeatHost, SeatMetrics, SeatRelay, SeatSession, StreamSocket } from './contract'
import { twilioDialect, type StreamDialect } from './dialect'
import { Session, type AgentSocket, type RelayTimers } from './seat-session'

export type { AgentSocket, RelayTimers } from './seat-session'

/** Sockets open and not yet admitted (no valid `start` yet): beyond this a new one is closed at once. */
export const MAX_WAITING_STREAMS = 500
/** Sockets one address may hold before their `start` (Twilio's `start` follows its `connected` at once): one client cannot fill the waiting room. */
export const MAX_WAITING_PER_ADDRESS = 50
/** Seats relaying at once: beyond this a stream is refused before its token is read (the call is taken back at `<Connect action>`). */
export const MAX_SEATS = 1_000

export interface SeatRelayDeps {
  host: SeatHost
  metrics?: SeatMetrics
  /** Opens the agent's socket (default: Bun's WebSocket client for `stream`, the Realtime agent for `openai_realtime`). */
  connectAgent?: (agent: SeatAgent, hooks: AgentHooks) => AgentSocket
  /** Real-time timers (default: performance.now and setTimeout); tests pass their own. */
  timers?: RelayTimers
  /** The carrier's stream protocol (default Twilio's: frames pass both ways as sent). */
  dialect?: StreamDialect
}

const realTimers: RelayTimers = {
  now: () => performance.now(),
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

/** A `stream` agent is a socket at its URL; the built-in Realtime agent comes with the relay's deps (realtime/). */
const bunAgent = (agent: SeatAgent): AgentSocket => {
  if (agent.kind !== 'stream') throw new Error(`no agent of kind ${agent.kind} is wired`)
  return new WebSocket(agent.url) as unknown as AgentSocket
}

/**
 * The relay between carriers' stream sockets and the campaigns' agents (docs/telephony.md "The
 * AI seat: the relay"). It knows no carrier: the host admits streams and applies what happens,
 * the dialect reads and writes the carrier's frames (the agent always sees Twilio's).
 */
export function createSeatRelay(deps: SeatRelayDeps): SeatRelay {
  const waiting = new Set<Session>()
  // Sockets waiting for `start`, by address.
  const waitingFrom = new Map<string, number>()
  const from = new WeakMap<Session, string>()
  const leaveWaiting = (session: Session): void => {
    if (!waiting.delete(session)) return
    const address = from.get(session)
    if (address === undefined) return
    const left = (waitingFrom.get(address) ?? 1) - 1
    if (left > 0) waitingFrom.set(address, left)
    else waitingFrom.delete(address)
  }
  const seats = new Map<string, Session>()
  const parts = {
    host: deps.host,
    metrics: deps.metrics,
    connectAgent: deps.connectAgent ?? bunAgent,
    timers: deps.timers ?? realTimers,
    dialect: deps.dialect ?? twilioDialect,
    room: () => seats.size < MAX_SEATS,
    seat(session: Session, callId: string): void {
      leaveWaiting(session)
      // The host admits a call's stream once, so a call has one seat.
      seats.set(callId, session)
    },
    gone(session: Session): void {
      leaveWaiting(session)
      const callId = session.callId
      if (callId !== null && seats.get(callId) === session) seats.delete(callId)
    },
  }
  const refused: SeatSession = { message() {}, closed() {} }

  return {
    open(carrier: StreamSocket, address = 'unknown'): SeatSession {
      if (waiting.size >= MAX_WAITING_STREAMS || (waitingFrom.get(address) ?? 0) >= MAX_WAITING_PER_ADDRESS) {
        deps.metrics?.dropped('refused_stream')
        carrier.close(1013, 'busy')
        return refused
      }
      const session = new Session(carrier, parts)
      waiting.add(session)
      from.set(session, address)
      waitingFrom.set(address, (waitingFrom.get(address) ?? 0) + 1)
      return session
    },
    end(callId: string): void {
      seats.get(callId)?.end()
    },
    get size() {
      return seats.size
    },
    stop(): void {
      for (const session of [...waiting, ...seats.values()]) session.end()
    },
  }
}
