import { FRAME_MS, leadFrame, speakingAt, streamDigitsOf } from './emulator-stream-audio'
import type { TwimlNode } from './emulator-twiml'
import type { EmulatedCall, Engine } from './emulator-types'
import type { StreamDialect } from './emulator-wire'

/**
 * <Connect><Stream> as Twilio runs it: a bidirectional Media Stream on the call's own leg.
 * - twilio.com/docs/voice/twiml/stream: Twilio opens a WebSocket to `url` (custom values travel
 *   in nested <Parameter name value>, since the url may carry no query string) and runs no
 *   further TwiML while the stream lasts.
 * - twilio.com/docs/voice/twiml/connect: when <Connect> ends, its `action` is requested and that
 *   TwiML runs; without one, the next verb runs.
 * - twilio.com/docs/api/errors/31921: in a bidirectional stream, the server closing the WebSocket
 *   stops the stream, and only then does Twilio resume the TwiML.
 * - twilio.com/docs/voice/media-streams/websocket-messages: Twilio sends `connected`, `start`,
 *   `media`, `dtmf`, `mark` and `stop` (every message after `connected` with a `sequenceNumber`
 *   counting from 1 as a string, and the `streamSid`); the server may send only `media`
 *   (base64 audio/x-mulaw 8000 Hz), `mark` (echoed when the audio before it has played, or at
 *   once on `clear`) and `clear` (the buffered audio is dropped).
 * - twilio.com/docs/api/errors/31924: any other message (or a malformed one) is a protocol error.
 *
 * The lead's side is sent in emulated time (20 ms frames, speed-scaled; see emulator-stream-audio.ts),
 * the audio received is played in real time (160 bytes = 20 ms, as Twilio plays it), so marks
 * come back when a real caller would have heard the audio before them.
 */

/** What the emulator keeps about one stream, for assertions. */
export interface StreamRecord {
  url: string
  /** MZ…, as in `start`. */
  streamSid: string
  /** The <Parameter>s, as `start.customParameters`. */
  parameters: Record<string, string>
  /** Every message sent to the server, as sent, in order (connected, start, media, dtmf, mark, stop). */
  sent: string[]
  /** The `media.payload`s sent (the lead's side), in order. */
  sentPayloads: string[]
  /** The digits sent as `dtmf`, in order. */
  digits: string[]
  /** Every message received from the server, as received, in order. */
  received: string[]
  /** The payloads of the valid `media` received, in order. */
  receivedPayloads: string[]
  /** Mark names echoed to the server, in order. */
  marks: string[]
  /** `clear` messages received. */
  clears: number
  /** Protocol errors: 31924 (a message Twilio refuses; ignored), 31920 (the socket did not open), 31901 (open timed out). */
  errors: { code: number; message: string; frame?: string }[]
  /** Who ended the stream: the server closed it, Twilio ended it (hang-up, redirect, emulator stop), or it never opened. */
  closedBy: 'server' | 'twilio' | 'unreachable' | null
  /** The close code the server sent (when it closed). */
  closeCode: number | null
  /** Emulated seconds since the call started: `start` sent, first `media` received, stream over. */
  startedAt: number | null
  firstAudioAt: number | null
  endedAt: number | null
  /** Real milliseconds from `start` to the first `media` received. */
  firstAudioMs: number | null
  /** Bytes of received audio played to the lead so far (cleared and unplayed audio excluded). */
  readonly playedBytes: number
  /** Resolves when the stream is over. */
  done: Promise<void>
}

/** How long (real ms) the WebSocket may take to open before the stream fails (Twilio: 31901). */
export const STREAM_OPEN_TIMEOUT_MS = 10_000

/**
 * Runs the <Stream> of a <Connect>. true: the stream ended by itself (the server closed it, or it
 * could not open) and the Connect's action (else the next verb) follows; false: the call ended or
 * moved on meanwhile.
 */
export function connectStream(engine: Engine, call: EmulatedCall, connect: TwimlNode): Promise<boolean> {
  const noun = connect.children.find((c) => c.name === 'Stream')
  if (!noun?.attrs.url) return Promise.resolve(true)
  const parameters: Record<string, string> = {}
  for (const p of noun.children) if (p.name === 'Parameter' && p.attrs.name) parameters[p.attrs.name] = p.attrs.value ?? ''
  return new StreamRun(engine, call, noun.attrs.url, parameters, noun.attrs).run()
}

