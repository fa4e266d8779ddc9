import { readAgentFrame, type AgentFrame } from './agent-frames'
import { AudioAccount } from './audio-account'
import { agentStart, type CarrierFrame, type StreamStart } from './carrier-frames'
import type { AgentHooks, RelayTimers, SeatAgent, SeatControl, SeatFailure, SeatHost, SeatMetrics, SeatSession, SeatTicket, StreamSocket } from './contract'
import type { CarrierReader, StreamDialect } from './dialect'

/** The agent's side of a seat: Bun's WebSocket client fits (tests pass an in-memory one). */
export interface AgentSocket {
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((event: unknown) => void) | null
  onmessage: ((event: { data: unknown }) => void) | null
  onclose: ((event: unknown) => void) | null
  onerror: ((event: unknown) => void) | null
}

/**
 * An agent inside the service (the built-in Realtime agent): after its socket opens, frames pass
 * as the values the relay reads both ways instead of text parsed twice (bench:realtime).
 */
export interface InProcessAgentSocket extends AgentSocket {
  /** A carrier frame the relay has read (media, dtmf, mark, stop); frames held before the open still come by `send`. */
  receive(frame: CarrierFrame): void
  /** Set by the relay: the agent's frames, each what `readAgentFrame` would make of its text. */
  onframe: ((frame: AgentFrame) => void) | null
}

export type { RelayTimers } from './contract'

const inProcess = (agent: AgentSocket): agent is InProcessAgentSocket => 'receive' in agent && 'onframe' in agent

/** A stream that sends no valid `start` within this is closed. */
export const START_WITHIN_MS = 5_000
/** After a decision: the audio still queued plays, plus this for Twilio's `mark` echo ... */
export const END_MARK_GRACE_MS = 1_000
/** ... and never longer than this. */
export const END_MARK_MAX_MS = 11_000
/** The mark the relay sends after a decision; Twilio echoes it when the agent's audio before it has played. */
export const END_MARK = 'dialer-end'
/** Carrier frames held while the agent's socket opens (first_audio_ms of 20 ms frames fits many times over). */
export const MAX_HELD_FRAMES = 1_000

export interface SessionParts {
  host: SeatHost
  metrics: SeatMetrics | undefined
  connectAgent: (agent: SeatAgent, hooks: AgentHooks) => AgentSocket
  timers: RelayTimers
  /** The carrier's stream protocol (the agent always sees Twilio's). */
  dialect: StreamDialect
  /** Whether the relay has room for another seat (when full a stream is refused before the host reads its token). */
  room(): boolean
  /** The host admitted the stream: the relay books its seat. */
  seat(session: Session, callId: string): void
  /** The session ended (waiting or seated): the relay forgets it. */
  gone(session: Session): void
}

type Stage = 'waiting' | 'seated' | 'ending' | 'closed'

/** One carrier stream socket and, once admitted, its agent's socket. */
export class Session implements SeatSession {
  private stage: Stage = 'waiting'
  private ticket: SeatTicket | null = null
  private streamSid = ''
  private connectedFrame: string | null = null
  private agent: AgentSocket | null = null
  private inProcessAgent: InProcessAgentSocket | null = null
  private agentOpen = false
  private held: string[] = []
  private startedAt = 0
  private heardMedia = false
  private stopped = false
  private carrierClosed = false
  private timer: unknown = null
  private readonly audio = new AudioAccount()
  private readonly reader: CarrierReader

  constructor(private readonly carrier: StreamSocket, private readonly parts: SessionParts) {
    this.reader = parts.dialect.reader((frame) => this.onFrame(frame), parts.timers)
    this.timer = parts.timers.set(() => {
      if (this.stage !== 'waiting') return
      parts.metrics?.dropped('no_start')
      this.closeCarrier()
    }, START_WITHIN_MS)
  }

  get callId(): string | null {
    return this.ticket?.callId ?? null
  }

  get seated(): boolean {
    return this.ticket !== null
  }

  message(data: string): void {
    if (this.stage !== 'closed') this.reader.read(data)
  }

  private onFrame(frame: CarrierFrame): void {
    if (this.stage === 'closed') return
    if (frame.kind === 'drop') return this.parts.metrics?.dropped(frame.reason)
    if (this.stage === 'waiting') {
      if (frame.kind === 'connected') this.connectedFrame = frame.raw
      else if (frame.kind === 'start') this.admit(frame.start)
      else if (frame.kind === 'refused') this.refuse(frame.reason)
      return
    }
    switch (frame.kind) {
      case 'connected':
      case 'start':
      case 'refused':
        return
      case 'dtmf':
        // The lead's 9 opts out (47 CFR 64.1200(b)(3)) and is not passed on.
        if (frame.digit === '9') return this.optOutByDigit()
        return this.toAgent(frame)
      case 'mark':
        if (frame.name === END_MARK && this.stage === 'ending') return this.closeCarrier()
        return this.toAgent(frame)
      case 'stop':
        this.stopped = true
        return this.toAgent(frame)
      default:
        return this.toAgent(frame)
    }
  }

  closed(): void {
    if (this.carrierClosed) return
    this.carrierClosed = true
    this.carrierGone(true)
  }

  /** Both sockets close; the host hears nothing more (the call ended on our side, or the service stops). */
  end(): void {
    if (this.stage === 'closed') return
    this.carrierClosed = true
    this.carrierGone(false)
    try {
      this.carrier.close(1000)
    } catch {}
  }

  private refuse(reason: string): void {
    this.parts.timers.clear(this.timer)
    this.parts.metrics?.dropped(reason)
    this.closeCarrier()
  }

