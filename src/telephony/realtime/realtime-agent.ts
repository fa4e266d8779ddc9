import { logger } from '../../log'
import type { AgentHooks, RealtimeSeatAgent } from '../media-stream/contract'
import { MAX_CONTROL_TEXT } from '../media-stream/control-messages'
import type { AgentFrame } from '../media-stream/agent-frames'
import type { CarrierFrame } from '../media-stream/carrier-frames'
import type { AgentSocket, InProcessAgentSocket, RelayTimers } from '../media-stream/seat-session'
import { readFunctionCall } from './function-calls'
import { failureOf, isRecord, readUsage, redact, text } from './model-events'
import { Playback } from './playback'
import { realtimeUrl, sessionUpdate } from './session-config'

/**
 * The service's own agent for OpenAI's Realtime API (docs/agents.md "The built-in agent"). To the
 * relay it is an agent socket speaking Twilio's Media Streams; inside it holds a Realtime
 * WebSocket (GA interface: https://platform.openai.com/docs/api-reference/realtime-client-events,
 * https://platform.openai.com/docs/api-reference/realtime-server-events,
 * https://platform.openai.com/docs/guides/realtime-conversations). Its function calls become the
 * seat's control messages, so the relay and the host treat it as any other agent.
 */

/** The client the agent talks to OpenAI through: a WebSocket-like socket, as the relay's agent side is (Bun's WebSocket fits). */
export type RealtimeWire = AgentSocket

export interface RealtimeAgentDeps {
  connect?(url: string, headers: Record<string, string>): RealtimeWire
  timers?: RelayTimers
  /** Errors the call survives, and why a call was dropped (never with the key); default: the service log. */
  log?(message: string): void
}

/** After a function call the model's goodbye is awaited this long before the decision goes to the seat anyway. */
export const GOODBYE_WAIT_MS = 10_000
/** Client events queued while the Realtime socket opens, at most. */
const MAX_OUTBOX = 1_000

