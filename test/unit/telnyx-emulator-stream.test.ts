import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Server, ServerWebSocket } from 'bun'
import { leadFrame } from '../emulators/twilio/emulator-stream-audio'
import { ACCOUNT, telnyxStandIn, texmlOf } from '../emulators/telnyx/stand-in'

setDefaultTimeout(60_000)

/**
 * The Telnyx emulator's <Connect><Stream> (developers.telnyx.com/docs/voice/programmable-voice/texml-verbs/stream,
 * …/api-reference/websockets/stream-call-media-over-websocket): snake_case frames, the
 * <Parameter>s in start.custom_parameters, mp3 mode unless bidirectionalMode="rtp", media frames
 * out of order when asked; and its conferences through the TeXML REST paths.
 */

interface Conn {
  ws: ServerWebSocket<{ name: string }>
  texts: string[]
}
type Msg = Record<string, any>

const conns = new Map<string, Conn>()
const server: Server<{ name: string }> = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch: (req, srv) => (srv.upgrade(req, { data: { name: new URL(req.url).pathname.slice(1) } }) ? undefined : new Response('no', { status: 400 })),
  websocket: {
    open: (ws) => void conns.set(ws.data.name, { ws, texts: [] }),
    message: (ws, data) => void conns.get(ws.data.name)!.texts.push(String(data)),
  },
})
const wsUrl = (name: string) => `ws://127.0.0.1:${server.port}/${name}`
const s = telnyxStandIn(20)
const shuffled = telnyxStandIn(20, { reorderMedia: 5, shuffle: { seed: 3 } })
afterAll(async () => {
  await s.stop()
  await shuffled.stop()
  await server.stop(true)
})

const parsed = (c: Conn): Msg[] => c.texts.map((t) => JSON.parse(t) as Msg)
const stream = (name: string, attrs: string) => `<Connect><Stream url="${wsUrl(name)}" ${attrs}><Parameter name="dialer_stream_token" value="tok-${name}"/></Stream></Connect>`
const conn = async (name: string, on = s): Promise<Conn> => {
  await on.until(() => conns.has(name) && conns.get(name)!.texts.length >= 2)
  return conns.get(name)!
}
const ulaw = leadFrame(3, true)

