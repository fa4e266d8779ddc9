import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { FRAME_BYTES, mulaw, toneFrames } from '../../scripts/reference-agent-audio'
import { DEFAULT_SUMMARY, GREETING_TEXT, type ReferenceAgent, startReferenceAgent, TRANSCRIPT_LINES } from '../../scripts/reference-agent'

setDefaultTimeout(60_000)

/**
 * The reference agent (scripts/reference-agent.ts) as a carrier's stream sees it: Twilio's
 * Media Streams messages in, each behaviour's frames and control messages out.
 */
let agent: ReferenceAgent
beforeAll(async () => {
  agent = await startReferenceAgent()
})
afterAll(() => agent.stop())

interface Peer {
  ws: WebSocket
  got: any[]
  closed: Promise<void>
  send(message: unknown): void
}

async function connect(): Promise<Peer> {
  const ws = new WebSocket(agent.url)
  const got: any[] = []
  ws.onmessage = (e) => got.push(JSON.parse(String(e.data)))
  const closed = new Promise<void>((resolve) => ws.addEventListener('close', () => resolve()))
  await new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error('agent unreachable'))
  })
  return { ws, got, closed, send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)) }
}

let calls = 0
/** connected + start as Twilio sends them, with these customParameters. */
async function started(parameters: Record<string, string>): Promise<Peer & { callId: string; streamSid: string }> {
  const peer = await connect()
  const callId = `call_${++calls}`
  const streamSid = `MZ${String(calls).padStart(32, '0')}`
  peer.send({ event: 'connected', protocol: 'Call', version: '1.0.0' })
  peer.send({
    event: 'start', sequenceNumber: '1', streamSid,
    start: { accountSid: `AC${'0'.repeat(32)}`, streamSid, callSid: `CA${callId}`, tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 }, customParameters: { ...parameters, dialer_call_id: callId } },
  })
  return { ...peer, callId, streamSid }
}

async function until<T>(read: () => T | undefined | false, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = read()
    if (value) return value
    if (Date.now() > deadline) throw new Error('timed out')
    await Bun.sleep(10)
  }
}
const control = (got: any[]) => got.filter((m) => typeof m.event === 'string' && m.event.startsWith('dialer.') && m.event !== 'dialer.transcript')

describe('audio', () => {
  test('μ-law: silence is 0xff, the extremes keep their sign, frames are 160 bytes and differ', () => {
    expect(mulaw(0)).toBe(0xff)
    expect(mulaw(32767)).toBe(0x80)
    expect(mulaw(-32768)).toBe(0x00)
    const frames = toneFrames(3)
    expect(frames.map((f) => Buffer.from(f, 'base64').length)).toEqual([FRAME_BYTES, FRAME_BYTES, FRAME_BYTES])
    expect(new Set(frames).size).toBe(3)
    expect(toneFrames(1, 440, 2)[0]).toBe(frames[2]!)
  })
})

