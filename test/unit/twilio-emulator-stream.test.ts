import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Server, ServerWebSocket } from 'bun'
import { leadFrame } from '../emulators/twilio/emulator-stream-audio'
import { ACCOUNT, standIn, twimlOf } from '../emulators/twilio/stand-in'

setDefaultTimeout(60_000)

/**
 * The emulator's <Connect><Stream> against a small WebSocket server standing in for the service,
 * message by message as twilio.com/docs/voice/media-streams/websocket-messages describes them;
 * the end of a stream as twilio.com/docs/voice/twiml/connect and twilio.com/docs/api/errors/31921 do.
 */

interface Conn {
  ws: ServerWebSocket<{ name: string }>
  texts: string[]
  closed: boolean
}
type Msg = Record<string, any>

const conns = new Map<string, Conn>()
const server: Server<{ name: string }> = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: (req, srv) => (srv.upgrade(req, { data: { name: new URL(req.url).pathname.slice(1) } }) ? undefined : new Response('no', { status: 400 })),
  websocket: {
    open: (ws) => void conns.set(ws.data.name, { ws, texts: [], closed: false }),
    message: (ws, data) => void conns.get(ws.data.name)!.texts.push(String(data)),
    close: (ws) => void (conns.get(ws.data.name)!.closed = true),
  },
})
const wsUrl = (name: string) => `ws://127.0.0.1:${server.port}/${name}`
const s = standIn(20)
afterAll(async () => {
  await s.stop()
  await server.stop(true)
})

const parsed = (c: Conn): Msg[] => c.texts.map((t) => JSON.parse(t) as Msg)
const connect = (name: string, extra = '', action = true) =>
  `<Connect${action ? ` action="${s.base}/calls/${name}/next"` : ''}><Stream url="${wsUrl(name)}"><Parameter name="dialer_stream_token" value="tok-${name}"/><Parameter name="who" value="a &amp; b"/></Stream></Connect>${extra}`
const conn = async (name: string): Promise<Conn> => {
  await s.until(() => conns.has(name) && conns.get(name)!.texts.length >= 2)
  return conns.get(name)!
}

describe('opening and ending a stream', () => {
  test('connected, start with the parameters, media frames in order; the server closing runs the Connect action', async () => {
    s.answer('open', twimlOf(`<Say>Hello.</Say>${connect('open')}<Say>Not reached.</Say>`))
    s.answer('next', twimlOf('<Say>After the stream.</Say><Hangup/>'))
    const sid = await s.place('+12125554000', '/calls/open/open')
    const c = await conn('open')
    await s.until(() => c.texts.length > 30)
    c.ws.close(1000, 'done')
    await s.emulator.settled(sid)
    const [connected, start, ...rest] = parsed(c)
    expect(connected).toEqual({ event: 'connected', protocol: 'Call', version: '1.0.0' })
    const record = s.emulator.stream(sid)!
    expect(record.streamSid).toMatch(/^MZ[0-9a-f]{32}$/)
    expect(start).toEqual({
      event: 'start', sequenceNumber: '1', streamSid: record.streamSid,
      start: {
        accountSid: ACCOUNT.sid, streamSid: record.streamSid, callSid: sid, tracks: ['inbound'],
        customParameters: { dialer_stream_token: 'tok-open', who: 'a & b' }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    })
    const media = rest.filter((m) => m.event === 'media')
    expect(media.length).toBeGreaterThan(28)
    media.forEach((m, i) => {
      expect(m).toEqual({ event: 'media', sequenceNumber: String(i + 2), streamSid: record.streamSid, media: { track: 'inbound', chunk: String(i + 1), timestamp: String(i * 20), payload: leadFrame(i, false) } })
      expect(Buffer.from(m.media.payload, 'base64').length).toBe(160)
    })
    expect(new Set(media.map((m) => m.media.payload)).size).toBe(media.length)
    // Frames sent while the server's close was on its way never arrived: what arrived is what was sent, in order.
    expect(record.sentPayloads.slice(0, media.length)).toEqual(media.map((m) => m.media.payload))
    expect(record.sent.slice(0, c.texts.length)).toEqual(c.texts)
    expect(record).toMatchObject({ closedBy: 'server', closeCode: 1000, url: wsUrl('open'), errors: [] })
    // Twilio resumes only at the action: its TwiML ran, the verb after <Connect> did not.
    const call = s.emulator.calls.get(sid)!
    expect(call.spoken?.map((x) => x.text)).toEqual(['Hello.', 'After the stream.'])
    expect(s.got.filter((g) => g.path === '/calls/open/next' && g.params.CallSid === sid)).toHaveLength(1)
    expect(s.emulator.heardAt(sid)!.firstHeard?.kind).toBe('message')
  })

  test('the lead hanging up sends stop and closes the socket; the action is not requested', async () => {
    s.emulator.script('+12125554101', { hangUpAfter: 4 })
    s.answer('hangup', twimlOf(connect('hangup')))
    const sid = await s.place('+12125554101', '/calls/hangup/hangup')
    const c = await conn('hangup')
    await s.emulator.settled(sid)
    await s.until(() => c.closed)
    const messages = parsed(c)
    const record = s.emulator.stream(sid)!
    expect(messages.at(-1)).toEqual({ event: 'stop', sequenceNumber: String(messages.length - 1), streamSid: record.streamSid, stop: { accountSid: ACCOUNT.sid, callSid: sid } })
    expect(record.closedBy).toBe('twilio')
    expect(s.got.filter((g) => g.path === '/calls/hangup/next')).toEqual([])
    expect(s.emulator.calls.get(sid)!.status).toBe('completed')
  })

  test('a redirect ends the stream (stop, close) and runs the new TwiML, not the action', async () => {
    s.answer('moved', twimlOf(connect('moved')))
    const sid = await s.place('+12125554200', '/calls/moved/moved')
    const c = await conn('moved')
    const r = await s.rest('POST', `Calls/${sid}.json`, { Twiml: twimlOf('<Say>Moved on.</Say><Hangup/>') })
    expect(r.status).toBe(200)
    await s.emulator.settled(sid)
    await s.until(() => c.closed)
    expect(parsed(c).at(-1)!.event).toBe('stop')
    expect(s.emulator.stream(sid)!.closedBy).toBe('twilio')
    expect(s.emulator.calls.get(sid)!.spoken?.map((x) => x.text)).toEqual(['Moved on.'])
    expect(s.got.filter((g) => g.path === '/calls/moved/next')).toEqual([])
  })

  test('a socket that cannot open ends the stream the same way: the action, else the next verb', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('no upgrade', { status: 404 }) })
    const dead = `ws://127.0.0.1:${closed.port}/x`
    s.answer('dead', twimlOf(`<Connect action="${s.base}/calls/dead/next"><Stream url="${dead}"/></Connect>`))
    s.answer('dead-next', twimlOf(`<Connect><Stream url="${dead}"/></Connect><Say>Next verb.</Say><Hangup/>`))
    const [a, b] = await Promise.all([s.place('+12125554300', '/calls/dead/dead'), s.place('+12125554301', '/calls/dead/dead-next')])
    await Promise.all([s.emulator.settled(a), s.emulator.settled(b)])
    await closed.stop(true)
    for (const sid of [a, b]) expect(s.emulator.stream(sid)).toMatchObject({ closedBy: 'unreachable', startedAt: null, sent: [], errors: [{ code: 31920 }] })
    expect(s.got.filter((g) => g.path === '/calls/dead/next' && g.params.CallSid === a)).toHaveLength(1)
    expect(s.emulator.calls.get(a)!.spoken?.map((x) => x.text)).toEqual(['After the stream.'])
    expect(s.emulator.calls.get(b)!.spoken?.map((x) => x.text)).toEqual(['Next verb.'])
  })
})

