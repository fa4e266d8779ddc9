/**
 * AI seat relay benchmark (issue 29): `seats` concurrent seats relaying Twilio Media Streams
 * both ways through the service, beside a direct run in the same benchmark.
 *
 *   bun run scripts/bench/ai-seat-relay.ts [--seats 200] [--seconds 10]
 *
 * - The service as a child process (`bun run src/main.ts serve`, fake clock at a New York
 *   morning); one organization whose carrier is the Twilio emulator (speed 0.001: silent after
 *   `initiated`); an AI-seated campaign (`ai_agent.url` = the echo agent below, detection off)
 *   with `seats` lines and one consented lead per line, all dialed through the emulator.
 * - Each call's answer callback is signed and posted here, as Twilio would: the service serves
 *   the seat's TwiML with its real stream token. This process then plays Twilio: it opens
 *   `/twilio/streams` on the service, sends `connected` and `start` with the token (the real
 *   check against the call's row), then a 20 ms μ-law frame every 20 ms; the agent (a Bun
 *   WebSocket server in this process) sends its own 20 ms frames back from its `start` on.
 * - Measured per frame, both directions, on one clock: sent -> received (the sender stamps
 *   the frame's number in its payload). Direct run: the same sender talks to the same agent
 *   with no service in between. The relay's added latency is the relay run's figure minus the
 *   direct run's at the same percentile. Every frame is compared with the one sent, byte for
 *   byte and in order: any lost, changed or reordered frame fails the run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import type { ServerWebSocket } from 'bun'
import { TwilioEmulator } from '../../test/emulators/twilio/emulator'
import { ADMIN_TOKEN, fmt, log, percentile, printTable, sortedCopy, startService, stop, verdict, type Child } from './lib'
import { cpuSeconds, SEAT_ACCOUNT, seatedCalls } from './seat-calls'

const { values } = parseArgs({ options: { seats: { type: 'string', default: '200' }, seconds: { type: 'string', default: '10' } } })
const SEATS = Number(values.seats)
const SECONDS = Number(values.seconds)
const FRAME_MS = 20
const { sid: SID, token: TOKEN, caller: CALLER } = SEAT_ACCOUNT

/** A 160-byte μ-law frame numbered for its seat, direction and sequence, base64 as Twilio sends it. */
function payload(seat: number, way: number, seq: number): string {
  const bytes = Buffer.alloc(160, 0xff)
  bytes.writeUInt16BE(seat, 0)
  bytes.writeUInt8(way, 2)
  bytes.writeUInt32BE(seq, 3)
  return bytes.toString('base64')
}
const STREAM_SID = (seat: number) => `MZ${String(seat).padStart(32, '0')}`
const carrierFrame = (seat: number, seq: number) => JSON.stringify({
  event: 'media', sequenceNumber: String(seq + 3), streamSid: STREAM_SID(seat),
  media: { track: 'inbound', chunk: String(seq + 1), timestamp: String(seq * FRAME_MS), payload: payload(seat, 0, seq) },
})
const agentFrame = (seat: number, seq: number) => JSON.stringify({ event: 'media', streamSid: STREAM_SID(seat), media: { payload: payload(seat, 1, seq) } })
/** BENCH_DEBUG: [sent at, latency] of every frame, for the slowest moments. */
const slow: [number, number][] = []

/** One direction of one seat: when each frame left, and what arrived. */
class Way {
  sentAt: number[] = []
  latencies: number[] = []
  received = 0
  bad = 0
  constructor(readonly seat: number, readonly frame: (seat: number, seq: number) => string) {}
  send(ws: { send(data: string): unknown }): void {
    const seq = this.sentAt.length
    this.sentAt.push(performance.now())
    ws.send(this.frame(this.seat, seq))
  }
  arrived(data: string): void {
    const now = performance.now()
    const seq = this.received++
    // Byte for byte and in order: the frame that arrives n-th is the n-th one sent.
    if (seq >= this.sentAt.length || data !== this.frame(this.seat, seq)) this.bad++
    else {
      this.latencies.push(now - this.sentAt[seq]!)
      if (process.env.BENCH_DEBUG) slow.push([this.sentAt[seq]!, now - this.sentAt[seq]!])
    }
  }
}

interface Seat {
  index: number
  callId: string
  token: string | null
  /** Twilio's CallSid (the host checks it is the call's). */
  callSid: string
  toAgent: Way
  toCarrier: Way
  carrier: WebSocket | null
  agent: ServerWebSocket<{ seat: Seat | null }> | null
}

const seatsById = new Map<string, Seat>()
let sending = false

