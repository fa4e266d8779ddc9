import { BYTES_PER_MS, fromBase64, loudness, SPEECH_RMS } from './realtime-audio'
import { type RealtimeScript } from './realtime-scripts'
import { playTurn, type ResponseRecord } from './realtime-responses'

/**
 * One Realtime WebSocket session as OpenAI's GA reference describes it:
 * client events https://developers.openai.com/api/reference/resources/realtime/client-events,
 * server events https://developers.openai.com/api/reference/resources/realtime/server-events,
 * flow https://platform.openai.com/docs/guides/realtime-conversations. Every event either way is
 * kept; what a real server would refuse gets an `error` event (and is listed in `problems`).
 */

export interface ServerSocket {
  send(text: string): void
  close(code?: number, reason?: string): void
}

export interface SessionOptions {
  /** Ms of audio per output_audio.delta (default 100). */
  deltaMs: number
  /** Real ms to wait before a response's first event (default 0). */
  responseDelayMs: number
  /** Ms of audio sent per real ms (e.g. 2 = twice real time); 0 (default): a response's audio at once. */
  pace: number
}

// The session fields the GA session.update accepts (RealtimeSessionCreateRequest); anything else is an unknown parameter.
const SESSION_KEYS = new Set(['type', 'audio', 'include', 'instructions', 'max_output_tokens', 'model', 'output_modalities', 'prompt', 'tool_choice', 'tools', 'tracing', 'truncation'])
const FORMATS = new Set(['audio/pcm', 'audio/pcmu', 'audio/pcma'])

let counter = 0
export const newId = (prefix: string): string => `${prefix}_${(++counter).toString(36).padStart(6, '0')}${Math.random().toString(36).slice(2, 8)}`

export interface SpeechSegment { item_id: string; audio_start_ms: number; audio_end_ms: number | null; transcript: string | null }
export interface Truncation { item_id: string; content_index: number; audio_end_ms: number; itemAudioMs: number; transcript: string }
export interface FunctionOutput { call_id: string; name: string | null; output: string }

export class RealtimeSession {
  readonly id = newId('sess')
  /** Every client event, parsed (or `{ unparsed }`), in order. */
  readonly received: Record<string, unknown>[] = []
  /** Every server event, in order. */
  readonly sent: Record<string, unknown>[] = []
  /** The effective session configuration (session.updated's). */
  config: Record<string, any>
  /** Null until the first session.update picks it. */
  scriptName: string | null = null
  script: RealtimeScript | null = null
  turn = 0
  /** μ-law bytes appended (8 a ms). */
  appendedBytes = 0
  readonly speech: SpeechSegment[] = []
  readonly responses: ResponseRecord[] = []
  active: ResponseRecord | null = null
  readonly truncations: Truncation[] = []
  readonly functionOutputs: FunctionOutput[] = []
  /** Function calls the model made, by call_id. */
  readonly calls = new Map<string, { name: string; arguments: string; item_id: string }>()
  /** What a real server would refuse or the client got wrong (the error events' messages). */
  readonly problems: string[] = []
  closed: { by: 'client' | 'server'; code: number; reason: string } | null = null
  audioPhase = 0
  private speaking: { item_id: string; start: number; lastLoudEnd: number } | null = null

