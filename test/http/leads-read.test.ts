import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { DEFAULT_HANDLE_SECONDS } from '../../src/domain/leads/lead-service'
import { estimatedWaitSeconds } from '../../src/domain/queue/dial-queues'
import { createHarness, seedWorld, type Harness, type Reply, type TestKey, type World, expectError } from '../harness'
import { apiHelpers } from './helpers'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Reading leads (spec "Lead", GET /leads/{id}, GET /leads, GET /campaigns/{campaignId}/leads;
 * DESIGN.md "Contract details / Leads and DNC", older lead shape under "Extensions").
 * The clock starts Monday 2026-01-05 15:00 UTC (10:00 in New York): +1 212 leads are queued.
 */

const START_ISO = '2026-01-05T15:00:00.000Z'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const MISSING_UUID = '01900000-0000-7000-8000-000000000000'

/** Every field of the spec's Lead table, in the table's order. */
const LEAD_FIELDS = [
  'id', 'external_id', 'campaign_id', 'name', 'phone', 'email', 'address', 'fields', 'consent', 'lead_source', 'owner',
  'created', 'updated', 'status', 'call_now', 'place_in_line', 'estimated_wait_seconds', 'scheduled_for',
  'scheduled_reason', 'held_reason', 'callback_at', 'late', 'attempts', 'last_outcome', 'last_outcome_label',
  'next_dial_at', 'calls', 'livemode',
]
/** The older shape: five fields in camelCase, the rest as Lead. */
const LEGACY_RENAMED: Record<string, string> = {
  external_id: 'externalId', campaign_id: 'campaignId', fields: 'customFields', created: 'createdAt', updated: 'updatedAt',
}
const LEGACY_FIELDS = LEAD_FIELDS.map((f) => LEGACY_RENAMED[f] ?? f)

let h: Harness
let w: World
beforeEach(async () => {
  h = createHarness()
  w = await seedWorld(h)
})
afterEach(() => h.close())

const { addLeadId: addLead, getLeadReply: getLead } = apiHelpers(() => ({ h, w }))

/** A New York number (queued at 10:00 ET): +1 212 555 2000 + n. */
const ny = (n: number) => `+1212555${String(2000 + n).padStart(4, '0')}`

const list = (query: string, key: TestKey = w.live) => h.api('GET', `/leads${query ? `?${query}` : ''}`, { key })
const ids = (r: Reply) => (r.body.data as { id: string }[]).map((l) => l.id)


async function secondActiveCampaign(name = 'Summer roofs'): Promise<string> {
  const r = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name, status: 'active', sdrs: [{ name: 'Kim Park' }] })
  expect(r.status).toBe(201)
  return r.body.data.id as string
}

