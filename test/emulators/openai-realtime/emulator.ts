import type { Server, ServerWebSocket } from 'bun'
import { BUILT_IN_SCRIPTS, type RealtimeScript, scriptNameFor } from './realtime-scripts'
import { RealtimeSession, type SessionOptions } from './realtime-session'

/**
 * An emulator of OpenAI's Realtime WebSocket API (GA interface) for tests and benchmarks, written
 * from OpenAI's published reference:
 * - client events: https://developers.openai.com/api/reference/resources/realtime/client-events
 *   (platform.openai.com/docs/api-reference/realtime-client-events)
 * - server events: https://developers.openai.com/api/reference/resources/realtime/server-events
 *   (platform.openai.com/docs/api-reference/realtime-server-events)
 * - the flow (session, VAD, responses, function calls, truncation):
 *   https://platform.openai.com/docs/guides/realtime-conversations
 *
 * API for tests:
 * - `const rt = await RealtimeEmulator.start({ apiKey, scripts?, deltaMs?, pace?, responseDelayMs?, port? })`;
 *   `rt.url` is the Realtime endpoint (`ws://127.0.0.1:<port>/v1/realtime`, a campaign's `base_url`:
 *   clients add `?model=`); `await rt.stop()`.
 * - Clients connect to `${rt.url}?model=<model>` with `Authorization: Bearer <apiKey>`. A wrong or
 *   missing key: an `error` event (invalid_request_error / invalid_api_key), then close code 3000.
 *   No `model`: HTTP 400. Another path: 404.
 * - `rt.sessions`: every session in connection order (a `RealtimeSession`, realtime-session.ts):
 *   `model`, `authorized`, `scriptName`, `config` (the effective session after session.update),
 *   `received` / `sent` (every event either way, parsed), `clientEvents(type)` / `serverEvents(type)`,
 *   `audioMs` (input audio appended), `speech` (VAD segments: item_id, audio_start_ms, audio_end_ms,
 *   transcript), `responses` (id, status, items with audioMs/transcript/call_id/name/arguments,
 *   usage), `calls` (function calls by call_id), `functionOutputs` (function_call_output items the
 *   client created: call_id, name, output), `truncations` (item_id, content_index, audio_end_ms,
 *   itemAudioMs, transcript), `problems` (what a real server would refuse: unknown session fields,
 *   a wrong audio format, an unknown call_id, a truncate past the audio, ...), `closed` (by, code, reason).
 * - `rt.waitFor(predicate, timeoutMs?)`: resolves with the predicate's first truthy value (polls).
 *
 * Behaviour:
 * - On connect `session.created`; `session.update` (session.type `realtime` required; unknown
 *   fields refused) merges into the session and answers `session.updated`. The first one picks the
 *   script: a `[script:<name>]` marker in its instructions, else the model name, else `default`
 *   (built-ins in realtime-scripts.ts: default, interested, callback, opt_out, not_interested,
 *   long_talk, rate_limit, server_error, session_closed, flood; `scripts` adds or replaces).
 * - `input_audio_buffer.append` (base64 μ-law when the input format is `audio/pcmu`): server VAD
 *   emulated as a loudness gate on 20 ms pieces in audio time (the Twilio emulator's lead speech is
 *   loud, its line noise quiet): `input_audio_buffer.speech_started` (audio_start_ms, item_id),
 *   after `silence_duration_ms` (default 500) of quiet `input_audio_buffer.speech_stopped`,
 *   `input_audio_buffer.committed`, the user item, and with input transcription on
 *   `conversation.item.input_audio_transcription.completed` (the script's `leadSays`); then, unless
 *   turn_detection.create_response is false, a response (the next turn). Speech during a response
 *   in progress cancels it (`turn_detected`) unless interrupt_response is false.
 * - `response.create`: the next turn (one active response at a time, as the real service).
 *   A turn speaks (`response.output_audio.delta` μ-law tone deltas of `deltaMs`, with transcript
 *   deltas and `response.output_audio_transcript.done`), calls functions
 *   (`response.function_call_arguments.done`), fails (`response.done` status `failed`,
 *   status_details.error code `rate_limit_exceeded`), sends an `error` of type `server_error`, or
 *   closes the socket (1011); every response ends with `response.done` carrying `usage`.
 * - `conversation.item.create` of a `function_call_output` is checked against the calls made and
 *   recorded; `conversation.item.truncate` is checked (item exists, audio_end_ms within its audio)
 *   and answered with `conversation.item.truncated`; `response.cancel` cancels the active response.
 */