  constructor(
    readonly model: string,
    readonly authorized: boolean,
    private readonly socket: ServerSocket,
    private readonly scripts: Record<string, RealtimeScript>,
    readonly options: SessionOptions,
    private readonly pick: (instructions: string | undefined, model: string) => string,
  ) {
    this.config = {
      type: 'realtime', object: 'realtime.session', id: this.id, model, output_modalities: ['audio'], instructions: '',
      tools: [], tool_choice: 'auto', max_output_tokens: 'inf', tracing: null, truncation: 'auto', prompt: null, include: null,
      audio: {
        input: {
          format: { type: 'audio/pcm', rate: 24000 }, transcription: null, noise_reduction: null,
          turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500, idle_timeout_ms: null, create_response: true, interrupt_response: true },
        },
        output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'alloy', speed: 1 },
      },
    }
  }

  /** Ms of input audio appended so far. */
  get audioMs(): number { return this.appendedBytes / BYTES_PER_MS }

  /** Events of `type` sent by the client. */
  clientEvents(type: string): Record<string, any>[] { return this.received.filter((e) => e.type === type) }
  /** Events of `type` sent by the server. */
  serverEvents(type: string): Record<string, any>[] { return this.sent.filter((e) => e.type === type) }

  emit(event: Record<string, unknown>): void {
    if (this.closed) return
    const full = { event_id: newId('event'), ...event }
    this.sent.push(full)
    this.socket.send(JSON.stringify(full))
  }

  /** An `error` server event (the session stays open). */
  error(type: string, code: string | null, message: string, param: string | null = null, eventId: unknown = null): void {
    this.problems.push(message)
    this.emit({ type: 'error', error: { type, code, message, param, event_id: typeof eventId === 'string' ? eventId : null } })
  }

  close(code: number, reason: string): void {
    if (this.closed) return
    this.closed = { by: 'server', code, reason }
    this.socket.close(code, reason)
  }

  opened(): void {
    if (!this.authorized) {
      // A wrong key: an error event, then the socket closes with 3000 (seen from the real service:
      // github.com/twilio-samples/speech-assistant-openai-realtime-api-python/issues/4).
      this.error('invalid_request_error', 'invalid_api_key', 'Incorrect API key provided.')
      this.close(3000, 'invalid_request_error.invalid_api_key')
      return
    }
    this.emit({ type: 'session.created', session: this.config })
  }

  handle(text: string): void {
    let event: Record<string, any>
    try {
      event = JSON.parse(text)
      if (typeof event !== 'object' || event === null || Array.isArray(event)) throw new Error('not an object')
    } catch {
      this.received.push({ unparsed: text })
      return this.error('invalid_request_error', 'invalid_json', 'The event is not a JSON object.')
    }
    this.received.push(event)
    switch (event.type) {
      case 'session.update': return this.sessionUpdate(event)
      case 'input_audio_buffer.append': return this.append(event)
      case 'input_audio_buffer.commit': return this.commit(event)
      case 'input_audio_buffer.clear': return this.emit({ type: 'input_audio_buffer.cleared' })
      case 'conversation.item.create': return this.itemCreate(event)
      case 'conversation.item.truncate': return this.truncate(event)
      case 'response.create': return this.responseCreate(event)
      case 'response.cancel': return this.responseCancel(event)
      default: return this.error('invalid_request_error', 'invalid_value', `Invalid value: '${String(event.type)}'. Supported values are client events.`, 'type', event.event_id)
    }
  }

  private sessionUpdate(event: Record<string, any>): void {
    const session = event.session
    if (!session || typeof session !== 'object') return this.error('invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'session'.", 'session', event.event_id)
    if (session.type !== 'realtime') return this.error('invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'session.type'.", 'session.type', event.event_id)
    for (const key of Object.keys(session)) {
      if (!SESSION_KEYS.has(key)) return this.error('invalid_request_error', 'unknown_parameter', `Unknown parameter: 'session.${key}'.`, `session.${key}`, event.event_id)
    }
    for (const side of ['input', 'output'] as const) {
      const format = session.audio?.[side]?.format
      if (format !== undefined && !FORMATS.has(format?.type)) return this.error('invalid_request_error', 'invalid_value', `Invalid value for 'session.audio.${side}.format.type'.`, `session.audio.${side}.format.type`, event.event_id)
    }
    if (session.tools !== undefined) {
      const bad = Array.isArray(session.tools) ? session.tools.findIndex((t: any) => t?.type !== 'function' || typeof t?.name !== 'string' || !t.name) : 0
      if (bad >= 0) return this.error('invalid_request_error', 'invalid_value', `Invalid tool at 'session.tools[${bad}]': a function needs a type and a name.`, `session.tools[${bad}]`, event.event_id)
    }
    const voice = session.audio?.output?.voice
    if (voice !== undefined && voice !== this.config.audio.output.voice && this.responses.some((r) => r.audioMs > 0)) {
      return this.error('invalid_request_error', 'cannot_update_voice', 'Cannot update a conversation\'s voice if assistant audio is present.', 'session.audio.output.voice', event.event_id)
    }
    this.config = merge(this.config, session)
    if (this.scriptName === null) {
      this.scriptName = this.pick(session.instructions, this.model)
      this.script = this.scripts[this.scriptName] ?? { turns: [] }
    }
    this.emit({ type: 'session.updated', session: this.config })
  }

  private append(event: Record<string, any>): void {
    const bytes = fromBase64(event.audio)
    if (!bytes) return this.error('invalid_request_error', 'invalid_value', "Invalid 'audio'. Expected base64-encoded audio bytes.", 'audio', event.event_id)
    if (this.config.audio.input.format?.type !== 'audio/pcmu') this.problems.push('audio appended while the input format is not audio/pcmu')
    const turnDetection = this.config.audio.input.turn_detection
    // Server VAD emulated as a loudness gate on 20 ms pieces, in audio time (not wall time).
    for (let at = 0; at < bytes.length; at += 160) {
      const piece = bytes.subarray(at, Math.min(bytes.length, at + 160))
      const startMs = (this.appendedBytes + at) / BYTES_PER_MS
      const endMs = startMs + piece.length / BYTES_PER_MS
      if (turnDetection) this.vad(loudness(piece) >= SPEECH_RMS, startMs, endMs, turnDetection)
    }
    this.appendedBytes += bytes.length
  }

  private vad(loud: boolean, startMs: number, endMs: number, td: Record<string, any>): void {
    if (loud && !this.speaking) {
      const item_id = newId('item')
      const start = Math.max(0, Math.round(startMs - (td.prefix_padding_ms ?? 300)))
      this.speaking = { item_id, start, lastLoudEnd: endMs }
      this.speech.push({ item_id, audio_start_ms: start, audio_end_ms: null, transcript: null })
      this.emit({ type: 'input_audio_buffer.speech_started', audio_start_ms: start, item_id })
      if (this.active && td.interrupt_response !== false) this.active.cancel = 'turn_detected'
    } else if (loud && this.speaking) {
      this.speaking.lastLoudEnd = endMs
    } else if (this.speaking && endMs - this.speaking.lastLoudEnd >= (td.silence_duration_ms ?? 500)) {
      const { item_id, lastLoudEnd } = this.speaking
      this.speaking = null
      const audio_end_ms = Math.round(lastLoudEnd)
      this.emit({ type: 'input_audio_buffer.speech_stopped', audio_end_ms, item_id })
      this.userItem(item_id, audio_end_ms)
      if (td.create_response !== false) this.startResponse(null)
    }
  }

  /** The lead's speech becomes a user item, transcribed when transcription is on. */
  private userItem(item_id: string, audio_end_ms: number | null): void {
    const previous = this.sent.filter((e) => e.type === 'conversation.item.done').at(-1) as any
    this.emit({ type: 'input_audio_buffer.committed', previous_item_id: previous?.item?.id ?? null, item_id })
    const item = { id: item_id, object: 'realtime.item', type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_audio', transcript: null }] }
    this.emit({ type: 'conversation.item.added', previous_item_id: previous?.item?.id ?? null, item })
    this.emit({ type: 'conversation.item.done', previous_item_id: previous?.item?.id ?? null, item })
    const segment = this.speech.find((s) => s.item_id === item_id)
    const index = segment ? this.speech.indexOf(segment) : this.speech.length
    if (segment) segment.audio_end_ms = audio_end_ms
    if (this.config.audio.input.transcription) {
      const transcript = this.script?.leadSays?.[index] ?? `(the lead speaks ${index + 1})`
      if (segment) segment.transcript = transcript
      this.emit({ type: 'conversation.item.input_audio_transcription.completed', item_id, content_index: 0, transcript, usage: { type: 'duration', seconds: Math.max(1, Math.round(((audio_end_ms ?? 0) - (segment?.audio_start_ms ?? 0)) / 1000)) } })
    }
  }

  private commit(event: Record<string, any>): void {
    if (this.appendedBytes === 0) return this.error('invalid_request_error', 'input_audio_buffer_commit_empty', 'Error committing input audio buffer: buffer is empty.', null, event.event_id)
    const item_id = this.speaking?.item_id ?? newId('item')
    if (!this.speaking) this.speech.push({ item_id, audio_start_ms: 0, audio_end_ms: null, transcript: null })
    this.speaking = null
    this.userItem(item_id, Math.round(this.audioMs))
  }

  private itemCreate(event: Record<string, any>): void {
    const item = event.item
    if (!item || typeof item !== 'object') return this.error('invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'item'.", 'item', event.event_id)
    if (item.type === 'function_call_output') {
      if (typeof item.call_id !== 'string' || typeof item.output !== 'string') return this.error('invalid_request_error', 'invalid_value', "A function_call_output needs 'call_id' and 'output' strings.", 'item', event.event_id)
      const call = this.calls.get(item.call_id)
      if (!call) return this.error('invalid_request_error', 'invalid_value', `No function call with call_id '${item.call_id}'.`, 'item.call_id', event.event_id)
      this.functionOutputs.push({ call_id: item.call_id, name: call.name, output: item.output })
    }
    const added = { id: item.id ?? newId('item'), object: 'realtime.item', status: 'completed', ...item }
    this.emit({ type: 'conversation.item.added', previous_item_id: event.previous_item_id ?? null, item: added })
    this.emit({ type: 'conversation.item.done', previous_item_id: event.previous_item_id ?? null, item: added })
  }

  private truncate(event: Record<string, any>): void {
    const { item_id, content_index, audio_end_ms } = event
    const item = this.responses.flatMap((r) => r.items).find((i) => i.id === item_id && i.type === 'message')
    if (!item) return this.error('invalid_request_error', 'item_truncate_invalid_item_id', `Item with id '${String(item_id)}' not found.`, 'item_id', event.event_id)
    if (typeof audio_end_ms !== 'number' || !Number.isInteger(audio_end_ms) || audio_end_ms < 0) return this.error('invalid_request_error', 'invalid_value', "Invalid 'audio_end_ms'.", 'audio_end_ms', event.event_id)
    if (audio_end_ms > item.audioMs) return this.error('invalid_request_error', 'invalid_value', `audio_end_ms ${audio_end_ms} is longer than the item's audio (${item.audioMs} ms).`, 'audio_end_ms', event.event_id)
    this.truncations.push({ item_id, content_index: content_index ?? 0, audio_end_ms, itemAudioMs: item.audioMs, transcript: item.transcript })
    this.emit({ type: 'conversation.item.truncated', item_id, content_index: content_index ?? 0, audio_end_ms })
  }

  private responseCreate(event: Record<string, any>): void {
    if (this.active) return this.error('invalid_request_error', 'conversation_already_has_active_response', `Conversation already has an active response in progress: ${this.active.id}. Wait until the response is finished before creating a new one.`, null, event.event_id)
    this.startResponse(event.response ?? null)
  }

  private responseCancel(event: Record<string, any>): void {
    if (!this.active) return this.error('invalid_request_error', 'response_cancel_not_active', 'Cancellation failed: no active response found.', null, event.event_id)
    this.active.cancel = 'client_cancelled'
  }

  /** The next scripted turn (nothing said once the turns run out). */
  private startResponse(params: Record<string, unknown> | null): void {
    if (this.active) return
    const turns = this.script?.turns ?? []
    const turn = turns[this.turn]
    this.turn++
    if (!turn && this.script?.afterTurns === 'close') return this.close(1011, 'session closed')
    void playTurn(this, turn ?? {}, params)
  }

  clientClosed(code: number, reason: string): void {
    if (!this.closed) this.closed = { by: 'client', code, reason }
    if (this.active) this.active.cancel = 'client_cancelled'
  }
}

/** session.update semantics: only fields present change; objects merge, arrays and null replace. */
function merge(base: Record<string, any>, patch: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = { ...base }
  for (const [key, value] of Object.entries(patch)) {
    out[key] = value && typeof value === 'object' && !Array.isArray(value) && base[key] && typeof base[key] === 'object' && !Array.isArray(base[key])
      ? merge(base[key], value) : value
  }
  return out
}