class StreamRun {
  readonly record: StreamRecord
  private ws: WebSocket | null = null
  private seq = 0
  private frames = 0
  private digits: [number, string][]
  private startReal = 0
  /** Real ms at which the audio queued so far has played. */
  private playEnd = 0
  private receivedBytes = 0
  private droppedBytes = 0
  private playedAtEnd: number | null = null
  private pendingMarks: { name: string; timer: ReturnType<typeof setTimeout> }[] = []
  private ticker: ReturnType<typeof setInterval> | null = null
  private openTimer: ReturnType<typeof setTimeout> | null = null
  private finished = false
  private resolve: (byItself: boolean) => void = () => {}
  private markDone: () => void = () => {}
  private readonly wake = () => this.finish('twilio')
  private readonly dialect: StreamDialect
  /** Media frames waiting for their window to fill (dialect.reorder). */
  private held: object[] = []

  constructor(private readonly engine: Engine, private readonly call: EmulatedCall, url: string, parameters: Record<string, string>, private readonly attrs: Record<string, string>) {
    this.dialect = engine.wire.stream
    this.digits = streamDigitsOf(call)
    const run = this
    const done = new Promise<void>((resolve) => (this.markDone = resolve))
    this.record = {
      url, streamSid: this.dialect.newStreamSid(), parameters, sent: [], sentPayloads: [], digits: [], received: [], receivedPayloads: [], marks: [], clears: 0, errors: [],
      closedBy: null, closeCode: null, startedAt: null, firstAudioAt: null, endedAt: null, firstAudioMs: null, done,
      get playedBytes() {
        return run.played()
      },
    }
    ;(call.streams ??= []).push(this.record)
    call.stream = this.record
  }

  run(): Promise<boolean> {
    const result = new Promise<boolean>((resolve) => (this.resolve = resolve))
    if (this.call.endedAt !== null) {
      this.finish('twilio')
      return result
    }
    this.call.wakers.add(this.wake)
    const refused = this.dialect.refuse?.(this.attrs) ?? null
    if (refused !== null) {
      this.unreachable(31920, refused)
      return result
    }
    try {
      const ws = new WebSocket(this.record.url)
      this.ws = ws
      this.openTimer = setTimeout(() => this.unreachable(31901, 'Stream - WebSocket - Connection Timeout'), STREAM_OPEN_TIMEOUT_MS)
      ws.addEventListener('open', () => this.opened())
      ws.addEventListener('message', (e) => this.message(e.data))
      ws.addEventListener('close', (e) => this.closed(e.code))
      ws.addEventListener('error', () => {}) // a close event follows
    } catch (e) {
      this.unreachable(31920, `Stream - WebSocket - Handshake Error: ${String(e)}`)
    }
    return result
  }

  private opened(): void {
    if (this.finished) return
    if (this.openTimer) clearTimeout(this.openTimer)
    this.send(this.dialect.connected())
    this.record.startedAt = this.engine.now(this.call)
    this.startReal = Date.now()
    this.send(this.dialect.start(this.record, this.call, ++this.seq, this.attrs))
    this.ticker = setInterval(() => this.tick(), FRAME_MS)
  }

  /** Sends every frame (and key) that is due by now in emulated time, in order. */
  private tick(): void {
    if (this.finished || this.record.startedAt === null) return
    const elapsedMs = (this.engine.now(this.call) - this.record.startedAt) * 1000
    while ((this.frames + 1) * FRAME_MS <= elapsedMs && !this.finished) {
      const at = this.frames * FRAME_MS
      while (this.digits.length > 0 && this.digits[0]![0] * 1000 <= at) this.dtmf(this.digits.shift()![1])
      const payload = leadFrame(this.frames, speakingAt(this.call, this.record.startedAt + at / 1000))
      this.frames++
      this.record.sentPayloads.push(payload)
      this.sendMedia(this.dialect.media(this.record, ++this.seq, this.frames, at, payload))
    }
  }

  /** A media frame leaves now, or (a dialect that reorders) with the others of its window, shuffled. */
  private sendMedia(frame: object): void {
    const reorder = this.dialect.reorder
    if (!reorder) return this.send(frame)
    this.held.push(frame)
    if (this.held.length >= reorder.window) this.flushMedia()
  }

  private flushMedia(): void {
    const held = this.held.splice(0)
    const random = this.dialect.reorder?.random ?? Math.random
    for (let i = held.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[held[i], held[j]] = [held[j]!, held[i]!]
    }
    for (const frame of held) this.send(frame)
  }