/** The agent: answers `start` with a 20 ms frame every 20 ms, records the carrier's media. */
const agentServer = Bun.serve<{ seat: Seat | null }>({
  hostname: '127.0.0.1', port: 0,
  fetch: (request, server) => (server.upgrade(request, { data: { seat: null } }) ? undefined : new Response('websocket only', { status: 400 })),
  websocket: {
    message(ws, message) {
      const text = String(message)
      if (ws.data.seat && text.startsWith('{"event":"media"')) return ws.data.seat.toAgent.arrived(text)
      const frame = JSON.parse(text)
      if (frame.event === 'start') {
        const seat = seatsById.get(frame.start.customParameters.dialer_call_id)
        if (!seat) throw new Error(`agent: unknown seat ${JSON.stringify(frame.start.customParameters)}`)
        ws.data.seat = seat
        seat.agent = ws
      }
    },
    close(ws) {
      if (ws.data.seat) ws.data.seat.agent = null
    },
  },
})

/** Opens every seat's carrier socket and sends connected + start; resolves when every agent has its start. */
/**
 * Streams open 25 at a time, each batch reaching the agent before the next (one address may hold
 * only 50 sockets before their `start`; Twilio's media servers open streams as calls are answered).
 */
async function openSeats(seats: Seat[], url: string): Promise<void> {
  for (let i = 0; i < seats.length; i += 25) {
    const batch = seats.slice(i, i + 25)
    await Promise.all(batch.map((seat) => openSeat(seat, url)))
    const deadline = performance.now() + 10_000
    while (batch.some((s) => !s.agent)) {
      if (performance.now() > deadline) throw new Error(`${batch.filter((s) => !s.agent).length} seats never reached the agent`)
      await Bun.sleep(5)
    }
  }
}

function openSeat(seat: Seat, url: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(url)
    seat.carrier = ws
    ws.onopen = () => {
      ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }))
      const custom: Record<string, string> = seat.token ? { dialer_stream_token: seat.token } : { dialer_call_id: seat.callId }
      ws.send(JSON.stringify({
        event: 'start', sequenceNumber: '1', streamSid: STREAM_SID(seat.index),
        start: { accountSid: SID, streamSid: STREAM_SID(seat.index), callSid: seat.callSid, tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 }, customParameters: custom },
      }))
      resolve()
    }
    ws.onmessage = (event) => {
      const text = String(event.data)
      if (text.startsWith('{"event":"media"')) seat.toCarrier.arrived(text)
    }
    ws.onerror = () => reject(new Error(`seat ${seat.index}: carrier socket failed`))
  })
}

/** Both sides send a frame every 20 ms per seat, staggered over the 20 ms, for `seconds`. */
async function relayFor(seats: Seat[], seconds: number): Promise<void> {
  const t0 = performance.now()
  const due = seats.map((s) => t0 + (s.index % FRAME_MS))
  sending = true
  const end = t0 + seconds * 1000
  while (performance.now() < end) {
    const now = performance.now()
    for (const seat of seats) {
      while (due[seat.index]! <= now) {
        seat.toAgent.send(seat.carrier!)
        seat.toCarrier.send(seat.agent!)
        due[seat.index]! += FRAME_MS
      }
    }
    await Bun.sleep(1)
  }
  sending = false
  // In flight frames land.
  await Bun.sleep(500)
}

function figures(seats: Seat[]) {
  const ways = seats.flatMap((s) => [s.toAgent, s.toCarrier])
  const all = sortedCopy(ways.flatMap((w) => w.latencies))
  const sent = ways.reduce((n, w) => n + w.sentAt.length, 0)
  const received = ways.reduce((n, w) => n + w.received, 0)
  const bad = ways.reduce((n, w) => n + w.bad, 0)
  const way = (pick: (s: Seat) => Way) => sortedCopy(seats.flatMap((s) => pick(s).latencies))
  return { all, toAgent: way((s) => s.toAgent), toCarrier: way((s) => s.toCarrier), sent, lost: sent - received, bad }
}

async function closeSeats(seats: Seat[]): Promise<void> {
  for (const seat of seats) {
    seat.carrier?.send(JSON.stringify({ event: 'stop', streamSid: STREAM_SID(seat.index), stop: { accountSid: SID, callSid: seat.callSid } }))
    seat.carrier?.close()
  }
  await Bun.sleep(300)
}

const newSeat = (index: number, callId: string, callSid: string, token: string | null): Seat => ({
  index, callId, callSid, token, toAgent: new Way(index, carrierFrame), toCarrier: new Way(index, agentFrame), carrier: null, agent: null,
})

