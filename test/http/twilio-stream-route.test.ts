import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Server } from 'bun'
import { createHandler } from '../../src/app'
import { socketHandler } from '../../src/http/websocket-door'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { ADMIN_TOKEN, createHarness, expectError, scratchDir, type Harness } from '../harness'

setDefaultTimeout(60_000)

/**
 * The AI seat's stream route through the whole handler on a real server (the gateway passes the
 * upgrade to the route): a call answered on an AI-seated campaign, its stream opened with the
 * token from the seat's TwiML, relayed to an agent in the test, byte for byte both ways.
 */

const SID = `AC${'d2'.repeat(16)}`
const TOKEN = 'e'.repeat(32)
const CALLER = '+12125550100'
const STREAM_SID = `MZ${'0'.repeat(31)}1`

let cleanup: (() => Promise<void>) | null = null
afterEach(async () => {
  await cleanup?.()
  cleanup = null
})

interface Agent {
  url: string
  got: string[]
  socket: { send(data: string): void } | null
}

async function world() {
  const dir = scratchDir()
  const h: Harness = createHarness({ autoDial: true, env: { DIALER_DATA_DIR: dir.path } })
  const handle = createHandler(h.services).handle
  const server: Server<unknown> = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request, srv) => handle(request, srv), websocket: socketHandler as never })
  const agent: Agent = { url: '', got: [], socket: null }
  const agentServer = Bun.serve<undefined>({
    port: 0, hostname: '127.0.0.1',
    fetch: (request, srv) => (srv.upgrade(request, { data: undefined }) ? undefined : new Response('', { status: 400 })),
    websocket: {
      open: (ws) => void (agent.socket = ws),
      message: (_ws, message) => void agent.got.push(String(message)),
    },
  })
  agent.url = `ws://127.0.0.1:${agentServer.port}/agent`
  // Silent after `initiated`: the test answers the call itself, as Twilio would.
  const emulator = TwilioEmulator.start({ accounts: [{ sid: SID, authToken: TOKEN, callerIds: [CALLER] }], speed: 0.001, fetch: (url, init) => h.app.handle(new Request(url, init)) })
  cleanup = async () => {
    server.stop(true)
    agentServer.stop(true)
    await emulator.stop()
    h.close()
    dir.remove()
  }
  return { h, server, agent, emulator, streams: `ws://127.0.0.1:${server.port}/twilio/streams` }
}

/** A call on an AI-seated campaign, answered: the stream token its TwiML carries and Twilio's CallSid. */
async function answeredSeat(w: Awaited<ReturnType<typeof world>>) {
  const { h, emulator } = w
  const org = await h.admin('POST', '/orgs', {
    name: 'Acme Roofing', plan_requests_per_minute: 100000,
    carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER], api_base_url: emulator.url, machine_detection: false },
  })
  expect(org.status).toBe(201)
  const campaign = await h.admin('POST', `/orgs/${org.body.data.id}/campaigns`, {
    name: 'AI spring', status: 'active', lines: 1, requires_consent: true, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }],
    ai_agent: { url: w.agent.url, parameters: { voice: 'alloy' }, disclosure: { say: 'This is an AI assistant calling for Acme Roofing.' } },
  })
  expect(campaign.status).toBe(201)
  const key = await h.createKey(org.body.data.id, { name: 'live', mode: 'live' })
  const lead = await h.api('POST', '/leads', {
    key, body: { campaign_id: campaign.body.data.id, phone: '+12125552020', name: 'Jordan Lee', consent: { source: 'web_form', agreed_at: '2026-01-01T00:00:00Z', text: 'yes' } },
  })
  expect(lead.status).toBe(201)
  const deadline = Date.now() + 10_000
  while (emulator.calls.size === 0 && Date.now() < deadline) await Bun.sleep(10)
  const create = emulator.received.find((r) => r.method === 'POST' && r.path.endsWith('/Calls.json'))!
  const callSid = [...emulator.calls.values()][0]!.sid
  const url = String(create.params.Url)
  const params = { AccountSid: SID, CallSid: callSid, From: CALLER, To: '+12125552020', CallStatus: 'in-progress', Direction: 'outbound-api', ApiVersion: '2010-04-01' }
  const reply = await h.app.handle(new Request(url, {
    method: 'POST', body: new URLSearchParams(params).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signTwilioRequest(TOKEN, url, params) },
  }))
  const twiml = await reply.text()
  const token = /<Parameter name="dialer_stream_token" value="([^"]+)"/.exec(twiml)?.[1]
  expect(token).toBeString()
  return { token: token!, callSid, callId: token!.split('.')[0]! }
}

