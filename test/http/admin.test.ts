import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, seedWorld, type Harness, type World, expectError } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const START_ISO = '2026-01-05T15:00:00.000Z'
const UNKNOWN_UUID = '0190f2a4-1111-7aaa-8bbb-123456789abc'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const ALL_PERMISSIONS = [
  'leads:read', 'leads:write', 'calls:read', 'calls:write', 'campaigns:read', 'campaigns:write',
  'dnc:read', 'dnc:write', 'events:read', 'usage:read', 'webhooks:write',
]

let h: Harness
let w: World
beforeEach(async () => {
  h = createHarness()
  w = await seedWorld(h)
})
afterEach(() => h.close())


describe('admin authentication', () => {
  test.each([
    ['no token', {}, 'missing'],
    ['a wrong token', { authorization: 'Bearer not-the-token' }, 'wrong'],
    ['the token without Bearer', { authorization: ADMIN_TOKEN }, 'missing'],
  ])('%s is 401 authentication_failed in the error envelope', async (_, headers, reason) => {
    const r = await h.call('GET', '/api/v1/admin/orgs', { headers })
    expect(r.status).toBe(401)
    expect(r.body).toEqual({
      error: {
        type: 'authentication_error',
        code: 'authentication_failed',
        message: r.body.error.message,
        param: null,
        request_id: r.headers.get('request-id'),
        reason,
      },
    })
    expect(r.body.error.request_id).toMatch(/^req_/)
    expect(typeof r.body.error.message).toBe('string')
  })

  test("an API key's Basic authentication is refused on admin routes", async () => {
    const r = await h.call('GET', '/api/v1/admin/orgs', { key: w.live })
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('authentication_failed')
    expect(r.body.error.type).toBe('authentication_error')
    const write = await h.call('POST', '/api/v1/admin/orgs', { key: w.live, body: { name: 'Sneaky' } })
    expect(write.status).toBe(401)
    const list = await h.admin('GET', '/orgs')
    expect(list.body.data.map((o: any) => o.name)).not.toContain('Sneaky')
  })

  test('an unknown admin path is 404 not_found in the envelope', async () => {
    const r = await h.admin('GET', '/nothing-here')
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('not_found')
    expect(r.body.error.request_id).toBe(r.headers.get('request-id'))
  })

  test('the admin token is not an API key', async () => {
    const r = await h.call('GET', '/api/v1/external/campaigns', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('authentication_failed')
  })
})

describe('organizations', () => {
  test('POST /orgs fills the defaults', async () => {
    const r = await h.admin('POST', '/orgs', { name: 'Defaults Inc' })
    expect(r.status).toBe(201)
    expect(r.body.data.id).toMatch(UUID)
    expect(r.body).toEqual({
      data: {
        id: r.body.data.id,
        object: 'organization',
        name: 'Defaults Inc',
        timezone: 'America/New_York',
        rate_usd_per_minute: 0.12,
        plan_requests_per_minute: 600,
        recording_enabled: true,
        webhook_endpoint_limit: 16,
        outcome_labels: {},
        recording_retention_days: 90,
        ai_prices: null,
        caller_id_rest_days: 7,
        carrier: { kind: 'simulator' },
        created: START_ISO,
        updated: START_ISO,
      },
    })
  })

  test('POST /orgs takes every field', async () => {
    const body = {
      name: 'Full Co', timezone: 'America/Chicago', rate_usd_per_minute: 0.2, plan_requests_per_minute: 100000,
      recording_enabled: false, webhook_endpoint_limit: 3, outcome_labels: { 'Hot lead': 'interested', Gone: 'dnc' },
    }
    const r = await h.admin('POST', '/orgs', body)
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject(body)
  })

  test('an unknown time zone is 400 param timezone', async () => {
    expectError(await h.admin('POST', '/orgs', { name: 'X', timezone: 'Mars/Olympus' }), 400, 'invalid_request', 'timezone')
  })

  test('an outcome label mapped to a non-outcome word is 400 param outcome_labels.<label>', async () => {
    const r = await h.admin('POST', '/orgs', { name: 'X', outcome_labels: { 'Hot lead': 'interested', Maybe: 'perhaps' } })
    expectError(r, 400, 'invalid_request', 'outcome_labels.Maybe')
  })

  test('an unknown field is 400 naming it', async () => {
    expectError(await h.admin('POST', '/orgs', { name: 'X', colour: 'blue' }), 400, 'invalid_request', 'colour')
  })

  test('a missing name is 400 param name', async () => {
    expectError(await h.admin('POST', '/orgs', {}), 400, 'invalid_request', 'name')
  })

  test('PATCH /orgs/{id} changes the sent fields only', async () => {
    await h.advance(60)
    const r = await h.admin('PATCH', `/orgs/${w.orgId}`, { timezone: 'America/Denver', outcome_labels: { Hot: 'interested' } })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({
      id: w.orgId, name: 'Acme Roofing', timezone: 'America/Denver', outcome_labels: { Hot: 'interested' },
      plan_requests_per_minute: 100000, rate_usd_per_minute: 0.12, created: START_ISO, updated: '2026-01-05T15:01:00.000Z',
    })
    const got = await h.admin('GET', `/orgs/${w.orgId}`)
    expect(got.body).toEqual(r.body)
  })

  test('PATCH /orgs/{id} validates like create', async () => {
    expectError(await h.admin('PATCH', `/orgs/${w.orgId}`, { timezone: 'Nowhere' }), 400, 'invalid_request', 'timezone')
    expectError(await h.admin('PATCH', `/orgs/${w.orgId}`, { outcome_labels: { A: 'nope' } }), 400, 'invalid_request', 'outcome_labels.A')
    expectError(await h.admin('PATCH', `/orgs/${w.orgId}`, { id: UNKNOWN_UUID }), 400, 'invalid_request', 'id')
    expect((await h.admin('GET', `/orgs/${w.orgId}`)).body.data.timezone).toBe('America/New_York')
  })

  test('GET /orgs lists the organizations newest first', async () => {
    const third = await h.admin('POST', '/orgs', { name: 'Third' })
    const r = await h.admin('GET', '/orgs')
    expect(r.status).toBe(200)
    expect(r.body.data.map((o: any) => o.id)).toEqual([third.body.data.id, w.otherOrgId, w.orgId])
    expect(r.body.meta).toEqual({ next_cursor: null, has_more: false })
    const page = await h.admin('GET', '/orgs?limit=2')
    expect(page.body.meta).toEqual({ next_cursor: w.otherOrgId, has_more: true })
    const rest = await h.admin('GET', `/orgs?limit=2&starting_after=${w.otherOrgId}`)
    expect(rest.body.data.map((o: any) => o.id)).toEqual([w.orgId])
  })

  test.each([
    ['GET', `/orgs/${UNKNOWN_UUID}`, undefined],
    ['PATCH', `/orgs/${UNKNOWN_UUID}`, { name: 'Y' }],
    ['POST', `/orgs/${UNKNOWN_UUID}/keys`, { name: 'k', mode: 'live' }],
    ['GET', `/orgs/${UNKNOWN_UUID}/keys`, undefined],
    ['POST', `/orgs/${UNKNOWN_UUID}/campaigns`, { name: 'c' }],
    ['GET', `/orgs/${UNKNOWN_UUID}/campaigns`, undefined],
    ['GET', '/orgs/not-a-uuid', undefined],
  ])('%s %s is 404 not_found', async (method, path, body) => {
    const r = await h.admin(method, path, body)
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('not_found')
  })

  test('changing the plan limit shows in RateLimit-Limit at once', async () => {
    const key = await h.createKey(w.orgId, { name: 'k', mode: 'live', requests_per_minute: 5000, burst: 5000 })
    expect((await h.api('GET', '/campaigns', { key })).headers.get('ratelimit-limit')).toBe('5000')
    expect((await h.admin('PATCH', `/orgs/${w.orgId}`, { plan_requests_per_minute: 300 })).status).toBe(200)
    expect((await h.api('GET', '/campaigns', { key })).headers.get('ratelimit-limit')).toBe('300')
  })
})

describe('API keys', () => {
  test('POST /orgs/{id}/keys returns 201 with the id and a secret, and defaults', async () => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'Backend', mode: 'live' })
    expect(r.status).toBe(201)
    const key = r.body.data
    expect(key.id).toMatch(/^dk_live_[0-9A-Za-z]{24}$/)
    expect(key.secret).toMatch(/^dks_[A-Za-z0-9_-]{43}$/)
    expect(key).toEqual({
      id: key.id,
      object: 'api_key',
      org_id: w.orgId,
      name: 'Backend',
      mode: 'live',
      livemode: true,
      permissions: ALL_PERMISSIONS,
      campaign_ids: null,
      max_concurrent: 20,
      requests_per_minute: 120,
      burst: 20,
      leads_per_minute: 60,
      expires_at: null,
      disabled: false,
      revoked_at: null,
      created: START_ISO,
      updated: START_ISO,
      secret: key.secret,
    })
    expect(key.permissions.length).toBe(11)
  })

  test('a test key id starts dk_test_ and the secret authenticates', async () => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'Sandbox', mode: 'test' })
    expect(r.status).toBe(201)
    expect(r.body.data.id).toMatch(/^dk_test_[0-9A-Za-z]{24}$/)
    expect(r.body.data.livemode).toBe(false)
    const authorization = `Basic ${Buffer.from(`${r.body.data.id}:${r.body.data.secret}`).toString('base64')}`
    const call = await h.call('GET', '/api/v1/external/campaigns', { headers: { authorization } })
    expect(call.status).toBe(200)
    expect(call.body.data[0].livemode).toBe(false)
  })

  test('the secret is shown only on create', async () => {
    const created = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'Once', mode: 'live' })
    const id = created.body.data.id
    const got = await h.admin('GET', `/keys/${id}`)
    expect(got.status).toBe(200)
    expect('secret' in got.body.data).toBe(false)
    const { secret: _secret, ...withoutSecret } = created.body.data
    expect(got.body.data).toEqual(withoutSecret)

    const list = await h.admin('GET', `/orgs/${w.orgId}/keys`)
    expect(list.status).toBe(200)
    expect(list.body.data.map((k: any) => k.id)).toContain(id)
    for (const k of list.body.data) expect('secret' in k).toBe(false)
    expect(list.text).not.toContain(created.body.data.secret)

    const patched = await h.admin('PATCH', `/keys/${id}`, { name: 'Renamed' })
    expect('secret' in patched.body.data).toBe(false)
    const revoked = await h.admin('POST', `/keys/${id}/revoke`)
    expect('secret' in revoked.body.data).toBe(false)
  })

  test('GET /orgs/{id}/keys pages through every key of the organization', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    for (let page = 0; page < 5; page++) {
      const query: string = cursor ? `?limit=1&starting_after=${cursor}` : '?limit=1'
      const r: any = await h.admin('GET', `/orgs/${w.orgId}/keys${query}`)
      expect(r.status).toBe(200)
      seen.push(...r.body.data.map((k: any) => k.id))
      cursor = r.body.meta.next_cursor
      if (!r.body.meta.has_more) break
    }
    expect(seen.sort()).toEqual([w.live.id, w.test.id, w.scoped.id].sort())
  })

  test('explicit permissions are kept, duplicates dropped', async () => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'k', mode: 'live', permissions: ['dnc:read', 'dnc:read', 'calls:read'] })
    expect(r.status).toBe(201)
    expect(r.body.data.permissions).toEqual(['dnc:read', 'calls:read'])
  })

  test.each([
    [['dnc:delete'], 'permissions[0]'],
    [['dnc:read', 'admin'], 'permissions[1]'],
  ])('unknown permission %j is 400 param %s', async (permissions, param) => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'k', mode: 'live', permissions })
    expectError(r, 400, 'invalid_request', param)
  })

  test.each([0, 51])('max_concurrent %d is 400', async (max_concurrent) => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'k', mode: 'live', max_concurrent })
    expectError(r, 400, 'invalid_request', 'max_concurrent')
  })

  test.each([1, 50])('max_concurrent %d is accepted', async (max_concurrent) => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'k', mode: 'live', max_concurrent })
    expect(r.status).toBe(201)
    expect(r.body.data.max_concurrent).toBe(max_concurrent)
  })

  test("campaign_ids of another organization is 404 param campaign_ids[0]", async () => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'k', mode: 'live', campaign_ids: [w.otherCampaignId] })
    expectError(r, 404, 'not_found', 'campaign_ids[0]')
    const second = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'k', mode: 'live', campaign_ids: [w.campaignId, UNKNOWN_UUID] })
    expectError(second, 404, 'not_found', 'campaign_ids[1]')
  })

  test('campaign_ids of the organization are kept', async () => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'k', mode: 'live', campaign_ids: [w.draftCampaignId] })
    expect(r.status).toBe(201)
    expect(r.body.data.campaign_ids).toEqual([w.draftCampaignId])
  })

  test('an unknown mode is 400 param mode', async () => {
    expectError(await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'k', mode: 'staging' }), 400, 'invalid_request', 'mode')
  })

  test('limits up to 100000 are accepted', async () => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/keys`, {
      name: 'k', mode: 'live', requests_per_minute: 100000, burst: 100000, leads_per_minute: 100000,
    })
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ requests_per_minute: 100000, burst: 100000, leads_per_minute: 100000 })
    const org = await h.admin('POST', '/orgs', { name: 'Big', plan_requests_per_minute: 100000 })
    expect(org.status).toBe(201)
    expect(org.body.data.plan_requests_per_minute).toBe(100000)
  })

  test.each(['requests_per_minute', 'burst', 'leads_per_minute'])('%s 100001 is 400', async (field) => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/keys`, { name: 'k', mode: 'live', [field]: 100001 })
    expectError(r, 400, 'invalid_request', field)
    const patch = await h.admin('PATCH', `/keys/${w.live.id}`, { [field]: 100001 })
    expectError(patch, 400, 'invalid_request', field)
  })

  test('plan_requests_per_minute 100001 is 400', async () => {
    expectError(await h.admin('POST', '/orgs', { name: 'Big', plan_requests_per_minute: 100001 }), 400, 'invalid_request', 'plan_requests_per_minute')
  })

  test('PATCH /keys/{id} changes requests_per_minute, seen in RateLimit-Limit', async () => {
    const key = await h.createKey(w.orgId, { name: 'k', mode: 'live', requests_per_minute: 500, burst: 500 })
    const before = await h.api('GET', '/campaigns', { key })
    expect(before.headers.get('ratelimit-limit')).toBe('500')
    expect(before.headers.get('ratelimit-remaining')).toBe('499')

    const patched = await h.admin('PATCH', `/keys/${key.id}`, { requests_per_minute: 250, max_concurrent: 5 })
    expect(patched.status).toBe(200)
    expect(patched.body.data).toMatchObject({ id: key.id, requests_per_minute: 250, max_concurrent: 5, burst: 500 })
    expect((await h.admin('GET', `/keys/${key.id}`)).body.data.requests_per_minute).toBe(250)

    const after = await h.api('GET', '/campaigns', { key })
    expect(after.status).toBe(200)
    expect(after.headers.get('ratelimit-limit')).toBe('250')
  })

  test('PATCH /keys/{id} permissions apply at once', async () => {
    const key = await h.createKey(w.orgId, { name: 'k', mode: 'live' })
    expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
    await h.admin('PATCH', `/keys/${key.id}`, { permissions: ['dnc:read'] })
    const r = await h.api('GET', '/campaigns', { key })
    expect(r.status).toBe(403)
    expect(r.body.error.missing_permission).toBe('campaigns:read')
  })

  test('PATCH disabled refuses the key', async () => {
    const key = await h.createKey(w.orgId, { name: 'k', mode: 'live' })
    expect((await h.admin('PATCH', `/keys/${key.id}`, { disabled: true })).body.data.disabled).toBe(true)
    const r = await h.api('GET', '/campaigns', { key })
    expect(r.status).toBe(401)
    expect(r.body.error.reason).toBe('disabled')
  })

  test('expires_at is read on the service clock', async () => {
    const key = await h.createKey(w.orgId, { name: 'k', mode: 'live', expires_at: '2026-01-05T16:00:00Z' })
    expect((await h.admin('GET', `/keys/${key.id}`)).body.data.expires_at).toBe('2026-01-05T16:00:00.000Z')
    expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
    await h.advance(3601)
    const r = await h.api('GET', '/campaigns', { key })
    expect(r.status).toBe(401)
    expect(r.body.error.reason).toBe('expired')
  })

  test('a revoked key cannot be changed', async () => {
    await h.admin('POST', `/keys/${w.live.id}/revoke`)
    const r = await h.admin('PATCH', `/keys/${w.live.id}`, { disabled: false })
    expectError(r, 400, 'invalid_request', null)
    expect((await h.api('GET', '/campaigns', { key: w.live })).status).toBe(401)
  })

  test('mode in PATCH is 400', async () => {
    expectError(await h.admin('PATCH', `/keys/${w.live.id}`, { mode: 'test' }), 400, 'invalid_request', 'mode')
    expect((await h.admin('GET', `/keys/${w.live.id}`)).body.data.mode).toBe('live')
  })

  test('revoke is idempotent and the key stops working', async () => {
    const key = await h.createKey(w.orgId, { name: 'k', mode: 'live' })
    const first = await h.admin('POST', `/keys/${key.id}/revoke`)
    expect(first.status).toBe(200)
    expect(first.body.data.revoked_at).toBe(START_ISO)
    await h.advance(60)
    const second = await h.admin('POST', `/keys/${key.id}/revoke`)
    expect(second.status).toBe(200)
    expect(second.body.data.revoked_at).toBe(START_ISO)
    expect(second.body.data).toEqual(first.body.data)

    const r = await h.api('GET', '/campaigns', { key })
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('authentication_failed')
    expect(r.body.error.reason).toBe('revoked')
  })

  test.each([
    ['GET', '/keys/dk_live_nope'],
    ['PATCH', '/keys/dk_live_nope'],
    ['POST', '/keys/dk_live_nope/revoke'],
  ])('%s %s is 404', async (method, path) => {
    const r = await h.admin(method, path, method === 'PATCH' ? { name: 'x' } : undefined)
    expectError(r, 404, 'not_found', null)
  })
})

