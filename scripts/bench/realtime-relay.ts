/**
 * Built-in Realtime agent benchmark (issue 30): `calls` concurrent AI-seated calls whose agent is
 * the service's own OpenAI Realtime agent, through the Twilio emulator and the Realtime emulator,
 * beside a direct run in the same benchmark.
 *
 *   bun run scripts/bench/realtime-relay.ts [--calls 100] [--seconds 10] [--warmup 3]
 *
 * - The service as a child process (`bun run src/main.ts serve`, fake clock at a New York
 *   morning); one organization whose carrier is the Twilio emulator (speed 0.001: silent after
 *   `initiated`); a campaign with `ai_agent.kind: "openai_realtime"` whose `base_url` is the
 *   Realtime emulator (test/emulators/openai-realtime/, in this process), `calls` lines and one
 *   consented lead per line, all dialed through the emulator.
 * - Each call's answer callback is signed and posted here, as Twilio would: the service serves the
 *   seat's TwiML with its real stream token. This process then plays Twilio: it opens
 *   `/twilio/streams`, sends `connected` and `start` (the service opens the Realtime socket with
 *   the campaign's key and the prompt rendered for the lead), then a quiet numbered 20 ms μ-law
 *   frame every 20 ms, and echoes every `mark` at once. The emulated model answers the greeting's
 *   `response.create` with one long reply, paced in real time as 20 ms `response.output_audio.delta`s.
 * - Measured on one clock: lead -> model, from the carrier frame sent to the emulator's receipt of
 *   the `input_audio_buffer.append` carrying it; model -> lead, from the emulator's send of a delta
 *   to the carrier's receipt of the `media` carrying its last byte. Direct run: the same sender
 *   speaks the Realtime protocol to the same emulator with no service between (the session the
 *   agent would ask for, the same frames). Added by the service = the relayed figure minus the
 *   direct one at the same percentile. Each run first talks for `warmup` seconds whose figures are
 *   printed but not judged: a service just started compiles the relay's code while the first
 *   calls go through it (a hiccup of up to a few hundred ms, once per process, not per call).
 *   The hypervisor's steal during each measured window is read from /proc/stat: above
 *   STEAL_LIMIT % the machine, not the service, sets the tail, and the run is inconclusive.
 *   Every byte is compared, in order, both ways: any lost,
 *   changed or reordered audio fails the run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { sessionUpdate } from '../../src/telephony/realtime/session-config'
import { RealtimeEmulator } from '../../test/emulators/openai-realtime/emulator'
import { RealtimeSession } from '../../test/emulators/openai-realtime/realtime-session'
import { TwilioEmulator } from '../../test/emulators/twilio/emulator'
import { ADMIN_TOKEN, cpuTicks, fmt, log, percentile, printTable, sortedCopy, startService, stealPercent, stop, verdict, type Child } from './lib'
import { cpuSeconds, SEAT_ACCOUNT, seatedCalls } from './seat-calls'

const { values } = parseArgs({ options: { calls: { type: 'string', default: '100' }, seconds: { type: 'string', default: '10' }, warmup: { type: 'string', default: '3' } } })
const CALLS = Number(values.calls)
const SECONDS = Number(values.seconds)
const WARMUP = Number(values.warmup)
/** Steal (% of the machine's CPU taken by the hypervisor) above which a window's p99 says more about the host than the service. */
const STEAL_LIMIT = 3
const FRAME_MS = 20
const FRAME_BYTES = 160
const { sid: SID, token: TOKEN, caller: CALLER } = SEAT_ACCOUNT
const API_KEY = 'sk-bench-realtime-0123456789'
const MODEL = 'gpt-realtime'
const phoneOf = (index: number) => `+1212555${String(3000 + index).padStart(4, '0')}`

/**
 * Frame `seq` of call `index`, lead to model: quiet μ-law (0xf0-0xff decode to |x| <= 120, far
 * under the emulator's speech gate, so its VAD never fires) with the call and the sequence
 * written in the low nibbles of the first 8 bytes.
 */
