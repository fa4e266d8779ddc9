import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, type Harness, type TestKey } from '../harness'

setDefaultTimeout(60_000)

// Issue 19: the console's leads API (search, one lead with why it waits, call now).

let h: Harness
let orgId = ''
let campaignId = ''
let live: TestKey
const leads: Record<string, string> = {}

async function call(method: string, path: string, session?: { cookie: string; csrf: string }) {
  const headers: Record<string, string> = {}
  if (session) Object.assign(headers, { cookie: session.cookie, 'x-csrf-token': session.csrf })
  const r = await h.app.handle(new Request(`http://127.0.0.1${path}`, { method, headers }))
  await h.services.database.pendingCommit()
  return { status: r.status, body: (await r.json()) as any }
}
async function signIn(email: string, password: string) {
  const r = await h.app.handle(new Request('http://127.0.0.1/console/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) }))
  return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await r.json()) as any).data.csrf_token as string }
}

beforeEach(async () => {
  h = createHarness()
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 100000 })).body.data.id
  campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'paused', sdrs: [{ name: 'Alex' }] })).body.data.id
  await h.admin('POST', `/orgs/${orgId}/users`, { email: 'sdr@acme.example', password: 'sdr password 12345', role: 'sdr' })
  live = await h.createKey(orgId, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  for (const [name, phone, email, external] of [['Ann Lee', '+12125552001', 'ann@example.com', 'crm-1'], ['Bob 100% Real', '+12125552002', 'bob@example.com', 'crm-2']]) {
    leads[name!] = (await h.api('POST', '/leads', { key: live, body: { campaign_id: campaignId, phone, name, email, external_id: external } })).body.data.id
  }
})
afterEach(() => h.close())

describe('console leads', () => {
  test.each([
    ['(212) 555-2001', ['Ann Lee']],
    ['+1 212 555 2002', ['Bob 100% Real']],
    ['ann', ['Ann Lee']],
    ['EXAMPLE.COM', ['Bob 100% Real', 'Ann Lee']],
    ['crm-2', ['Bob 100% Real']],
    ['100%', ['Bob 100% Real']],
    ['%', ['Bob 100% Real']],
    ['_', []],
    ['nobody', []],
  ])('search %p finds %p', async (q, names) => {
    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    const r = await call('GET', `/console/api/orgs/${orgId}/leads?q=${encodeURIComponent(q)}`, sdr)
    expect(r.body.data.map((l: any) => l.name)).toEqual(names)
  })

  test('one lead: its contactability, calls and events; call now goes through POST /calls’ rules', async () => {
    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    const r = await call('GET', `/console/api/orgs/${orgId}/leads/${leads['Ann Lee']}`, sdr)
    expect(r.body.data.lead).toMatchObject({ name: 'Ann Lee', status: 'held' })
    expect(r.body.data.contactability).toMatchObject({ lead_id: leads['Ann Lee'], zones: ['America/New_York'] })
    expect(r.body.data.events.map((e: any) => e.type)).toEqual(['lead.queued', 'lead.created'])
    // The campaign is paused: POST /calls' rule answers, not a new one.
    const paused = await call('POST', `/console/api/orgs/${orgId}/leads/${leads['Ann Lee']}/call_now`, sdr)
    expect(paused.status).toBe(200)
    expect(paused.body.data).toMatchObject({ lead_id: leads['Ann Lee'] })
  })

  test('another organization’s lead is not there', async () => {
    const other = (await h.admin('POST', '/orgs', { name: 'Other' })).body.data.id
    await h.admin('POST', `/orgs/${other}/users`, { email: 'them@other.example', password: 'their password 1', role: 'owner' })
    const them = await signIn('them@other.example', 'their password 1')
    expect((await call('GET', `/console/api/orgs/${other}/leads/${leads['Ann Lee']}`, them)).status).toBe(404)
    expect((await call('POST', `/console/api/orgs/${other}/leads/${leads['Ann Lee']}/call_now`, them)).status).toBe(404)
    expect((await call('GET', `/console/api/orgs/${other}/leads?q=ann`, them)).body.data).toEqual([])
  })
})
