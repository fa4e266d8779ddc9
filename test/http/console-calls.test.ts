import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, type Harness, type TestKey } from '../harness'
import { consoleRequest, type ConsoleRequestOptions } from './console-client'

setDefaultTimeout(60_000)

// Issue 19: the console's calls API (list, one call with transcript and recording, the outcome form).

let h: Harness
let orgId = ''
let campaignId = ''
let live: TestKey
let callId = ''
const SDR = { email: 'sdr@acme.example', password: 'sdr password 12345' }

const call = (method: string, path: string, options: ConsoleRequestOptions = {}) => consoleRequest(h, method, path, options)

async function signIn(body: unknown) {
  const r = await call('POST', '/console/api/session', { body })
  return { cookie: r.cookie!.split(';')[0]!, csrf: r.body.data.csrf_token as string }
}

beforeEach(async () => {
  h = createHarness({ autoDial: true })
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing', timezone: 'America/Chicago', plan_requests_per_minute: 100000 })).body.data.id
  campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'active', sdrs: [{ name: 'Alex' }] })).body.data.id
  await h.admin('POST', `/orgs/${orgId}/users`, { ...SDR, role: 'sdr' })
  live = await h.createKey(orgId, { name: 'live', mode: 'live' })
  // Scenario 09: answered, hung up at 12 s, with a recording and a transcript.
  const lead = (await h.api('POST', '/leads', { key: live, body: { campaign_id: campaignId, phone: '+12125552009', name: 'Ann Lee', call_now: true } })).body.data.id
  await h.advance(60)
  callId = (await h.api('GET', `/calls?lead_id=${lead}`, { key: live })).body.data[0].id
})
afterEach(() => h.close())

describe('console calls', () => {
  test('the list, filtered by campaign, outcome and the organization’s day', async () => {
    const { cookie } = await signIn(SDR)
    const all = await call('GET', `/console/api/orgs/${orgId}/calls`, { cookie })
    expect(all.body.data.map((c: any) => c.id)).toEqual([callId])
    expect(all.body.data[0].lead).toMatchObject({ name: 'Ann Lee', phone: '+12125552009' })
    expect((await call('GET', `/console/api/orgs/${orgId}/calls?campaign_id=${campaignId}&outcome=hung_up`, { cookie })).body.data).toHaveLength(1)
    expect((await call('GET', `/console/api/orgs/${orgId}/calls?outcome=busy`, { cookie })).body.data).toHaveLength(0)
    // The harness clock is 2026-01-05 09:00 in Chicago.
    expect((await call('GET', `/console/api/orgs/${orgId}/calls?from=2026-01-05&to=2026-01-05`, { cookie })).body.data).toHaveLength(1)
    expect((await call('GET', `/console/api/orgs/${orgId}/calls?from=2026-01-06`, { cookie })).body.data).toHaveLength(0)
    expect((await call('GET', `/console/api/orgs/${orgId}/calls?to=2026-01-04`, { cookie })).body.data).toHaveLength(0)
    for (const bad of ['2026-13-01', 'yesterday', '2026-1-5']) {
      const r = await call('GET', `/console/api/orgs/${orgId}/calls?from=${bad}`, { cookie })
      expect(r.status).toBe(400)
      expect(r.body.error.param).toBe('from')
    }
  })

  test('a day that does not exist is refused, not rolled over to the next month', async () => {
    const { cookie } = await signIn(SDR)
    for (const [param, bad] of [['from', '2026-02-31'], ['to', '2026-02-29'], ['from', '2026-04-31'], ['to', '2026-02-30']] as const) {
      const r = await call('GET', `/console/api/orgs/${orgId}/calls?${param}=${bad}`, { cookie })
      expect(r.status).toBe(400)
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param })
    }
    // A leap day that exists is a day like any other.
    expect((await call('GET', `/console/api/orgs/${orgId}/calls?from=2028-02-29`, { cookie })).status).toBe(200)
  })

  test('the campaign board counts today’s calls and connects (in the organization’s day)', async () => {
    const { cookie } = await signIn(SDR)
    const board = await call('GET', `/console/api/orgs/${orgId}/campaigns`, { cookie })
    expect(board.body.data[0]).toMatchObject({ calls_today: 1, connects_today: 1, lines_in_use: 0, queued: 0 })
    // The next local day starts at 06:00 UTC in Chicago: yesterday's call no longer counts.
    await h.advance(22 * 3600)
    const again = await signIn(SDR)
    expect((await call('GET', `/console/api/orgs/${orgId}/campaigns`, { cookie: again.cookie })).body.data[0]).toMatchObject({ calls_today: 0, connects_today: 0 })
  })

  test('one call: its transcript and a signed recording link', async () => {
    const { cookie } = await signIn(SDR)
    const r = await call('GET', `/console/api/orgs/${orgId}/calls/${callId}`, { cookie })
    expect(r.body.data.call).toMatchObject({ id: callId, status: 'ended', recording_available: true })
    expect(r.body.data.transcript.length).toBeGreaterThan(0)
    expect(r.body.data.recording.url).toContain(`/recordings/${callId}?expires=`)
    const audio = await h.app.handle(new Request(r.body.data.recording.url))
    expect(audio.status).toBe(200)
  })

  test('an SDR files and corrects the outcome; it needs the CSRF token; a bad outcome is 400', async () => {
    const { cookie, csrf } = await signIn(SDR)
    const path = `/console/api/orgs/${orgId}/calls/${callId}/outcome`
    expect((await call('POST', path, { cookie, body: { outcome: 'interested' } })).status).toBe(403)
    const filed = await call('POST', path, { cookie, csrf, body: { outcome: 'not_interested', note: 'Has a roofer.' } })
    expect(filed.body.data).toMatchObject({ outcome: 'not_interested', note: 'Has a roofer.' })
    const bad = await call('POST', path, { cookie, csrf, body: { outcome: 'maybe' } })
    expect(bad.status).toBe(400)
    expect((await h.api('GET', `/calls/${callId}`, { key: live })).body.data.outcome).toBe('not_interested')
  })

  test('another organization’s person cannot see or file this call', async () => {
    const other = (await h.admin('POST', '/orgs', { name: 'Other' })).body.data.id
    await h.admin('POST', `/orgs/${other}/users`, { email: 'them@other.example', password: 'their password 1', role: 'owner' })
    const them = await signIn({ email: 'them@other.example', password: 'their password 1' })
    expect((await call('GET', `/console/api/orgs/${orgId}/calls/${callId}`, { cookie: them.cookie })).status).toBe(404)
    expect((await call('GET', `/console/api/orgs/${other}/calls/${callId}`, { cookie: them.cookie })).status).toBe(404)
    expect((await call('POST', `/console/api/orgs/${other}/calls/${callId}/outcome`, { cookie: them.cookie, csrf: them.csrf, body: { outcome: 'dnc' } })).status).toBe(404)
    expect((await h.api('GET', `/calls/${callId}`, { key: live })).body.data.outcome).toBe('hung_up')
  })
})