describe('campaigns (admin)', () => {
  test('POST /orgs/{id}/campaigns fills the defaults', async () => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Fresh' })
    expect(r.status).toBe(201)
    expect(r.body.data.id).toMatch(UUID)
    expect(r.body).toEqual({
      data: {
        id: r.body.data.id,
        object: 'campaign',
        org_id: w.orgId,
        name: 'Fresh',
        status: 'draft',
        lines: 2,
        sdrs: [],
        closers: [],
        requires_consent: false,
        call_now_default: false,
        late_minutes: 15,
        calling_hours: { start: '08:00', end: '21:00' },
        max_attempts: 3,
        retry_minutes: 60,
        duplicate_window_hours: 24,
        cooldown_hours: 0,
        spend_cap_usd: null,
        voicemail: null,
        recording_notice: null,
        automated_voice: false,
        dial_mode: 'bridge',
        max_abandon_rate: 0.03,
        abandon_message: null,
        ai_agent: null,
        created: START_ISO,
        updated: START_ISO,
      },
    })
  })

  test('SDRs and closers get ids', async () => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, {
      name: 'Staffed', status: 'active', sdrs: [{ name: ' Alex ' }, { name: 'Bo' }], closers: [{ name: 'Cy' }],
    })
    expect(r.status).toBe(201)
    expect(r.body.data.status).toBe('active')
    expect(r.body.data.sdrs.map((p: any) => p.name)).toEqual(['Alex', 'Bo'])
    expect(r.body.data.closers.map((p: any) => p.name)).toEqual(['Cy'])
    const ids = [...r.body.data.sdrs, ...r.body.data.closers].map((p: any) => p.id)
    for (const id of ids) expect(id).toMatch(UUID)
    expect(new Set(ids).size).toBe(3)
  })

  test('status active without SDRs is 409 campaign_not_ready', async () => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Empty', status: 'active' })
    expect(r.status).toBe(409)
    expect(r.body.error.code).toBe('campaign_not_ready')
    expect(r.body.error.reason).toBe('no_sdr')
    const list = await h.admin('GET', `/orgs/${w.orgId}/campaigns`)
    expect(list.body.data.map((c: any) => c.name)).not.toContain('Empty')

    const patch = await h.admin('PATCH', `/campaigns/${w.draftCampaignId}`, { status: 'active' })
    expect(patch.status).toBe(409)
    expect(patch.body.error.code).toBe('campaign_not_ready')
    expect((await h.admin('GET', `/campaigns/${w.draftCampaignId}`)).body.data.status).toBe('draft')
  })

  test.each([
    [{ start: '25:00', end: '21:00' }, 'calling_hours.start'],
    [{ start: '08:00', end: '8pm' }, 'calling_hours.end'],
    [{ start: '21:00', end: '08:00' }, 'calling_hours'],
    [{ start: '09:00', end: '09:00' }, 'calling_hours'],
    // The federal floor, 08:00-21:00 (issue 17): not configurable away.
    [{ start: '00:00', end: '24:00' }, 'calling_hours.start'],
    [{ start: '07:59', end: '20:00' }, 'calling_hours.start'],
    [{ start: '08:00', end: '21:01' }, 'calling_hours.end'],
    [{ start: '09:00', end: '24:00' }, 'calling_hours.end'],
  ])('calling_hours %j is 400 param %s', async (calling_hours, param) => {
    const r = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Hours', calling_hours })
    expectError(r, 400, 'invalid_request', param)
    expectError(await h.admin('PATCH', `/campaigns/${w.campaignId}`, { calling_hours }), 400, 'invalid_request', param)
  })

  test('an unknown field or status is 400', async () => {
    expectError(await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'X', colour: 'red' }), 400, 'invalid_request', 'colour')
    expectError(await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'X', status: 'running' }), 400, 'invalid_request', 'status')
  })

  test('PATCH changes fields and keeps SDR ids sent back with their id', async () => {
    const created = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Team', sdrs: [{ name: 'Ann' }, { name: 'Ben' }] })
    const [ann, ben] = created.body.data.sdrs
    await h.advance(30)
    const r = await h.admin('PATCH', `/campaigns/${created.body.data.id}`, {
      name: 'Team 2',
      lines: 5,
      calling_hours: { start: '09:00', end: '17:30' },
      spend_cap_usd: 250.5,
      max_attempts: 4,
      sdrs: [{ id: ben.id, name: 'Benjamin' }, { name: 'Cat' }],
    })
    expect(r.status).toBe(200)
    const c = r.body.data
    expect(c).toMatchObject({
      id: created.body.data.id, name: 'Team 2', status: 'draft', lines: 5, calling_hours: { start: '09:00', end: '17:30' },
      spend_cap_usd: 250.5, max_attempts: 4, retry_minutes: 60, late_minutes: 15, created: START_ISO, updated: '2026-01-05T15:00:30.000Z',
    })
    expect(c.sdrs[0]).toEqual({ id: ben.id, name: 'Benjamin' })
    expect(c.sdrs[1].name).toBe('Cat')
    expect(c.sdrs[1].id).toMatch(UUID)
    expect([ann.id, ben.id]).not.toContain(c.sdrs[1].id)
    expect(c.sdrs.length).toBe(2)
    expect((await h.admin('GET', `/campaigns/${c.id}`)).body).toEqual(r.body)
  })

  test('PATCH with an SDR id the campaign does not have is 404 param sdrs[0].id', async () => {
    const r = await h.admin('PATCH', `/campaigns/${w.campaignId}`, { sdrs: [{ id: UNKNOWN_UUID, name: 'Ghost' }] })
    expectError(r, 404, 'not_found', 'sdrs[0].id')
  })

  test('spend_cap_usd can be cleared with null', async () => {
    await h.admin('PATCH', `/campaigns/${w.campaignId}`, { spend_cap_usd: 10 })
    const r = await h.admin('PATCH', `/campaigns/${w.campaignId}`, { spend_cap_usd: null })
    expect(r.status).toBe(200)
    expect(r.body.data.spend_cap_usd).toBeNull()
  })

  test('unknown campaign is 404', async () => {
    expectError(await h.admin('GET', `/campaigns/${UNKNOWN_UUID}`), 404, 'not_found', null)
    expectError(await h.admin('PATCH', `/campaigns/${UNKNOWN_UUID}`, { name: 'x' }), 404, 'not_found', null)
  })
})

