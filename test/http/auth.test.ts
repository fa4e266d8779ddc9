import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { basic, createHarness, seedWorld, type Harness, type Reply, type TestKey, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Authentication, permissions, campaign scope and live/test separation, through the
 * request pipeline (spec "Authentication", "Errors"; DESIGN.md "Contract details").
 */

let h: Harness
let w: World
beforeAll(async () => {
  h = createHarness()
  w = await seedWorld(h)
})
afterAll(() => h.close())

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64')

/** A 401 in the spec's envelope, with the given reason. */
function expectAuthFailed(r: Reply, reason: string) {
  expect(r.status).toBe(401)
  const requestId = r.headers.get('request-id')
  expect(requestId).toMatch(/^req_/)
  expect(r.body).toEqual({
    error: {
      type: 'authentication_error',
      code: 'authentication_failed',
      message: expect.any(String),
      param: null,
      request_id: requestId,
      reason,
    },
  })
  expect(r.body.error.message.length).toBeGreaterThan(0)
  expect(r.headers.get('www-authenticate')).toMatch(/^Basic\b/i)
}

function expectPermissionDenied(r: Reply, permission: string) {
  expect(r.status).toBe(403)
  expect(r.body).toEqual({
    error: {
      type: 'permission_error',
      code: 'permission_denied',
      message: expect.any(String),
      param: null,
      request_id: r.headers.get('request-id'),
      missing_permission: permission,
      campaign_id: null,
    },
  })
}

function expectNotFound(r: Reply) {
  expect(r.status).toBe(404)
  expect(r.body.error.type).toBe('invalid_request_error')
  expect(r.body.error.code).toBe('not_found')
  expect(r.body.error.request_id).toBe(r.headers.get('request-id'))
}

const withAuthorization = (authorization: string) => ({ headers: { authorization } })

describe('401 authentication_failed', () => {
  test('no Authorization header: reason missing', async () => {
    expectAuthFailed(await h.api('GET', '/campaigns'), 'missing')
  })

  test('a valid key on the same path answers 200 (the 401s below are about the credentials)', async () => {
    const r = await h.api('GET', '/campaigns', { key: w.live })
    expect(r.status).toBe(200)
    expect(r.headers.get('www-authenticate')).toBeNull()
  })

  test.each([
    ['empty header', ''],
    ['scheme only', 'Basic'],
    ['not base64', 'Basic !!!'],
    ['Bearer scheme', 'Bearer x'],
    ['Bearer with a real secret', 'Bearer secret-value'],
    ['no colon', `Basic ${b64('nocolon')}`],
    ['empty key id', `Basic ${b64(':secret')}`],
    ['empty secret', `Basic ${b64('id:')}`],
    ['two tokens', `Basic ${b64('a:b')} ${b64('c:d')}`],
  ])('unreadable credentials (%s): reason missing', async (_label, header) => {
    expectAuthFailed(await h.api('GET', '/campaigns', withAuthorization(header)), 'missing')
  })

  test('the Basic scheme name is case-insensitive', async () => {
    const header = w.live.authorization.replace(/^Basic/, 'basic')
    expect((await h.api('GET', '/campaigns', withAuthorization(header))).status).toBe(200)
  })

  test('wrong secret for a real key: reason wrong', async () => {
    const r = await h.api('GET', '/campaigns', withAuthorization(basic(w.live.id, `${w.live.secret}x`)))
    expectAuthFailed(r, 'wrong')
  })

  test('unknown key id: reason wrong', async () => {
    const r = await h.api('GET', '/campaigns', withAuthorization(basic('dk_live_doesnotexist0000000000', w.live.secret)))
    expectAuthFailed(r, 'wrong')
  })

  test("another key's secret: reason wrong", async () => {
    expectAuthFailed(await h.api('GET', '/campaigns', withAuthorization(basic(w.live.id, w.test.secret))), 'wrong')
  })

  test('the error message does not echo the secret', async () => {
    const r = await h.api('GET', '/campaigns', withAuthorization(basic(w.live.id, 'dks_leaky-secret-value')))
    expect(r.status).toBe(401)
    expect(r.text).not.toContain('dks_leaky-secret-value')
  })

  describe('revoked key', () => {
    let key: TestKey
    beforeAll(async () => {
      key = await h.createKey(w.orgId, { name: 'to revoke', mode: 'live' })
    })

    test('works before, reason revoked after POST /keys/{id}/revoke', async () => {
      expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
      const revoke = await h.admin('POST', `/keys/${key.id}/revoke`)
      expect(revoke.status).toBe(200)
      expectAuthFailed(await h.api('GET', '/campaigns', { key }), 'revoked')
    })

    test("a wrong secret for a revoked key says 'wrong', not 'revoked'", async () => {
      const r = await h.api('GET', '/campaigns', withAuthorization(basic(key.id, 'dks_not-the-secret')))
      expectAuthFailed(r, 'wrong')
    })
  })

  describe('disabled key', () => {
    let key: TestKey
    beforeAll(async () => {
      key = await h.createKey(w.orgId, { name: 'to disable', mode: 'live' })
    })

    test('reason disabled while disabled', async () => {
      expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
      const patch = await h.admin('PATCH', `/keys/${key.id}`, { disabled: true })
      expect(patch.status).toBe(200)
      expect(patch.body.data.disabled).toBe(true)
      expectAuthFailed(await h.api('GET', '/campaigns', { key }), 'disabled')
    })

    test("a wrong secret for a disabled key says 'wrong'", async () => {
      expectAuthFailed(await h.api('GET', '/campaigns', withAuthorization(basic(key.id, 'dks_nope'))), 'wrong')
    })

    test('works again once re-enabled', async () => {
      const patch = await h.admin('PATCH', `/keys/${key.id}`, { disabled: false })
      expect(patch.status).toBe(200)
      const r = await h.api('GET', '/campaigns', { key })
      expect(r.status).toBe(200)
      expect(r.body.data.length).toBe(2)
    })
  })

  describe('expired key', () => {
    let key: TestKey
    beforeAll(async () => {
      const expiresAt = new Date(h.services.clock.now() + 30_000).toISOString()
      key = await h.createKey(w.orgId, { name: 'expiring', mode: 'live', expires_at: expiresAt })
    })

    test('works until expires_at on the service clock', async () => {
      expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
      await h.advance(29)
      expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
    })

    test('reason expired once the clock passes expires_at', async () => {
      await h.advance(2)
      expectAuthFailed(await h.api('GET', '/campaigns', { key }), 'expired')
    })

    test("a wrong secret for an expired key says 'wrong'", async () => {
      expectAuthFailed(await h.api('GET', '/campaigns', withAuthorization(basic(key.id, 'dks_nope'))), 'wrong')
    })
  })
})

describe('403 permission_denied', () => {
  let readOnly: TestKey
  beforeAll(async () => {
    readOnly = await h.createKey(w.orgId, { name: 'dnc reader', mode: 'live', permissions: ['dnc:read'] })
  })

  test('the permission it has works', async () => {
    const r = await h.api('GET', '/dnc', { key: readOnly })
    expect(r.status).toBe(200)
  })

  test('POST /dnc without dnc:write', async () => {
    expectPermissionDenied(await h.api('POST', '/dnc', { key: readOnly, body: { phone: '+14155552601' } }), 'dnc:write')
  })

  test('GET /campaigns without campaigns:read', async () => {
    expectPermissionDenied(await h.api('GET', '/campaigns', { key: readOnly }), 'campaigns:read')
  })

  test('POST /campaigns/{id}/pause without campaigns:write changes nothing', async () => {
    expectPermissionDenied(await h.api('POST', `/campaigns/${w.campaignId}/pause`, { key: readOnly }), 'campaigns:write')
    const campaign = await h.api('GET', `/campaigns/${w.campaignId}`, { key: w.live })
    expect(campaign.body.data.status).toBe('active')
  })

  test('nothing was added by the refused POST /dnc', async () => {
    const r = await h.api('GET', '/dnc/check?phone=%2B14155552601', { key: readOnly })
    expect(r.status).toBe(200)
    expect(r.body.data.onDncList).toBe(false)
  })

  test.each([
    ['wrong type', { phone: 123 }],
    ['unknown field', { phone: '+14155552601', colour: 'red' }],
    ['missing field', {}],
    ['phone too long', { phone: '+1' + '4'.repeat(40) }],
  ])('checked before body validation: %s gives 403, not 400', async (_label, body) => {
    expectPermissionDenied(await h.api('POST', '/dnc', { key: readOnly, body }), 'dnc:write')
  })

  test('checked before query validation: GET /campaigns?limit=0 gives 403', async () => {
    expectPermissionDenied(await h.api('GET', '/campaigns?limit=0', { key: readOnly }), 'campaigns:read')
  })
})

describe('campaign scope', () => {
  test('a campaign-limited key lists only its campaign', async () => {
    const r = await h.api('GET', '/campaigns', { key: w.scoped })
    expect(r.status).toBe(200)
    expect(r.body.data.map((c: { id: string }) => c.id)).toEqual([w.campaignId])
  })

  test('a campaign-limited key reads its campaign', async () => {
    const r = await h.api('GET', `/campaigns/${w.campaignId}`, { key: w.scoped })
    expect(r.status).toBe(200)
    expect(r.body.data.id).toBe(w.campaignId)
  })

  test("a campaign outside the key's scope is 404, not 403", async () => {
    expectNotFound(await h.api('GET', `/campaigns/${w.draftCampaignId}`, { key: w.scoped }))
  })

  test("acting on a campaign outside the key's scope is 404", async () => {
    expectNotFound(await h.api('POST', `/campaigns/${w.draftCampaignId}/activate`, { key: w.scoped }))
  })

  test("another organization's campaign is 404", async () => {
    expectNotFound(await h.api('GET', `/campaigns/${w.otherCampaignId}`, { key: w.live }))
  })

  test("pausing another organization's campaign is 404 and leaves it active", async () => {
    expectNotFound(await h.api('POST', `/campaigns/${w.otherCampaignId}/pause`, { key: w.live }))
    const theirs = await h.api('GET', `/campaigns/${w.otherCampaignId}`, { key: w.otherLive })
    expect(theirs.status).toBe(200)
    expect(theirs.body.data.status).toBe('active')
  })

  test("another organization's campaigns are not listed", async () => {
    const r = await h.api('GET', '/campaigns', { key: w.live })
    const ids = r.body.data.map((c: { id: string }) => c.id)
    expect(ids).not.toContain(w.otherCampaignId)
    expect(ids.sort()).toEqual([w.campaignId, w.draftCampaignId].sort())
  })
})

describe('livemode', () => {
  const TEST_ONLY = '+14155552611'
  const LIVE_ONLY = '+14155552612'

  test('test key replies carry livemode false; a test key sees only id and name of a campaign', async () => {
    const r = await h.api('GET', '/campaigns', { key: w.test })
    expect(r.status).toBe(200)
    expect(r.body.data.length).toBe(2)
    for (const campaign of r.body.data) {
      expect(campaign.livemode).toBe(false)
      expect(Object.keys(campaign).sort()).toEqual(['id', 'livemode', 'name'])
    }
  })

  test('live key replies carry livemode true', async () => {
    const r = await h.api('GET', '/campaigns', { key: w.live })
    expect(r.body.data.length).toBe(2)
    for (const campaign of r.body.data) expect(campaign.livemode).toBe(true)
    const check = await h.api('GET', '/dnc/check?phone=%2B14155552610', { key: w.live })
    expect(check.body.data.livemode).toBe(true)
  })

  test('a DNC entry added with the test key is test-mode only', async () => {
    const added = await h.api('POST', '/dnc', { key: w.test, body: { phone: TEST_ONLY } })
    expect(added.status).toBe(201)
    expect(added.body.data.livemode).toBe(false)

    const testList = await h.api('GET', '/dnc', { key: w.test })
    expect(testList.body.data.map((e: { phone: string }) => e.phone)).toContain(TEST_ONLY)
    const testCheck = await h.api('GET', `/dnc/check?phone=${encodeURIComponent(TEST_ONLY)}`, { key: w.test })
    expect(testCheck.body.data).toEqual({ phone: TEST_ONLY, normalizedPhone: TEST_ONLY, onDncList: true, livemode: false })

    const liveList = await h.api('GET', '/dnc', { key: w.live })
    expect(liveList.status).toBe(200)
    expect(liveList.body.data.map((e: { phone: string }) => e.phone)).not.toContain(TEST_ONLY)
    const liveCheck = await h.api('GET', `/dnc/check?phone=${encodeURIComponent(TEST_ONLY)}`, { key: w.live })
    expect(liveCheck.body.data).toEqual({ phone: TEST_ONLY, normalizedPhone: TEST_ONLY, onDncList: false, livemode: true })
  })

  test('a DNC entry added with the live key is invisible to the test key', async () => {
    const added = await h.api('POST', '/dnc', { key: w.live, body: { phone: LIVE_ONLY } })
    expect(added.status).toBe(201)
    expect(added.body.data.livemode).toBe(true)

    const liveCheck = await h.api('GET', `/dnc/check?phone=${encodeURIComponent(LIVE_ONLY)}`, { key: w.live })
    expect(liveCheck.body.data.onDncList).toBe(true)

    const testList = await h.api('GET', '/dnc', { key: w.test })
    expect(testList.body.data.map((e: { phone: string }) => e.phone)).not.toContain(LIVE_ONLY)
    for (const entry of testList.body.data) expect(entry.livemode).toBe(false)
    const testCheck = await h.api('GET', `/dnc/check?phone=${encodeURIComponent(LIVE_ONLY)}`, { key: w.test })
    expect(testCheck.body.data.onDncList).toBe(false)
    expect(testCheck.body.data.livemode).toBe(false)
  })

  test('the same number can be listed in both modes (no duplicate across modes)', async () => {
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: TEST_ONLY } })
    expect(r.status).toBe(201)
    expect(r.body.data.livemode).toBe(true)
  })

  test("a test-mode entry cannot be deleted by id with the live key", async () => {
    const testList = await h.api('GET', `/dnc?search=${TEST_ONLY.slice(2)}`, { key: w.test })
    const entry = testList.body.data.find((e: { phone: string }) => e.phone === TEST_ONLY)
    expect(entry).toBeDefined()
    expectNotFound(await h.api('DELETE', `/dnc/${entry.id}`, { key: w.live }))
    const still = await h.api('GET', `/dnc/check?phone=${encodeURIComponent(TEST_ONLY)}`, { key: w.test })
    expect(still.body.data.onDncList).toBe(true)
  })

  test("another organization's key does not see this organization's DNC entries", async () => {
    const r = await h.api('GET', `/dnc/check?phone=${encodeURIComponent(LIVE_ONLY)}`, { key: w.otherLive })
    expect(r.status).toBe(200)
    expect(r.body.data.onDncList).toBe(false)
  })
})
