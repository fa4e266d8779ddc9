import type { Server, ServerWebSocket } from 'bun'
import { FRAME_MS, toneFrames } from './reference-agent-audio'

/**
 * A small voice agent speaking Twilio's Media Streams protocol (docs/agents.md), for local runs
 * and the black-box tests: a campaign's `ai_agent.url` points at it, and the campaign's
 * `parameters` choose what it does on each call (they arrive in `start.customParameters`).
 * Messages as twilio.com/docs/voice/media-streams/websocket-messages describes them: it
 * receives connected, start, media, dtmf, mark, stop and sends media, mark and clear (plus the
 * service's `dialer.*` control messages).
 *
 * Parameters: `behaviour` (below; default `interested`), `after_ms` (when the decision is sent,
 * from `start`; default 1500), `greeting_ms` (the tone it says first, 20 ms frames sent at once;
 * default 1000), `transcript` (`off`: no dialer.transcript lines), `excerpt`, `summary`,
 * `confidence` (interested), `callback_at` (RFC 3339) or `callback_in_minutes` (default 60),
 * `outcome` and `note` (end).
 * Behaviours: interested, callback, opt_out, end, transcript (three more lines, then an end),
 * silent (never a frame), drop (greets, then closes the socket with no decision), echo (sends
 * back every media payload it hears, nothing else: the benchmark), garbage (bad frames of every
 * kind, then a valid end).
 *
 * CLI: `bun run scripts/reference-agent.ts --port 8765 [--hostname 127.0.0.1]`.
 */

export const BEHAVIOURS = ['interested', 'callback', 'opt_out', 'end', 'transcript', 'silent', 'drop', 'echo', 'garbage'] as const
export type Behaviour = (typeof BEHAVIOURS)[number]

/** What the agent says first (as its dialer.transcript line). */
export const GREETING_TEXT = 'Hi, this is the virtual assistant of the roofing company you contacted.'
/** The `transcript` behaviour's lines after the greeting, in order. */
export const TRANSCRIPT_LINES: ReadonlyArray<{ speaker: 'ai' | 'lead'; text: string }> = [
  { speaker: 'lead', text: 'Yes, I asked about a new roof.' },
  { speaker: 'ai', text: 'Great, what size is the house?' },
  { speaker: 'lead', text: 'About two thousand square feet.' },
]
export const DEFAULT_SUMMARY = 'Wants a quote for a new roof, about 2,000 sq ft, this month.'
export const DEFAULT_EXCERPT = 'Yes, I would like a quote.'
export const DEFAULT_NOTE = 'Not looking for a roof this year.'

/** One call as the agent saw it, for assertions. */
export interface AgentCall {
  behaviour: Behaviour | null
  /** start.customParameters. */
  parameters: Record<string, string>
  callSid: string | null
  streamSid: string | null
  /** Every frame received, in order: parsed JSON, or the text as it came when it is not JSON. */
  received: unknown[]
  /** Every frame sent, as sent, in order. */
  sent: string[]
  /** The payloads of the `media` it received, in order. */
  heard: string[]
  /** The payloads of the `media` it sent, in order. */
  spoke: string[]
  /** The names of the marks echoed back to it, in order. */
  marks: string[]
  /** The digits of the `dtmf` it received. */
  digits: string[]
  openedAt: number
  startedAt: number | null
  closedAt: number | null
  /** Who closed the socket: the agent (drop, stop) or the other side. */
  closedBy: 'agent' | 'peer' | null
}

export interface ReferenceAgentOptions {
  port?: number
  hostname?: string
  /** Told each call's events (the CLI logs them). */
  log?: (line: string) => void
}

export interface ReferenceAgent {
  /** ws://host:port/ */
  url: string
  /** Every call, in the order their sockets opened. */
  sessions: AgentCall[]
  /** The call whose start named this dialer_call_id (or this callSid). */
  call(id: string): AgentCall | undefined
  stop(): Promise<void>
}

interface Socket {
  call: AgentCall
  timers: Array<ReturnType<typeof setTimeout>>
  spoken: number
}

const param = (call: AgentCall, name: string): string | undefined => call.parameters[name]
const numberParam = (call: AgentCall, name: string, fallback: number): number => {
  const value = Number(param(call, name))
  return Number.isFinite(value) && param(call, name) !== undefined ? value : fallback
}

