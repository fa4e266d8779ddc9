import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, type Harness, type TestKey } from '../harness'
import { consoleRequest, type ConsoleRequestOptions } from './console-client'

setDefaultTimeout(60_000)

/**
 * The AI seat in the console: a campaign's agent is shown read-only (its parameters by name
 * only) and cannot be changed there; a call put on the seat shows the agent's first audio.
 */

let h: Harness
let orgId = ''
let campaignId = ''
let live: TestKey
const OWNER = { email: 'owner@ai-seat.example', password: 'owner password 123' }
const AGENT = {
  url: 'wss://agent.example.com/twilio', parameters: { behaviour: 'end', api_key: 'sk-secret-value' }, first_audio_ms: 1500,
  disclosure: { say: 'This is an AI assistant calling for Acme Roofing.' },
}
const CONSENT = { source: 'web form', agreed_at: '2026-01-01T00:00:00Z', text: 'I agree to be called, including by an AI voice.' }

const call = (method: string, path: string, options: ConsoleRequestOptions = {}) => consoleRequest(h, method, path, options)
let session = { cookie: '', csrf: '' }

beforeAll(async () => {
  h = createHarness({ autoDial: true })
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 100000 })).body.data.id
  campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'active', sdrs: [{ name: 'Alex' }], requires_consent: true, ai_agent: AGENT })).body.data.id
  await h.admin('POST', `/orgs/${orgId}/users`, { ...OWNER, role: 'owner' })
  live = await h.createKey(orgId, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  const r = await call('POST', '/console/api/session', { body: OWNER })
  session = { cookie: r.cookie!.split(';')[0]!, csrf: r.body.data.csrf_token as string }
})
afterAll(() => h.close())

describe('console: the AI seat', () => {
  test('the campaign page reads the agent: URL, disclosure, first audio due, parameter names without their values', async () => {
    const r = await call('GET', `/console/api/orgs/${orgId}/campaigns/${campaignId}`, { cookie: session.cookie })
    expect(r.status).toBe(200)
    expect(r.body.data.ai_agent).toEqual({ kind: 'stream', url: AGENT.url, first_audio_ms: 1500, disclosure: AGENT.disclosure, parameter_names: ['behaviour', 'api_key'], model: null, voice: null })
    expect(JSON.stringify(r.body)).not.toContain('sk-secret-value')
  })

  test('the built-in agent reads as its endpoint, model and voice, never its key', async () => {
    const realtime = { kind: 'openai_realtime', model: 'gpt-realtime', voice: 'marin', instructions: 'Hi {{lead.name}}', api_key: 'sk-realtime-secret', disclosure: AGENT.disclosure }
    const id = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Built-in', sdrs: [{ name: 'Alex' }], requires_consent: true, ai_agent: realtime })).body.data.id
    const r = await call('GET', `/console/api/orgs/${orgId}/campaigns/${id}`, { cookie: session.cookie })
    expect(r.body.data.ai_agent).toEqual({
      kind: 'openai_realtime', url: 'wss://api.openai.com/v1/realtime', first_audio_ms: 2000, disclosure: AGENT.disclosure, parameter_names: [], model: 'gpt-realtime', voice: 'marin',
    })
    expect(JSON.stringify(r.body)).not.toContain('sk-realtime-secret')
  })

  test('an owner cannot set or clear it in the console (400 naming the field); the agent stays', async () => {
    const r = await call('PATCH', `/console/api/orgs/${orgId}/campaigns/${campaignId}`, { ...session, body: { ai_agent: null } })
    expect(r.status).toBe(400)
    expect(r.body.error).toMatchObject({ code: 'invalid_request', param: 'ai_agent' })
    expect((await h.admin('GET', `/campaigns/${campaignId}`)).body.data.ai_agent).toMatchObject({ url: AGENT.url })
  })

  test('a campaign without the seat reads null', async () => {
    const plain = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Plain', sdrs: [{ name: 'Alex' }] })).body.data.id
    expect((await call('GET', `/console/api/orgs/${orgId}/campaigns/${plain}`, { cookie: session.cookie })).body.data.ai_agent).toBeNull()
  })

  test('a call shows the seat and the first audio once the carrier tells them; before, no seat', async () => {
    const lead = await h.api('POST', '/leads', { key: live, body: { campaign_id: campaignId, phone: '+12125552009', name: 'Ann Lee', consent: CONSENT, call_now: true } })
    expect(lead.status).toBe(201)
    const callId = (await h.api('GET', `/calls?lead_id=${lead.body.data.id}`, { key: live })).body.data[0].id
    const path = `/console/api/orgs/${orgId}/calls/${callId}`
    expect((await call('GET', path, { cookie: session.cookie })).body.data.ai_seat).toBeNull()
    h.services.calls.carrierEvents.seated!(callId)
    expect((await call('GET', path, { cookie: session.cookie })).body.data.ai_seat).toEqual({ first_audio_ms: null })
    h.services.calls.carrierEvents.agentAudio!(callId, 730)
    const r = await call('GET', path, { cookie: session.cookie })
    expect(r.body.data.ai_seat).toEqual({ first_audio_ms: 730 })
    expect(r.body.data.handler).toBe('AI assistant')
  })
})