export interface RealtimeEmulatorOptions {
  apiKey: string
  scripts?: Record<string, RealtimeScript>
  /** Ms of audio per output_audio.delta (default 100). */
  deltaMs?: number
  /** Ms of audio sent per real ms (0, default: each response's audio at once, as fast as the model generates). */
  pace?: number
  /** Real ms before each response starts (default 0). */
  responseDelayMs?: number
  port?: number
  hostname?: string
}

interface SocketData { session: RealtimeSession; holder: { ws: ServerWebSocket<SocketData> | null } }

export class RealtimeEmulator {
  readonly sessions: RealtimeSession[] = []
  private constructor(private readonly server: Server<SocketData>, readonly url: string) {}

  static async start(options: RealtimeEmulatorOptions): Promise<RealtimeEmulator> {
    const scripts = { ...BUILT_IN_SCRIPTS, ...options.scripts }
    const sessionOptions: SessionOptions = { deltaMs: options.deltaMs ?? 100, pace: options.pace ?? 0, responseDelayMs: options.responseDelayMs ?? 0 }
    const pick = (instructions: string | undefined, model: string) => scriptNameFor(instructions, model, scripts)
    let emulator: RealtimeEmulator | null = null
    const server = Bun.serve<SocketData, never>({
      port: options.port ?? 0,
      hostname: options.hostname ?? '127.0.0.1',
      fetch(req, srv) {
        const url = new URL(req.url)
        if (url.pathname !== '/v1/realtime') return Response.json({ error: { message: 'Not found', type: 'invalid_request_error', param: null, code: null } }, { status: 404 })
        const model = url.searchParams.get('model')
        if (!model) return Response.json({ error: { message: "Missing required parameter: 'model'.", type: 'invalid_request_error', param: 'model', code: 'missing_required_parameter' } }, { status: 400 })
        const authorized = req.headers.get('authorization') === `Bearer ${options.apiKey}`
        // The socket is filled in on open; the session needs it to send.
        const holder: { ws: ServerWebSocket<SocketData> | null } = { ws: null }
        const session = new RealtimeSession(model, authorized, {
          send: (text) => holder.ws?.send(text),
          close: (code, reason) => holder.ws?.close(code, reason),
        }, scripts, sessionOptions, pick)
        if (srv.upgrade(req, { data: { session, holder } })) {
          emulator!.sessions.push(session)
          return undefined
        }
        return new Response('Expected a WebSocket upgrade', { status: 426 })
      },
      websocket: {
        open(ws) {
          ws.data.holder.ws = ws
          ws.data.session.opened()
        },
        message(ws, message) {
          ws.data.session.handle(typeof message === 'string' ? message : Buffer.from(message).toString('utf8'))
        },
        close(ws, code, reason) {
          ws.data.session.clientClosed(code, reason)
        },
      },
    })
    emulator = new RealtimeEmulator(server, `ws://${server.hostname}:${server.port}/v1/realtime`)
    return emulator
  }

  /** The latest session (throws when none). */
  get latest(): RealtimeSession {
    const session = this.sessions.at(-1)
    if (!session) throw new Error('no Realtime session yet')
    return session
  }

  async waitFor<T>(predicate: () => T | null | undefined | false, timeoutMs = 10_000): Promise<T> {
    const until = Date.now() + timeoutMs
    for (;;) {
      const value = predicate()
      if (value) return value
      if (Date.now() > until) throw new Error('RealtimeEmulator.waitFor timed out')
      await Bun.sleep(10)
    }
  }

  async stop(): Promise<void> {
    this.server.stop(true)
  }
}

export type { RealtimeSession } from './realtime-session'
export type { RealtimeScript, Turn } from './realtime-scripts'
