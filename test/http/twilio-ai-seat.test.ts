import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Server } from 'bun'
import { startReferenceAgent, type ReferenceAgent } from '../../scripts/reference-agent'
import { createGateway } from '../../src/http/gateway'
import { socketHandler } from '../../src/http/websocket-door'
import { mintStreamToken, streamTokenKey } from '../../src/telephony/media-stream/stream-token'
import { takebackText } from '../../src/telephony/twilio/ai-seat-steps'
import { OPTED_OUT_MESSAGE } from '../../src/telephony/twilio/conference-steps'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { createHarness, scratchDir, type Harness, type TestKey } from '../harness'

setDefaultTimeout(60_000)

/**
 * The Twilio carrier seats calls, through the whole handler: the service in process behind a
 * real Bun server (the stream is a WebSocket), the Twilio emulator running <Connect><Stream>
 * (test/emulators/twilio/emulator-stream.ts) and the reference agent (scripts/reference-agent.ts).
 * What the lead hears, what the agent is told and how each call ends.
 */

const SID = `AC${'c3'.repeat(16)}`
const TOKEN = 'e'.repeat(32)
const CALLER = '+12125550100'
const SECRET_KEY = '7a'.repeat(32)
const DISCLOSURE = 'Hi, this is an automated assistant calling for Acme Roofing.'
const CONSENT = { source: 'web_form', agreed_at: '2026-01-01T12:00:00Z', text: 'Yes, call me, also with an automated voice.' }
const lead = (nn: string) => `+1212555${'31'}${nn}`

interface World { h: Harness; emulator: TwilioEmulator; agent: ReferenceAgent; server: Server<unknown>; orgId: string; live: TestKey; close: () => Promise<void> }
let world: World | null = null
afterEach(async () => {
  await world?.close()
  world = null
})

async function setup(): Promise<World> {
  const dir = scratchDir()
  let handle: ReturnType<typeof createGateway> | null = null
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request, srv) => handle!(request, srv), websocket: socketHandler as never })
  const h = createHarness({ autoDial: true, env: { DIALER_DATA_DIR: dir.path, DIALER_PUBLIC_URL: `http://127.0.0.1:${server.port}`, DIALER_SECRET_KEY: SECRET_KEY } })
  handle = createGateway(h.services, h.routes)
  const agent = await startReferenceAgent()
  // Speed 10: streams send 50 frames an emulated second.
  const emulator = TwilioEmulator.start({ accounts: [{ sid: SID, authToken: TOKEN, callerIds: [CALLER] }], speed: 10, fetch: (url, init) => h.app.handle(new Request(url, init)) })
  const org = await h.admin('POST', '/orgs', {
    name: 'Acme Roofing', plan_requests_per_minute: 100000, recording_enabled: false,
    carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER], api_base_url: emulator.url, machine_detection: false },
  })
  expect(org.status).toBe(201)
  const orgId = org.body.data.id
  const live = await h.createKey(orgId, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  const w: World = {
    h, emulator, agent, server, orgId, live,
    close: async () => {
      await emulator.stop()
      await agent.stop()
      h.close()
      await server.stop(true)
      dir.remove()
    },
  }
  world = w
  return w
}

let campaigns = 0
async function aiCall(w: World, phone: string, parameters: Record<string, string>, firstAudioMs = 1000): Promise<{ leadId: string; campaignId: string }> {
  const created = await w.h.admin('POST', `/orgs/${w.orgId}/campaigns`, {
    name: `Roof quotes ${++campaigns}`, status: 'active', lines: 1, requires_consent: true,
    sdrs: [{ name: 'Ada Accepts', phone: '+13125550811' }],
    ai_agent: { kind: 'stream', url: w.agent.url, parameters, first_audio_ms: firstAudioMs, disclosure: { say: DISCLOSURE } },
  })
  expect(created.status).toBe(201)
  const campaignId = created.body.data.id
  const r = await w.h.api('POST', '/leads', { key: w.live, body: { campaign_id: campaignId, phone, name: 'Jordan Lee', consent: CONSENT } })
  expect(r.status).toBe(201)
  return { leadId: r.body.data.id, campaignId }
}

async function until<T>(what: () => T | undefined | null | false, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = what()
    if (value) return value
    if (Date.now() > deadline) throw new Error('timed out')
    await Bun.sleep(20)
  }
}

async function endedCall(w: World, leadId: string): Promise<any> {
  const deadline = Date.now() + 25_000
  for (;;) {
    const r = await w.h.api('GET', `/calls?lead_id=${leadId}&limit=5`, { key: w.live })
    const call = r.body.data?.[0]
    if (call?.status === 'ended' && call.outcome !== null) return call
    if (Date.now() > deadline) throw new Error(`call not done: ${JSON.stringify(call)}`)
    await Bun.sleep(30)
  }
}

const eventsOf = (w: World, id: string): any[] => w.h.services.stores.events.forObject(id).map((row) => JSON.parse(row.body))
const spokenOf = (w: World, sid: string): string[] => w.emulator.calls.get(sid)?.spoken?.map((s) => s.text) ?? []