describe('retired numbers', () => {
  test('retire, retire again, list and delete', async () => {
    const path = `/campaigns/${w.campaignId}/retired_numbers`
    const first = await h.admin('POST', path, { phone: '(415) 555-2671' })
    expect(first.status).toBe(201)
    expect(first.body.data.id).toMatch(UUID)
    expect(first.body.data).toEqual({
      id: first.body.data.id, object: 'retired_number', campaign_id: w.campaignId, phone: '+14155552671',
      livemode: true, reason: 'manual', created: START_ISO,
    })

    const again = await h.admin('POST', path, { phone: '+14155552671' })
    expect(again.status).toBe(201)
    expect(again.body.data).toEqual(first.body.data)

    const list = await h.admin('GET', path)
    expect(list.status).toBe(200)
    expect(list.body).toEqual({ data: [first.body.data], meta: { next_cursor: null, has_more: false } })

    const removed = await h.admin('DELETE', `${path}/${first.body.data.id}`)
    expect(removed.status).toBe(200)
    expect(removed.body.data).toEqual(first.body.data)
    expect((await h.admin('GET', path)).body.data).toEqual([])
    expectError(await h.admin('DELETE', `${path}/${first.body.data.id}`), 404, 'not_found', null)
  })

  test("a number can only be deleted through its own campaign's path", async () => {
    const retired = await h.admin('POST', `/campaigns/${w.campaignId}/retired_numbers`, { phone: '4155552671' })
    const r = await h.admin('DELETE', `/campaigns/${w.draftCampaignId}/retired_numbers/${retired.body.data.id}`)
    expectError(r, 404, 'not_found', null)
    expect((await h.admin('GET', `/campaigns/${w.campaignId}/retired_numbers`)).body.data.length).toBe(1)
  })

  test('test-mode numbers are kept apart and the magic range is accepted', async () => {
    const r = await h.admin('POST', `/campaigns/${w.campaignId}/retired_numbers`, { phone: '+14155550123', livemode: false })
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ phone: '+14155550123', livemode: false })
    const live = await h.admin('POST', `/campaigns/${w.campaignId}/retired_numbers`, { phone: '+14155550123' })
    expect(live.body.data.id).not.toBe(r.body.data.id)
  })

  test.each(['123', 'hello'])('%s is 400 invalid_phone', async (phone) => {
    const r = await h.admin('POST', `/campaigns/${w.campaignId}/retired_numbers`, { phone })
    expectError(r, 400, 'invalid_phone', 'phone')
  })

  test('an unknown campaign is 404', async () => {
    const r = await h.admin('POST', `/campaigns/${UNKNOWN_UUID}/retired_numbers`, { phone: '4155552671' })
    expectError(r, 404, 'not_found', null)
  })
})

