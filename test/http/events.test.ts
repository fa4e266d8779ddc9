import { afterAll, afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, START, type Harness, type Reply, type TestKey, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * GET /events and GET /events/{id} (spec "Events", "GET /events"; DESIGN.md "Clock",
 * "Contract details"): newest first, paging, filters, mode and scope, the envelope, lead
 * objects inside events, and 30-day retention of events and webhook deliveries.
 */

const EVT = /^evt_[0-9a-f]{32}$/
const START_ISO = '2026-01-05T15:00:00.000Z'
const API_VERSION = '2026-11-01'
const DAY = 24 * 3600
const LEAD_KEYS = [
  'address', 'attempts', 'call_now', 'callback_at', 'calls', 'campaign_id', 'consent', 'created', 'email',
  'estimated_wait_seconds', 'external_id', 'fields', 'held_reason', 'id', 'last_outcome', 'last_outcome_label', 'late',
  'lead_source', 'name', 'next_dial_at', 'owner', 'phone', 'place_in_line', 'scheduled_for', 'scheduled_reason', 'status',
  'updated',
]

let h: Harness
let w: World

beforeEach(async () => {
  h = createHarness()
  w = await seedWorld(h)
})
afterEach(() => h.close())

let phoneSeq = 0
/** A fresh New York number for a live lead (a fresh magic number for a test key). */
const nextPhone = (testMode = false) => {
  phoneSeq++
  return testMode ? `+1212555${String(100 + (phoneSeq % 100)).padStart(4, '0')}` : `+1212555${String(2000 + phoneSeq).padStart(4, '0')}`
}

async function addLead(key: TestKey = w.live, campaignId = w.campaignId, extra: Record<string, unknown> = {}): Promise<string> {
  const testMode = key === w.test
  const r = await h.api('POST', '/leads', { key, body: { campaign_id: campaignId, phone: nextPhone(testMode), ...extra } })
  if (r.status !== 201) throw new Error(`lead add failed: ${r.status} ${r.text}`)
  return r.body.data.id as string
}

const list = (query = '', key: TestKey = w.live): Promise<Reply> => h.api('GET', `/events${query}`, { key })
const ids = (r: Reply): string[] => r.body.data.map((e: { id: string }) => e.id)
const types = (r: Reply): string[] => r.body.data.map((e: { type: string }) => e.type)

describe('GET /events: order and paging', () => {
  test('newest first: each lead gives lead.created then lead.queued, listed in reverse', async () => {
    const a = await addLead()
    const b = await addLead()
    const r = await list()
    expect(r.status).toBe(200)
    expect(r.body.meta).toEqual({ next_cursor: null, has_more: false })
    expect(types(r)).toEqual(['lead.queued', 'lead.created', 'lead.queued', 'lead.created'])
    expect(r.body.data.map((e: any) => e.data.object.id)).toEqual([b, b, a, a])
    const sorted = [...ids(r)].sort().reverse()
    expect(ids(r)).toEqual(sorted)
  })

  test('default page of 50, starting_after pages on, has_more false on the last page', async () => {
    for (let i = 0; i < 26; i++) await addLead()
    const first = await list()
    expect(first.body.data).toHaveLength(50)
    expect(first.body.meta.has_more).toBe(true)
    expect(first.body.meta.next_cursor).toBe(ids(first)[49]!)
    const second = await list(`?starting_after=${first.body.meta.next_cursor}`)
    expect(second.status).toBe(200)
    expect(second.body.data).toHaveLength(2)
    expect(second.body.meta).toEqual({ next_cursor: null, has_more: false })
    const all = [...ids(first), ...ids(second)]
    expect(new Set(all).size).toBe(52)
    expect(all).toEqual([...all].sort().reverse())
  })

  test('limit: 3 gives 3 with a cursor; 100 is the most; 0 and 101 are 400 param limit', async () => {
    for (let i = 0; i < 2; i++) await addLead()
    const three = await list('?limit=3')
    expect(three.body.data).toHaveLength(3)
    expect(three.body.meta).toEqual({ next_cursor: ids(three)[2]!, has_more: true })
    const rest = await list(`?limit=3&starting_after=${three.body.meta.next_cursor}`)
    expect(rest.body.data).toHaveLength(1)
    expect(rest.body.meta).toEqual({ next_cursor: null, has_more: false })
    expect((await list('?limit=100')).body.data).toHaveLength(4)
    for (const bad of ['0', '101', 'x']) {
      const r = await list(`?limit=${bad}`)
      expect(r.status).toBe(400)
      expect(r.body.error.code).toBe('invalid_request')
      expect(r.body.error.param).toBe('limit')
    }
  })
})

describe('GET /events: filters', () => {
  test('type: one, a comma list, the parameter repeated; an unknown type is 400', async () => {
    await addLead()
    await addLead()
    const one = await list('?type=lead.created')
    expect(types(one)).toEqual(['lead.created', 'lead.created'])
    const comma = await list('?type=lead.created,lead.queued')
    expect(comma.body.data).toHaveLength(4)
    const repeated = await list('?type=lead.queued&type=lead.created')
    expect(ids(repeated)).toEqual(ids(comma))
    const none = await list('?type=call.started')
    expect(none.body.data).toEqual([])

    const unknown = await list('?type=lead.bogus')
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toMatchObject({ code: 'invalid_request', param: 'type' })
    const unknownInList = await list('?type=lead.created,lead.bogus')
    expect(unknownInList.status).toBe(400)
    expect(unknownInList.body.error).toMatchObject({ code: 'invalid_request', param: 'type[1]' })
    const unknownRepeated = await list('?type=lead.created&type=nope')
    expect(unknownRepeated.status).toBe(400)
    expect(unknownRepeated.body.error).toMatchObject({ code: 'invalid_request', param: 'type[1]' })
  })

  test('created[gte] and created[lte]: ISO, unix seconds and plain dates, bounds included', async () => {
    const a = await addLead()
    await h.advance(60)
    const b = await addLead()
    await h.advance(60)
    const c = await addLead()
    const objects = (r: Reply) => [...new Set(r.body.data.map((e: any) => e.data.object.id as string))]

    const gte = await list(`?created[gte]=${encodeURIComponent('2026-01-05T15:01:00Z')}`)
    expect(objects(gte)).toEqual([c, b])
    const lte = await list(`?created[lte]=${(START + 60_000) / 1000}`)
    expect(objects(lte)).toEqual([b, a])
    const both = await list(`?created[gte]=${(START + 60_000) / 1000}&created[lte]=${encodeURIComponent('2026-01-05T15:01:00.000Z')}`)
    expect(objects(both)).toEqual([b])
    expect(both.body.data.map((e: any) => e.created)).toEqual(['2026-01-05T15:01:00.000Z', '2026-01-05T15:01:00.000Z'])
    expect(objects(await list('?created[gte]=2026-01-05'))).toEqual([c, b, a])
    expect((await list('?created[gte]=2026-01-06')).body.data).toEqual([])
    const bad = await list('?created[gte]=yesterday')
    expect(bad.status).toBe(400)
    expect(bad.body.error.param).toBe('created[gte]')
  })

  test('campaign_id and object_id', async () => {
    const a = await addLead(w.live, w.campaignId)
    const d = await addLead(w.live, w.draftCampaignId)
    const inDraft = await list(`?campaign_id=${w.draftCampaignId}`)
    expect(inDraft.body.data.map((e: any) => [e.type, e.data.object.id])).toEqual([['lead.queued', d], ['lead.created', d]])
    const inMain = await list(`?campaign_id=${w.campaignId}`)
    expect(inMain.body.data.map((e: any) => e.data.object.id)).toEqual([a, a])
    const aboutA = await list(`?object_id=${a}`)
    expect(types(aboutA)).toEqual(['lead.queued', 'lead.created'])
    expect(aboutA.body.data.every((e: any) => e.data.object.id === a)).toBe(true)
    const nothing = await list('?object_id=01a20379-0000-7000-8000-000000000000')
    expect(nothing.body.data).toEqual([])
    const bad = await list('?campaign_id=not-a-uuid')
    expect(bad.status).toBe(400)
    expect(bad.body.error.param).toBe('campaign_id')
  })
})

describe('GET /events: mode, scope, organization', () => {
  test('a test key sees test events only, a live key live events only', async () => {
    const live = await addLead(w.live)
    const testLead = await addLead(w.test)
    const asLive = await list()
    expect(asLive.body.data.map((e: any) => [e.data.object.id, e.livemode])).toEqual([[live, true], [live, true]])
    const asTest = await list('', w.test)
    expect(asTest.body.data.map((e: any) => [e.data.object.id, e.livemode])).toEqual([[testLead, false], [testLead, false]])
  })

  test('a campaign-limited key sees its campaigns only; naming another campaign_id is 403', async () => {
    const mine = await addLead(w.live, w.campaignId)
    await addLead(w.live, w.draftCampaignId)
    const r = await list('', w.scoped)
    expect(r.body.data.map((e: any) => e.data.object.id)).toEqual([mine, mine])
    const other = await list(`?campaign_id=${w.draftCampaignId}`, w.scoped)
    expect(other.status).toBe(403)
    expect(other.body.error).toMatchObject({
      code: 'permission_denied', type: 'permission_error', missing_permission: 'events:read', campaign_id: w.draftCampaignId,
    })
    const own = await list(`?campaign_id=${w.campaignId}`, w.scoped)
    expect(own.body.data).toHaveLength(2)
  })

  test('another organization never sees the events', async () => {
    await addLead()
    const r = await list('', w.otherLive)
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual([])
  })

  test('events:read is needed', async () => {
    const key = await h.createKey(w.orgId, { name: 'no events', mode: 'live', permissions: ['leads:read', 'webhooks:write'] })
    for (const path of ['/events', '/events/evt_0123456789abcdef0123456789abcdef']) {
      const r = await h.api('GET', path, { key })
      expect(r.status).toBe(403)
      expect(r.body.error).toMatchObject({ code: 'permission_denied', missing_permission: 'events:read', campaign_id: null })
    }
  })
})

describe('GET /events/{id}', () => {
  test('the same envelope as the list; exact fields', async () => {
    const lead = await addLead()
    const listed = await list()
    const created = listed.body.data[1]
    const r = await h.api('GET', `/events/${created.id}`, { key: w.live })
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual(created)
    expect(Object.keys(r.body.data).sort()).toEqual(['api_version', 'created', 'data', 'id', 'livemode', 'type'])
    expect(r.body.data).toMatchObject({ type: 'lead.created', created: START_ISO, livemode: true, api_version: API_VERSION })
    expect(r.body.data.id).toMatch(EVT)
    expect(Object.keys(r.body.data.data)).toEqual(['object'])
    expect(r.body.data.data.object.id).toBe(lead)
  })

  test('another organization, the other mode, another campaign for a limited key, or unknown: 404', async () => {
    await addLead(w.live, w.draftCampaignId)
    await addLead(w.test)
    const liveEvent = ids(await list())[0]!
    const testEvent = ids(await list('', w.test))[0]!
    for (const [key, id] of [[w.otherLive, liveEvent], [w.test, liveEvent], [w.live, testEvent], [w.scoped, liveEvent]] as const) {
      const r = await h.api('GET', `/events/${id}`, { key })
      expect(r.status).toBe(404)
      expect(r.body.error.code).toBe('not_found')
    }
    const missing = await h.api('GET', '/events/evt_0123456789abcdef0123456789abcdef', { key: w.live })
    expect(missing.status).toBe(404)
    expect(missing.body.error.code).toBe('not_found')
  })
})

describe('lead objects inside events', () => {
  test('live: the lead without livemode, place_in_line and estimated_wait_seconds null', async () => {
    const id = await addLead(w.live, w.campaignId, { name: 'Dana Cole', external_id: 'crm-1' })
    const events = await list()
    const lead = await h.api('GET', `/leads/${id}`, { key: w.live })
    expect(lead.body.data.place_in_line).toBe(1)
    expect(typeof lead.body.data.estimated_wait_seconds).toBe('number')
    for (const event of events.body.data) {
      const object = event.data.object
      expect(Object.keys(object).sort()).toEqual(LEAD_KEYS)
      expect(object.place_in_line).toBeNull()
      expect(object.estimated_wait_seconds).toBeNull()
      expect(object).toMatchObject({ id, name: 'Dana Cole', external_id: 'crm-1', campaign_id: w.campaignId, status: 'queued' })
    }
    const { livemode, place_in_line, estimated_wait_seconds, ...rest } = lead.body.data
    expect(livemode).toBe(true)
    const queued = events.body.data[0].data.object
    expect({ ...queued, place_in_line, estimated_wait_seconds }).toEqual({ ...rest, place_in_line, estimated_wait_seconds })
  })

  test('test: the lead carries livemode false; place_in_line and estimated_wait_seconds null', async () => {
    const id = await addLead(w.test)
    const events = await list('', w.test)
    expect(events.body.data).toHaveLength(2)
    for (const event of events.body.data) {
      expect(event.livemode).toBe(false)
      const object = event.data.object
      expect(Object.keys(object).sort()).toEqual([...LEAD_KEYS, 'livemode'].sort())
      expect(object).toMatchObject({ id, livemode: false, place_in_line: null, estimated_wait_seconds: null })
    }
  })
})

describe('retention: 30 days', () => {
  const servers: ReturnType<typeof Bun.serve>[] = []
  afterAll(() => {
    for (const s of servers) s.stop(true)
  })

  test('events and deliveries older than 30 days are purged; younger ones stay', async () => {
    h.close()
    h = createHarness({ env: { DIALER_WEBHOOK_ALLOW_PRIVATE: '1' } })
    w = await seedWorld(h)
    const got: string[] = []
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: async (req) => {
      got.push(req.headers.get('webhook-id') ?? '')
      return new Response('ok')
    } })
    servers.push(server)
    const endpoint = await h.api('POST', '/webhook_endpoints', {
      key: w.live, body: { url: `http://127.0.0.1:${server.port}/hook`, events: ['lead.created'] },
    })
    expect(endpoint.status).toBe(201)
    const endpointId = endpoint.body.data.id

    const old = await addLead()
    await h.services.deliveries.drain()
    await h.advance(2 * DAY)
    const young = await addLead()
    await h.services.deliveries.drain()
    const oldEvents = ids(await list(`?object_id=${old}`))
    const youngEvents = ids(await list(`?object_id=${young}`))
    expect(oldEvents).toHaveLength(2)
    expect(got).toHaveLength(2)
    const before = await h.api('GET', `/webhook_endpoints/${endpointId}/deliveries`, { key: w.live })
    expect(before.body.data.map((d: any) => d.status)).toEqual(['sent', 'sent'])

    await h.advance(29 * DAY)
    const run = await h.admin('POST', '/jobs/retention_purge/run')
    expect(run.status).toBe(200)
    for (const id of oldEvents) {
      const r = await h.api('GET', `/events/${id}`, { key: w.live })
      expect(r.status).toBe(404)
    }
    for (const id of youngEvents) expect((await h.api('GET', `/events/${id}`, { key: w.live })).status).toBe(200)
    expect(ids(await list())).toEqual(youngEvents)
    const after = await h.api('GET', `/webhook_endpoints/${endpointId}/deliveries`, { key: w.live })
    expect(after.body.data.map((d: any) => d.event_id)).toEqual([youngEvents[1]])
  })
})
