import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, expectError, seedWorld, type Harness, type World } from '../harness'
import type { DialRequest } from '../../src/telephony/carrier'

setDefaultTimeout(60_000)

/**
 * A campaign's AI seat through the admin API (create, PATCH, reads): stored with its defaults
 * filled, bad values 400 invalid_request naming the field with nothing saved, consent required;
 * the dial request carries it; the carrier's seated/agentAudio reach GET /api/v1/admin/calls/{id}.
 */

let h: Harness
let w: World
const DISCLOSURE = { say: 'This is an AI assistant calling for Acme Roofing. This call may be recorded.' }
const AGENT = { url: 'wss://agent.example.com/twilio', disclosure: DISCLOSURE }
const STORED = { kind: 'stream' as const, url: 'wss://agent.example.com/twilio', parameters: {}, first_audio_ms: 2000, disclosure: DISCLOSURE }
const CONSENT = { source: 'web form', agreed_at: '2026-01-01T00:00:00Z', text: 'I agree to be called, including by an AI voice.' }

beforeAll(async () => {
  h = createHarness({ autoDial: true })
  w = await seedWorld(h)
})
afterAll(() => h.close())

const create = (body: object) => h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'AI spring', sdrs: [{ name: 'Alex' }], requires_consent: true, ...body })
const read = async (id: string) => (await h.admin('GET', `/campaigns/${id}`)).body.data
const campaignCount = async () => (await h.admin('GET', `/orgs/${w.orgId}/campaigns?limit=100`)).body.data.length

/** Bodies refused on create and on PATCH, with the param (and reason) named. */
const BAD: [string, object, string, string?][] = [
  ['a ws:// URL to a public host', { ai_agent: { ...AGENT, url: 'ws://agent.example.com/twilio' } }, 'ai_agent.url'],
  ['an https URL', { ai_agent: { ...AGENT, url: 'https://agent.example.com/twilio' } }, 'ai_agent.url'],
  ['no url', { ai_agent: { disclosure: DISCLOSURE } }, 'ai_agent.url'],
  ['first_audio_ms 100', { ai_agent: { ...AGENT, first_audio_ms: 100 } }, 'ai_agent.first_audio_ms'],
  ['first_audio_ms 9000', { ai_agent: { ...AGENT, first_audio_ms: 9000 } }, 'ai_agent.first_audio_ms'],
  ['first_audio_ms not whole', { ai_agent: { ...AGENT, first_audio_ms: 1500.5 } }, 'ai_agent.first_audio_ms'],
  ['21 parameters', { ai_agent: { ...AGENT, parameters: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`p${i}`, 'x'])) } }, 'ai_agent.parameters'],
  ['a dialer_ parameter', { ai_agent: { ...AGENT, parameters: { dialer_stream_token: 'forged' } } }, 'ai_agent.parameters.dialer_stream_token'],
  ['a parameter value that is a number', { ai_agent: { ...AGENT, parameters: { behaviour: 1 } } }, 'ai_agent.parameters.behaviour'],
  ['no disclosure', { ai_agent: { url: AGENT.url } }, 'ai_agent.disclosure'],
  ['a blank disclosure', { ai_agent: { ...AGENT, disclosure: { say: '   ' } } }, 'ai_agent.disclosure.say'],
  ['a plain http disclosure audio', { ai_agent: { ...AGENT, disclosure: { audio_url: 'http://cdn.example.com/ai.mp3' } } }, 'ai_agent.disclosure.audio_url'],
  ['an unknown field', { ai_agent: { ...AGENT, model: 'gpt' } }, 'ai_agent.model'],
  ['ai_agent without consent', { ai_agent: AGENT, requires_consent: false }, 'ai_agent', 'consent_required'],
]