describe('jobs', () => {
  test('GET /jobs lists retention_purge', async () => {
    const r = await h.admin('GET', '/jobs')
    expect(r.status).toBe(200)
    expect(r.body.data).toContainEqual({ name: 'retention_purge' })
  })

  test('POST /jobs/retention_purge/run runs it', async () => {
    const r = await h.admin('POST', '/jobs/retention_purge/run')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { name: 'retention_purge', ran_at: START_ISO, duration_ms: expect.any(Number) } })
  })

  test('an unknown job is 404', async () => {
    expectError(await h.admin('POST', '/jobs/make_coffee/run'), 404, 'not_found', null)
  })
})

describe('clock', () => {
  test('GET /clock returns the harness start', async () => {
    const r = await h.admin('GET', '/clock')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { now: START_ISO } })
  })

  test('POST /clock advance_seconds moves it', async () => {
    const r = await h.admin('POST', '/clock', { advance_seconds: 90 })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { now: '2026-01-05T15:01:30.000Z' } })
    expect((await h.admin('GET', '/clock')).body.data.now).toBe('2026-01-05T15:01:30.000Z')
  })

  test('POST /clock now sets it', async () => {
    const r = await h.admin('POST', '/clock', { now: '2026-01-06T00:00:00Z' })
    expect(r.status).toBe(200)
    expect(r.body.data.now).toBe('2026-01-06T00:00:00.000Z')
  })

  test('an earlier now is 400 and the clock stays', async () => {
    const r = await h.admin('POST', '/clock', { now: '2026-01-05T14:59:59Z' })
    expectError(r, 400, 'invalid_request', 'now')
    expect((await h.admin('GET', '/clock')).body.data.now).toBe(START_ISO)
  })

  test.each([
    ['both fields', { advance_seconds: 10, now: '2026-01-06T00:00:00Z' }],
    ['neither field', {}],
  ])('%s is 400', async (_, body) => {
    const r = await h.admin('POST', '/clock', body)
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('invalid_request')
    expect((await h.admin('GET', '/clock')).body.data.now).toBe(START_ISO)
  })

  test('without the fake clock GET and POST /clock are 404', async () => {
    const real = createHarness({ env: { DIALER_FAKE_CLOCK: '0' } })
    try {
      expectError(await real.admin('GET', '/clock'), 404, 'not_found', null)
      expectError(await real.admin('POST', '/clock', { advance_seconds: 90 }), 404, 'not_found', null)
    } finally {
      real.close()
    }
  })
})