function leadFrame(index: number, seq: number): Uint8Array {
  const bytes = new Uint8Array(FRAME_BYTES).fill(0xff)
  const id = index * 0x100000 + seq
  for (let n = 0; n < 8; n++) bytes[n] = 0xf0 | (Math.floor(id / 16 ** n) % 16)
  return bytes
}
function readFrameId(bytes: Uint8Array): { index: number; seq: number } | null {
  if (bytes.length !== FRAME_BYTES) return null
  let id = 0
  for (let n = 7; n >= 0; n--) id = id * 16 + (bytes[n]! & 0x0f)
  return { index: Math.floor(id / 0x100000), seq: id % 0x100000 }
}
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')

/** One call as both runs see it. */
class Call {
  /** Lead -> model: when each frame left, the latencies of those that arrived in order. */
  sentAt: number[] = []
  inLatencies: number[] = []
  inReceived = 0
  inBad = 0
  /** Model -> lead: the deltas the emulator sent (bytes and when), and how far the carrier has read. */
  emitted: { at: number; bytes: Uint8Array }[] = []
  outLatencies: number[] = []
  outOffset = 0
  outBad = 0
  carrier: WebSocket | null = null
  streamSid = ''
  /** Its Realtime session has been asked for (session.update reached the emulator). */
  sessionOpen = false
  constructor(readonly index: number, readonly callId: string, readonly callSid: string, readonly token: string | null) {}

  get emittedBytes(): number {
    return this.emitted.reduce((n, d) => n + d.bytes.length, 0)
  }

  /** Where the carrier has read up to: the delta and the byte in it. */
  private cursor = { delta: 0, byte: 0 }

  /** A `media` payload reached the lead: its bytes must be the next ones the model sent (the latency is its last byte's). */
  heard(payload: Uint8Array): void {
    const now = performance.now()
    let at = -1
    for (const byte of payload) {
      const delta = this.emitted[this.cursor.delta]
      if (!delta) {
        this.outBad++
        break
      }
      if (delta.bytes[this.cursor.byte] !== byte) this.outBad++
      at = delta.at
      if (++this.cursor.byte >= delta.bytes.length) this.cursor = { delta: this.cursor.delta + 1, byte: 0 }
    }
    this.outOffset += payload.length
    if (at >= 0) this.outLatencies.push(now - at)
  }
}

/** Calls by the phone their instructions name (the lead's, rendered by the service; the direct run writes it). */
const byPhone = new Map<string, Call>()
const bySession = new WeakMap<RealtimeSession, Call>()

// The emulator's own code, stamped: what each session received (appends) and sent (audio deltas), on this process's clock.
const handle = RealtimeSession.prototype.handle
RealtimeSession.prototype.handle = function (this: RealtimeSession, text: string): void {
  const now = performance.now()
  if (text.includes('"input_audio_buffer.append"')) {
    const call = bySession.get(this)
    const audio = /"audio":"([^"]*)"/.exec(text)?.[1]
    const id = audio ? readFrameId(new Uint8Array(Buffer.from(audio, 'base64'))) : null
    if (call && id && id.index === call.index && id.seq === call.inReceived && id.seq < call.sentAt.length) call.inLatencies.push(now - call.sentAt[id.seq]!)
    else if (call) call.inBad++
    if (call) call.inReceived++
  } else if (text.includes('"session.update"')) {
    const phone = /\+1212555\d{4}/.exec(text)?.[0]
    const call = phone ? byPhone.get(phone) : undefined
    if (call) {
      bySession.set(this, call)
      call.sessionOpen = true
    }
  }
  handle.call(this, text)
}
const emit = RealtimeSession.prototype.emit
RealtimeSession.prototype.emit = function (this: RealtimeSession, event: Record<string, unknown>): void {
  if (event.type === 'response.output_audio.delta' && !this.closed) bySession.get(this)?.emitted.push({ at: performance.now(), bytes: new Uint8Array(Buffer.from(String(event.delta), 'base64')) })
  emit.call(this, event)
}

const startFrame = (call: Call, streamSid: string, custom: Record<string, string>) => JSON.stringify({
  event: 'start', sequenceNumber: '1', streamSid,
  start: { accountSid: SID, streamSid, callSid: call.callSid, tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 }, customParameters: custom },
})

