import type { ControlResult, SeatControl, SeatFailure, SeatHost, SeatMetrics, SeatTicket, StreamSocket } from '../../src/telephony/media-stream/contract'
import type { AgentSocket, RelayTimers } from '../../src/telephony/media-stream/relay'

/** In-memory sockets, a fake host and manual timers for the seat relay's unit tests. */

export class ManualTimers implements RelayTimers {
  private at = 1_000
  private next = 1
  private readonly due = new Map<number, { at: number; run: () => void }>()
  now = () => this.at
  set = (run: () => void, ms: number) => {
    const id = this.next++
    this.due.set(id, { at: this.at + ms, run })
    return id
  }
  clear = (handle: unknown) => void this.due.delete(handle as number)
  advance(ms: number): void {
    const until = this.at + ms
    for (;;) {
      const first = [...this.due.entries()].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0]
      if (!first) break
      this.due.delete(first[0])
      this.at = first[1].at
      first[1].run()
    }
    this.at = until
  }
}

export class FakeCarrier implements StreamSocket {
  sent: string[] = []
  closedWith: number | null = null
  send(data: string) {
    if (this.closedWith !== null) throw new Error('send on a closed carrier socket')
    this.sent.push(data)
  }
  close(code = 1000) {
    this.closedWith ??= code
  }
}

export class FakeAgent implements AgentSocket {
  sent: string[] = []
  closedWith: number | null = null
  onopen: AgentSocket['onopen'] = null
  onmessage: AgentSocket['onmessage'] = null
  onclose: AgentSocket['onclose'] = null
  onerror: AgentSocket['onerror'] = null
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(data)
  }
  close(code = 1000) {
    this.closedWith ??= code
  }
  open() {
    this.onopen?.({})
  }
  say(data: unknown) {
    this.onmessage?.({ data })
  }
  drop() {
    this.onclose?.({})
  }
  refuse() {
    this.onerror?.({})
    this.onclose?.({})
  }
}

export interface HostCall {
  method: 'admit' | 'firstAudio' | 'control' | 'failed' | 'closed'
  args: unknown[]
}

/** Tokens `good-<callId>` are admitted once; decisions end the stream once (a repeat is not applied). */
export class FakeHost implements SeatHost {
  calls: HostCall[] = []
  private started = new Set<string>()
  private decided = new Set<string>()
  firstAudioMs = 2000
  admit(stream: { token: string; callSid: string; streamSid: string }): SeatTicket | null {
    this.calls.push({ method: 'admit', args: [stream] })
    const m = /^good-(.+)$/.exec(stream.token)
    if (!m || this.started.has(m[1]!)) return null
    this.started.add(m[1]!)
    return {
      callId: m[1]!, orgId: 'org_1',
      agent: { kind: 'stream', url: 'wss://agent.example/seat', parameters: { voice: 'alloy' }, firstAudioMs: this.firstAudioMs },
      customParameters: { voice: 'alloy', dialer_call_id: m[1]!, dialer_lead_id: 'lead_1', lead_name: 'Ada', campaign_name: 'Spring' },
    }
  }
  firstAudio(callId: string, ms: number) {
    this.calls.push({ method: 'firstAudio', args: [callId, ms] })
  }
  control(callId: string, control: SeatControl): ControlResult {
    this.calls.push({ method: 'control', args: [callId, control] })
    if (control.event === 'dialer.transcript') return { applied: true, endsStream: false }
    if (this.decided.has(callId)) return { applied: false, endsStream: false }
    this.decided.add(callId)
    return { applied: true, endsStream: true }
  }
  failed(callId: string, failure: SeatFailure) {
    this.calls.push({ method: 'failed', args: [callId, failure] })
  }
  closed(callId: string) {
    this.calls.push({ method: 'closed', args: [callId] })
  }
  of(method: HostCall['method']) {
    return this.calls.filter((c) => c.method === method).map((c) => c.args)
  }
}

export class CountingMetrics implements SeatMetrics {
  drops: string[] = []
  controls: [string, boolean][] = []
  failures: string[] = []
  open_ = 0
  dropped(reason: string) {
    this.drops.push(reason)
  }
  control(event: string, applied: boolean) {
    this.controls.push([event, applied])
  }
  failed(failure: string) {
    this.failures.push(failure)
  }
  open(delta: 1 | -1) {
    this.open_ += delta
  }
}

export const STREAM_SID = 'MZ00000000000000000000000000000001'
export const connected = JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' })
export const startFrame = (token: string | null, extra: Record<string, string> = {}) => JSON.stringify({
  event: 'start', sequenceNumber: '1', streamSid: STREAM_SID,
  start: {
    accountSid: 'AC1', streamSid: STREAM_SID, callSid: 'CA1', tracks: ['inbound'],
    mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
    customParameters: token === null ? extra : { ...extra, dialer_stream_token: token },
  },
})
/** A 20 ms μ-law frame (160 bytes) as the carrier sends it. */
export const carrierMedia = (n: number, fill = n % 256) => JSON.stringify({
  event: 'media', sequenceNumber: String(n + 2), streamSid: STREAM_SID,
  media: { track: 'inbound', chunk: String(n + 1), timestamp: String(n * 20), payload: Buffer.alloc(160, fill).toString('base64') },
})
/** Agent audio of `ms` milliseconds (8 bytes a ms). */
export const agentMedia = (ms = 20, fill = 0x7f) => JSON.stringify({ event: 'media', streamSid: STREAM_SID, media: { payload: Buffer.alloc(ms * 8, fill).toString('base64') } })
export const dtmf = (digit: string) => JSON.stringify({ event: 'dtmf', streamSid: STREAM_SID, sequenceNumber: '9', dtmf: { track: 'inbound_track', digit } })
export const mark = (name: string) => JSON.stringify({ event: 'mark', streamSid: STREAM_SID, mark: { name } })
export const stop = JSON.stringify({ event: 'stop', streamSid: STREAM_SID, stop: { accountSid: 'AC1', callSid: 'CA1' } })
