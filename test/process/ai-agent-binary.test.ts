import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { adminBinary } from './admin-binary'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * A campaign's `ai_agent` on the compiled binary, started from an empty folder: the admin API
 * and the CLI save it (defaults filled) and turn it off; bad values and a seat without consent
 * answer 400 invalid_request naming the field, nothing saved; GET /api/v1/admin/calls/{id}
 * (and `dialer admin call get`) shows `ai_seated` and `ai_first_audio_ms`.
 */

const ADMIN = 'ai-agent-binary-admin-token-0123456789'
const DISCLOSURE = { say: 'This is an AI assistant calling for Acme Roofing.' }
const AGENT = { url: 'wss://agent.example.com/twilio', disclosure: DISCLOSURE }
const STORED = { kind: 'stream', url: AGENT.url, parameters: {}, first_audio_ms: 2000, disclosure: DISCLOSURE }

const service = adminBinary('dialer-ai-agent-', ADMIN)
const { admin, cli } = service
let orgId = ''

beforeAll(async () => {
  await service.start()
  orgId = (await admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 100_000 })).body.data.id
}, 120_000)

afterAll(() => service.stop())
const campaigns = async () => (await admin('GET', `/orgs/${orgId}/campaigns?limit=100`)).body.data.length

describe('ai_agent on the binary', () => {
  test('create saves it with defaults filled; PATCH null turns it off', async () => {
    const made = await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'AI', sdrs: [{ name: 'Alex' }], requires_consent: true, ai_agent: AGENT })
    expect(made.status).toBe(201)
    expect((await admin('GET', `/campaigns/${made.body.data.id}`)).body.data.ai_agent).toEqual(STORED)
    const off = await admin('PATCH', `/campaigns/${made.body.data.id}`, { ai_agent: null })
    expect([off.status, off.body.data.ai_agent]).toEqual([200, null])
  })

  test('bad values and a seat without consent: 400 naming the field, nothing saved', async () => {
    const cases: [object, string, string?][] = [
      [{ ai_agent: { ...AGENT, url: 'ws://agent.example.com/' } }, 'ai_agent.url'],
      [{ ai_agent: { ...AGENT, first_audio_ms: 200 } }, 'ai_agent.first_audio_ms'],
      [{ ai_agent: { ...AGENT, parameters: { dialer_call_id: 'x' } } }, 'ai_agent.parameters.dialer_call_id'],
      [{ ai_agent: { url: AGENT.url } }, 'ai_agent.disclosure'],
      [{ ai_agent: AGENT, requires_consent: false }, 'ai_agent', 'consent_required'],
    ]
    const before = await campaigns()
    for (const [body, param, reason] of cases) {
      const r = await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Bad', sdrs: [{ name: 'Alex' }], requires_consent: true, ...body })
      expect({ body, status: r.status, code: r.body.error?.code, param: r.body.error?.param, reason: r.body.error?.reason })
        .toEqual({ body, status: 400, code: 'invalid_request', param, reason })
    }
    expect(await campaigns()).toBe(before)
    const id = (await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Seated', sdrs: [{ name: 'Alex' }], requires_consent: true, ai_agent: AGENT })).body.data.id
    const refused = await admin('PATCH', `/campaigns/${id}`, { requires_consent: false })
    expect([refused.status, refused.body.error.param, refused.body.error.reason]).toEqual([400, 'ai_agent', 'consent_required'])
    expect((await admin('GET', `/campaigns/${id}`)).body.data).toMatchObject({ requires_consent: true, ai_agent: STORED })
  })

  test('the CLI sets it with --ai-agent JSON and turns it off with --ai-agent null', async () => {
    const made = cli(['campaign', 'create', '--org', orgId, '--name', 'CLI AI', '--requires-consent', 'true', '--ai-agent', JSON.stringify({ ...AGENT, first_audio_ms: 1200 })])
    expect(made.code).toBe(0)
    const id = JSON.parse(made.out).data.id
    expect((await admin('GET', `/campaigns/${id}`)).body.data.ai_agent).toEqual({ ...STORED, first_audio_ms: 1200 })
    const bad = cli(['campaign', 'update', id, '--ai-agent', JSON.stringify({ ...AGENT, url: 'https://agent.example.com/' })])
    expect(bad.code).not.toBe(0)
    expect(bad.err + bad.out).toContain('ai_agent.url')
    expect(cli(['campaign', 'update', id, '--ai-agent', 'null']).code).toBe(0)
    expect((await admin('GET', `/campaigns/${id}`)).body.data.ai_agent).toBeNull()
  })

  test('GET /admin/calls/{id} and `dialer admin call get` show ai_seated and ai_first_audio_ms', async () => {
    const campaign = (await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Calls', status: 'active', sdrs: [{ name: 'Alex' }] })).body.data.id
    const key = (await admin('POST', `/orgs/${orgId}/keys`, { name: 'live', mode: 'live', requests_per_minute: 100_000, burst: 100_000 })).body.data
    const auth = `Basic ${btoa(`${key.id}:${key.secret}`)}`
    const lead = await fetch(`${service.base}/api/v1/external/leads`, {
      method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ campaign_id: campaign, phone: '+12125552009', name: 'Ann Lee', call_now: true }),
    })
    const leadId = ((await lead.json()) as any).data.id
    let callId = ''
    for (let i = 0; i < 100 && !callId; i++) {
      const calls = (await (await fetch(`${service.base}/api/v1/external/calls?lead_id=${leadId}`, { headers: { authorization: auth } })).json()) as any
      callId = calls.data?.[0]?.id ?? ''
      if (!callId) await Bun.sleep(50)
    }
    expect(callId).not.toBe('')
    const read = await admin('GET', `/calls/${callId}`)
    expect(read.status).toBe(200)
    // The simulator's assistant is no AI seat: no agent's stream, no first audio.
    expect([read.body.data.ai_seated, read.body.data.ai_first_audio_ms]).toEqual([false, null])
    const shown = cli(['call', 'get', callId])
    expect(shown.code).toBe(0)
    expect(JSON.parse(shown.out).data).toMatchObject({ id: callId, ai_seated: false, ai_first_audio_ms: null })
    const missing = await admin('GET', '/calls/0190a1b2-c3d4-7e5f-8a9b-444444444444')
    expect([missing.status, missing.body.error.code]).toEqual([404, 'not_found'])
  })
})