export async function startReferenceAgent(options: ReferenceAgentOptions = {}): Promise<ReferenceAgent> {
  const sessions: AgentCall[] = []
  const log = options.log ?? (() => {})

  function send(ws: ServerWebSocket<Socket>, message: unknown): void {
    const text = typeof message === 'string' ? message : JSON.stringify(message)
    ws.data.call.sent.push(text)
    ws.send(text)
  }
  function speak(ws: ServerWebSocket<Socket>, frames: number): void {
    const { call } = ws.data
    for (const payload of toneFrames(frames, 440, ws.data.spoken)) {
      call.spoke.push(payload)
      send(ws, { event: 'media', streamSid: call.streamSid, media: { payload } })
    }
    ws.data.spoken += frames
  }
  const later = (ws: ServerWebSocket<Socket>, ms: number, run: () => void) => ws.data.timers.push(setTimeout(run, ms))
  const transcript = (ws: ServerWebSocket<Socket>, speaker: 'ai' | 'lead', text: string) => {
    if (param(ws.data.call, 'transcript') !== 'off') send(ws, { event: 'dialer.transcript', speaker, text })
  }

  function decide(ws: ServerWebSocket<Socket>): void {
    const { call } = ws.data
    switch (call.behaviour) {
      case 'interested':
        send(ws, { event: 'dialer.interested', excerpt: param(call, 'excerpt') ?? DEFAULT_EXCERPT, confidence: numberParam(call, 'confidence', 0.9), summary: param(call, 'summary') ?? DEFAULT_SUMMARY })
        return
      case 'callback': {
        const at = param(call, 'callback_at') ?? new Date(Date.now() + numberParam(call, 'callback_in_minutes', 60) * 60_000).toISOString()
        send(ws, { event: 'dialer.callback', at })
        return
      }
      case 'opt_out':
        send(ws, { event: 'dialer.opt_out' })
        return
      case 'end':
      case 'transcript':
        send(ws, { event: 'dialer.end', outcome: param(call, 'outcome') ?? 'not_interested', note: param(call, 'note') ?? DEFAULT_NOTE })
        return
      case 'drop':
        call.closedBy ??= 'agent'
        ws.close()
        return
      case 'garbage':
        for (const bad of garbageFrames(call.streamSid)) send(ws, bad)
        send(ws, { event: 'dialer.end', outcome: param(call, 'outcome') ?? 'not_interested', note: param(call, 'note') ?? DEFAULT_NOTE })
        return
      default:
    }
  }

  function started(ws: ServerWebSocket<Socket>, start: Record<string, any>): void {
    const { call } = ws.data
    call.startedAt = Date.now()
    call.callSid = String(start.callSid ?? '')
    call.streamSid = String(start.streamSid ?? '')
    call.parameters = { ...(start.customParameters ?? {}) }
    const behaviour = param(call, 'behaviour') ?? 'interested'
    call.behaviour = (BEHAVIOURS as readonly string[]).includes(behaviour) ? (behaviour as Behaviour) : 'interested'
    log(`start ${call.callSid} ${call.behaviour} ${JSON.stringify(call.parameters)}`)
    if (call.behaviour === 'silent' || call.behaviour === 'echo') return
    // The greeting at once (ahead of real time, as agents send it), then a mark to learn when it has played.
    speak(ws, Math.max(1, Math.round(numberParam(call, 'greeting_ms', 1000) / FRAME_MS)))
    send(ws, { event: 'mark', streamSid: call.streamSid, mark: { name: 'greeting' } })
    transcript(ws, 'ai', GREETING_TEXT)
    if (call.behaviour === 'transcript') for (const line of TRANSCRIPT_LINES) transcript(ws, line.speaker, line.text)
    later(ws, numberParam(call, 'after_ms', 1500), () => decide(ws))
  }

  function received(ws: ServerWebSocket<Socket>, text: string): void {
    const { call } = ws.data
    let message: Record<string, any> | null = null
    try {
      message = JSON.parse(text)
    } catch {
      call.received.push(text)
      return
    }
    call.received.push(message)
    switch (message?.event) {
      case 'start':
        return started(ws, message.start ?? {})
      case 'media': {
        const payload = String(message.media?.payload ?? '')
        call.heard.push(payload)
        if (call.behaviour === 'echo') {
          call.spoke.push(payload)
          send(ws, { event: 'media', streamSid: call.streamSid, media: { payload } })
        }
        return
      }
      case 'mark':
        call.marks.push(String(message.mark?.name ?? ''))
        return
      case 'dtmf':
        // The lead pressed a key: stop talking (clear what is queued), answer briefly.
        call.digits.push(String(message.dtmf?.digit ?? ''))
        if (call.behaviour === 'silent' || call.behaviour === 'echo') return
        send(ws, { event: 'clear', streamSid: call.streamSid })
        speak(ws, 10)
        send(ws, { event: 'mark', streamSid: call.streamSid, mark: { name: 'reply' } })
        return
      case 'stop':
        log(`stop ${call.callSid}`)
        return
      default:
    }
  }

  const server: Server<Socket> = Bun.serve<Socket>({
    port: options.port ?? 0,
    hostname: options.hostname ?? '127.0.0.1',
    fetch(request, srv) {
      const call: AgentCall = {
        behaviour: null, parameters: {}, callSid: null, streamSid: null, received: [], sent: [], heard: [], spoke: [],
        marks: [], digits: [], openedAt: Date.now(), startedAt: null, closedAt: null, closedBy: null,
      }
      if (srv.upgrade(request, { data: { call, timers: [], spoken: 0 } })) return undefined
      return new Response('A Media Streams WebSocket endpoint: connect with a WebSocket client.\n', { status: 426 })
    },
    websocket: {
      open(ws) {
        sessions.push(ws.data.call)
      },
      message(ws, data) {
        received(ws, typeof data === 'string' ? data : Buffer.from(data).toString('utf8'))
      },
      close(ws) {
        for (const timer of ws.data.timers) clearTimeout(timer)
        ws.data.call.closedAt = Date.now()
        ws.data.call.closedBy ??= 'peer'
        log(`closed ${ws.data.call.callSid} by ${ws.data.call.closedBy}`)
      },
    },
  })

  return {
    url: `ws://${server.hostname}:${server.port}/`,
    sessions,
    call: (id) => sessions.find((c) => c.parameters.dialer_call_id === id || c.callSid === id),
    async stop() {
      server.stop(true)
    },
  }
}