/**
 * Relayed: this process is Twilio, the service's relay and its Realtime agent are in between.
 * Streams open 25 at a time (one address may hold only 50 sockets before their `start`; Twilio
 * connects from many).
 */
async function openRelayed(calls: Call[], url: string): Promise<void> {
  for (let i = 0; i < calls.length; i += 25) {
    const batch = calls.slice(i, i + 25)
    await openStreams(batch, url)
    const deadline = performance.now() + 10_000
    while (batch.some((c) => !c.sessionOpen)) {
      if (performance.now() > deadline) throw new Error(`${batch.filter((c) => !c.sessionOpen).length} streams never reached the Realtime emulator`)
      await Bun.sleep(5)
    }
  }
}

async function openStreams(calls: Call[], url: string): Promise<void> {
  await Promise.all(calls.map((call) => new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(url)
    call.carrier = ws
    call.streamSid = `MZ${String(call.index).padStart(32, '0')}`
    ws.onopen = () => {
      ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }))
      ws.send(startFrame(call, call.streamSid, { dialer_stream_token: call.token! }))
      resolve()
    }
    ws.onmessage = (event) => {
      const frame = JSON.parse(String(event.data))
      if (frame.event === 'media') call.heard(new Uint8Array(Buffer.from(frame.media.payload, 'base64')))
      // Played at once: the mark comes straight back, as Twilio's does once the audio before it has played.
      else if (frame.event === 'mark') ws.send(JSON.stringify({ event: 'mark', sequenceNumber: '0', streamSid: call.streamSid, mark: { name: frame.mark.name } }))
    }
    ws.onerror = () => reject(new Error(`call ${call.index}: stream socket failed`))
  })))
}

/** Direct: the same frames as Realtime client events straight to the emulator, the session the agent asks for. */
async function openDirect(calls: Call[], url: string): Promise<void> {
  await Promise.all(calls.map((call) => new Promise<void>((resolve, reject) => {
    const ws = new WebSocket(`${url}?model=${MODEL}`, { headers: { Authorization: `Bearer ${API_KEY}` } } as never)
    call.carrier = ws
    ws.onopen = () => {
      const agent = { kind: 'openai_realtime' as const, baseUrl: url, model: MODEL, voice: 'marin', instructions: `[script:bench] Calling ${phoneOf(call.index)}.`, apiKey: API_KEY, firstAudioMs: 5000 }
      ws.send(JSON.stringify(sessionUpdate(agent)))
      ws.send(JSON.stringify({ type: 'response.create' }))
      resolve()
    }
    ws.onmessage = (event) => {
      const text = String(event.data)
      if (!text.includes('"response.output_audio.delta"')) return
      call.heard(new Uint8Array(Buffer.from(JSON.parse(text).delta, 'base64')))
    }
    ws.onerror = () => reject(new Error(`call ${call.index}: Realtime socket failed`))
  })))
}

/** Every call sends a frame every 20 ms (staggered), for `seconds`, once the model has started talking on each. */
async function talkFor(calls: Call[], seconds: number, frameOf: (call: Call, bytes: Uint8Array, seq: number) => string): Promise<void> {
  const deadline = performance.now() + 15_000
  while (calls.some((c) => c.emitted.length === 0)) {
    if (performance.now() > deadline) throw new Error(`${calls.filter((c) => c.emitted.length === 0).length} calls never heard the model (${calls[0]?.token ? "relayed" : "direct"} run)`)
    await Bun.sleep(5)
  }
  const t0 = performance.now()
  const due = calls.map((c) => t0 + (c.index % FRAME_MS))
  const end = t0 + seconds * 1000
  while (performance.now() < end) {
    const now = performance.now()
    for (const call of calls) {
      while (due[call.index]! <= now) {
        const seq = call.sentAt.length
        call.sentAt.push(performance.now())
        call.carrier!.send(frameOf(call, leadFrame(call.index, seq), seq))
        due[call.index]! += FRAME_MS
      }
    }
    await Bun.sleep(1)
  }
  await Bun.sleep(500)
}