describe('media stream', () => {
  test("Telnyx's frames: connected, start with call_control_id and custom_parameters, media in snake_case; rtp mode plays μ-law", async () => {
    s.answer('rtp', texmlOf(stream('rtp', 'bidirectionalMode="rtp" bidirectionalCodec="PCMU"')))
    const sid = await s.place('+12125554000', '/calls/rtp/rtp')
    const c = await conn('rtp')
    await s.until(() => c.texts.length > 10)
    const [connected, start, media] = parsed(c)
    expect(connected).toEqual({ event: 'connected', version: '1.0.0' })
    const record = s.emulator.stream(sid)!
    expect(record.streamSid).toMatch(/^[0-9A-F-]{36}$/)
    expect(start).toMatchObject({
      event: 'start', sequence_number: '1', stream_id: record.streamSid,
      start: { user_id: ACCOUNT.accountSid, call_control_id: sid, custom_parameters: { dialer_stream_token: 'tok-rtp' }, media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 } },
    })
    expect(media).toMatchObject({ event: 'media', sequence_number: '2', stream_id: record.streamSid, media: { track: 'inbound', chunk: '1', timestamp: '0' } })
    expect(media!.streamSid).toBeUndefined()
    // Back to Telnyx without a stream_id (as pipecat sends), and a mark.
    c.ws.send(JSON.stringify({ event: 'media', media: { payload: ulaw } }))
    c.ws.send(JSON.stringify({ event: 'mark', mark: { name: 'm1' } }))
    c.ws.send(JSON.stringify({ event: 'media', stream_id: 'another', media: { payload: ulaw } }))
    await s.until(() => record.marks.length === 1)
    expect(record.receivedPayloads).toEqual([ulaw])
    expect(record.errors.map((e) => e.message)).toEqual(['Stream - WebSocket - Protocol Error: another stream_id'])
    await s.until(() => parsed(c).some((m) => m.event === 'mark'))
    const echoed = parsed(c).find((m) => m.event === 'mark')
    expect(echoed).toMatchObject({ event: 'mark', stream_id: record.streamSid, mark: { name: 'm1' } })
    await s.rest('POST', `Calls/${encodeURIComponent(sid)}`, { Status: 'completed' })
    await s.emulator.settled(sid)
    await s.until(() => parsed(c).some((m) => m.event === 'stop'))
    expect(parsed(c).find((m) => m.event === 'stop')).toMatchObject({ stream_id: record.streamSid, stop: { call_control_id: sid } })
  })

  test('without bidirectionalMode="rtp" the stream is mp3-mode: μ-law sent back is refused, not played', async () => {
    s.answer('mp3', texmlOf(stream('mp3', '')))
    const sid = await s.place('+12125554000', '/calls/mp3/mp3')
    const c = await conn('mp3')
    c.ws.send(JSON.stringify({ event: 'media', media: { payload: ulaw } }))
    const record = s.emulator.stream(sid)!
    await s.until(() => record.errors.length === 1)
    expect(record.receivedPayloads).toEqual([])
    expect(record.playedBytes).toBe(0)
    await s.rest('POST', `Calls/${encodeURIComponent(sid)}`, { Status: 'completed' })
    await s.emulator.settled(sid)
  })

  test('reorderMedia: frames leave out of order, their sequence numbers and chunks put them back', async () => {
    shuffled.answer('shuffled', texmlOf(stream('shuffled', 'bidirectionalMode="rtp"')))
    const sid = await shuffled.place('+12125554000', '/calls/shuffled/shuffled')
    const c = await conn('shuffled', shuffled)
    await shuffled.until(() => parsed(c).filter((m) => m.event === 'media').length >= 40)
    await shuffled.rest('POST', `Calls/${encodeURIComponent(sid)}`, { Status: 'completed' })
    await shuffled.emulator.settled(sid)
    await shuffled.until(() => parsed(c).some((m) => m.event === 'stop'))
    const media = parsed(c).filter((m) => m.event === 'media')
    const chunks = media.map((m) => Number(m.media.chunk))
    expect(chunks).not.toEqual([...chunks].sort((a, b) => a - b))
    const ordered = [...media].sort((a, b) => Number(a.sequence_number) - Number(b.sequence_number)).map((m) => m.media.payload)
    expect(ordered).toEqual(shuffled.emulator.stream(sid)!.sentPayloads.slice(0, ordered.length))
  })
})

describe('conferences', () => {
  test('a room made by <Dial><Conference>, found by FriendlyName, a participant dialed into it by its sid, muted, removed', async () => {
    s.answer('room', texmlOf('<Dial><Conference startConferenceOnEnter="true">seat-1</Conference></Dial>'))
    const seat = await s.place('+12125554011', '/seats/room/room')
    await s.until(() => s.emulator.conference('seat-1')?.status === 'in-progress')
    const list = await s.rest('GET', 'Conferences?FriendlyName=seat-1&Status=in-progress')
    const rooms = list.body.conferences as { sid: string; friendly_name: string }[]
    expect(rooms.map((r) => r.friendly_name)).toEqual(['seat-1'])
    const roomSid = rooms[0]!.sid
    expect(roomSid).toMatch(/^[0-9a-f-]{36}$/)
    expect((await s.rest('POST', 'Conferences/seat-1/Participants', { To: '+12125554012', From: '+13125550100' })).status).toBe(404)
    const added = await s.rest('POST', `Conferences/${roomSid}/Participants`, { To: '+12125554012', From: '+13125550100', Muted: 'true' })
    expect(added.status).toBe(201)
    const callSid = added.body.call_sid as string
    expect(callSid).toMatch(/^v3:/)
    await s.until(() => s.emulator.conference(roomSid)!.participants.some((p) => p.call.sid === callSid && p.status === 'connected'))
    const path = `Conferences/${roomSid}/Participants/${encodeURIComponent(callSid)}`
    expect((await s.rest('GET', path)).body).toMatchObject({ call_sid: callSid, call_sid_legacy: callSid, muted: true, status: 'connected' })
    expect((await s.rest('POST', path, { Muted: 'false' })).body).toMatchObject({ muted: false })
    expect((await s.rest('DELETE', path)).status).toBe(204)
    await s.emulator.settled(callSid)
    await s.rest('POST', `Conferences/${roomSid}`, { Status: 'completed' })
    await s.emulator.settled(seat)
    expect(s.emulator.conference(roomSid)!.status).toBe('completed')
  })
})