  private admit(start: StreamStart): void {
    this.parts.timers.clear(this.timer)
    const ticket = start.token === '' || !this.parts.room()
      ? null
      : this.parts.host.admit({ token: start.token, callSid: start.callSid, streamSid: start.streamSid })
    if (!ticket) return this.refuse('refused_stream')
    this.ticket = ticket
    this.parts.seat(this, ticket.callId)
    this.stage = 'seated'
    this.streamSid = start.streamSid
    this.startedAt = this.parts.timers.now()
    this.parts.metrics?.open(1)
    if (this.connectedFrame !== null) this.held.push(this.connectedFrame)
    this.held.push(agentStart(start, ticket.customParameters))
    // No media within first_audio_ms: silent, or unreachable if the socket never opened.
    this.timer = this.parts.timers.set(() => {
      if (!this.heardMedia) this.fail(this.agentOpen ? 'silent' : 'unreachable')
    }, ticket.agent.firstAudioMs)
    let agent: AgentSocket
    try {
      const callId = ticket.callId
      agent = this.parts.connectAgent(ticket.agent, { usage: (usage) => this.parts.host.usage?.(callId, usage) })
    } catch {
      return this.fail('unreachable')
    }
    this.agent = agent
    agent.onopen = () => {
      if (this.stage === 'closed') return
      this.agentOpen = true
      for (const frame of this.held) agent.send(frame)
      this.held = []
    }
    agent.onmessage = (event) => {
      if (this.stage === 'seated') this.fromAgent(readAgentFrame(event.data))
    }
    if (inProcess(agent)) {
      this.inProcessAgent = agent
      agent.onframe = (frame) => this.fromAgent(frame)
    }
    agent.onerror = () => {
      if (!this.agentOpen) this.fail('unreachable')
    }
    agent.onclose = () => {
      // Closing after the lead's `stop`, or after a decision, is the agent's right.
      if (this.stage === 'seated' && !this.stopped) this.fail(this.agentOpen ? 'dropped' : 'unreachable')
    }
  }

  private toAgent(frame: CarrierFrame & { raw: string }): void {
    if (this.agentOpen) {
      if (this.inProcessAgent) return this.inProcessAgent.receive(frame)
      return void this.agent!.send(frame.raw)
    }
    if (this.held.length >= MAX_HELD_FRAMES) return this.parts.metrics?.dropped('agent_not_open')
    this.held.push(frame.raw)
  }

  private toCarrier(raw: string): void {
    try {
      this.carrier.send(raw)
    } catch {}
  }

  private fromAgent(frame: AgentFrame): void {
    // After a decision what the agent sends is not played (its goodbye came before the decision).
    if (this.stage !== 'seated') return
    switch (frame.kind) {
      case 'media': {
        const now = this.parts.timers.now()
        if (!this.audio.take(frame.audioMs, now)) return this.parts.metrics?.dropped('ahead_of_time')
        this.toCarrier(this.parts.dialect.toCarrier(frame))
        if (!this.heardMedia) {
          this.heardMedia = true
          this.parts.host.firstAudio(this.ticket!.callId, Math.round(now - this.startedAt))
        }
        return
      }
      case 'mark':
        return this.toCarrier(this.parts.dialect.toCarrier(frame))
      case 'clear':
        this.audio.reset(this.parts.timers.now())
        return this.toCarrier(this.parts.dialect.toCarrier(frame))
      case 'control':
        return this.applyControl(frame.control)
      case 'drop':
        return this.parts.metrics?.dropped(frame.reason)
    }
  }

  private applyControl(control: SeatControl): void {
    const result = this.parts.host.control(this.ticket!.callId, control)
    this.parts.metrics?.control(control.event, result.applied)
    if (!result.endsStream || this.stage !== 'seated') return
    // A decision: what the agent already sent plays first, then the stream closes.
    this.stage = 'ending'
    this.parts.timers.clear(this.timer)
    this.toCarrier(this.parts.dialect.mark(this.streamSid, END_MARK))
    const wait = Math.min(this.audio.queuedMs(this.parts.timers.now()) + END_MARK_GRACE_MS, END_MARK_MAX_MS)
    this.timer = this.parts.timers.set(() => this.closeCarrier(), wait)
  }

  private optOutByDigit(): void {
    const result = this.parts.host.control(this.ticket!.callId, { event: 'dialer.opt_out', via: 'dtmf' })
    this.parts.metrics?.control('dialer.opt_out', result.applied)
    if (result.endsStream) this.cutOff()
  }

  private fail(failure: SeatFailure): void {
    if (this.stage !== 'seated') return
    this.parts.host.failed(this.ticket!.callId, failure)
    this.parts.metrics?.failed(failure)
    this.cutOff()
  }

  /** Failures and the lead's 9: Twilio's buffer is emptied and the stream closes at once. */
  private cutOff(): void {
    this.toCarrier(this.parts.dialect.clear(this.streamSid))
    this.closeCarrier()
  }

  /** The relay closes the carrier's socket: the host hears `closed` now, the agent's socket closes. */
  private closeCarrier(): void {
    if (this.carrierClosed) return
    this.carrierClosed = true
    try {
      this.carrier.close(1000)
    } catch {}
    this.carrierGone(true)
  }

  private carrierGone(tellHost: boolean): void {
    const wasSeated = this.stage === 'seated' || this.stage === 'ending'
    this.stage = 'closed'
    this.parts.timers.clear(this.timer)
    this.reader.close()
    this.held = []
    if (this.agent) {
      const agent = this.agent
      agent.onopen = agent.onmessage = agent.onerror = agent.onclose = null
      if (this.inProcessAgent) this.inProcessAgent.onframe = null
      try {
        agent.close(1000)
      } catch {}
    }
    this.parts.gone(this)
    if (wasSeated) {
      this.parts.metrics?.open(-1)
      if (tellHost) this.parts.host.closed(this.ticket!.callId)
    }
  }
}