const carrierMedia = (call: Call, bytes: Uint8Array, seq: number) => JSON.stringify({
  event: 'media', sequenceNumber: String(seq + 3), streamSid: call.streamSid,
  media: { track: 'inbound', chunk: String(seq + 1), timestamp: String(seq * FRAME_MS), payload: b64(bytes) },
})
/** The warm-up: frames both ways for WARMUP s; its latencies are set aside (returned) and the measured window starts empty. */
async function warmUp(calls: Call[], frameOf: (call: Call, bytes: Uint8Array, seq: number) => string): Promise<Float64Array> {
  if (WARMUP <= 0) return new Float64Array()
  await talkFor(calls, WARMUP, frameOf)
  const latencies = sortedCopy(calls.flatMap((c) => [...c.inLatencies, ...c.outLatencies]))
  for (const call of calls) {
    call.inLatencies = []
    call.outLatencies = []
  }
  return latencies
}

const appendEvent = (_: Call, bytes: Uint8Array) => JSON.stringify({ type: 'input_audio_buffer.append', audio: b64(bytes) })

function figures(calls: Call[]) {
  const inbound = sortedCopy(calls.flatMap((c) => c.inLatencies))
  const outbound = sortedCopy(calls.flatMap((c) => c.outLatencies))
  const all = sortedCopy([...inbound, ...outbound])
  const sent = calls.reduce((n, c) => n + c.sentAt.length, 0)
  const lostIn = sent - calls.reduce((n, c) => n + c.inReceived, 0)
  // Audio the model sent that never reached the lead, at most what was in flight at the end.
  const unheard = calls.reduce((n, c) => n + (c.emittedBytes - c.outOffset), 0)
  const bad = calls.reduce((n, c) => n + c.inBad + c.outBad, 0)
  return { all, inbound, outbound, sent, lostIn, unheard, bad, deltas: calls.reduce((n, c) => n + c.emitted.length, 0) }
}