describe('a person answers an AI-seated call', () => {
  test('the disclosure, then the stream: the agent gets the campaign parameters and the service\'s names (never the token); its end closes the call', async () => {
    const w = await setup()
    const { leadId, campaignId } = await aiCall(w, lead('01'), { behaviour: 'end', outcome: 'not_interested', note: 'Has a roofer.', after_ms: '600' })
    const call = await endedCall(w, leadId)
    expect(call).toMatchObject({ outcome: 'not_interested', note: 'Has a roofer.' })
    const agentCall = w.agent.call(call.id)!
    expect(agentCall.parameters).toEqual({
      behaviour: 'end', outcome: 'not_interested', note: 'Has a roofer.', after_ms: '600',
      dialer_call_id: call.id, dialer_lead_id: leadId, lead_name: 'Jordan Lee', campaign_name: expect.stringMatching(/^Roof quotes/),
    })
    const sid = agentCall.callSid!
    const stream = w.emulator.stream(sid)!
    expect(stream.url).toBe(`ws://127.0.0.1:${w.server.port}/twilio/streams`)
    expect(Object.keys(stream.parameters)).toEqual(['dialer_stream_token'])
    expect(stream.closedBy).toBe('server')
    // The disclosure was said before the stream; nothing after it (the end hangs up).
    expect(spokenOf(w, sid)).toEqual([DISCLOSURE])
    const admin = await w.h.admin('GET', `/calls/${call.id}`)
    expect(admin.body.data).toMatchObject({ ai_seated: true })
    expect(admin.body.data.ai_first_audio_ms).toBeGreaterThanOrEqual(0)
    void campaignId
  })

  test('a silent agent: the takeback message with the organization\'s name, a callback two hours later', async () => {
    const w = await setup()
    const { leadId } = await aiCall(w, lead('01'), { behaviour: 'silent' }, 500)
    const call = await endedCall(w, leadId)
    expect(call.outcome).toBe('callback')
    // Two hours after the end (the service's clock is fake: it stands still), within the calling rules.
    expect(Date.parse(call.callback_at) - Date.parse(call.ended)).toBe(2 * 3_600_000)
    expect(call.handled_by).toMatchObject({ id: null, role: 'ai' })
    expect(call.note).toContain('no audio in time')
    const sid = w.agent.call(call.id)!.callSid!
    expect(spokenOf(w, sid)).toEqual([DISCLOSURE, takebackText('Acme Roofing')])
    const admin = await w.h.admin('GET', `/calls/${call.id}`)
    expect(admin.body.data).toMatchObject({ ai_seated: true, ai_first_audio_ms: null })
  })

  test('the lead presses 9 during the seat: never passed to the agent; the confirmation, DNC (source ai)', async () => {
    const w = await setup()
    // Scenario 07 presses 9 two emulated seconds into the stream; the agent would decide much later.
    const { leadId } = await aiCall(w, lead('07'), { behaviour: 'end', after_ms: '20000' })
    const call = await endedCall(w, leadId)
    expect(call.outcome).toBe('dnc')
    const agentCall = w.agent.call(call.id)!
    expect(agentCall.digits).toEqual([])
    expect(spokenOf(w, agentCall.callSid!)).toEqual([DISCLOSURE, OPTED_OUT_MESSAGE])
    const optedOut = eventsOf(w, leadId).find((e) => e.type === 'lead.opted_out')
    expect(optedOut?.data.object.opt_out.source).toBe('ai')
  })

  test('interest: the press-1 bridge, whose briefing reads the AI\'s summary', async () => {
    const w = await setup()
    const { leadId } = await aiCall(w, lead('00'), { behaviour: 'interested', summary: 'Wants a quote this month.', after_ms: '500' })
    const sid = await until(() => w.agent.sessions[0]?.callSid)
    expect(w.agent.sessions[0]!.parameters.dialer_lead_id).toBe(leadId)
    const leg = await until(() => w.emulator.calls.get(sid)?.legs?.find((l) => l.heard.length > 0))
    expect(leg.to).toBe('+13125550811')
    expect(leg.heard.join(' ')).toContain('The assistant says: Wants a quote this month.')
  })
})

describe('streams that are not the call\'s', () => {
  test('a forged token, or one replayed after the call ended: the socket is closed at once and nothing changes', async () => {
    const w = await setup()
    const { leadId } = await aiCall(w, lead('01'), { behaviour: 'end', after_ms: '300' })
    const call = await endedCall(w, leadId)
    const key = streamTokenKey(Buffer.from(SECRET_KEY, 'hex'))
    const replayed = mintStreamToken(key, { callId: call.id, orgId: w.orgId, expiresAt: Date.now() + 3_600_000 * 24 * 365 })
    const sid = w.agent.call(call.id)!.callSid!
    for (const token of ['nonsense', `${replayed.slice(0, -3)}abc`, replayed]) {
      const socket = new WebSocket(`ws://127.0.0.1:${w.server.port}/twilio/streams`)
      const closed = new Promise<void>((resolve) => socket.addEventListener('close', () => resolve()))
      await new Promise((resolve) => socket.addEventListener('open', resolve))
      socket.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }))
      socket.send(JSON.stringify({ event: 'start', sequenceNumber: '1', streamSid: `MZ${'1'.repeat(32)}`, start: { accountSid: SID, streamSid: `MZ${'1'.repeat(32)}`, callSid: sid, tracks: ['inbound'], customParameters: { dialer_stream_token: token }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } } }))
      await closed
    }
    expect(w.agent.sessions.length).toBe(1)
    const after = await w.h.api('GET', `/calls/${call.id}`, { key: w.live })
    expect(after.body.data).toMatchObject({ outcome: call.outcome, status: 'ended' })
  })
})