/** One of each bad frame the service must drop and count while the call goes on. */
export function garbageFrames(streamSid: string | null): string[] {
  return [
    'this is not JSON',
    JSON.stringify({ event: 'media', streamSid, media: { payload: 'A'.repeat(70 * 1024) } }),
    JSON.stringify({ event: 'media', streamSid, media: { payload: '*** not base64 ***' } }),
    JSON.stringify({ event: 'dance', streamSid }),
    JSON.stringify({ event: 'dialer.end', outcome: 'maybe_later', note: 'an outcome word nobody knows' }),
    JSON.stringify({ event: 'dialer.interested', excerpt: 'yes', confidence: 7, summary: 'confidence out of range' }),
    JSON.stringify({ event: 'dialer.callback', at: 'next tuesday-ish' }),
  ]
}

function argument(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? process.argv[i + 1] : undefined
}

const USAGE = `usage: bun run scripts/reference-agent.ts [--port 8765] [--hostname 127.0.0.1]

A voice agent speaking Twilio's Media Streams protocol for local runs (docs/agents.md). A campaign's
ai_agent.parameters choose what it does on each call: behaviour (${BEHAVIOURS.join(', ')}), after_ms,
greeting_ms, transcript, excerpt, summary, confidence, callback_at, callback_in_minutes, outcome, note.`

if (import.meta.main && (process.argv.includes('--help') || process.argv.includes('-h'))) {
  console.log(USAGE)
} else if (import.meta.main) {
  const port = Number(argument('port') ?? 8765)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number (0-65535).\n\n${USAGE}`)
    process.exit(2)
  }
  const agent = await startReferenceAgent({ port, hostname: argument('hostname') ?? '127.0.0.1', log: (line) => console.log(line) })
  console.log(`reference agent listening on ${agent.url} (behaviours: ${BEHAVIOURS.join(', ')})`)
  const quit = () => void agent.stop().then(() => process.exit(0))
  process.on('SIGINT', quit)
  process.on('SIGTERM', quit)
}