const work = mkdtempSync(join(tmpdir(), 'dialer-bench-realtime-'))
const emulator = TwilioEmulator.start({ accounts: [{ sid: SID, authToken: TOKEN, callerIds: [CALLER] }], speed: 0.001 })
// One reply longer than the run, in 20 ms deltas at real time, as a model streams its speech.
const realtime = await RealtimeEmulator.start({
  apiKey: API_KEY, deltaMs: FRAME_MS, pace: 1,
  scripts: { bench: { turns: [{ say: 'Hello, this is the benchmark talking for a while.', audioMs: (SECONDS + WARMUP + 20) * 1000 }] } },
})
let service: { proc: Child; base: string } | null = null
let exitCode = 0
try {
  log(`Built-in Realtime agent benchmark, Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs; ${CALLS} calls, ${WARMUP} s of warm-up then ${SECONDS} s measured, 20 ms frames each way`)
  process.env.DIALER_FAKE_CLOCK = '1'
  service = await startService({ dataDir: join(work, 'data'), logFile: join(work, 'service.log') })
  delete process.env.DIALER_FAKE_CLOCK
  const relayed = (await seatedCalls({
    base: service.base, emulator, name: 'Realtime bench', count: CALLS, phoneOf,
    aiAgent: {
      kind: 'openai_realtime', model: MODEL, voice: 'marin', instructions: '[script:bench] Calling {{lead.phone}}.', api_key: API_KEY, base_url: realtime.url,
      first_audio_ms: 5000, disclosure: { say: 'This is an AI assistant calling for Realtime bench.' },
    },
  })).map((c) => new Call(Number(c.to.slice(-4)) - 3000, c.callId, c.callSid, c.token))
  relayed.sort((a, b) => a.index - b.index)

  const direct = relayed.map((c) => new Call(c.index, `direct-${c.index}`, c.callSid, null))
  for (const call of direct) byPhone.set(phoneOf(call.index), call)
  await openDirect(direct, realtime.url)
  const directWarm = await warmUp(direct, appendEvent)
  const directTicks = cpuTicks()
  await talkFor(direct, SECONDS, appendEvent)
  const directSteal = stealPercent(directTicks, cpuTicks())
  const d = figures(direct)
  for (const call of direct) call.carrier?.close()
  await Bun.sleep(300)

  for (const call of relayed) byPhone.set(phoneOf(call.index), call)
  await openRelayed(relayed, `${service.base.replace('http', 'ws')}/twilio/streams`)
  const relayedWarm = await warmUp(relayed, carrierMedia)
  const cpu0 = cpuSeconds(service.proc.pid)
  const relayedTicks = cpuTicks()
  await talkFor(relayed, SECONDS, carrierMedia)
  const relayedSteal = stealPercent(relayedTicks, cpuTicks())
  const cpu = cpuSeconds(service.proc.pid) - cpu0
  const r = figures(relayed)
  const metrics = await (await fetch(`${service.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text()
  for (const call of relayed) {
    call.carrier?.send(JSON.stringify({ event: 'stop', streamSid: call.streamSid, stop: { accountSid: SID, callSid: call.callSid } }))
    call.carrier?.close()
  }
  await Bun.sleep(300)

  const ms = (sorted: Float64Array, p: number) => percentile(sorted, p).toFixed(2)
  // Audio still in flight at the end (at most a second a call) is not lost.
  const inFlight = CALLS * 8000
  const clean = (f: ReturnType<typeof figures>) => f.bad === 0 && f.lostIn <= CALLS * 30 && f.unheard <= inFlight
  const row = (name: string, f: ReturnType<typeof figures>) => [
    name, `p50 ${ms(f.all, 0.5)} / p99 ${ms(f.all, 0.99)} / max ${ms(f.all, 1)}`,
    `p99 ${ms(f.inbound, 0.99)}`, `p99 ${ms(f.outbound, 0.99)}`,
    `${fmt(f.sent)} frames and ${fmt(f.deltas)} deltas; ${f.bad} changed or out of order`,
  ]
  const added = percentile(r.all, 0.99) - percentile(d.all, 0.99)
  const stolen = Math.max(directSteal, relayedSteal)
  const judged = stolen <= STEAL_LIMIT ? `(target < 5 ms) ${verdict(added < 5)}` : `inconclusive: the hypervisor took ${stolen.toFixed(1)}% of the CPU (over ${STEAL_LIMIT}%), run again`
  log('')
  printTable([
    ['run (ms from sent to received, one clock)', 'both ways', 'lead -> model', 'model -> lead', 'audio'],
    row('direct: sender <-> Realtime emulator (reference)', d),
    row("through the service's relay and Realtime agent", r),
    [`warm-up, first ${WARMUP} s (not judged)`, `direct p99 ${ms(directWarm, 0.99)} / max ${ms(directWarm, 1)}`, `relayed p99 ${ms(relayedWarm, 0.99)} / max ${ms(relayedWarm, 1)}`, '', ''],
    ['added by the service at p99', `${added.toFixed(2)} ms ${judged}`, '', '', `nothing lost, changed or reordered: ${verdict(clean(d) && clean(r))}`],
  ])
  const open = /^dialer_seats_open (\d+)/m.exec(metrics)?.[1]
  const relayedSet = new Set(relayed)
  const sessions = realtime.sessions.filter((s) => s.authorized && relayedSet.has(bySession.get(s)!)).length
  const problems = realtime.sessions.flatMap((s) => s.problems)
  log(`service: dialer_seats_open ${open} during the run; ${sessions} Realtime sessions opened by the service; protocol problems the emulator saw: ${problems.length ? [...new Set(problems)].join('; ') : 'none'}; CPU ${cpu.toFixed(2)} s for ${SECONDS} s (${((cpu / (r.sent + r.deltas)) * 1e6).toFixed(1)} µs a frame or delta); steal ${directSteal.toFixed(1)}% (direct) and ${relayedSteal.toFixed(1)}% (relayed)`)
  if (!clean(r) || !clean(d) || added >= 5 || stolen > STEAL_LIMIT || open !== String(CALLS) || sessions !== CALLS || problems.length > 0) exitCode = 1
} catch (error) {
  console.error(error)
  exitCode = 1
} finally {
  if (service) await stop(service.proc)
  await emulator.stop()
  await realtime.stop()
  rmSync(work, { recursive: true, force: true })
}
process.exit(exitCode)