describe('the lead\u2019s side', () => {
  test('a scripted key is sent as dtmf between the frames at its time; scenario 07 presses 9 two seconds in', async () => {
    s.emulator.script('+12125554400', { streamDigits: [[1, '3']], hangUpAfter: 8 })
    s.answer('keys', twimlOf(connect('keys')))
    const scripted = await s.place('+12125554400', '/calls/keys/keys')
    s.answer('seven', twimlOf(connect('seven')))
    const seven = await s.place('+12125554407', '/calls/seven/seven')
    await Promise.all([s.emulator.settled(scripted), s.emulator.settled(seven)])
    for (const [name, sid, digit, atMs] of [['keys', scripted, '3', 1000], ['seven', seven, '9', 2000]] as const) {
      const messages = parsed(conns.get(name)!)
      const at = messages.findIndex((m) => m.event === 'dtmf')
      expect(messages[at]).toEqual({ event: 'dtmf', streamSid: s.emulator.stream(sid)!.streamSid, sequenceNumber: String(at), dtmf: { track: 'inbound_track', digit } })
      expect(messages[at - 1]!.media.timestamp).toBe(String(atMs - 20))
      expect(messages[at + 1]!.media.timestamp).toBe(String(atMs))
      expect(s.emulator.stream(sid)!.digits).toEqual([digit])
    }
  })

  test('the plan\u2019s line is a speech burst at its time; quiet noise around it', async () => {
    // Scenario 01: answers at 5 s, says its line at 10 s (31 characters: 2.07 s).
    s.emulator.script('+12125554501', { hangUpAfter: 10 })
    s.answer('speech', twimlOf(connect('speech')))
    const sid = await s.place('+12125554501', '/calls/speech/speech')
    await s.emulator.settled(sid)
    const record = s.emulator.stream(sid)!
    const energy = (payload: string) => [...Buffer.from(payload, 'base64')].filter((b) => (b & 0x7f) < 0x60).length
    const at = (i: number) => record.startedAt! + (i * 20) / 1000
    const loud = record.sentPayloads.filter((p, i) => at(i) >= 10.05 && at(i) < 12).map(energy)
    const quiet = record.sentPayloads.filter((p, i) => at(i) < 9.9 || at(i) > 13).map(energy)
    expect(loud.length).toBeGreaterThan(50)
    expect(quiet.length).toBeGreaterThan(50)
    expect(Math.min(...loud)).toBeGreaterThan(40)
    expect(Math.max(...quiet)).toBe(0)
  })
})

