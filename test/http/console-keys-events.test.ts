import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, type Harness, type TestKey } from '../harness'

setDefaultTimeout(60_000)

// Issue 19: the console's events and API keys.

let h: Harness
let orgId = ''
let otherOrgId = ''
let live: TestKey

async function call(method: string, path: string, session?: { cookie: string; csrf: string }, body?: unknown) {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (session) Object.assign(headers, { cookie: session.cookie, 'x-csrf-token': session.csrf })
  const r = await h.app.handle(new Request(`http://127.0.0.1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
  await h.services.database.pendingCommit()
  return { status: r.status, body: (await r.json()) as any }
}
async function signIn(email: string, password: string) {
  const r = await h.app.handle(new Request('http://127.0.0.1/console/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) }))
  return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await r.json()) as any).data.csrf_token as string }
}

beforeEach(async () => {
  h = createHarness()
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
  otherOrgId = (await h.admin('POST', '/orgs', { name: 'Other' })).body.data.id
  const campaign = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'paused', sdrs: [{ name: 'Alex' }] })).body.data.id
  await h.admin('POST', `/orgs/${orgId}/users`, { email: 'owner@acme.example', password: 'owner password 123', role: 'owner' })
  await h.admin('POST', `/orgs/${orgId}/users`, { email: 'sdr@acme.example', password: 'sdr password 12345', role: 'sdr' })
  live = await h.createKey(orgId, { name: 'live', mode: 'live' })
  await h.api('POST', '/leads', { key: live, body: { campaign_id: campaign, phone: '+12125552001', name: 'Ann' } })
})
afterEach(() => h.close())

describe('console events', () => {
  test('by type and object; unknown type 400; as sent', async () => {
    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    const all = await call('GET', `/console/api/orgs/${orgId}/events`, sdr)
    expect(all.body.data.map((e: any) => e.type)).toEqual(['lead.queued', 'lead.created'])
    const lead = all.body.data[0].data.object.id
    expect((await call('GET', `/console/api/orgs/${orgId}/events?type=lead.created&object_id=${lead}`, sdr)).body.data).toHaveLength(1)
    expect((await call('GET', `/console/api/orgs/${orgId}/events?type=lead.nope`, sdr)).status).toBe(400)
    const sameAsApi = (await h.api('GET', '/events?limit=5', { key: live })).body.data
    expect(all.body.data).toEqual(sameAsApi)
  })
})

describe('console keys', () => {
  test('an owner creates (secret once), lists and revokes; the key stops working', async () => {
    const owner = await signIn('owner@acme.example', 'owner password 123')
    const made = await call('POST', `/console/api/orgs/${orgId}/keys`, owner, { name: 'forms', mode: 'live', permissions: ['leads:write'] })
    expect(made.status).toBe(201)
    expect(made.body.data.secret).toBeString()
    const list = await call('GET', `/console/api/orgs/${orgId}/keys`, owner)
    expect(list.body.data.find((k: any) => k.id === made.body.data.id).secret).toBeUndefined()
    const revoked = await call('POST', `/console/api/orgs/${orgId}/keys/${made.body.data.id}/revoke`, owner)
    expect(revoked.body.data.revoked_at).not.toBeNull()
  })

  test('an SDR cannot list, create or revoke keys; another organization’s key is not there', async () => {
    const sdr = await signIn('sdr@acme.example', 'sdr password 12345')
    expect((await call('GET', `/console/api/orgs/${orgId}/keys`, sdr)).status).toBe(403)
    expect((await call('POST', `/console/api/orgs/${orgId}/keys`, sdr, { name: 'x', mode: 'live' })).status).toBe(403)
    expect((await call('POST', `/console/api/orgs/${orgId}/keys/${live.id}/revoke`, sdr)).status).toBe(403)
    await h.admin('POST', `/orgs/${otherOrgId}/users`, { email: 'them@other.example', password: 'their password 1', role: 'owner' })
    const them = await signIn('them@other.example', 'their password 1')
    expect((await call('POST', `/console/api/orgs/${otherOrgId}/keys/${live.id}/revoke`, them)).status).toBe(404)
    expect((await h.api('GET', '/events', { key: live })).status).toBe(200)
  })

  test('a bad key body: 400 naming the field', async () => {
    const owner = await signIn('owner@acme.example', 'owner password 123')
    const r = await call('POST', `/console/api/orgs/${orgId}/keys`, owner, { name: 'x', mode: 'sandbox' })
    expect(r.status).toBe(400)
    expect(r.body.error.param).toBe('mode')
  })
})
