import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, type Harness, type TestKey, type World, expectError } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

let h: Harness
let w: World
beforeEach(async () => {
  h = createHarness()
  w = await seedWorld(h)
})
afterEach(() => h.close())

const UNKNOWN_UUID = '0190f2a4-1111-7aaa-8bbb-123456789abc'


async function adminStatus(id: string): Promise<string> {
  const r = await h.admin('GET', `/campaigns/${id}`)
  expect(r.status).toBe(200)
  return r.body.data.status
}

async function setStatus(id: string, status: string): Promise<void> {
  const r = await h.admin('PATCH', `/campaigns/${id}`, { status })
  expect(r.status).toBe(200)
  expect(r.body.data.status).toBe(status)
}

const activate = (id: string, key: TestKey = w.live) => h.api('POST', `/campaigns/${id}/activate`, { key })
const pause = (id: string, key: TestKey = w.live) => h.api('POST', `/campaigns/${id}/pause`, { key })

describe('GET /campaigns', () => {
  test('a live key sees id, name, status and livemode true, newest first', async () => {
    const r = await h.api('GET', '/campaigns', { key: w.live })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      data: [
        { id: w.draftCampaignId, name: 'Draft campaign', status: 'draft', livemode: true },
        { id: w.campaignId, name: 'Spring roofs', status: 'active', livemode: true },
      ],
      meta: { next_cursor: null, has_more: false },
    })
    for (const c of r.body.data) expect(Object.keys(c).sort()).toEqual(['id', 'livemode', 'name', 'status'])
  })

  test('a test key sees only id and name (and livemode false)', async () => {
    const r = await h.api('GET', '/campaigns', { key: w.test })
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual([
      { id: w.draftCampaignId, name: 'Draft campaign', livemode: false },
      { id: w.campaignId, name: 'Spring roofs', livemode: false },
    ])
    for (const c of r.body.data) expect(Object.keys(c).sort()).toEqual(['id', 'livemode', 'name'])
  })

  test('paging with limit 1 and cursor', async () => {
    const p1 = await h.api('GET', '/campaigns?limit=1', { key: w.live })
    expect(p1.status).toBe(200)
    expect(p1.body.data.map((c: any) => c.id)).toEqual([w.draftCampaignId])
    expect(p1.body.meta).toEqual({ next_cursor: w.draftCampaignId, has_more: true })

    const p2 = await h.api('GET', `/campaigns?limit=1&cursor=${p1.body.meta.next_cursor}`, { key: w.live })
    expect(p2.body.data.map((c: any) => c.id)).toEqual([w.campaignId])
    expect(p2.body.meta).toEqual({ next_cursor: null, has_more: false })
  })

  test('a scoped key lists only its campaigns', async () => {
    const r = await h.api('GET', '/campaigns', { key: w.scoped })
    expect(r.body.data.map((c: any) => c.id)).toEqual([w.campaignId])
  })

  test('a key limited to no campaigns lists none', async () => {
    const key = await h.createKey(w.orgId, { name: 'none', mode: 'live', campaign_ids: [] })
    const r = await h.api('GET', '/campaigns', { key })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: [], meta: { next_cursor: null, has_more: false } })
  })

  test('the other organization lists only its own', async () => {
    const r = await h.api('GET', '/campaigns', { key: w.otherLive })
    expect(r.body.data).toEqual([{ id: w.otherCampaignId, name: 'Other campaign', status: 'active', livemode: true }])
  })

  test.each(['0', '101'])('limit=%s is 400 param limit', async (limit) => {
    const r = await h.api('GET', `/campaigns?limit=${limit}`, { key: w.live })
    expectError(r, 400, 'invalid_request')
    expect(r.body.error.param).toBe('limit')
  })

  test('a key without campaigns:read is 403', async () => {
    const key = await h.createKey(w.orgId, { name: 'dnc only', mode: 'live', permissions: ['dnc:read'] })
    const r = await h.api('GET', '/campaigns', { key })
    expectError(r, 403, 'permission_denied')
    expect(r.body.error.missing_permission).toBe('campaigns:read')
    expect(r.body.error.campaign_id).toBeNull()
  })
})

describe('GET /campaigns/{id}', () => {
  test('200 for a live key', async () => {
    const r = await h.api('GET', `/campaigns/${w.campaignId}`, { key: w.live })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { id: w.campaignId, name: 'Spring roofs', status: 'active', livemode: true } })
  })

  test('a test key gets id and name only', async () => {
    const r = await h.api('GET', `/campaigns/${w.campaignId}`, { key: w.test })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { id: w.campaignId, name: 'Spring roofs', livemode: false } })
  })

  test.each([
    ['another organization', () => w.otherCampaignId],
    ['an unknown uuid', () => UNKNOWN_UUID],
    ['a malformed id', () => 'nope'],
  ])('%s is 404 not_found', async (_, id) => {
    const r = await h.api('GET', `/campaigns/${id()}`, { key: w.live })
    expectError(r, 404, 'not_found')
    expect(r.body.error.type).toBe('invalid_request_error')
  })

  test('a scoped key gets 404 outside its scope and 200 inside it', async () => {
    expectError(await h.api('GET', `/campaigns/${w.draftCampaignId}`, { key: w.scoped }), 404, 'not_found')
    expect((await h.api('GET', `/campaigns/${w.campaignId}`, { key: w.scoped })).status).toBe(200)
  })
})