  private dtmf(digit: string): void {
    this.record.digits.push(digit)
    this.send(this.dialect.dtmf(this.record, ++this.seq, digit))
  }

  private message(data: unknown): void {
    if (this.finished) return
    const text = typeof data === 'string' ? data : Buffer.from(data as ArrayBuffer).toString('utf8')
    this.record.received.push(text)
    if (typeof data !== 'string') return this.protocolError('a binary frame', text)
    let msg: unknown
    try {
      msg = JSON.parse(text)
    } catch {
      return this.protocolError('not JSON', text)
    }
    const read = this.dialect.read(msg, this.record)
    if ('error' in read) return this.protocolError(read.error, text)
    if (read.event === 'media') {
      if (this.dialect.playable && !this.dialect.playable(this.attrs, read.payload)) return this.protocolError('media this stream cannot play', text)
      return this.play(read.payload)
    }
    if (read.event === 'mark') return this.mark(read.name)
    this.clear()
  }

  private play(payload: string): void {
    const bytes = Buffer.from(payload, 'base64').length
    const now = Date.now()
    this.record.receivedPayloads.push(payload)
    if (this.record.firstAudioAt === null) {
      this.record.firstAudioAt = this.engine.now(this.call)
      this.record.firstAudioMs = now - this.startReal
      this.engine.heard(this.call, 'message')
    }
    this.receivedBytes += bytes
    this.playEnd = Math.max(this.playEnd, now) + bytes / 8
  }

  /** Echoed when the audio queued before it has played. */
  private mark(name: string): void {
    const entry = { name, timer: setTimeout(() => this.echo(entry), Math.max(0, this.playEnd - Date.now())) }
    this.pendingMarks.push(entry)
  }

  private echo(entry: { name: string; timer: ReturnType<typeof setTimeout> }): void {
    clearTimeout(entry.timer)
    this.pendingMarks = this.pendingMarks.filter((m) => m !== entry)
    if (this.finished) return
    this.record.marks.push(entry.name)
    this.send(this.dialect.mark(this.record, ++this.seq, entry.name))
  }

  /** The unplayed audio is dropped and every pending mark is echoed at once, in order. */
  private clear(): void {
    this.record.clears++
    const now = Date.now()
    this.droppedBytes += this.unplayed(now)
    this.playEnd = now
    for (const entry of [...this.pendingMarks]) this.echo(entry)
  }

  private unplayed(now: number): number {
    return Math.max(0, this.playEnd - now) * 8
  }

  private played(): number {
    if (this.playedAtEnd !== null) return this.playedAtEnd
    return Math.round(this.receivedBytes - this.droppedBytes - this.unplayed(Date.now()))
  }

  private protocolError(why: string, frame: string): void {
    this.record.errors.push({ code: 31924, message: `Stream - WebSocket - Protocol Error: ${why}`, frame: frame.slice(0, 200) })
  }

  private closed(code: number): void {
    if (this.finished) return
    this.record.closeCode = code
    if (this.record.startedAt === null) this.unreachable(31920, `Stream - WebSocket - Handshake Error (close ${code})`)
    else this.finish('server')
  }

  private unreachable(code: number, message: string): void {
    if (this.finished) return
    this.record.errors.push({ code, message })
    this.finish('unreachable')
  }

  /** The stream is over: Twilio ending it says `stop` and closes the socket; unplayed audio and pending marks are dropped. */
  private finish(by: NonNullable<StreamRecord['closedBy']>): void {
    if (this.finished) return
    if (by === 'twilio' && this.ws?.readyState === WebSocket.OPEN && this.record.startedAt !== null) {
      this.tick()
      this.flushMedia()
      this.send(this.dialect.stop(this.record, this.call, ++this.seq))
    }
    this.playedAtEnd = this.played()
    this.finished = true
    this.record.closedBy = by
    this.record.endedAt = this.engine.now(this.call)
    if (this.ticker) clearInterval(this.ticker)
    if (this.openTimer) clearTimeout(this.openTimer)
    for (const m of this.pendingMarks) clearTimeout(m.timer)
    this.pendingMarks = []
    this.call.wakers.delete(this.wake)
    try {
      if (by !== 'server') this.ws?.close(1000)
    } catch {
      // A socket still connecting may refuse a close; it is dropped either way.
    }
    this.markDone()
    this.resolve(by !== 'twilio')
  }

  private send(message: object): void {
    const text = JSON.stringify(message)
    this.record.sent.push(text)
    this.ws?.send(text)
  }
}
