import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, type Harness, type TestKey } from '../harness'

setDefaultTimeout(60_000)

// Issue 19: the console's webhooks API (endpoints, delivery log, resend, test, pause, resume, new secret), by role.

let h: Harness
let orgId = ''
let endpointId = ''
let live: TestKey
const OWNER = { email: 'owner@acme.example', password: 'owner password 123' }
const SDR = { email: 'sdr@acme.example', password: 'sdr password 12345' }

async function call(method: string, path: string, session?: { cookie: string; csrf: string }, body?: unknown) {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (session) Object.assign(headers, { cookie: session.cookie, 'x-csrf-token': session.csrf })
  const r = await h.app.handle(new Request(`http://127.0.0.1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
  await h.services.database.pendingCommit()
  return { status: r.status, body: (await r.json()) as any, cookie: r.headers.get('set-cookie') }
}
async function signIn(body: unknown) {
  const r = await call('POST', '/console/api/session', undefined, body)
  return { cookie: r.cookie!.split(';')[0]!, csrf: r.body.data.csrf_token as string }
}

beforeEach(async () => {
  h = createHarness({ env: { DIALER_WEBHOOK_ALLOW_PRIVATE: '1' } })
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
  await h.admin('POST', `/orgs/${orgId}/users`, { ...OWNER, role: 'owner' })
  await h.admin('POST', `/orgs/${orgId}/users`, { ...SDR, role: 'sdr' })
  live = await h.createKey(orgId, { name: 'live', mode: 'live' })
  endpointId = (await h.api('POST', '/webhook_endpoints', { key: live, body: { url: 'http://127.0.0.1:9/hook', events: ['call.completed'] } })).body.data.id
})
afterEach(() => h.close())

describe('console webhooks', () => {
  test('an owner sends a test, reads the log, resends, pauses (resend refused while paused), resumes and rolls the secret', async () => {
    const owner = await signIn(OWNER)
    const base = `/console/api/orgs/${orgId}/webhooks/${endpointId}`
    expect((await call('GET', `/console/api/orgs/${orgId}/webhooks`, owner)).body.data.map((e: any) => e.id)).toEqual([endpointId])
    const test1 = await call('POST', `${base}/test`, owner)
    expect(test1.body.data.status).toBe('pending')
    const log = await call('GET', `${base}/deliveries`, owner)
    expect(log.body.data.map((d: any) => d.id)).toEqual([test1.body.data.id])
    const resent = await call('POST', `${base}/deliveries/${test1.body.data.id}/resend`, owner)
    expect(resent.body.data.resent_from).toBe(test1.body.data.id)
    expect((await call('POST', `${base}/pause`, owner)).body.data.status).toBe('paused')
    expect((await call('POST', `${base}/deliveries/${test1.body.data.id}/resend`, owner)).body.error.code).toBe('endpoint_paused')
    expect((await call('POST', `${base}/resume`, owner)).body.data.status).toBe('active')
    const rolled = await call('POST', `${base}/roll_secret`, owner)
    expect(rolled.body.data.secret).toMatch(/^whsec_/)
    expect(rolled.body.data.previous_secret_expires_at).not.toBeNull()
    expect((await call('POST', `${base}/deliveries/wd_unknown/resend`, owner)).status).toBe(404)
  })

  test('an SDR reads endpoints and deliveries but changes nothing', async () => {
    const sdr = await signIn(SDR)
    const base = `/console/api/orgs/${orgId}/webhooks/${endpointId}`
    expect((await call('GET', `/console/api/orgs/${orgId}/webhooks`, sdr)).status).toBe(200)
    expect((await call('GET', `${base}/deliveries`, sdr)).status).toBe(200)
    for (const action of ['test', 'pause', 'resume', 'roll_secret']) {
      const r = await call('POST', `${base}/${action}`, sdr)
      expect(r.status).toBe(403)
      expect(r.body.error.missing_permission).toBe('webhooks:write')
    }
    expect((await h.api('GET', `/webhook_endpoints/${endpointId}`, { key: live })).body.data.status).toBe('active')
  })

  test('another organization’s endpoint is not there', async () => {
    const other = (await h.admin('POST', '/orgs', { name: 'Other' })).body.data.id
    await h.admin('POST', `/orgs/${other}/users`, { email: 'them@other.example', password: 'their password 1', role: 'owner' })
    const them = await signIn({ email: 'them@other.example', password: 'their password 1' })
    expect((await call('POST', `/console/api/orgs/${other}/webhooks/${endpointId}/pause`, them)).status).toBe(404)
    expect((await call('GET', `/console/api/orgs/${orgId}/webhooks`, them)).status).toBe(404)
  })
})