describe('POST /campaigns/{id}/activate', () => {
  test('a draft without an SDR is 409 campaign_not_ready reason no_sdr', async () => {
    const r = await activate(w.draftCampaignId)
    expectError(r, 409, 'campaign_not_ready')
    expect(r.body.error.reason).toBe('no_sdr')
    expect(r.body.error.type).toBe('invalid_request_error')
    expect(await adminStatus(w.draftCampaignId)).toBe('draft')
  })

  test('once an SDR is added the draft becomes active', async () => {
    const patched = await h.admin('PATCH', `/campaigns/${w.draftCampaignId}`, { sdrs: [{ name: 'Jo' }] })
    expect(patched.status).toBe(200)
    const r = await activate(w.draftCampaignId)
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { id: w.draftCampaignId, status: 'active', livemode: true } })
    expect(await adminStatus(w.draftCampaignId)).toBe('active')
    const seen = await h.api('GET', `/campaigns/${w.draftCampaignId}`, { key: w.live })
    expect(seen.body.data.status).toBe('active')
  })

  test('an already active campaign answers 200 active', async () => {
    const r = await activate(w.campaignId)
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { id: w.campaignId, status: 'active', livemode: true } })
    expect(await adminStatus(w.campaignId)).toBe('active')
  })

  test('a paused campaign becomes active again', async () => {
    await setStatus(w.campaignId, 'paused')
    const r = await activate(w.campaignId)
    expect(r.status).toBe(200)
    expect(r.body.data.status).toBe('active')
    expect(await adminStatus(w.campaignId)).toBe('active')
  })

  test('a completed campaign is 409 campaign_closed', async () => {
    await setStatus(w.campaignId, 'completed')
    const r = await activate(w.campaignId)
    expectError(r, 409, 'campaign_closed')
    expect(await adminStatus(w.campaignId)).toBe('completed')
  })

  test('a test key is told active for a paused campaign but changes nothing', async () => {
    await setStatus(w.campaignId, 'paused')
    const r = await activate(w.campaignId, w.test)
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { id: w.campaignId, status: 'active', livemode: false } })
    expect(await adminStatus(w.campaignId)).toBe('paused')
  })

  test('a test key on a draft without SDR still gets campaign_not_ready', async () => {
    const r = await activate(w.draftCampaignId, w.test)
    expectError(r, 409, 'campaign_not_ready')
    expect(r.body.error.reason).toBe('no_sdr')
  })

  test('a scoped key cannot activate a campaign outside its scope (404)', async () => {
    await h.admin('PATCH', `/campaigns/${w.draftCampaignId}`, { sdrs: [{ name: 'Jo' }] })
    const r = await activate(w.draftCampaignId, w.scoped)
    expectError(r, 404, 'not_found')
    expect(await adminStatus(w.draftCampaignId)).toBe('draft')
  })

  test("another organization's campaign is 404 and unchanged", async () => {
    await setStatus(w.otherCampaignId, 'paused')
    expectError(await activate(w.otherCampaignId), 404, 'not_found')
    expect(await adminStatus(w.otherCampaignId)).toBe('paused')
  })

  test('an unknown campaign is 404', async () => {
    expectError(await activate(UNKNOWN_UUID), 404, 'not_found')
  })

  test('a key without campaigns:write is 403 missing_permission campaigns:write', async () => {
    await setStatus(w.campaignId, 'paused')
    const key = await h.createKey(w.orgId, { name: 'reader', mode: 'live', permissions: ['campaigns:read'] })
    const r = await activate(w.campaignId, key)
    expect(r.status).toBe(403)
    expect(r.body.error).toMatchObject({
      type: 'permission_error', code: 'permission_denied', missing_permission: 'campaigns:write', campaign_id: null,
    })
    expect(await adminStatus(w.campaignId)).toBe('paused')
  })
})

describe('POST /campaigns/{id}/pause', () => {
  test('an active campaign becomes paused', async () => {
    const r = await pause(w.campaignId)
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { id: w.campaignId, status: 'paused', livemode: true } })
    expect(await adminStatus(w.campaignId)).toBe('paused')
    const seen = await h.api('GET', `/campaigns/${w.campaignId}`, { key: w.live })
    expect(seen.body.data.status).toBe('paused')
  })

  test('pausing a paused campaign answers paused', async () => {
    await setStatus(w.campaignId, 'paused')
    const r = await pause(w.campaignId)
    expect(r.status).toBe(200)
    expect(r.body.data.status).toBe('paused')
  })

  test('a test key changes nothing', async () => {
    const r = await pause(w.campaignId, w.test)
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { id: w.campaignId, status: 'paused', livemode: false } })
    expect(await adminStatus(w.campaignId)).toBe('active')
  })

  test('a completed campaign is 409 campaign_closed', async () => {
    await setStatus(w.campaignId, 'completed')
    expectError(await pause(w.campaignId), 409, 'campaign_closed')
    expect(await adminStatus(w.campaignId)).toBe('completed')
  })

  test('a scoped key cannot pause outside its scope, but can inside', async () => {
    expectError(await pause(w.draftCampaignId, w.scoped), 404, 'not_found')
    const r = await pause(w.campaignId, w.scoped)
    expect(r.status).toBe(200)
    expect(await adminStatus(w.campaignId)).toBe('paused')
  })

  test('a key without campaigns:write is 403', async () => {
    const key = await h.createKey(w.orgId, { name: 'reader', mode: 'live', permissions: ['campaigns:read'] })
    const r = await pause(w.campaignId, key)
    expect(r.status).toBe(403)
    expect(r.body.error.missing_permission).toBe('campaigns:write')
    expect(await adminStatus(w.campaignId)).toBe('active')
  })

  test('pause then activate round-trips', async () => {
    expect((await pause(w.campaignId)).body.data.status).toBe('paused')
    expect((await activate(w.campaignId)).body.data.status).toBe('active')
    expect(await adminStatus(w.campaignId)).toBe('active')
  })
})