describe('admin API: ai_agent', () => {
  test('create: stored and read back with its defaults filled; absent is null', async () => {
    const r = await create({ ai_agent: AGENT })
    expect(r.status).toBe(201)
    expect(r.body.data.ai_agent).toEqual(STORED)
    expect((await read(r.body.data.id)).ai_agent).toEqual(STORED)
    expect((await create({})).body.data.ai_agent).toBeNull()
  })

  test('a loopback ws:// agent, parameters, first_audio_ms and an audio disclosure are kept as sent', async () => {
    const agent = { kind: 'stream', url: 'ws://127.0.0.1:8765/', parameters: { behaviour: 'interested', after_ms: '1500' }, first_audio_ms: 5000, disclosure: { audio_url: 'https://cdn.example.com/ai.mp3' } }
    const r = await create({ ai_agent: agent })
    expect(r.status).toBe(201)
    expect((await read(r.body.data.id)).ai_agent).toEqual(agent)
  })

  for (const [name, body, param, reason] of BAD) {
    test(`create: ${name} -> 400 ${param}, no campaign`, async () => {
      const before = await campaignCount()
      const r = await create(body)
      expectError(r, 400, 'invalid_request', param)
      if (reason) expect(r.body.error.reason).toBe(reason)
      expect(await campaignCount()).toBe(before)
    })
  }

  for (const [name, body, param, reason] of BAD) {
    test(`PATCH: ${name} -> 400 ${param}, nothing changed`, async () => {
      const id = (await create({ lines: 3 })).body.data.id
      const before = await read(id)
      const r = await h.admin('PATCH', `/campaigns/${id}`, { lines: 4, ...body })
      expectError(r, 400, 'invalid_request', param)
      if (reason) expect(r.body.error.reason).toBe(reason)
      expect(await read(id)).toEqual(before)
    })
  }

  test('PATCH sets it, changes it, and null turns it off', async () => {
    const id = (await create({})).body.data.id
    expect((await h.admin('PATCH', `/campaigns/${id}`, { ai_agent: AGENT })).body.data.ai_agent).toEqual(STORED)
    const changed = await h.admin('PATCH', `/campaigns/${id}`, { ai_agent: { ...AGENT, first_audio_ms: 1500 } })
    expect(changed.body.data.ai_agent).toEqual({ ...STORED, first_audio_ms: 1500 })
    // Other changes leave it as it is.
    expect((await h.admin('PATCH', `/campaigns/${id}`, { lines: 5 })).body.data.ai_agent).toEqual({ ...STORED, first_audio_ms: 1500 })
    const off = await h.admin('PATCH', `/campaigns/${id}`, { ai_agent: null })
    expect(off.status).toBe(200)
    expect((await read(id)).ai_agent).toBeNull()
  })

  test('requires_consent false is refused while ai_agent is set (consent_required); with the seat turned off it is taken', async () => {
    const id = (await create({ ai_agent: AGENT })).body.data.id
    const r = await h.admin('PATCH', `/campaigns/${id}`, { requires_consent: false })
    expectError(r, 400, 'invalid_request', 'ai_agent')
    expect(r.body.error.reason).toBe('consent_required')
    expect((await read(id)).requires_consent).toBe(true)
    const both = await h.admin('PATCH', `/campaigns/${id}`, { requires_consent: false, ai_agent: null })
    expect(both.status).toBe(200)
    expect([both.body.data.requires_consent, both.body.data.ai_agent]).toEqual([false, null])
  })
})

describe('a call of an AI-seated campaign', () => {
  test('the dial request carries the agent, the lead and the organization; seated and the first audio reach the admin read once', async () => {
    const dialed: DialRequest[] = []
    const carrier = h.services.carrier
    const dial = carrier.dial.bind(carrier)
    carrier.dial = (request, events) => {
      dialed.push(request)
      dial(request, events)
    }
    const campaignId = (await create({ status: 'active', ai_agent: { ...AGENT, parameters: { behaviour: 'end' } } })).body.data.id
    const lead = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: campaignId, phone: '+12125552001', name: 'Jordan Lee', consent: CONSENT, call_now: true } })
    expect(lead.status).toBe(201)
    expect(dialed).toHaveLength(1)
    const request = dialed[0]!
    expect(request.aiAgent).toEqual({ ...STORED, parameters: { behaviour: 'end' } })
    expect([request.leadId, request.orgName]).toEqual([lead.body.data.id, 'Acme Roofing'])

    const before = (await h.admin('GET', `/calls/${request.callId}`)).body.data
    expect([before.ai_seated, before.ai_first_audio_ms]).toEqual([false, null])
    const events = h.services.calls.carrierEvents
    events.seated!(request.callId)
    events.agentAudio!(request.callId, 612.4)
    events.agentAudio!(request.callId, 3000)
    const after = await h.admin('GET', `/calls/${request.callId}`)
    expect(after.status).toBe(200)
    expect([after.body.data.ai_seated, after.body.data.ai_first_audio_ms]).toEqual([true, 612])
    // The rest is the Call object the API serves.
    const { org_id, carrier: named, recording_consent, answered_at, connected_at, abandoned, ai_seated, ai_first_audio_ms, ai_instructions, ai_usage, ai_minutes, ...call } = after.body.data
    // A stream agent's call has no built-in agent's prompt, usage or AI minutes yet.
    expect([ai_instructions, ai_usage, ai_minutes]).toEqual([null, null, null])
    expect(call).toEqual((await h.api('GET', `/calls/${request.callId}`, { key: w.live })).body.data)
    expect([org_id, named]).toEqual([w.orgId, 'simulator'])
  })

  test('a campaign without the seat dials with aiAgent null', async () => {
    const dialed: DialRequest[] = []
    const carrier = h.services.carrier
    const dial = carrier.dial.bind(carrier)
    carrier.dial = (request, events) => {
      dialed.push(request)
      dial(request, events)
    }
    const lead = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125552101', call_now: true } })
    expect(lead.status).toBe(201)
    expect(dialed.map((d) => [d.aiAgent, d.leadId])).toEqual([[null, lead.body.data.id]])
  })
})