describe('what the server sends', () => {
  const frame = (streamSid: string, i: number) => JSON.stringify({ event: 'media', streamSid, media: { payload: leadFrame(1000 + i, true) } })

  test('audio plays in real time: a mark comes back when the audio before it has played', async () => {
    s.emulator.script('+12125554600', { hangUpAfter: 200 })
    s.answer('marks', twimlOf(connect('marks')))
    const sid = await s.place('+12125554600', '/calls/marks/marks')
    const c = await conn('marks')
    const streamSid = s.emulator.stream(sid)!.streamSid
    const sentAt = Date.now()
    for (let i = 0; i < 25; i++) c.ws.send(frame(streamSid, i))
    c.ws.send(JSON.stringify({ event: 'mark', streamSid, mark: { name: 'greeting' } }))
    await s.until(() => parsed(c).some((m) => m.event === 'mark'))
    const waited = Date.now() - sentAt
    // 25 frames of 160 bytes: 500 ms of audio.
    expect(waited).toBeGreaterThanOrEqual(450)
    expect(waited).toBeLessThan(1500)
    const record = s.emulator.stream(sid)!
    expect(parsed(c).find((m) => m.event === 'mark')).toMatchObject({ event: 'mark', streamSid, mark: { name: 'greeting' } })
    expect(record.marks).toEqual(['greeting'])
    expect(record.playedBytes).toBe(25 * 160)
    expect(record.receivedPayloads).toEqual(Array.from({ length: 25 }, (_, i) => leadFrame(1000 + i, true)))
    expect(record.firstAudioMs!).toBeLessThan(500)
    c.ws.close()
    await s.emulator.settled(sid)
  })

  test('clear drops the unplayed audio and echoes the pending marks at once, in order', async () => {
    s.emulator.script('+12125554700', { hangUpAfter: 200 })
    s.answer('clear', twimlOf(connect('clear')))
    const sid = await s.place('+12125554700', '/calls/clear/clear')
    const c = await conn('clear')
    const streamSid = s.emulator.stream(sid)!.streamSid
    for (let i = 0; i < 250; i++) c.ws.send(frame(streamSid, i))
    c.ws.send(JSON.stringify({ event: 'mark', streamSid, mark: { name: 'one' } }))
    c.ws.send(JSON.stringify({ event: 'mark', streamSid, mark: { name: 'two' } }))
    await Bun.sleep(200)
    const sentAt = Date.now()
    c.ws.send(JSON.stringify({ event: 'clear', streamSid }))
    await s.until(() => parsed(c).filter((m) => m.event === 'mark').length === 2)
    // 4.8 s of audio were still queued: the marks did not wait for it.
    expect(Date.now() - sentAt).toBeLessThan(1000)
    const record = s.emulator.stream(sid)!
    expect(record.marks).toEqual(['one', 'two'])
    expect(record.clears).toBe(1)
    // About 200 ms of the 5 s (40,000 bytes) played before the clear; nothing more plays after it.
    const played = record.playedBytes
    expect(played).toBeGreaterThan(1000)
    expect(played).toBeLessThan(20_000)
    await Bun.sleep(100)
    expect(record.playedBytes).toBe(played)
    c.ws.close()
    await s.emulator.settled(sid)
  })

  test('anything but media, mark and clear is refused (31924) and the stream goes on', async () => {
    s.emulator.script('+12125554800', { hangUpAfter: 200 })
    s.answer('bad', twimlOf(connect('bad')))
    const sid = await s.place('+12125554800', '/calls/bad/bad')
    const c = await conn('bad')
    const streamSid = s.emulator.stream(sid)!.streamSid
    const bad = ['not json', JSON.stringify({ event: 'dialer.end', streamSid }), JSON.stringify({ event: 'media', streamSid, media: { payload: '***' } }),
      JSON.stringify({ event: 'media', streamSid: 'MZother', media: { payload: leadFrame(1, true) } }), JSON.stringify({ event: 'mark', streamSid, mark: {} })]
    for (const text of bad) c.ws.send(text)
    c.ws.send(frame(streamSid, 0))
    await s.until(() => s.emulator.stream(sid)!.receivedPayloads.length === 1)
    const record = s.emulator.stream(sid)!
    expect(record.errors.map((e) => e.code)).toEqual([31924, 31924, 31924, 31924, 31924])
    expect(record.errors[1]!.message).toContain('unsupported event dialer.end')
    expect(record.received).toEqual([...bad, frame(streamSid, 0)])
    expect(record.closedBy).toBeNull()
    c.ws.close()
    await s.emulator.settled(sid)
    expect(record.closedBy).toBe('server')
  })
})
