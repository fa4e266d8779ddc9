import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Server } from 'bun'
import { startReferenceAgent, type ReferenceAgent } from '../../scripts/reference-agent'
import { createGateway } from '../../src/http/gateway'
import { socketHandler } from '../../src/http/websocket-door'
import { takebackText } from '../../src/telephony/twilio/ai-seat-steps'
import { TelnyxEmulator } from '../emulators/telnyx/emulator'
import { createHarness, scratchDir, START, type Harness, type TestKey } from '../harness'

setDefaultTimeout(60_000)

/**
 * The AI seat on Telnyx, through the whole handler: the service behind a real Bun server (the
 * stream is a WebSocket), the Telnyx emulator running `<Connect><Stream bidirectionalMode="rtp">`
 * in Telnyx's frames, and the reference agent, which speaks Twilio's Media Streams protocol.
 */

const ACCOUNT = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'
const API_KEY = 'KEY0123456789ABCDEF_test'
const APP = '1773070540731319841'
const CALLER = '+12125550100'
const DISCLOSURE = 'Hi, this is an automated assistant calling for Acme Roofing.'
const CONSENT = { source: 'web_form', agreed_at: '2026-01-01T12:00:00Z', text: 'Yes, call me, also with an automated voice.' }
const lead = (nn: string) => `+1212555${'32'}${nn}`

interface World { h: Harness; emulator: TelnyxEmulator; agent: ReferenceAgent; server: Server<unknown>; orgId: string; live: TestKey; close: () => Promise<void> }
let world: World | null = null
afterEach(async () => {
  await world?.close()
  world = null
})

async function setup(): Promise<World> {
  const dir = scratchDir()
  let handle: ReturnType<typeof createGateway> | null = null
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request, srv) => handle!(request, srv), websocket: socketHandler as never })
  const h = createHarness({ autoDial: true, env: { DIALER_DATA_DIR: dir.path, DIALER_PUBLIC_URL: `http://127.0.0.1:${server.port}`, DIALER_SECRET_KEY: '7a'.repeat(32) } })
  handle = createGateway(h.services, h.routes)
  const agent = await startReferenceAgent()
  const emulator = TelnyxEmulator.start({
    accounts: [{ accountSid: ACCOUNT, apiKey: API_KEY, applicationSid: APP, callerIds: [CALLER] }], speed: 10,
    clockSkew: Math.round((START - Date.now()) / 1000), fetch: (url, init) => h.app.handle(new Request(url, init)),
  })
  const org = await h.admin('POST', '/orgs', {
    name: 'Acme Roofing', plan_requests_per_minute: 100000, recording_enabled: false,
    carrier: { kind: 'telnyx', account_sid: ACCOUNT, api_key: API_KEY, application_sid: APP, public_key: emulator.publicKey, caller_ids: [CALLER], api_base_url: emulator.url, machine_detection: false },
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

async function aiCall(w: World, phone: string, parameters: Record<string, string>, firstAudioMs = 1000): Promise<string> {
  const created = await w.h.admin('POST', `/orgs/${w.orgId}/campaigns`, {
    name: 'Roof quotes', status: 'active', lines: 1, requires_consent: true,
    sdrs: [{ name: 'Ada Accepts', phone: '+13125550811' }],
    ai_agent: { kind: 'stream', url: w.agent.url, parameters, first_audio_ms: firstAudioMs, disclosure: { say: DISCLOSURE } },
  })
  expect(created.status).toBe(201)
  const r = await w.h.api('POST', '/leads', { key: w.live, body: { campaign_id: created.body.data.id, phone, name: 'Jordan Lee', consent: CONSENT } })
  expect(r.status).toBe(201)
  return r.body.data.id
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

const spokenOf = (w: World, sid: string): string[] => w.emulator.calls.get(sid)?.spoken?.map((s) => s.text) ?? []

describe('an AI-seated call on Telnyx', () => {
  test('the disclosure, then an RTP/PCMU stream at /telnyx/streams: the agent gets Twilio\u2019s frames with the service\u2019s names and decides the outcome', async () => {
    const w = await setup()
    const leadId = await aiCall(w, lead('01'), { behaviour: 'end', outcome: 'not_interested', note: 'Has a roofer.', after_ms: '600' })
    const call = await endedCall(w, leadId)
    expect(call).toMatchObject({ outcome: 'not_interested', note: 'Has a roofer.' })
    const agentCall = w.agent.call(call.id)!
    expect(agentCall.parameters).toMatchObject({ dialer_call_id: call.id, dialer_lead_id: leadId, lead_name: 'Jordan Lee' })
    const sid = agentCall.callSid!
    expect(sid).toMatch(/^v3:/)
    const stream = w.emulator.stream(sid)!
    expect(stream.url).toBe(`ws://127.0.0.1:${w.server.port}/telnyx/streams`)
    expect(stream.closedBy).toBe('server')
    expect(spokenOf(w, sid)).toEqual([DISCLOSURE])
  })

  test('a silent agent: the takeback message, a callback', async () => {
    const w = await setup()
    const leadId = await aiCall(w, lead('01'), { behaviour: 'silent' }, 500)
    const call = await endedCall(w, leadId)
    expect(call.outcome).toBe('callback')
    const sid = w.agent.call(call.id)!.callSid!
    expect(spokenOf(w, sid)).toEqual([DISCLOSURE, takebackText('Acme Roofing')])
  })
})