describe('GET /leads/{id}', () => {
  test('every Lead field of the spec is present, null when empty', async () => {
    const id = await addLead({ phone: '+12125551234' })
    const r = await getLead(id)
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.data).sort()).toEqual([...LEAD_FIELDS].sort())
    expect(r.body.data).toEqual({
      id,
      external_id: null,
      campaign_id: w.campaignId,
      name: null,
      phone: '+12125551234',
      email: null,
      address: null,
      fields: {},
      consent: null,
      lead_source: 'api',
      owner: null,
      created: START_ISO,
      updated: START_ISO,
      status: 'queued',
      call_now: false,
      place_in_line: 1,
      estimated_wait_seconds: estimatedWaitSeconds(1, 2, DEFAULT_HANDLE_SECONDS),
      scheduled_for: null,
      scheduled_reason: null,
      held_reason: null,
      callback_at: null,
      late: false,
      attempts: 0,
      last_outcome: null,
      last_outcome_label: null,
      next_dial_at: null,
      calls: [],
      livemode: true,
    })
    expect(r.body.data.id).toMatch(UUID)
  })

  test('the fields sent at intake come back as sent (phone in E.164)', async () => {
    const consent = { source: 'web_form', agreed_at: '2026-01-04T12:00:00.000Z', text: 'I agree to be called.', ip: '203.0.113.7' }
    const id = await addLead({
      phone: '(212) 555-1235', external_id: 'crm-7', name: 'Ann Lee', email: 'ann@example.com', address: '1 Main St, New York',
      fields: { roof: 'slate', budget: '20k' }, consent, call_now: true,
    })
    const r = await getLead(id)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({
      id, external_id: 'crm-7', name: 'Ann Lee', phone: '+12125551235', email: 'ann@example.com',
      address: '1 Main St, New York', fields: { roof: 'slate', budget: '20k' }, consent, call_now: true, status: 'queued',
    })
  })

  test('place_in_line: 1 is the first queued lead, then increasing in queue order', async () => {
    const first = await addLead({ phone: ny(1) })
    await h.advance(1)
    const second = await addLead({ phone: ny(2) })
    await h.advance(1)
    const third = await addLead({ phone: ny(3) })
    const places = []
    const waits = []
    for (const id of [first, second, third]) {
      const r = await getLead(id)
      expect(r.status).toBe(200)
      places.push(r.body.data.place_in_line)
      waits.push(r.body.data.estimated_wait_seconds)
    }
    expect(places).toEqual([1, 2, 3])
    // The seeded campaign has 2 lines and no calls to average yet.
    expect(waits).toEqual([1, 2, 3].map((p) => estimatedWaitSeconds(p, 2, DEFAULT_HANDLE_SECONDS)))
    for (const wait of waits) expect(Number.isInteger(wait)).toBe(true)
  })

  test('a scheduled lead has no place in line and no wait estimate', async () => {
    // +1 415 is 07:00 in San Francisco: before the 08:00 opening.
    const id = await addLead({ phone: '+14155551234' })
    const r = await getLead(id)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({
      status: 'scheduled',
      scheduled_for: '2026-01-05T16:00:00.000Z',
      scheduled_reason: 'outside_calling_hours',
      held_reason: null,
      place_in_line: null,
      estimated_wait_seconds: null,
    })
  })

  test('a test key reads its own lead with livemode false', async () => {
    const id = await addLead({ phone: '+12125551234' }, w.test)
    const r = await getLead(id, w.test)
    expect(r.status).toBe(200)
    expect(r.body.data.livemode).toBe(false)
    expect(r.body.data.id).toBe(id)
    expect(r.body.data.place_in_line).toBe(1)
  })

  test("another organization's lead is 404", async () => {
    const id = await addLead({ campaign_id: w.otherCampaignId, phone: '+12125551234' }, w.otherLive)
    expectError(await getLead(id, w.live), 404, 'not_found', null)
    expect((await getLead(id, w.otherLive)).status).toBe(200)
  })

  test('a test lead read with a live key is 404, and a live lead read with a test key', async () => {
    const testLead = await addLead({ phone: '+12125551234' }, w.test)
    const liveLead = await addLead({ phone: '+12125551235' }, w.live)
    expectError(await getLead(testLead, w.live), 404, 'not_found', null)
    expectError(await getLead(liveLead, w.test), 404, 'not_found', null)
  })

  test("a lead of a campaign outside a scoped key's scope is 404; inside it is 200", async () => {
    const outside = await addLead({ campaign_id: w.draftCampaignId, phone: '+12125551234' })
    const inside = await addLead({ phone: '+12125551235' })
    expectError(await getLead(outside, w.scoped), 404, 'not_found', null)
    const r = await getLead(inside, w.scoped)
    expect(r.status).toBe(200)
    expect(r.body.data.id).toBe(inside)
  })

  test('a bad uuid is 404, and so is an unknown one', async () => {
    expect((await getLead('not-a-uuid')).status).toBe(404)
    expect((await getLead('not-a-uuid')).body.error.code).toBe('not_found')
    expectError(await getLead(MISSING_UUID), 404, 'not_found', null)
  })
})

