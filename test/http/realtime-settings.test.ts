import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, expectError, seedWorld, type Harness, type World } from '../harness'
import type { DialRequest } from '../../src/telephony/carrier'

setDefaultTimeout(60_000)

/**
 * The built-in agent's settings through the admin API: `ai_agent.kind: "openai_realtime"` with a
 * write-only key (sealed, never returned, `api_key_set` on reads, kept by a PATCH without it,
 * cleared by a switch to `stream` or null), its 400s naming the field; the organization's
 * `ai_prices`; a call's rendered instructions, usage and AI minutes on the admin read (never in
 * events); GET /usage's AI minutes and cost, only where a price is set.
 */

let h: Harness
let w: World
const KEY = 'sk-test-realtime-0123456789abcdefSECRET'
const DISCLOSURE = { say: 'This is an AI assistant calling for Acme Roofing.' }
const PROMPT = 'You call {{lead.name}} ({{lead.email}}) about a {{lead.fields.roof}} roof for {{campaign.name}} of {{org.name}}; phone {{ lead.phone }}; zip {{lead.fields.zip}}.'
const AGENT = { kind: 'openai_realtime', model: 'gpt-realtime', voice: 'marin', instructions: PROMPT, disclosure: DISCLOSURE, api_key: KEY }
const STORED = {
  kind: 'openai_realtime', model: 'gpt-realtime', voice: 'marin', instructions: PROMPT, first_audio_ms: 2000, disclosure: DISCLOSURE,
  base_url: 'wss://api.openai.com/v1/realtime', api_key_set: true,
}
const STREAM = { url: 'wss://agent.example.com/twilio', disclosure: DISCLOSURE }
const CONSENT = { source: 'web form', agreed_at: '2026-01-01T00:00:00Z', text: 'I agree to be called, including by an AI voice.' }
const PRICE = { input_text: 4, input_audio: 32, input_cached: 0.4, output_text: 16, output_audio: 64 }

beforeAll(async () => {
  h = createHarness({ autoDial: true })
  w = await seedWorld(h)
})
afterAll(() => h.close())

const create = (body: object) => h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'AI prompt', sdrs: [{ name: 'Alex' }], requires_consent: true, ...body })
const read = async (id: string) => (await h.admin('GET', `/campaigns/${id}`)).body.data
const sealedOf = (id: string) => h.services.stores.campaigns.get(id)!.aiAgentKey
const campaignCount = async () => (await h.admin('GET', `/orgs/${w.orgId}/campaigns?limit=100`)).body.data.length

const BAD: [string, object, string][] = [
  ['an empty model', { ...AGENT, model: '' }, 'ai_agent.model'],
  ['a blank voice', { ...AGENT, voice: '   ' }, 'ai_agent.voice'],
  ['no instructions', { ...AGENT, instructions: undefined }, 'ai_agent.instructions'],
  ['instructions over 20,000 characters', { ...AGENT, instructions: 'x'.repeat(20_001) }, 'ai_agent.instructions'],
  ['an unknown placeholder', { ...AGENT, instructions: 'Hi {{lead.first_name}}' }, 'ai_agent.instructions'],
  ['a placeholder of another object', { ...AGENT, instructions: 'Hi {{user.name}}' }, 'ai_agent.instructions'],
  ['an empty api_key', { ...AGENT, api_key: '' }, 'ai_agent.api_key'],
  ['a base_url over plain ws to a public host', { ...AGENT, base_url: 'ws://api.openai.com/v1/realtime' }, 'ai_agent.base_url'],
  ['an https base_url', { ...AGENT, base_url: 'https://api.openai.com/v1/realtime' }, 'ai_agent.base_url'],
  ['a stream field on the built-in agent', { ...AGENT, url: 'wss://agent.example.com/' }, 'ai_agent.url'],
  ['a first_audio_ms out of range', { ...AGENT, first_audio_ms: 100 }, 'ai_agent.first_audio_ms'],
  ['no disclosure', { ...AGENT, disclosure: undefined }, 'ai_agent.disclosure'],
]