/** Twilio's side of a stream: the frames it got, and how it closed. */
function twilioSide(url: string) {
  const ws = new WebSocket(url)
  const side = { ws, got: [] as string[], closed: null as number | null, opened: new Promise<void>((resolve) => (ws.onopen = () => resolve())) }
  ws.onmessage = (event) => void side.got.push(String(event.data))
  ws.onclose = (event) => void (side.closed = event.code)
  return side
}

const start = (token: string | null, callSid: string) => JSON.stringify({
  event: 'start', sequenceNumber: '1', streamSid: STREAM_SID,
  start: { accountSid: SID, streamSid: STREAM_SID, callSid, tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 }, customParameters: token ? { dialer_stream_token: token } : {} },
})
const media = (n: number, track = true) => JSON.stringify(track
  ? { event: 'media', sequenceNumber: String(n + 2), streamSid: STREAM_SID, media: { track: 'inbound', chunk: String(n + 1), timestamp: String(n * 20), payload: Buffer.alloc(160, n).toString('base64') } }
  : { event: 'media', streamSid: STREAM_SID, media: { payload: Buffer.alloc(160, 255 - n).toString('base64') } })

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await Bun.sleep(5)
  }
}

const metricsOf = async (w: Awaited<ReturnType<typeof world>>) => (await w.h.call('GET', '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text

describe('GET /twilio/streams', () => {
  test('without an upgrade: 400 in the error envelope', async () => {
    const w = await world()
    expectError(await w.h.call('GET', '/twilio/streams'), 400, 'invalid_request')
    const plain = await fetch(w.streams.replace('ws:', 'http:'))
    expect(plain.status).toBe(400)
    expect(((await plain.json()) as any).error.code).toBe('invalid_request')
  })

  test('a stream whose token is missing or forged is closed at once and counted; nothing reaches an agent', async () => {
    const w = await world()
    const { callSid, token } = await answeredSeat(w)
    for (const forged of [null, `${token.slice(0, -2)}xx`]) {
      const side = twilioSide(w.streams)
      await side.opened
      side.ws.send(start(forged, callSid))
      await until(() => side.closed !== null)
    }
    expect(w.agent.socket).toBeNull()
    expect(await metricsOf(w)).toContain('dialer_seat_frames_dropped_total{reason="refused_stream"} 2')
  })

  test('an admitted stream is relayed to the agent and back byte for byte, in order; a decision ends it after the end mark', async () => {
    const w = await world()
    const { callSid, token, callId } = await answeredSeat(w)
    const side = twilioSide(w.streams)
    await side.opened
    side.ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }))
    side.ws.send(start(token, callSid))
    const upstream = Array.from({ length: 50 }, (_, n) => media(n))
    for (const frame of upstream) side.ws.send(frame)
    await until(() => w.agent.got.length === 52)
    expect(w.agent.got.slice(2)).toEqual(upstream)
    const agentStart = JSON.parse(w.agent.got[1]!)
    expect(agentStart.start.callSid).toBe(callSid)
    expect(agentStart.start.customParameters).toMatchObject({ voice: 'alloy', dialer_call_id: callId, lead_name: 'Jordan Lee', campaign_name: 'AI spring' })
    expect(agentStart.start.customParameters.dialer_stream_token).toBeUndefined()
    expect(await metricsOf(w)).toContain('dialer_seats_open 1')

    const downstream = Array.from({ length: 50 }, (_, n) => media(n, false))
    for (const frame of downstream) w.agent.socket!.send(frame)
    await until(() => side.got.length === 50)
    expect(side.got).toEqual(downstream)

    w.agent.socket!.send(JSON.stringify({ event: 'dialer.end', outcome: 'not_interested', note: 'Has a roofer.' }))
    await until(() => side.got.length === 51)
    expect(JSON.parse(side.got[50]!)).toEqual({ event: 'mark', streamSid: STREAM_SID, mark: { name: 'dialer-end' } })
    expect(side.closed).toBeNull()
    side.ws.send(JSON.stringify({ event: 'mark', streamSid: STREAM_SID, sequenceNumber: '60', mark: { name: 'dialer-end' } }))
    await until(() => side.closed !== null)
    const metrics = await metricsOf(w)
    expect(metrics).toContain('dialer_seats_open 0')
    expect(metrics).toContain('dialer_seat_controls_total{event="dialer.end",applied="true"} 1')
  })

  test('a frame over 64 KB closes the socket', async () => {
    const w = await world()
    const side = twilioSide(w.streams)
    await side.opened
    side.ws.send('x'.repeat(64 * 1024 + 1))
    await until(() => side.closed !== null)
    expect(side.closed).toBe(1009)
  })
})