describe('GET /leads (list)', () => {
  test('newest first, with place_in_line and estimated_wait_seconds null in the list', async () => {
    const made: string[] = []
    for (let i = 1; i <= 3; i++) {
      made.push(await addLead({ phone: ny(i) }))
      await h.advance(1)
    }
    const r = await list('')
    expect(r.status).toBe(200)
    expect(ids(r)).toEqual([...made].reverse())
    expect(r.body.meta).toEqual({ next_cursor: null, has_more: false })
    for (const lead of r.body.data) {
      expect(Object.keys(lead).sort()).toEqual([...LEAD_FIELDS].sort())
      expect(lead.status).toBe('queued')
      expect(lead.place_in_line).toBeNull()
      expect(lead.estimated_wait_seconds).toBeNull()
      expect(lead.livemode).toBe(true)
    }
  })

  test('limit defaults to 20; 100 is allowed; 101 and 0 are 400 param limit', async () => {
    const made: string[] = []
    for (let i = 1; i <= 21; i++) made.push(await addLead({ phone: ny(i) }))
    const r = await list('')
    expect(r.status).toBe(200)
    expect(r.body.data).toHaveLength(20)
    expect(r.body.meta).toEqual({ next_cursor: made[1], has_more: true })
    expect(ids(r)).toEqual(made.slice(1).reverse())

    const all = await list('limit=100')
    expect(all.status).toBe(200)
    expect(all.body.data).toHaveLength(21)
    expect(all.body.meta).toEqual({ next_cursor: null, has_more: false })

    expectError(await list('limit=101'), 400, 'invalid_request', 'limit')
    expectError(await list('limit=0'), 400, 'invalid_request', 'limit')
  })

  test('starting_after pages through every lead once', async () => {
    const made: string[] = []
    for (let i = 1; i <= 5; i++) made.push(await addLead({ phone: ny(i) }))
    const newestFirst = [...made].reverse()

    const p1 = await list('limit=2')
    expect(ids(p1)).toEqual(newestFirst.slice(0, 2))
    expect(p1.body.meta).toEqual({ next_cursor: newestFirst[1], has_more: true })
    const p2 = await list(`limit=2&starting_after=${p1.body.meta.next_cursor}`)
    expect(ids(p2)).toEqual(newestFirst.slice(2, 4))
    expect(p2.body.meta).toEqual({ next_cursor: newestFirst[3], has_more: true })
    const p3 = await list(`limit=2&starting_after=${p2.body.meta.next_cursor}`)
    expect(ids(p3)).toEqual(newestFirst.slice(4))
    expect(p3.body.meta).toEqual({ next_cursor: null, has_more: false })

    expectError(await list('starting_after=nope'), 400, 'invalid_request', 'starting_after')
  })

  test('campaign_id filters to that campaign', async () => {
    const inMain = await addLead({ phone: ny(1) })
    const inDraft = await addLead({ campaign_id: w.draftCampaignId, phone: ny(2) })
    expect(ids(await list(`campaign_id=${w.campaignId}`))).toEqual([inMain])
    expect(ids(await list(`campaign_id=${w.draftCampaignId}`))).toEqual([inDraft])
    expect(ids(await list(''))).toEqual([inDraft, inMain])
  })

  test('status filters; an unknown status is 400 param status', async () => {
    const queued = await addLead({ phone: ny(1) })
    const scheduled = await addLead({ phone: '+14155551234' })
    const held = await addLead({ campaign_id: w.draftCampaignId, phone: ny(2) })
    expect(ids(await list('status=queued'))).toEqual([queued])
    expect(ids(await list('status=scheduled'))).toEqual([scheduled])
    const heldList = await list('status=held')
    expect(ids(heldList)).toEqual([held])
    expect(heldList.body.data[0].held_reason).toBe('campaign_not_started')
    expect(ids(await list('status=done'))).toEqual([])
    expectError(await list('status=waiting'), 400, 'invalid_request', 'status')
  })

  describe('created[gte] / created[lte]', () => {
    // One lead a day at 15:00 UTC: Jan 5, Jan 6, Jan 7.
    let day1: string
    let day2: string
    let day3: string
    beforeEach(async () => {
      day1 = await addLead({ phone: ny(1) })
      await h.advance(86_400)
      day2 = await addLead({ phone: ny(2) })
      await h.advance(86_400)
      day3 = await addLead({ phone: ny(3) })
    })

    test.each([
      ['ISO date-time gte', 'created[gte]=2026-01-06T15:00:00Z', ['day3', 'day2']],
      ['ISO date-time lte', 'created[lte]=2026-01-06T15:00:00.000Z', ['day2', 'day1']],
      ['ISO date-time just after', 'created[gte]=2026-01-06T15:00:00.001Z', ['day3']],
      ['unix seconds gte', `created[gte]=${Date.UTC(2026, 0, 6, 15) / 1000}`, ['day3', 'day2']],
      ['unix seconds lte', `created[lte]=${Date.UTC(2026, 0, 6, 14, 59, 59) / 1000}`, ['day1']],
      ['plain date gte (midnight UTC)', 'created[gte]=2026-01-06', ['day3', 'day2']],
      ['plain date lte (midnight UTC)', 'created[lte]=2026-01-06', ['day1']],
      ['both bounds', 'created[gte]=2026-01-06&created[lte]=2026-01-07', ['day2']],
      ['url-encoded brackets', 'created%5Bgte%5D=2026-01-07', ['day3']],
      ['ISO with an offset', `created[gte]=${encodeURIComponent('2026-01-06T10:00:00-05:00')}`, ['day3', 'day2']],
    ])('%s', async (_name, query, expected) => {
      const byName: Record<string, string> = { day1, day2, day3 }
      const r = await list(query)
      expect(r.status).toBe(200)
      expect(ids(r)).toEqual(expected.map((n) => byName[n]!))
    })

    test.each([
      ['created[gte]=yesterday', 'created[gte]'],
      ['created[lte]=2026-02-30', 'created[lte]'],
      ['created[gte]=2026-13-01T00:00:00Z', 'created[gte]'],
    ])('%s is 400 with its param', async (query, param) => {
      expectError(await list(query), 400, 'invalid_request', param)
    })
  })

  test("a scoped key sees only its campaign's leads", async () => {
    const inScope = await addLead({ phone: ny(1) })
    const outside = await addLead({ campaign_id: w.draftCampaignId, phone: ny(2) })
    expect(ids(await list('', w.scoped))).toEqual([inScope])
    expect(ids(await list(`campaign_id=${w.campaignId}`, w.scoped))).toEqual([inScope])
    expect(ids(await list('status=held', w.scoped))).toEqual([])
    expect(ids(await list('', w.live))).toEqual([outside, inScope])
  })

  // DESIGN.md "Contract details": a campaign-limited key naming another campaign in a request
  // gets 403 permission_denied with the endpoint's permission and that campaign.
  test('a scoped key naming a campaign outside its scope in the query is 403 permission_denied', async () => {
    await addLead({ campaign_id: w.draftCampaignId, phone: ny(1), external_id: 'crm-1' })
    for (const query of [`campaign_id=${w.draftCampaignId}`, `external_id=crm-1&campaign_id=${w.draftCampaignId}`]) {
      const r = await list(query, w.scoped)
      expect(r.status).toBe(403)
      expect(r.body.error).toMatchObject({
        type: 'permission_error', code: 'permission_denied', missing_permission: 'leads:read', campaign_id: w.draftCampaignId,
      })
    }
  })

  test('a live key lists only live leads, a test key only test leads; other organizations never', async () => {
    const live = await addLead({ phone: ny(1) })
    const testLead = await addLead({ phone: ny(2) }, w.test)
    const other = await addLead({ campaign_id: w.otherCampaignId, phone: ny(3) }, w.otherLive)
    expect(ids(await list('', w.live))).toEqual([live])
    const t = await list('', w.test)
    expect(ids(t)).toEqual([testLead])
    expect(t.body.data[0].livemode).toBe(false)
    expect(ids(await list('', w.otherLive))).toEqual([other])
  })
})