describe('admin API: ai_agent kind openai_realtime', () => {
  test('create: the key is sealed, never returned; reads show api_key_set and the defaults', async () => {
    const r = await create({ ai_agent: AGENT })
    expect(r.status).toBe(201)
    expect(r.body.data.ai_agent).toEqual(STORED)
    expect(r.text).not.toContain(KEY)
    const got = await h.admin('GET', `/campaigns/${r.body.data.id}`)
    expect(got.body.data.ai_agent).toEqual(STORED)
    expect(got.text).not.toContain(KEY)
    expect((await h.admin('GET', `/orgs/${w.orgId}/campaigns?limit=100`)).text).not.toContain(KEY)
    const sealed = sealedOf(r.body.data.id)!
    expect(sealed.startsWith('v1.')).toBe(true)
    expect(sealed).not.toContain(KEY)
  })

  test('the key is required on create of that kind', async () => {
    const before = await campaignCount()
    expectError(await create({ ai_agent: { ...AGENT, api_key: undefined } }), 400, 'invalid_request', 'ai_agent.api_key')
    expect(await campaignCount()).toBe(before)
  })

  test('a loopback ws:// base_url and a first_audio_ms are kept', async () => {
    const r = await create({ ai_agent: { ...AGENT, base_url: 'ws://127.0.0.1:9911/v1/realtime', first_audio_ms: 4000 } })
    expect(r.status).toBe(201)
    expect(r.body.data.ai_agent).toMatchObject({ base_url: 'ws://127.0.0.1:9911/v1/realtime', first_audio_ms: 4000 })
  })

  for (const [name, agent, param] of BAD) {
    test(`create: ${name} -> 400 ${param}, no campaign; PATCH: the same, nothing changed`, async () => {
      const before = await campaignCount()
      expectError(await create({ ai_agent: agent }), 400, 'invalid_request', param)
      expect(await campaignCount()).toBe(before)
      const id = (await create({ ai_agent: AGENT })).body.data.id
      const stored = sealedOf(id)
      expectError(await h.admin('PATCH', `/campaigns/${id}`, { lines: 7, ai_agent: agent }), 400, 'invalid_request', param)
      expect((await read(id)).lines).toBe(2)
      expect(sealedOf(id)).toBe(stored)
    })
  }

  test('a PATCH without the key keeps it; with a new one replaces it; a switch to stream or null clears it', async () => {
    const id = (await create({ ai_agent: AGENT })).body.data.id
    const first = sealedOf(id)
    const kept = await h.admin('PATCH', `/campaigns/${id}`, { ai_agent: { ...AGENT, api_key: undefined, voice: 'cedar' } })
    expect(kept.status).toBe(200)
    expect(kept.body.data.ai_agent).toEqual({ ...STORED, voice: 'cedar' })
    expect(sealedOf(id)).toBe(first)
    expect((await h.admin('PATCH', `/campaigns/${id}`, { lines: 3 })).body.data.ai_agent.api_key_set).toBe(true)
    expect(sealedOf(id)).toBe(first)
    await h.admin('PATCH', `/campaigns/${id}`, { ai_agent: { ...AGENT, api_key: 'sk-other-key' } })
    expect(sealedOf(id)).not.toBe(first)
    const stream = await h.admin('PATCH', `/campaigns/${id}`, { ai_agent: STREAM })
    expect([stream.status, stream.body.data.ai_agent.kind, stream.body.data.ai_agent.api_key_set]).toEqual([200, 'stream', undefined])
    expect(sealedOf(id)).toBeNull()
    // Back to the built-in agent: no stored key to keep, so one must be sent.
    expectError(await h.admin('PATCH', `/campaigns/${id}`, { ai_agent: { ...AGENT, api_key: undefined } }), 400, 'invalid_request', 'ai_agent.api_key')
    await h.admin('PATCH', `/campaigns/${id}`, { ai_agent: AGENT })
    expect(sealedOf(id)).not.toBeNull()
    expect((await h.admin('PATCH', `/campaigns/${id}`, { ai_agent: null })).body.data.ai_agent).toBeNull()
    expect(sealedOf(id)).toBeNull()
  })

  test('consent: the built-in agent needs requires_consent as a stream agent does', async () => {
    const r = await create({ ai_agent: AGENT, requires_consent: false })
    expectError(r, 400, 'invalid_request', 'ai_agent')
    expect(r.body.error.reason).toBe('consent_required')
  })
})

describe('admin API: ai_prices on the organization', () => {
  test('PATCH sets, GET reads, null clears; bad prices are 400 naming the field', async () => {
    const org = (await h.admin('POST', '/orgs', { name: 'Prices Inc' })).body.data.id
    expect((await h.admin('GET', `/orgs/${org}`)).body.data.ai_prices).toBeNull()
    const set = await h.admin('PATCH', `/orgs/${org}`, { ai_prices: { 'gpt-realtime': PRICE } })
    expect([set.status, set.body.data.ai_prices]).toEqual([200, { 'gpt-realtime': PRICE }])
    expectError(await h.admin('PATCH', `/orgs/${org}`, { ai_prices: { 'gpt-realtime': { ...PRICE, output_audio: -1 } } }), 400, 'invalid_request', 'ai_prices.gpt-realtime.output_audio')
    expectError(await h.admin('PATCH', `/orgs/${org}`, { ai_prices: { 'gpt-realtime': { input_text: 1 } } }), 400, 'invalid_request')
    expect((await h.admin('GET', `/orgs/${org}`)).body.data.ai_prices).toEqual({ 'gpt-realtime': PRICE })
    expect((await h.admin('PATCH', `/orgs/${org}`, { ai_prices: null })).body.data.ai_prices).toBeNull()
  })
})