describe('idempotency retention', () => {
  test('a reply is replayed before 24 h and its record purged by retention_purge after 24 h', async () => {
    const headers = { 'idempotency-key': 'dnc-add-1' }
    const first = await h.api('POST', '/dnc', { key: w.live, body: { phone: '4155552671' }, headers })
    expect(first.status).toBe(201)
    expect(first.headers.get('idempotent-replayed')).toBeNull()

    await h.advance(23 * 3600)
    const replay = await h.api('POST', '/dnc', { key: w.live, body: { phone: '4155552671' }, headers })
    expect(replay.status).toBe(201)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.body).toEqual(first.body)

    await h.advance(3600 + 1)
    const stored = h.services.stores.idempotency.get(w.live.id, 'dnc-add-1')
    expect(stored?.status).toBe(201)

    const ran = await h.admin('POST', '/jobs/retention_purge/run')
    expect(ran.status).toBe(200)
    expect(h.services.stores.idempotency.get(w.live.id, 'dnc-add-1')).toBeUndefined()

    // The key now starts a new action: the number is already listed.
    const fresh = await h.api('POST', '/dnc', { key: w.live, body: { phone: '4155552671' }, headers })
    expect(fresh.status).toBe(409)
    expect(fresh.body.error.code).toBe('duplicate_dnc_entry')
    expect(fresh.headers.get('idempotent-replayed')).toBeNull()
  })

  test('after 24 h the same Idempotency-Key runs the request again even before the purge', async () => {
    const headers = { 'idempotency-key': 'dnc-add-2' }
    const first = await h.api('POST', '/dnc', { key: w.live, body: { phone: '4155552671' }, headers })
    expect(first.status).toBe(201)
    await h.advance(24 * 3600 + 1)
    // The daily purge (03:15 UTC) has not removed it yet: it was less than 24 h old then.
    expect(h.services.stores.idempotency.get(w.live.id, 'dnc-add-2')?.status).toBe(201)
    const again = await h.api('POST', '/dnc', { key: w.live, body: { phone: '4155552671' }, headers })
    expect(again.status).toBe(409)
    expect(again.body.error.code).toBe('duplicate_dnc_entry')
    expect(again.headers.get('idempotent-replayed')).toBeNull()
  })
})