const work = mkdtempSync(join(tmpdir(), 'dialer-bench-seat-'))
const emulator = TwilioEmulator.start({ accounts: [{ sid: SID, authToken: TOKEN, callerIds: [CALLER] }], speed: 0.001 })
let service: { proc: Child; base: string } | null = null
let exitCode = 0
try {
  log(`AI seat relay benchmark, Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs; ${SEATS} seats, ${SECONDS} s of 20 ms frames each way`)
  process.env.DIALER_FAKE_CLOCK = '1'
  service = await startService({ dataDir: join(work, 'data'), logFile: join(work, 'service.log') })
  delete process.env.DIALER_FAKE_CLOCK
  const calls = await seatedCalls({
    base: service.base, emulator, name: 'Seat bench', count: SEATS, phoneOf: (i) => `+1212555${String(2000 + i).padStart(4, '0')}`,
    aiAgent: { kind: 'stream', url: `ws://127.0.0.1:${agentServer.port}/agent`, first_audio_ms: 5000, disclosure: { say: 'This is an AI assistant calling for Seat bench.' } },
  })

  const direct = calls.map((c, i) => newSeat(i, `direct-${i}`, c.callSid, null))
  for (const s of direct) seatsById.set(s.callId, s)
  await openSeats(direct, `ws://127.0.0.1:${agentServer.port}/agent`)
  await relayFor(direct, SECONDS)
  const d = figures(direct)
  await closeSeats(direct)

  slow.length = 0
  const relayed = calls.map((c, i) => newSeat(i, c.callId, c.callSid, c.token))
  for (const s of relayed) seatsById.set(s.callId, s)
  await openSeats(relayed, `${service.base.replace('http', 'ws')}/twilio/streams`)
  const cpu0 = cpuSeconds(service.proc.pid)
  await relayFor(relayed, SECONDS)
  const cpu = cpuSeconds(service.proc.pid) - cpu0
  const r = figures(relayed)
  if (process.env.BENCH_DEBUG) {
    const t0 = slow.reduce((m, [at]) => Math.min(m, at), Infinity)
    const bySecond = new Map<number, number[]>()
    for (const [at, l] of slow) {
      const k = Math.floor((at - t0) / 500)
      if (!bySecond.has(k)) bySecond.set(k, [])
      bySecond.get(k)!.push(l)
    }
    for (const [k, list] of [...bySecond].sort((a, b) => a[0] - b[0])) log(`  ${k / 2}s: n ${list.length} p99 ${percentile(sortedCopy(list), 0.99).toFixed(1)} max ${percentile(sortedCopy(list), 1).toFixed(1)}`)
  }
  const metrics = await (await fetch(`${service.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text()
  await closeSeats(relayed)

  const ms = (sorted: Float64Array, p: number) => percentile(sorted, p).toFixed(2)
  const row = (name: string, f: ReturnType<typeof figures>) => [
    name, `p50 ${ms(f.all, 0.5)} / p99 ${ms(f.all, 0.99)} / max ${ms(f.all, 1)}`,
    `p99 ${ms(f.toAgent, 0.99)}`, `p99 ${ms(f.toCarrier, 0.99)}`, `${fmt(f.sent)} sent, ${f.lost} lost, ${f.bad} changed or out of order`,
  ]
  const added = percentile(r.all, 0.99) - percentile(d.all, 0.99)
  const clean = r.lost === 0 && r.bad === 0 && d.lost === 0 && d.bad === 0
  log('')
  printTable([
    ['run (ms from sent to received, one clock)', 'both ways', 'to agent', 'to carrier', 'frames'],
    row(`direct: sender <-> agent (reference)`, d),
    row(`through the service's relay`, r),
    ['added by the relay at p99', `${added.toFixed(2)} ms (target < 5 ms) ${verdict(added < 5)}`, '', '', `no frame lost or reordered: ${verdict(clean)}`],
  ])
  const open = /^dialer_seats_open (\d+)/m.exec(metrics)?.[1]
  const dropped = [...metrics.matchAll(/^dialer_seat_frames_dropped_total\{reason="([^"]+)"\} ([1-9]\d*)/gm)].map((m) => `${m[1]}=${m[2]}`)
  log(`service: dialer_seats_open ${open} during the run; frames dropped: ${dropped.join(', ') || 'none'}; CPU ${cpu.toFixed(2)} s for ${SECONDS} s of relaying (${((cpu / r.sent) * 1e6).toFixed(1)} µs a frame)`)
  if (!clean || added >= 5 || open !== String(SEATS)) exitCode = 1
} catch (error) {
  console.error(error)
  if (service) {
    const metrics = await (await fetch(`${service.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text()
    log(metrics.split('\n').filter((l) => l.startsWith('dialer_seat') && !/ 0$/.test(l)).join('\n'))
  }
  exitCode = 1
} finally {
  if (service) await stop(service.proc)
  await emulator.stop()
  agentServer.stop(true)
  rmSync(work, { recursive: true, force: true })
}
process.exit(exitCode)