describe('a call of a campaign with the built-in agent', () => {
  test('instructions rendered at the start, usage summed, AI minutes on the admin read; nothing of it in events; GET /usage prices it', async () => {
    const dialed: DialRequest[] = []
    const carrier = h.services.carrier
    const dial = carrier.dial.bind(carrier)
    carrier.dial = (request, events) => {
      dialed.push(request)
      dial(request, events)
    }
    const campaignId = (await create({ name: 'Spring AI', status: 'active', ai_agent: AGENT })).body.data.id
    const lead = await h.api('POST', '/leads', {
      key: w.live,
      body: { campaign_id: campaignId, phone: '+12125552001', name: 'Jordan Lee', email: 'jordan@example.com', fields: { roof: 'slate' }, consent: CONSENT, call_now: true },
    })
    expect(lead.status).toBe(201)
    const request = dialed.at(-1)!
    // The carrier's dial carries no key.
    expect(JSON.stringify(request)).not.toContain(KEY)
    const rendered = 'You call Jordan Lee (jordan@example.com) about a slate roof for Spring AI of Acme Roofing; phone +12125552001; zip .'
    const before = (await h.admin('GET', `/calls/${request.callId}`)).body.data
    expect([before.ai_instructions, before.ai_usage, before.ai_minutes]).toEqual([rendered, null, null])

    const events = h.services.calls.carrierEvents
    const usage = { input_tokens: 1000, output_tokens: 500, input_text_tokens: 200, input_audio_tokens: 800, input_cached_tokens: 100, output_text_tokens: 100, output_audio_tokens: 400 }
    events.aiUsage!(request.callId, usage)
    events.aiUsage!(request.callId, usage)
    events.aiSeatTime!(request.callId, 61.2)
    events.aiSeatTime!(request.callId, 500)
    const after = (await h.admin('GET', `/calls/${request.callId}`)).body.data
    expect(after.ai_usage).toEqual(Object.fromEntries(Object.entries(usage).map(([k, v]) => [k, v * 2])))
    expect(after.ai_minutes).toBe(2)
    const apiCall = await h.api('GET', `/calls/${request.callId}`, { key: w.live })
    expect(apiCall.body.data.ai_instructions).toBeUndefined()
    const allEvents = await h.api('GET', '/events?limit=100', { key: w.live })
    expect(allEvents.text).not.toContain('slate roof')
    expect(allEvents.text).not.toContain(KEY)

    // Not priced: AI minutes counted, the call counted unpriced, cost null.
    await h.advance(600)
    const unpriced = (await h.api('GET', '/usage?group_by=campaign', { key: w.live })).body.data
    expect(unpriced.totals).toMatchObject({ ai_minutes: 2, ai_cost_usd: null, ai_unpriced_calls: 1 })
    expect(unpriced.groups.find((g: any) => g.campaign_id === campaignId)).toMatchObject({ ai_minutes: 2, ai_unpriced_calls: 1 })

    // Priced from then on: a second call of the same campaign is costed at the organization's price.
    await h.admin('PATCH', `/orgs/${w.orgId}`, { ai_prices: { 'gpt-realtime': PRICE } })
    await h.api('POST', '/leads', { key: w.live, body: { campaign_id: campaignId, phone: '+12125552101', name: 'Kim', consent: CONSENT, call_now: true } })
    const second = dialed.at(-1)!
    expect(second.callId).not.toBe(request.callId)
    events.aiUsage!(second.callId, usage)
    events.aiSeatTime!(second.callId, 30)
    await h.advance(600)
    const priced = (await h.api('GET', '/usage', { key: w.live })).body.data
    // The 100 cached taken from text and audio input in proportion (200:800): 180 text + 720 audio + 100 cached in,
    // 100 text + 400 audio out; USD per million tokens times tokens is micro-USD (ai-cost.ts).
    const micros = 180 * 4 + 720 * 32 + 100 * 0.4 + 100 * 16 + 400 * 64
    expect(priced.totals).toMatchObject({ ai_minutes: 3, ai_unpriced_calls: 1, ai_cost_usd: micros / 1e6 })
  })
})