describe('GET /leads?external_id=', () => {
  test('one lead: { data: Lead } with place_in_line', async () => {
    await addLead({ phone: ny(1) })
    const id = await addLead({ phone: ny(2), external_id: 'crm-42' })
    const r = await list('external_id=crm-42')
    expect(r.status).toBe(200)
    expect(r.body.meta).toBeUndefined()
    expect(Object.keys(r.body.data).sort()).toEqual([...LEAD_FIELDS].sort())
    expect(r.body.data).toMatchObject({ id, external_id: 'crm-42', campaign_id: w.campaignId, status: 'queued', place_in_line: 2 })
  })

  test('404 when no lead has it', async () => {
    await addLead({ phone: ny(1), external_id: 'crm-1' })
    const r = await list('external_id=crm-2')
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('not_found')
  })

  test('409 ambiguous_external_id with candidates when two campaigns of the key have it; campaign_id resolves it', async () => {
    const second = await secondActiveCampaign()
    const a = await addLead({ phone: ny(1), external_id: 'crm-9' })
    const b = await addLead({ campaign_id: second, phone: ny(1), external_id: 'crm-9' })
    const r = await list('external_id=crm-9')
    expectError(r, 409, 'ambiguous_external_id', 'external_id')
    expect(r.body.error.type).toBe('invalid_request_error')
    const byId = (x: { id: string }, y: { id: string }) => (x.id < y.id ? -1 : 1)
    expect([...r.body.error.candidates].sort(byId)).toEqual(
      [{ id: a, campaign_id: w.campaignId }, { id: b, campaign_id: second }].sort(byId),
    )

    const one = await list(`external_id=crm-9&campaign_id=${second}`)
    expect(one.status).toBe(200)
    expect(one.body.data).toMatchObject({ id: b, campaign_id: second, external_id: 'crm-9' })
    const other = await list(`external_id=crm-9&campaign_id=${w.campaignId}`)
    expect(other.status).toBe(200)
    expect(other.body.data.id).toBe(a)
  })

  test("a scoped key is not ambiguous about campaigns it cannot see", async () => {
    const second = await secondActiveCampaign()
    const a = await addLead({ phone: ny(1), external_id: 'crm-9' })
    await addLead({ campaign_id: second, phone: ny(1), external_id: 'crm-9' })
    const r = await list('external_id=crm-9', w.scoped)
    expect(r.status).toBe(200)
    expect(r.body.data.id).toBe(a)
  })

  test("another organization's or mode's lead with the same external_id is not found", async () => {
    await addLead({ campaign_id: w.otherCampaignId, phone: ny(1), external_id: 'crm-5' }, w.otherLive)
    await addLead({ phone: ny(1), external_id: 'crm-5' }, w.test)
    expect((await list('external_id=crm-5', w.live)).status).toBe(404)
  })
})