const realTimers: RelayTimers = {
  now: () => performance.now(),
  set: (run, ms) => setTimeout(run, ms),
  clear: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

// Bun's WebSocket client takes headers (the Bearer key) in its options.
const bunConnect = (url: string, headers: Record<string, string>): RealtimeWire =>
  new (WebSocket as unknown as new (url: string, options: { headers: Record<string, string> }) => RealtimeWire)(url, { headers })

export function openRealtimeAgent(agent: RealtimeSeatAgent, hooks: AgentHooks, deps: RealtimeAgentDeps = {}): InProcessAgentSocket {
  return new RealtimeAgent(agent, hooks, deps)
}

class RealtimeAgent implements InProcessAgentSocket {
  onframe: ((frame: AgentFrame) => void) | null = null
  onopen: ((event: unknown) => void) | null = null
  onmessage: ((event: { data: unknown }) => void) | null = null
  onclose: ((event: unknown) => void) | null = null
  onerror: ((event: unknown) => void) | null = null

  private readonly wire: RealtimeWire
  private readonly timers: RelayTimers
  private readonly playback: Playback
  private readonly log: (message: string) => void
  private wireOpen = false
  private closed = false
  private outbox: string[] = []
  private greeted = false
  private functionCalls = 0
  /** Function outputs sent during the current response: the model is asked to go on when it ends. */
  private answered = false
  /** Control frames held until the model's goodbye has been sent (after a decision the relay plays nothing new). */
  private decisions: string[] = []
  private goodbyeTimer: unknown = null

  constructor(private readonly agent: RealtimeSeatAgent, private readonly hooks: AgentHooks, deps: RealtimeAgentDeps) {
    this.timers = deps.timers ?? realTimers
    this.log = deps.log ?? ((message) => logger.warn('realtime_agent', { detail: message }))
    this.playback = new Playback({
      carrier: (frame) => this.emitFrame(frame),
      transcript: (line) => this.emit(JSON.stringify({ event: 'dialer.transcript', speaker: 'ai', text: line })),
      truncate: (itemId, audioEndMs) => this.toModel({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: audioEndMs }),
    }, this.timers)
    this.wire = (deps.connect ?? bunConnect)(realtimeUrl(agent), { Authorization: `Bearer ${agent.apiKey}` })
    this.wire.onopen = () => this.wireOpened()
    this.wire.onmessage = (event) => this.fromModel(event.data)
    this.wire.onerror = () => this.say('the Realtime socket failed')
    this.wire.onclose = (event) => this.drop(`the Realtime socket closed${closeCode(event)}`)
  }

  /** A carrier frame the relay has read: the steady-state path (no second parse; `start` comes held, by `send`). */
  receive(frame: CarrierFrame): void {
    if (this.closed) return
    switch (frame.kind) {
      case 'media':
        if (frame.payload !== '') this.toModel({ type: 'input_audio_buffer.append', audio: frame.payload })
        return
      case 'mark':
        return this.playback.mark(frame.name)
      case 'stop':
        return this.playback.stopped()
    }
  }

  /** A Media Streams frame as text from the relay (Twilio's connected, start, media, dtmf, mark, stop). */
  send(data: string): void {
    if (this.closed) return
    let frame: unknown
    try {
      frame = JSON.parse(data)
    } catch {
      return
    }
    if (!isRecord(frame)) return
    switch (frame.event) {
      case 'start': {
        const start = isRecord(frame.start) ? frame.start : {}
        this.playback.streamSid = text(start.streamSid) || text(frame.streamSid)
        // The disclosure played before the stream started: the model speaks first.
        if (!this.greeted) {
          this.greeted = true
          this.toModel({ type: 'response.create' })
        }
        return
      }
      case 'media': {
        const payload = isRecord(frame.media) ? text(frame.media.payload) : ''
        if (payload !== '') this.toModel({ type: 'input_audio_buffer.append', audio: payload })
        return
      }
      case 'mark':
        if (isRecord(frame.mark)) this.playback.mark(text(frame.mark.name))
        return
      case 'stop':
        return this.playback.stopped()
    }
  }

  close(code = 1000, reason?: string): void {
    if (this.closed) return
    this.shut()
    try {
      this.wire.close(code, reason)
    } catch {}
    queueMicrotask(() => this.onclose?.({ code, reason }))
  }

  private wireOpened(): void {
    if (this.closed) return
    this.wireOpen = true
    this.wire.send(JSON.stringify(sessionUpdate(this.agent)))
    for (const event of this.outbox) this.wire.send(event)
    this.outbox = []
    queueMicrotask(() => {
      if (!this.closed) this.onopen?.({})
    })
  }

  private fromModel(data: unknown): void {
    if (this.closed || typeof data !== 'string') return
    let event: unknown
    try {
      event = JSON.parse(data)
    } catch {
      return
    }
    if (!isRecord(event)) return
    const itemId = text(event.item_id)
    switch (event.type) {
      case 'response.output_audio.delta':
        return this.playback.audio(itemId, text(event.delta))
      case 'response.output_audio.done':
        return this.playback.audioDone(itemId)
      case 'response.output_audio_transcript.delta':
        return this.playback.transcriptDelta(itemId, text(event.delta))
      case 'response.output_audio_transcript.done':
        return this.playback.transcriptDone(itemId, text(event.transcript))
      case 'response.function_call_arguments.done':
        return this.functionCall(text(event.call_id), text(event.name), text(event.arguments))
      case 'response.done':
        return this.responseDone(isRecord(event.response) ? event.response : {})
      case 'input_audio_buffer.speech_started':
        this.playback.bargeIn()
        return
      case 'conversation.item.input_audio_transcription.completed': {
        const line = text(event.transcript).trim().slice(0, MAX_CONTROL_TEXT)
        if (line !== '') this.emit(JSON.stringify({ event: 'dialer.transcript', speaker: 'lead', text: line }))
        return
      }
      case 'error':
        return this.modelError(isRecord(event.error) ? event.error : {})
    }
  }

  private functionCall(callId: string, name: string, args: string): void {
    const reading = readFunctionCall(name, args, this.functionCalls)
    this.functionCalls++
    if (reading.ok) {
      this.decisions.push(reading.frame)
      if (this.goodbyeTimer === null) this.goodbyeTimer = this.timers.set(() => this.decide(), GOODBYE_WAIT_MS)
    } else {
      this.say(`function call ${name.slice(0, 40)} refused`)
    }
    this.toModel({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output: reading.output } })
    this.answered = true
  }

  private responseDone(response: Record<string, unknown>): void {
    const usage = readUsage(response.usage)
    if (usage) this.hooks.usage(usage)
    if (response.status === 'failed') return this.drop(`a response failed (${failureOf(response)})`)
    if (this.answered) {
      // A response is asked for only once the one with the calls is over (one at a time).
      this.answered = false
      return this.toModel({ type: 'response.create' })
    }
    if (this.decisions.length > 0) this.decide()
  }

  private modelError(error: Record<string, unknown>): void {
    const what = [text(error.type), text(error.code)].filter((s) => s !== '').join('/') || 'unknown'
    if (error.type === 'server_error') return this.drop(`server error (${what})`)
    this.say(`error ${what}: ${text(error.message).slice(0, 200)}`)
  }

  /** The decisions go to the seat after what the model said (its goodbye). */
  private decide(): void {
    this.timers.clear(this.goodbyeTimer)
    this.goodbyeTimer = null
    if (this.decisions.length === 0) return
    this.playback.flush()
    const decisions = this.decisions
    this.decisions = []
    for (const frame of decisions) this.emit(frame)
  }

  /** The call cannot go on with the model: decisions already made still count, then the socket closes as a drop. */
  private drop(why: string): void {
    if (this.closed) return
    this.decide()
    this.say(`the call is taken back: ${why}`)
    this.shut()
    try {
      this.wire.close(1000)
    } catch {}
    this.onclose?.({ code: 1011, reason: 'realtime agent dropped' })
  }

  private shut(): void {
    this.closed = true
    this.timers.clear(this.goodbyeTimer)
    this.goodbyeTimer = null
    this.playback.dispose()
    this.outbox = []
    this.wire.onopen = this.wire.onmessage = this.wire.onerror = this.wire.onclose = null
  }

  private toModel(event: Record<string, unknown>): void {
    if (this.closed) return
    const data = JSON.stringify(event)
    if (this.wireOpen) return void this.wire.send(data)
    if (this.outbox.length < MAX_OUTBOX) this.outbox.push(data)
  }

  private emit(frame: string): void {
    if (!this.closed) this.onmessage?.({ data: frame })
  }

  /** Audio frames the agent built itself: handed over as read when the relay takes values, else as text. */
  private emitFrame(frame: AgentFrame & { raw: string }): void {
    if (this.closed) return
    if (this.onframe) this.onframe(frame)
    else this.onmessage?.({ data: frame.raw })
  }

  private say(message: string): void {
    this.log(redact(message, this.agent.apiKey))
  }
}

const closeCode = (event: unknown): string => (isRecord(event) && typeof event.code === 'number' ? ` (${event.code})` : '')