describe('behaviours', () => {
  test('interested: the greeting at once (20 ms frames, then a mark and its transcript line), the decision after after_ms', async () => {
    const peer = await started({ behaviour: 'interested', after_ms: '300', greeting_ms: '200' })
    const t0 = Date.now()
    const decision = await until(() => control(peer.got)[0])
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250)
    const media = peer.got.filter((m) => m.event === 'media')
    expect(media).toHaveLength(10)
    expect(media.every((m) => m.streamSid === peer.streamSid && Buffer.from(m.media.payload, 'base64').length === FRAME_BYTES)).toBe(true)
    expect(peer.got[10]).toEqual({ event: 'mark', streamSid: peer.streamSid, mark: { name: 'greeting' } })
    expect(peer.got[11]).toEqual({ event: 'dialer.transcript', speaker: 'ai', text: GREETING_TEXT })
    expect(decision).toEqual({ event: 'dialer.interested', excerpt: expect.any(String), confidence: 0.9, summary: DEFAULT_SUMMARY })
    // What it sent is kept for assertions, as sent.
    const call = agent.call(peer.callId)!
    expect(call.behaviour).toBe('interested')
    expect(call.spoke).toEqual(media.map((m) => m.media.payload))
    expect(call.sent.map((s) => JSON.parse(s))).toEqual(peer.got)
    peer.ws.close()
  })

  test('callback (in minutes), opt_out and end (outcome, note) send their control message', async () => {
    const before = Date.now()
    const callback = await started({ behaviour: 'callback', after_ms: '50', callback_in_minutes: '90' })
    const optOut = await started({ behaviour: 'opt_out', after_ms: '50' })
    const end = await started({ behaviour: 'end', after_ms: '50', outcome: 'wrong_number', note: 'Not Jordan.', transcript: 'off' })
    const at = Date.parse((await until(() => control(callback.got)[0])).at)
    expect(at - before).toBeGreaterThanOrEqual(90 * 60_000)
    expect(at - before).toBeLessThan(91 * 60_000)
    expect(await until(() => control(optOut.got)[0])).toEqual({ event: 'dialer.opt_out' })
    expect(await until(() => control(end.got)[0])).toEqual({ event: 'dialer.end', outcome: 'wrong_number', note: 'Not Jordan.' })
    expect(end.got.some((m) => m.event === 'dialer.transcript')).toBe(false)
    const fixed = await started({ behaviour: 'callback', after_ms: '10', callback_at: '2031-05-06T15:00:00Z' })
    expect((await until(() => control(fixed.got)[0])).at).toBe('2031-05-06T15:00:00Z')
    for (const p of [callback, optOut, end, fixed]) p.ws.close()
  })

  test('transcript: the greeting line, then its lines in order, then an end', async () => {
    const peer = await started({ behaviour: 'transcript', after_ms: '50' })
    await until(() => control(peer.got)[0])
    const lines = peer.got.filter((m) => m.event === 'dialer.transcript').map((m) => ({ speaker: m.speaker, text: m.text }))
    expect(lines).toEqual([{ speaker: 'ai', text: GREETING_TEXT }, ...TRANSCRIPT_LINES])
    expect(control(peer.got)[0].event).toBe('dialer.end')
    peer.ws.close()
  })

  test('silent sends nothing; echo sends back exactly what it hears, in order', async () => {
    const silent = await started({ behaviour: 'silent', after_ms: '10' })
    const echo = await started({ behaviour: 'echo' })
    const payloads = toneFrames(20, 300)
    payloads.forEach((payload, i) => echo.send({ event: 'media', sequenceNumber: String(i + 2), streamSid: echo.streamSid, media: { track: 'inbound', chunk: String(i + 1), timestamp: String(i * 20), payload } }))
    await until(() => echo.got.length === 20)
    expect(echo.got.map((m) => m.media.payload)).toEqual(payloads)
    expect(agent.call(echo.callId)!.heard).toEqual(payloads)
    await Bun.sleep(200)
    expect(silent.got).toEqual([])
    silent.ws.close()
    echo.ws.close()
  })

  test('drop greets, then closes the socket with no decision', async () => {
    const peer = await started({ behaviour: 'drop', after_ms: '100', greeting_ms: '100' })
    await peer.closed
    expect(peer.got.filter((m) => m.event === 'media')).toHaveLength(5)
    expect(control(peer.got)).toEqual([])
    await until(() => agent.call(peer.callId)!.closedAt !== null)
    expect(agent.call(peer.callId)!.closedBy).toBe('agent')
  })

  test('garbage: not JSON, > 64 KB, bad base64, an unknown event, bad control messages, then a valid end', async () => {
    const peer = await connect()
    const raw: string[] = []
    peer.ws.onmessage = (e) => raw.push(String(e.data))
    peer.send({ event: 'start', streamSid: 'MZg', start: { callSid: 'CAg', streamSid: 'MZg', customParameters: { behaviour: 'garbage', after_ms: '10', transcript: 'off' } } })
    await until(() => raw.some((r) => r.includes('"dialer.end"') && r.includes('not_interested')))
    expect(raw).toContain('this is not JSON')
    expect(raw.some((r) => r.length > 64 * 1024)).toBe(true)
    expect(raw.some((r) => r.includes('not base64'))).toBe(true)
    expect(raw.some((r) => r.includes('"dance"'))).toBe(true)
    expect(raw.some((r) => r.includes('maybe_later'))).toBe(true)
    expect(raw.at(-1)).toContain('"dialer.end"')
    peer.ws.close()
  })

  test('dtmf: it clears what it queued and answers briefly with a mark; marks and digits are recorded', async () => {
    const peer = await started({ behaviour: 'end', after_ms: '5000' })
    await until(() => peer.got.some((m) => m.event === 'mark'))
    peer.send({ event: 'mark', streamSid: peer.streamSid, sequenceNumber: '3', mark: { name: 'greeting' } })
    peer.send({ event: 'dtmf', streamSid: peer.streamSid, sequenceNumber: '4', dtmf: { track: 'inbound_track', digit: '3' } })
    await until(() => peer.got.some((m) => m.event === 'mark' && m.mark.name === 'reply'))
    const i = peer.got.findIndex((m) => m.event === 'clear')
    expect(i).toBeGreaterThan(0)
    expect(peer.got.slice(i + 1, i + 11).every((m) => m.event === 'media')).toBe(true)
    const call = agent.call(peer.callId)!
    expect(call.marks).toEqual(['greeting'])
    expect(call.digits).toEqual(['3'])
    expect((call.received[0] as any).event).toBe('connected')
    peer.ws.close()
  })

  test('a plain GET (no upgrade) is told to use a WebSocket', async () => {
    const r = await fetch(agent.url.replace('ws:', 'http:'))
    expect(r.status).toBe(426)
  })
})