describe('GET /campaigns/{id}/leads (older shape)', () => {
  const legacy = (campaignId: string, query = '', key: TestKey = w.live) =>
    h.api('GET', `/campaigns/${campaignId}/leads${query ? `?${query}` : ''}`, { key })

  test('camelCase externalId, campaignId, customFields, createdAt, updatedAt; the other fields as Lead', async () => {
    const id = await addLead({ phone: '+12125551234', external_id: 'crm-1', name: 'Ann Lee', fields: { roof: 'slate' } })
    await h.advance(60)
    const patched = await h.api('PATCH', `/leads/${id}`, { key: w.live, body: { email: 'ann@example.com' } })
    expect(patched.status).toBe(200)
    const single = (await getLead(id)).body.data

    const r = await legacy(w.campaignId)
    expect(r.status).toBe(200)
    expect(r.body.meta).toEqual({ next_cursor: null, has_more: false })
    const lead = r.body.data[0]
    expect(Object.keys(lead).sort()).toEqual([...LEGACY_FIELDS].sort())
    for (const gone of ['external_id', 'campaign_id', 'fields', 'created', 'updated']) expect(lead).not.toHaveProperty(gone)
    expect(lead).toMatchObject({
      id,
      externalId: 'crm-1',
      campaignId: w.campaignId,
      customFields: { roof: 'slate' },
      createdAt: START_ISO,
      updatedAt: '2026-01-05T15:01:00.000Z',
      name: 'Ann Lee',
      phone: '+12125551234',
      email: 'ann@example.com',
      status: 'queued',
      livemode: true,
    })
    // Everything else is the Lead as a list gives it (no place in line).
    for (const field of LEAD_FIELDS) {
      if (field in LEGACY_RENAMED || field === 'place_in_line' || field === 'estimated_wait_seconds') continue
      expect(lead[field]).toEqual(single[field])
    }
    expect(lead.place_in_line).toBeNull()
  })

  test('newest first, cursor paging', async () => {
    const made: string[] = []
    for (let i = 1; i <= 5; i++) made.push(await addLead({ phone: ny(i) }))
    const newestFirst = [...made].reverse()
    const p1 = await legacy(w.campaignId, 'limit=2')
    expect(ids(p1)).toEqual(newestFirst.slice(0, 2))
    expect(p1.body.meta).toEqual({ next_cursor: newestFirst[1], has_more: true })
    const p2 = await legacy(w.campaignId, `limit=2&cursor=${p1.body.meta.next_cursor}`)
    expect(ids(p2)).toEqual(newestFirst.slice(2, 4))
    const p3 = await legacy(w.campaignId, `limit=2&cursor=${p2.body.meta.next_cursor}`)
    expect(ids(p3)).toEqual(newestFirst.slice(4))
    expect(p3.body.meta).toEqual({ next_cursor: null, has_more: false })
    expectError(await legacy(w.campaignId, 'limit=101'), 400, 'invalid_request', 'limit')
  })

  test('only that campaign', async () => {
    const inMain = await addLead({ phone: ny(1) })
    await addLead({ campaign_id: w.draftCampaignId, phone: ny(2) })
    expect(ids(await legacy(w.campaignId))).toEqual([inMain])
  })

  test('search by part of a name, phone digits, or email', async () => {
    const ann = await addLead({ phone: '+12125552345', name: 'Annabel Lee', email: 'annabel@roofs.example' })
    const bob = await addLead({ phone: '+12125558765', name: 'Bob Stone', email: 'bob@shingle.example' })
    expect(ids(await legacy(w.campaignId, 'search=nabel'))).toEqual([ann])
    expect(ids(await legacy(w.campaignId, 'search=Stone'))).toEqual([bob])
    expect(ids(await legacy(w.campaignId, 'search=8765'))).toEqual([bob])
    expect(ids(await legacy(w.campaignId, `search=${encodeURIComponent('(212) 555-2345')}`))).toEqual([ann])
    expect(ids(await legacy(w.campaignId, 'search=shingle.example'))).toEqual([bob])
    expect(ids(await legacy(w.campaignId, 'search=2125555'))).toEqual([])
    expect(ids(await legacy(w.campaignId, 'search=212555'))).toEqual([bob, ann])
    expect(ids(await legacy(w.campaignId, 'search=nobody'))).toEqual([])
  })

  test("another organization's campaign is 404", async () => {
    await addLead({ campaign_id: w.otherCampaignId, phone: ny(1) }, w.otherLive)
    expectError(await legacy(w.otherCampaignId), 404, 'not_found', null)
  })

  test("a scoped key's list of a campaign outside its scope is 404", async () => {
    expect((await legacy(w.draftCampaignId, '', w.scoped)).status).toBe(404)
    expect((await legacy(w.campaignId, '', w.scoped)).status).toBe(200)
  })
})
