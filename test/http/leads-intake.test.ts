import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { NewLead } from '../../src/db/stores/lead-store'
import { MAX_WAITING_API_LEADS } from '../../src/domain/leads/lead-service'
import { createHarness, seedWorld, START, type Harness, type Reply, type TestKey, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * POST /leads (spec "Lead intake reply", "POST /leads", "Errors", "Limits"; DESIGN.md
 * "Leads and DNC", "Extensions": duplicate window, calling hours, numbers): the reply, the
 * events, every refusal in the order the checks run (a refused lead is never stored), the
 * waiting-lead and new-lead limits, re-queue after the duplicate window, the API call limit,
 * custom fields and field lengths, and parallel intake of one lead.
 */

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const EVT = /^evt_[0-9a-f]{32}$/
const START_ISO = '2026-01-05T15:00:00.000Z'
/** A well-formed uuid v7 no campaign has. */
const MISSING_ID = '01a20379-0000-7000-8000-000000000000'
const HOUR = 3600
const DAY = 24 * HOUR

// Numbers (DESIGN.md "Numbers"; the clock starts at 10:00 New York = 07:00 Los Angeles = 05:00 Honolulu).
const NY = '+12125551234'
const NY2 = '+12125551235'
const NY3 = '+12125551236'
const NY4 = '+12125551237'
const LA = '+14155552671'
const HAWAII = '+18085551234'
const UK = '+442071838750'
const JAMAICA = '+18769261234'
const PREMIUM_900 = '+19002345678'
const PREMIUM_976 = '+12129761234'

const INTAKE_KEYS = [
  'call_now', 'dry_run', 'estimated_wait_seconds', 'external_id', 'held_reason', 'id', 'livemode', 'place_in_line',
  'scheduled_for', 'scheduled_reason', 'status',
]
const LEAD_KEYS = [
  'address', 'attempts', 'call_now', 'callback_at', 'calls', 'campaign_id', 'consent', 'created', 'email',
  'estimated_wait_seconds', 'external_id', 'fields', 'held_reason', 'id', 'last_outcome', 'last_outcome_label', 'late',
  'lead_source', 'name', 'next_dial_at', 'owner', 'phone', 'place_in_line', 'scheduled_for', 'scheduled_reason', 'status',
  'updated',
]
const CONSENT = { source: 'web_form', agreed_at: '2026-01-01T12:00:00Z', text: 'Yes, call me about roofs.' }

interface Ctx {
  h: Harness
  w: World
  /** Live and test keys with room for many leads a minute and 50 requests at once. */
  live: TestKey
  test: TestKey
}

async function newContext(): Promise<Ctx> {
  const h = createHarness()
  const w = await seedWorld(h)
  const big = { requests_per_minute: 100000, burst: 100000, leads_per_minute: 100000, max_concurrent: 50 }
  return {
    h,
    w,
    live: await h.createKey(w.orgId, { name: 'intake live', mode: 'live', ...big }),
    test: await h.createKey(w.orgId, { name: 'intake test', mode: 'test', ...big }),
  }
}

/** The context of the running test (a fresh harness per test, except where a describe says). */
let c: Ctx

function freshHarnessPerTest() {
  beforeEach(async () => {
    c = await newContext()
  })
  afterEach(() => c.h.close())
}

// ---- helpers ----

function post(body: Record<string, unknown>, key: TestKey = c.live): Promise<Reply> {
  return c.h.api('POST', '/leads', { key, body: { campaign_id: c.w.campaignId, ...body } })
}

async function created(body: Record<string, unknown>, key: TestKey = c.live): Promise<string> {
  const r = await post(body, key)
  if (r.status !== 201) throw new Error(`lead not created: ${r.text}`)
  return r.body.data.id
}

/** Every lead row of both organizations, both modes. */
function allLeads() {
  const rows = []
  for (const orgId of [c.w.orgId, c.w.otherOrgId]) {
    for (const livemode of [true, false]) {
      rows.push(...c.h.services.stores.leads.list({ orgId, livemode, campaignIds: null }, {}, 100_000))
    }
  }
  return rows
}

/** Event envelopes of the organization, oldest first. */
function events(livemode = true): any[] {
  return c.h.services.stores.events
    .list({ orgId: c.w.orgId, livemode, campaignIds: null }, 100)
    .reverse()
    .map((row) => JSON.parse(row.body))
}

/** Leads and events, to prove a refusal changed nothing. */
function snapshot() {
  return { leads: allLeads(), liveEvents: events(true).map((e) => e.id), testEvents: events(false).map((e) => e.id) }
}

function expectError(r: Reply, status: number, code: string, param: string | null) {
  expect(r.status).toBe(status)
  expect(r.body.error.code).toBe(code)
  expect(r.body.error.param).toBe(param)
  expect(r.body.error.request_id).toBe(r.headers.get('request-id'))
}

function expectRetryAfter(r: Reply, seconds: number) {
  expect(r.headers.get('retry-after')).toBe(String(seconds))
}

/** The intake reply for a lead queued now, with overrides. */
function queuedReply(overrides: Record<string, unknown> = {}) {
  return {
    id: expect.stringMatching(UUID7),
    external_id: null,
    status: 'queued',
    call_now: false,
    place_in_line: 1,
    estimated_wait_seconds: expect.any(Number),
    scheduled_for: null,
    scheduled_reason: null,
    held_reason: null,
    dry_run: false,
    livemode: true,
    ...overrides,
  }
}

const addDnc = async (phone: string, key: TestKey = c.live) => {
  const r = await c.h.api('POST', '/dnc', { key, body: { phone } })
  if (r.status !== 201) throw new Error(r.text)
}
const retire = async (campaignId: string, phone: string, livemode = true) => {
  const r = await c.h.admin('POST', `/campaigns/${campaignId}/retired_numbers`, { phone, livemode })
  if (r.status !== 201) throw new Error(r.text)
}
const patchCampaign = async (campaignId: string, fields: Record<string, unknown>) => {
  const r = await c.h.admin('PATCH', `/campaigns/${campaignId}`, fields)
  if (r.status !== 200) throw new Error(r.text)
}
const newCampaign = async (fields: Record<string, unknown> = {}): Promise<string> => {
  const r = await c.h.admin('POST', `/orgs/${c.w.orgId}/campaigns`, {
    name: 'Second campaign', status: 'active', sdrs: [{ name: 'Jo' }], ...fields,
  })
  if (r.status !== 201) throw new Error(r.text)
  return r.body.data.id
}
// A callback lead waits for its booked time (a week out here), like one the dialer books.
const setStatus = (id: string, status: NewLead['status']) =>
  c.h.services.stores.leads.update(c.h.services.stores.leads.get(id)!, {
    status,
    queueKey: null,
    ...(status === 'callback_scheduled' ? { callbackAt: START + 7 * 24 * HOUR * 1000, dueAt: START + 7 * 24 * HOUR * 1000 } : {}),
  })

// ---- the new lead ----

describe('POST /leads: a new lead', () => {
  freshHarnessPerTest()

  test('201 with exactly the intake reply fields; queued at 10:00 New York', async () => {
    const r = await post({ phone: NY, external_id: 'crm-1' })
    expect(r.status).toBe(201)
    expect(Object.keys(r.body)).toEqual(['data'])
    expect(Object.keys(r.body.data).sort()).toEqual(INTAKE_KEYS)
    expect(r.body.data).toEqual(queuedReply({ external_id: 'crm-1' }))
    expect(Number.isInteger(r.body.data.estimated_wait_seconds)).toBe(true)
    expect(r.body.data.estimated_wait_seconds).toBeGreaterThanOrEqual(0)
  })

  test('the stored lead holds what was sent, phone in E.164', async () => {
    const id = await created({
      phone: '(212) 555-1234', external_id: 'crm-1', name: 'Dana Smith', email: 'dana@example.com',
      address: '1 Main St, New York', fields: { roof: 'slate', budget: '5000' }, consent: CONSENT,
    })
    const r = await c.h.api('GET', `/leads/${id}`, { key: c.live })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.data).sort()).toEqual([...LEAD_KEYS, 'livemode'].sort())
    expect(r.body.data).toMatchObject({
      id, external_id: 'crm-1', campaign_id: c.w.campaignId, name: 'Dana Smith', phone: NY, email: 'dana@example.com',
      address: '1 Main St, New York', fields: { roof: 'slate', budget: '5000' }, consent: CONSENT, lead_source: 'api',
      owner: null, created: START_ISO, updated: START_ISO, status: 'queued', call_now: false, place_in_line: 1,
      scheduled_for: null, scheduled_reason: null, held_reason: null, callback_at: null, late: false, attempts: 0,
      last_outcome: null, last_outcome_label: null, next_dial_at: null, calls: [], livemode: true,
    })
  })

  test('lead.created then lead.queued, same lead, envelope fields; a live lead leaves livemode out', async () => {
    const id = await created({ phone: NY, external_id: 'crm-1', name: 'Dana' })
    const all = events(true)
    expect(all.map((e) => [e.type, e.data.object.id])).toEqual([['lead.created', id], ['lead.queued', id]])
    for (const e of all) {
      expect(Object.keys(e).sort()).toEqual(['api_version', 'created', 'data', 'id', 'livemode', 'type'])
      expect(e.id).toMatch(EVT)
      expect(e.created).toBe(START_ISO)
      expect(e.livemode).toBe(true)
      expect(typeof e.api_version).toBe('string')
      expect(e.api_version.length).toBeGreaterThan(0)
      expect(Object.keys(e.data)).toEqual(['object'])
      expect(Object.keys(e.data.object).sort()).toEqual(LEAD_KEYS)
      expect(e.data.object).toMatchObject({
        id, external_id: 'crm-1', name: 'Dana', phone: NY, status: 'queued', place_in_line: null, estimated_wait_seconds: null,
      })
    }
    expect(all[0].id).not.toBe(all[1].id)
    expect(events(false)).toEqual([])
  })

  test('a test key: reply and events are livemode false and the lead in the event keeps livemode', async () => {
    const r = await post({ phone: '+12125550150' }, c.test)
    expect(r.status).toBe(201)
    expect(r.body.data).toEqual(queuedReply({ livemode: false }))
    const all = events(false)
    expect(all.map((e) => e.type)).toEqual(['lead.created', 'lead.queued'])
    for (const e of all) {
      expect(e.livemode).toBe(false)
      expect(e.data.object).toMatchObject({ id: r.body.data.id, livemode: false, place_in_line: null, estimated_wait_seconds: null })
    }
    expect(events(true)).toEqual([])
  })

  test.each([
    ['Los Angeles (07:00 local)', LA, '2026-01-05T16:00:00.000Z'],
    ['Honolulu (05:00 local)', HAWAII, '2026-01-05T18:00:00.000Z'],
  ])('%s is scheduled for the next 08:00 local, outside_calling_hours', async (_where, phone, at) => {
    const r = await post({ phone })
    expect(r.status).toBe(201)
    expect(r.body.data).toEqual(queuedReply({
      status: 'scheduled', place_in_line: null, estimated_wait_seconds: null, scheduled_for: at, scheduled_reason: 'outside_calling_hours',
    }))
    const queued = events(true).find((e) => e.type === 'lead.queued')
    expect(queued.data.object).toMatchObject({ status: 'scheduled', scheduled_for: at, scheduled_reason: 'outside_calling_hours' })
  })

  test('a scheduled lead is queued once its calling hours open', async () => {
    const id = await created({ phone: LA })
    await c.h.advance(HOUR)
    const r = await c.h.api('GET', `/leads/${id}`, { key: c.live })
    expect(r.body.data).toMatchObject({ status: 'queued', scheduled_for: null, scheduled_reason: null, place_in_line: 1 })
  })

  test('a draft campaign holds the lead: campaign_not_started', async () => {
    const r = await post({ phone: NY, campaign_id: c.w.draftCampaignId })
    expect(r.status).toBe(201)
    expect(r.body.data).toEqual(queuedReply({
      status: 'held', place_in_line: null, estimated_wait_seconds: null, held_reason: 'campaign_not_started',
    }))
  })

  test('a paused campaign holds the lead: campaign_paused', async () => {
    const pause = await c.h.api('POST', `/campaigns/${c.w.campaignId}/pause`, { key: c.live })
    expect(pause.status).toBe(200)
    const r = await post({ phone: NY })
    expect(r.status).toBe(201)
    expect(r.body.data).toEqual(queuedReply({
      status: 'held', place_in_line: null, estimated_wait_seconds: null, held_reason: 'campaign_paused',
    }))
    expect(events(true).map((e) => [e.type, e.data.object.status, e.data.object.held_reason])).toEqual([
      ['lead.created', 'held', 'campaign_paused'],
      ['lead.queued', 'held', 'campaign_paused'],
    ])
  })

  test('call_now leads go ahead of earlier leads, oldest call_now first', async () => {
    const a = await post({ phone: NY })
    const b = await post({ phone: NY2 })
    const cn1 = await post({ phone: NY3, call_now: true })
    const cn2 = await post({ phone: NY4, call_now: true })
    expect([a, b, cn1, cn2].map((r) => [r.body.data.call_now, r.body.data.place_in_line])).toEqual([
      [false, 1], [false, 2], [true, 1], [true, 2],
    ])
    const places = []
    for (const r of [cn1, cn2, a, b]) {
      const lead = await c.h.api('GET', `/leads/${r.body.data.id}`, { key: c.live })
      places.push(lead.body.data.place_in_line)
      expect(Number.isInteger(lead.body.data.estimated_wait_seconds)).toBe(true)
    }
    expect(places).toEqual([1, 2, 3, 4])
  })

  test("call_now defaults to the campaign's call_now_default", async () => {
    await patchCampaign(c.w.campaignId, { call_now_default: true })
    expect((await post({ phone: NY })).body.data.call_now).toBe(true)
    expect((await post({ phone: NY2, call_now: false })).body.data.call_now).toBe(false)
  })

  test('the same external_id in another campaign is fine', async () => {
    const second = await newCampaign()
    const first = await post({ phone: NY, external_id: 'crm-1' })
    const other = await post({ phone: NY, external_id: 'crm-1', campaign_id: second })
    expect(first.status).toBe(201)
    expect(other.status).toBe(201)
    expect(other.body.data.id).not.toBe(first.body.data.id)
  })

  test('the same phone in test mode and live mode are two leads', async () => {
    expect((await post({ phone: NY })).status).toBe(201)
    expect((await post({ phone: NY }, c.test)).status).toBe(201)
    expect(allLeads().map((l) => [l.phone, l.livemode])).toEqual([[NY, true], [NY, false]])
  })

  test('test keys accept 555-0100 and 555-0199', async () => {
    for (const phone of ['+12125550100', '+12125550199']) {
      const r = await post({ phone }, c.test)
      expect(r.status).toBe(201)
      expect(r.body.data.livemode).toBe(false)
    }
  })

  test('a scoped key may add to its own campaign', async () => {
    const r = await post({ phone: NY }, c.w.scoped)
    expect(r.status).toBe(201)
  })

  test('a consent-requiring campaign takes a lead with consent and stores it', async () => {
    await patchCampaign(c.w.campaignId, { requires_consent: true })
    const id = await created({ phone: NY, consent: { source: 'crm', agreed_at: '2026-01-02T00:00:00Z', url: 'https://example.com/form', ip: '203.0.113.9' } })
    const r = await c.h.api('GET', `/leads/${id}`, { key: c.live })
    expect(r.body.data.consent).toEqual({ source: 'crm', agreed_at: '2026-01-02T00:00:00Z', url: 'https://example.com/form', ip: '203.0.113.9' })
  })
})

describe('POST /leads: dry run', () => {
  freshHarnessPerTest()

  test('200 with id null and dry_run true; nothing stored, no event', async () => {
    const r = await post({ phone: NY, external_id: 'crm-9', dry_run: true })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.data).sort()).toEqual(INTAKE_KEYS)
    expect(r.body.data).toEqual(queuedReply({ id: null, external_id: 'crm-9', place_in_line: null, estimated_wait_seconds: null, dry_run: true }))
    expect(allLeads()).toEqual([])
    expect(events(true)).toEqual([])
    // Nothing was kept: the same lead can be added for real.
    expect((await post({ phone: NY, external_id: 'crm-9' })).status).toBe(201)
  })

  test('a dry run tells where the lead would go', async () => {
    const r = await post({ phone: LA, dry_run: true }, c.test)
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual(queuedReply({
      id: null, status: 'scheduled', place_in_line: null, estimated_wait_seconds: null, scheduled_for: '2026-01-05T16:00:00.000Z',
      scheduled_reason: 'outside_calling_hours', dry_run: true, livemode: false,
    }))
    expect(allLeads()).toEqual([])
  })

  test('a dry run runs every check', async () => {
    await addDnc(NY)
    expectError(await post({ phone: NY, dry_run: true }), 422, 'on_dnc_list', 'phone')
  })
})

// ---- refusals ----

interface Refusal {
  name: string
  body: (c: Ctx) => Record<string, unknown>
  key?: (c: Ctx) => TestKey
  /** Runs first; may return the id of a lead the error names. */
  setup?: (c: Ctx) => Promise<string | void>
  status: number
  code: string
  param: string | null
  type?: string
  extra?: (c: Ctx, setupId: string | undefined) => Record<string, unknown>
}

const refusals: Refusal[] = [
  { name: 'unknown campaign', body: () => ({ phone: NY, campaign_id: MISSING_ID }), status: 404, code: 'not_found', param: 'campaign_id' },
  { name: "another organization's campaign", body: (c) => ({ phone: NY, campaign_id: c.w.otherCampaignId }), status: 404, code: 'not_found', param: 'campaign_id' },
  {
    name: 'a scoped key naming another campaign', key: (c) => c.w.scoped, body: (c) => ({ phone: NY, campaign_id: c.w.draftCampaignId }),
    status: 403, code: 'permission_denied', param: 'campaign_id', type: 'permission_error',
    extra: (c) => ({ missing_permission: 'leads:write', campaign_id: c.w.draftCampaignId }),
  },
  {
    name: 'a completed campaign', setup: (c) => patchCampaign(c.w.campaignId, { status: 'completed' }), body: () => ({ phone: NY }),
    status: 409, code: 'campaign_closed', param: 'campaign_id',
  },
  { name: 'an email that is not one', body: () => ({ phone: NY, email: 'dana-at-example' }), status: 400, code: 'invalid_request', param: 'email' },
  {
    name: 'consent without text or url', body: () => ({ phone: NY, consent: { source: 'web_form', agreed_at: '2026-01-01T00:00:00Z' } }),
    status: 400, code: 'invalid_request', param: 'consent',
  },
  {
    name: 'consent with a bad ip', body: () => ({ phone: NY, consent: { ...CONSENT, ip: '999.1.1.1' } }),
    status: 400, code: 'invalid_request', param: 'consent.ip',
  },
  { name: 'phone 123', body: () => ({ phone: '123' }), status: 400, code: 'invalid_phone', param: 'phone' },
  { name: 'phone hello', body: () => ({ phone: 'hello' }), status: 400, code: 'invalid_phone', param: 'phone' },
  { name: 'live key, 555-0100', body: () => ({ phone: '+12125550100' }), status: 400, code: 'invalid_phone', param: 'phone' },
  { name: 'live key, 555-0199', body: () => ({ phone: '(646) 555-0199' }), status: 400, code: 'invalid_phone', param: 'phone' },
  { name: 'on the DNC list', setup: () => addDnc(NY), body: () => ({ phone: '(212) 555-1234' }), status: 422, code: 'on_dnc_list', param: 'phone' },
  {
    name: 'on the DNC list (test key, test list)', key: (c) => c.test, setup: (c) => addDnc('+12125550150', c.test),
    body: () => ({ phone: '+12125550150' }), status: 422, code: 'on_dnc_list', param: 'phone',
  },
  {
    name: 'retired in the campaign', setup: (c) => retire(c.w.campaignId, NY), body: () => ({ phone: NY }),
    status: 422, code: 'number_retired', param: 'phone',
  },
  {
    name: 'duplicate phone', setup: () => created({ phone: NY }), body: () => ({ phone: '212-555-1234' }),
    status: 409, code: 'duplicate_lead', param: 'phone', extra: (_c, id) => ({ lead_id: id }),
  },
  {
    name: 'duplicate external_id', setup: () => created({ phone: NY, external_id: 'crm-1' }), body: () => ({ phone: NY2, external_id: 'crm-1' }),
    status: 409, code: 'duplicate_lead', param: 'external_id', extra: (_c, id) => ({ lead_id: id }),
  },
  {
    name: 'duplicate in test mode', key: (c) => c.test, setup: (c) => created({ phone: NY }, c.test), body: () => ({ phone: NY }),
    status: 409, code: 'duplicate_lead', param: 'phone', extra: (_c, id) => ({ lead_id: id }),
  },
  {
    name: 'consent missing where required', setup: (c) => patchCampaign(c.w.campaignId, { requires_consent: true }), body: () => ({ phone: NY }),
    status: 422, code: 'consent_required', param: 'consent',
  },
  { name: 'international (+44)', body: () => ({ phone: UK }), status: 422, code: 'number_not_allowed', param: 'phone', extra: () => ({ reason: 'international' }) },
  { name: 'international (+1 876 Jamaica)', body: () => ({ phone: JAMAICA }), status: 422, code: 'number_not_allowed', param: 'phone', extra: () => ({ reason: 'international' }) },
  { name: 'premium (+1 900)', body: () => ({ phone: PREMIUM_900 }), status: 422, code: 'number_not_allowed', param: 'phone', extra: () => ({ reason: 'premium' }) },
  { name: 'premium (976 exchange)', body: () => ({ phone: PREMIUM_976 }), status: 422, code: 'number_not_allowed', param: 'phone', extra: () => ({ reason: 'premium' }) },
]

describe('POST /leads: refusals store nothing', () => {
  freshHarnessPerTest()

  test.each(refusals.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const setupId = (await row.setup?.(c)) ?? undefined
    const before = snapshot()
    const r = await post(row.body(c), row.key?.(c) ?? c.live)
    expectError(r, row.status, row.code, row.param)
    expect(r.body.error.type).toBe(row.type ?? 'invalid_request_error')
    if (row.extra) expect(r.body.error).toMatchObject(row.extra(c, setupId))
    expect(snapshot()).toEqual(before)
  })
})

// Each pair fails two checks; the one that runs first answers.
const orderCases: Refusal[] = [
  {
    name: "another organization's campaign before a bad phone", body: (c) => ({ phone: '123', campaign_id: c.w.otherCampaignId }),
    status: 404, code: 'not_found', param: 'campaign_id',
  },
  {
    name: 'scope before a bad phone', key: (c) => c.w.scoped, body: (c) => ({ phone: '123', campaign_id: c.w.draftCampaignId }),
    status: 403, code: 'permission_denied', param: 'campaign_id', type: 'permission_error',
  },
  {
    name: 'campaign_closed before a bad email and phone', setup: (c) => patchCampaign(c.w.campaignId, { status: 'completed' }),
    body: () => ({ phone: '123', email: 'nope' }), status: 409, code: 'campaign_closed', param: 'campaign_id',
  },
  { name: 'a bad email before a bad phone', body: () => ({ phone: '123', email: 'nope' }), status: 400, code: 'invalid_request', param: 'email' },
  {
    name: 'a consent shape before a bad phone', body: () => ({ phone: '123', consent: { source: 'x', agreed_at: '2026-01-01T00:00:00Z' } }),
    status: 400, code: 'invalid_request', param: 'consent',
  },
  {
    name: 'campaign_closed before the DNC list', setup: async (c) => {
      await addDnc(NY)
      await patchCampaign(c.w.campaignId, { status: 'completed' })
    },
    body: () => ({ phone: NY }), status: 409, code: 'campaign_closed', param: 'campaign_id',
  },
  {
    name: 'the DNC list before retired', setup: async (c) => {
      await addDnc(NY)
      await retire(c.w.campaignId, NY)
    },
    body: () => ({ phone: NY }), status: 422, code: 'on_dnc_list', param: 'phone',
  },
  {
    name: 'the DNC list before a duplicate', setup: async () => {
      await created({ phone: NY })
      await addDnc(NY)
    },
    body: () => ({ phone: NY }), status: 422, code: 'on_dnc_list', param: 'phone',
  },
  {
    name: 'retired before a duplicate', setup: async (c) => {
      await created({ phone: NY })
      await retire(c.w.campaignId, NY)
    },
    body: () => ({ phone: NY }), status: 422, code: 'number_retired', param: 'phone',
  },
  {
    name: 'external_id is checked before phone', setup: async () => {
      await created({ phone: NY2 })
      return created({ phone: NY, external_id: 'crm-1' })
    },
    body: () => ({ phone: NY2, external_id: 'crm-1' }), status: 409, code: 'duplicate_lead', param: 'external_id',
    extra: (_c, id) => ({ lead_id: id }),
  },
  {
    name: 'a duplicate before consent_required', setup: async (c) => {
      const id = await created({ phone: NY })
      await patchCampaign(c.w.campaignId, { requires_consent: true })
      return id
    },
    body: () => ({ phone: NY }), status: 409, code: 'duplicate_lead', param: 'phone', extra: (_c, id) => ({ lead_id: id }),
  },
  {
    name: 'consent_required before number_not_allowed', setup: (c) => patchCampaign(c.w.campaignId, { requires_consent: true }),
    body: () => ({ phone: UK }), status: 422, code: 'consent_required', param: 'consent',
  },
]

describe('POST /leads: the checks run in order', () => {
  freshHarnessPerTest()

  test.each(orderCases.map((r) => [r.name, r] as const))('%s', async (_name, row) => {
    const setupId = (await row.setup?.(c)) ?? undefined
    const before = snapshot()
    const r = await post(row.body(c), row.key?.(c) ?? c.live)
    expectError(r, row.status, row.code, row.param)
    expect(r.body.error.type).toBe(row.type ?? 'invalid_request_error')
    if (row.extra) expect(r.body.error).toMatchObject(row.extra(c, setupId))
    expect(snapshot()).toEqual(before)
  })
})

// ---- request shape, custom fields, field lengths ----

describe('POST /leads: request shape', () => {
  freshHarnessPerTest()

  test.each([
    ['missing phone', { phone: undefined }, 'phone'],
    ['phone not a string', { phone: 2125551234 }, 'phone'],
    ['empty phone', { phone: '' }, 'phone'],
    ['missing campaign_id', { campaign_id: undefined }, 'campaign_id'],
    ['campaign_id not a uuid', { campaign_id: 'abc' }, 'campaign_id'],
    ['unknown field', { color: 'red' }, 'color'],
    ['call_now not a boolean', { call_now: 'yes' }, 'call_now'],
    ['dry_run not a boolean', { dry_run: 'no' }, 'dry_run'],
    ['consent without agreed_at', { consent: { source: 'web', text: 'ok' } }, 'consent.agreed_at'],
    ['consent agreed_at not a date-time', { consent: { ...CONSENT, agreed_at: 'yesterday' } }, 'consent.agreed_at'],
    ['consent url not a uri', { consent: { source: 'web', agreed_at: CONSENT.agreed_at, url: 'not a url' } }, 'consent.url'],
    ['consent unknown field', { consent: { ...CONSENT, extra: 1 } }, 'consent.extra'],
    ['fields not an object', { fields: 'x' }, 'fields'],
    ['a custom field value that is a number', { fields: { a: 1 } }, 'fields.a'],
    ['a custom field value that is null', { fields: { a: null } }, 'fields.a'],
    ['51 custom fields', { fields: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, 'v'])) }, 'fields'],
  ])('%s is 400 invalid_request; nothing stored', async (_name, overrides, param) => {
    const r = await post({ phone: NY, ...overrides })
    expectError(r, 400, 'invalid_request', param)
    expect(r.body.error.type).toBe('invalid_request_error')
    expect(allLeads()).toEqual([])
    expect(events(true)).toEqual([])
  })

  test('50 custom fields are stored as sent', async () => {
    const fields = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`field_${i}`, `value ${i}`]))
    const id = await created({ phone: NY, fields })
    const r = await c.h.api('GET', `/leads/${id}`, { key: c.live })
    expect(r.body.data.fields).toEqual(fields)
  })

  const email = (length: number) => `${'a'.repeat(length - '@example.com'.length)}@example.com`
  const lengths: [string, number, (n: number) => Record<string, unknown>][] = [
    ['external_id', 200, (n) => ({ external_id: 'x'.repeat(n) })],
    ['phone', 32, (n) => ({ phone: '+1 (212) 555-1234'.padStart(n) })],
    ['name', 200, (n) => ({ name: 'n'.repeat(n) })],
    ['email', 254, (n) => ({ email: email(n) })],
    ['address', 500, (n) => ({ address: 'a'.repeat(n) })],
    ['consent.source', 100, (n) => ({ consent: { ...CONSENT, source: 's'.repeat(n) } })],
    ['consent.text', 5000, (n) => ({ consent: { ...CONSENT, text: 't'.repeat(n) } })],
  ]

  test.each(lengths)('%s of %i characters is accepted', async (_param, max, body) => {
    const r = await post({ phone: NY, ...body(max) })
    expect(r.status).toBe(201)
    expect(allLeads().length).toBe(1)
  })

  test.each(lengths)('%s over %i characters is 400 with that param; nothing stored', async (param, max, body) => {
    const r = await post({ phone: NY, ...body(max + 1) })
    expectError(r, 400, 'invalid_request', param)
    expect(allLeads()).toEqual([])
    expect(events(true)).toEqual([])
  })
})

// ---- limits ----

/**
 * One harness for the whole describe: 5,000 rows through the store take a while, so the
 * queue is filled once and the tests below run in order, each leaving it full again.
 */
describe('POST /leads: 5,000 waiting API leads per campaign and mode', () => {
  let queued: string[] = []
  let nextPhone = 2_000_000

  /** Rows straight into the store; the campaign_counters triggers count them. */
  function insertLeads(count: number, fields: Partial<NewLead> = {}): string[] {
    const ids: string[] = []
    c.h.services.stores.transaction(() => {
      for (let i = 0; i < count; i++) {
        const id = Bun.randomUUIDv7()
        ids.push(id)
        c.h.services.stores.leads.insert({
          id, orgId: c.w.orgId, campaignId: c.w.campaignId, livemode: true, phone: `+1303${nextPhone++}`,
          fields: {}, leadSource: 'api', status: 'queued', callNow: false, queuedAt: START, lastPostedAt: START,
          created: START, updated: START, ...fields,
        })
      }
    })
    return ids
  }

  beforeAll(async () => {
    c = await newContext()
    // 4,998 queued, 1 scheduled and 1 held: all three statuses count as waiting.
    queued = insertLeads(MAX_WAITING_API_LEADS - 2)
    insertLeads(1, { status: 'scheduled', dueAt: START + 3_600_000, dueReason: 'outside_calling_hours' })
    insertLeads(1, { status: 'held', heldReason: 'campaign_paused' })
  })
  afterAll(() => c.h.close())

  test('the limit is 5,000', () => {
    expect(MAX_WAITING_API_LEADS).toBe(5000)
  })

  test('at 5,000 waiting (queued, scheduled, held): 429 queue_full with Retry-After; nothing stored', async () => {
    const before = snapshot()
    const r = await post({ phone: NY })
    expectError(r, 429, 'queue_full', null)
    expect(r.body.error.type).toBe('rate_limit_error')
    expect(r.headers.get('retry-after')).toMatch(/^\d+$/)
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(snapshot()).toEqual(before)
  })

  test('a dry run answers queue_full too', async () => {
    expectError(await post({ phone: NY, dry_run: true }), 429, 'queue_full', null)
  })

  test('number_not_allowed is checked before queue_full', async () => {
    const r = await post({ phone: UK })
    expectError(r, 422, 'number_not_allowed', 'phone')
    expect(r.body.error.reason).toBe('international')
  })

  test('a full live queue leaves test mode and other campaigns open', async () => {
    expect((await post({ phone: NY }, c.test)).status).toBe(201)
    expect((await post({ phone: NY, campaign_id: await newCampaign() })).status).toBe(201)
    expectError(await post({ phone: NY }), 429, 'queue_full', null)
  })

  test('a lead that stops waiting (dialing) makes room for one', async () => {
    c.h.services.stores.leads.update(c.h.services.stores.leads.get(queued[0]!)!, { status: 'dialing', queueKey: null })
    expect((await post({ phone: NY })).status).toBe(201)
    expectError(await post({ phone: NY2 }), 429, 'queue_full', null)
  })

  test('done API leads and imported leads do not count', async () => {
    c.h.services.stores.leads.update(c.h.services.stores.leads.get(queued[1]!)!, { status: 'done', queueKey: null })
    insertLeads(1, { leadSource: 'import' })
    expect((await post({ phone: NY2 })).status).toBe(201)
    expectError(await post({ phone: NY3 }), 429, 'queue_full', null)
  })
})

describe('POST /leads: new leads a minute per key', () => {
  freshHarnessPerTest()

  const limitedKey = (leadsPerMinute: number) =>
    c.h.createKey(c.w.orgId, { name: 'limited', mode: 'live', requests_per_minute: 100000, burst: 100000, leads_per_minute: leadsPerMinute })

  test('past leads_per_minute: 429 lead_rate_limited with Retry-After; nothing stored', async () => {
    const key = await limitedKey(3)
    for (const phone of [NY, NY2, NY3]) expect((await post({ phone }, key)).status).toBe(201)
    const before = snapshot()
    const r = await post({ phone: NY4 }, key)
    expectError(r, 429, 'lead_rate_limited', null)
    expect(r.body.error.type).toBe('rate_limit_error')
    // The clock stands at a whole minute: the window restarts in 60 s.
    expectRetryAfter(r, 60)
    expect(snapshot()).toEqual(before)
  })

  test('Retry-After counts down with the clock and the next minute takes leads again', async () => {
    const key = await limitedKey(1)
    expect((await post({ phone: NY }, key)).status).toBe(201)
    await c.h.advance(45)
    const r = await post({ phone: NY2 }, key)
    expectError(r, 429, 'lead_rate_limited', null)
    expectRetryAfter(r, 15)
    await c.h.advance(15)
    expect((await post({ phone: NY2 }, key)).status).toBe(201)
  })

  test('the limit is per key', async () => {
    const one = await limitedKey(1)
    const two = await limitedKey(1)
    expect((await post({ phone: NY }, one)).status).toBe(201)
    expectError(await post({ phone: NY2 }, one), 429, 'lead_rate_limited', null)
    expect((await post({ phone: NY2 }, two)).status).toBe(201)
  })

  test('dry runs do not count', async () => {
    const key = await limitedKey(2)
    for (let i = 0; i < 5; i++) expect((await post({ phone: NY, dry_run: true }, key)).status).toBe(200)
    expect((await post({ phone: NY }, key)).status).toBe(201)
    expect((await post({ phone: NY2 }, key)).status).toBe(201)
    expectError(await post({ phone: NY3 }, key), 429, 'lead_rate_limited', null)
  })

  test('the older campaign path counts too', async () => {
    const key = await limitedKey(1)
    expect((await c.h.api('POST', `/campaigns/${c.w.campaignId}/leads`, { key, body: { phone: NY } })).status).toBe(201)
    const r = await c.h.api('POST', `/campaigns/${c.w.campaignId}/leads`, { key, body: { phone: NY2 } })
    expectError(r, 429, 'lead_rate_limited', null)
    expectRetryAfter(r, 60)
  })
})

// ---- re-queue after the duplicate window ----

describe('POST /leads: an existing lead after the duplicate window', () => {
  freshHarnessPerTest()

  /**
   * A Los Angeles lead (scheduled at 07:00 PT, so not in the in-memory queue) set to `status`
   * through the store; the clock then moves 25 h to Tuesday 08:00:00 PT (16:00 UTC), inside
   * calling hours.
   */
  async function existing(status: NewLead['status'], body: Record<string, unknown> = {}): Promise<string> {
    const id = await created({ phone: LA, ...body })
    setStatus(id, status)
    await c.h.advance(25 * HOUR)
    return id
  }
  const TUESDAY_8_PT = '2026-01-06T16:00:00.000Z'

  test.each(['done', 'callback_scheduled', 'new'] as const)('%s: 200 requeued true, lead.queued only', async (status) => {
    const id = await existing(status, { external_id: 'crm-7' })
    const r = await post({ phone: LA })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.data).sort()).toEqual([...INTAKE_KEYS, 'requeued'].sort())
    expect(r.body.data).toEqual(queuedReply({ id, external_id: 'crm-7', requeued: true }))
    const lead = await c.h.api('GET', `/leads/${id}`, { key: c.live })
    expect(lead.body.data).toMatchObject({ status: 'queued', updated: TUESDAY_8_PT, created: START_ISO, place_in_line: 1 })
    expect(events(true).map((e) => [e.type, e.data.object.id, e.data.object.status])).toEqual([
      ['lead.created', id, 'scheduled'],
      ['lead.queued', id, 'scheduled'],
      ['lead.queued', id, 'queued'],
    ])
    expect(events(true)[2].created).toBe(TUESDAY_8_PT)
    expect(allLeads().length).toBe(1)
  })

  test('found by external_id too', async () => {
    const id = await existing('done', { external_id: 'crm-7' })
    const r = await post({ phone: LA, external_id: 'crm-7' })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ id, requeued: true, external_id: 'crm-7' })
  })

  test('a re-queue is placed like a new lead: outside calling hours it is scheduled', async () => {
    const id = await created({ phone: LA })
    setStatus(id, 'done')
    await c.h.advance(DAY + 60) // Tuesday 07:01 PT
    const r = await post({ phone: LA })
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual(queuedReply({
      id, status: 'scheduled', place_in_line: null, estimated_wait_seconds: null, scheduled_for: TUESDAY_8_PT,
      scheduled_reason: 'outside_calling_hours', requeued: true,
    }))
  })

  test('inside the window (exactly 24 h) it is still 409 duplicate_lead; a second later it is re-queued', async () => {
    const id = await created({ phone: LA })
    setStatus(id, 'done')
    await c.h.advance(DAY)
    const before = snapshot()
    const r = await post({ phone: LA })
    expectError(r, 409, 'duplicate_lead', 'phone')
    expect(r.body.error.lead_id).toBe(id)
    expect(snapshot()).toEqual(before)
    await c.h.advance(1)
    expect((await post({ phone: LA })).status).toBe(200)
  })

  test.each(['queued', 'scheduled', 'held', 'dialing', 'on_call', 'out_of_queue'] as const)(
    '%s after the window: still 409 duplicate_lead with lead_id; nothing changes',
    async (status) => {
      const id = await existing(status)
      const before = snapshot()
      const r = await post({ phone: LA })
      expectError(r, 409, 'duplicate_lead', 'phone')
      expect(r.body.error.lead_id).toBe(id)
      expect(snapshot()).toEqual(before)
    },
  )

  test("the campaign's duplicate_window_hours sets the window", async () => {
    await patchCampaign(c.w.campaignId, { duplicate_window_hours: 2 })
    const id = await created({ phone: NY })
    setStatus(id, 'done')
    await c.h.advance(2 * HOUR)
    expectError(await post({ phone: NY }), 409, 'duplicate_lead', 'phone')
    await c.h.advance(1)
    const r = await post({ phone: NY })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ id, status: 'queued', requeued: true })
  })

  test('the window counts from the last accepted POST', async () => {
    const id = await existing('done')
    expect((await post({ phone: LA })).status).toBe(200)
    setStatus(id, 'done')
    await c.h.advance(23 * HOUR)
    expectError(await post({ phone: LA }), 409, 'duplicate_lead', 'phone')
    await c.h.advance(HOUR + 1)
    expect((await post({ phone: LA })).status).toBe(200)
  })

  test('a dry run of a re-queue: 200, id null, requeued true; the lead is unchanged', async () => {
    await existing('done')
    const before = snapshot()
    const r = await post({ phone: LA, dry_run: true })
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual(queuedReply({ id: null, place_in_line: null, estimated_wait_seconds: null, dry_run: true, requeued: true }))
    expect(snapshot()).toEqual(before)
  })

  test('a consent-requiring campaign re-queues a lead that already has consent', async () => {
    const id = await existing('done', { consent: CONSENT })
    await patchCampaign(c.w.campaignId, { requires_consent: true })
    const r = await post({ phone: LA })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ id, requeued: true })
  })
})

describe('POST /leads: call_now for an existing lead counts toward 3 API-started calls in 24 h', () => {
  freshHarnessPerTest()

  test('the 4th within 24 h is 429 call_limit_reached with Retry-After until the oldest leaves the window', async () => {
    await patchCampaign(c.w.campaignId, { duplicate_window_hours: 1 })
    // Creating a lead with call_now is not one of the three.
    const id = await created({ phone: NY, call_now: true })
    for (let i = 1; i <= 3; i++) {
      setStatus(id, 'done')
      await c.h.advance(HOUR + 1)
      const r = await post({ phone: NY, call_now: true })
      expect(r.status).toBe(200)
      expect(r.body.data).toMatchObject({ id, call_now: true, status: 'queued', requeued: true })
    }
    setStatus(id, 'done')
    await c.h.advance(HOUR + 1)
    const before = snapshot()
    const r = await post({ phone: NY, call_now: true })
    expectError(r, 429, 'call_limit_reached', null)
    expect(r.body.error.type).toBe('rate_limit_error')
    // The first counted call was at +3601 s, this one at +14404 s: 24 h - 10803 s to go.
    expectRetryAfter(r, DAY - 3 * (HOUR + 1))
    expect(snapshot()).toEqual(before)

    await c.h.advance(DAY - 3 * (HOUR + 1) - 1)
    const again = await post({ phone: NY, call_now: true })
    expectError(again, 429, 'call_limit_reached', null)
    expectRetryAfter(again, 1)
    await c.h.advance(1)
    expect((await post({ phone: NY, call_now: true })).status).toBe(200)
  })

  test('a re-queue without call_now does not count and is not limited', async () => {
    await patchCampaign(c.w.campaignId, { duplicate_window_hours: 1 })
    const id = await created({ phone: NY })
    for (let i = 0; i < 3; i++) {
      setStatus(id, 'done')
      await c.h.advance(HOUR + 1)
      expect((await post({ phone: NY, call_now: true })).status).toBe(200)
    }
    for (let i = 0; i < 2; i++) {
      setStatus(id, 'done')
      await c.h.advance(HOUR + 1)
      const r = await post({ phone: NY })
      expect(r.status).toBe(200)
      expect(r.body.data).toMatchObject({ id, call_now: false, requeued: true })
    }
    setStatus(id, 'done')
    await c.h.advance(HOUR + 1)
    expectError(await post({ phone: NY, call_now: true }), 429, 'call_limit_reached', null)
  })
})

// ---- parallel intake ----

describe('POST /leads: parallel requests', () => {
  freshHarnessPerTest()

  test('50 at once with the same phone make exactly one lead', async () => {
    const replies = await Promise.all(Array.from({ length: 50 }, () => post({ phone: NY })))
    const wins = replies.filter((r) => r.status === 201)
    expect(wins.length).toBe(1)
    const id = wins[0]!.body.data.id
    const losers = replies.filter((r) => r.status !== 201)
    expect(losers.length).toBe(49)
    for (const r of losers) {
      expectError(r, 409, 'duplicate_lead', 'phone')
      expect(r.body.error.lead_id).toBe(id)
    }
    expect(allLeads().map((l) => l.id)).toEqual([id])
    expect(events(true).map((e) => e.type)).toEqual(['lead.created', 'lead.queued'])
  })

  test('the same Idempotency-Key 10 times at once makes one lead', async () => {
    const replies = await Promise.all(Array.from({ length: 10 }, () =>
      c.h.api('POST', '/leads', { key: c.live, body: { campaign_id: c.w.campaignId, phone: NY }, headers: { 'idempotency-key': 'intake-once' } })))
    const fresh = replies.filter((r) => r.status === 201 && r.headers.get('idempotent-replayed') === null)
    expect(fresh.length).toBe(1)
    const id = fresh[0]!.body.data.id
    for (const r of replies) {
      if (r === fresh[0]) continue
      if (r.status === 201) {
        expect(r.headers.get('idempotent-replayed')).toBe('true')
        expect(r.body).toEqual(fresh[0]!.body)
      } else {
        expectError(r, 409, 'idempotency_in_progress', 'Idempotency-Key')
      }
    }
    expect(allLeads().map((l) => l.id)).toEqual([id])
    expect(events(true).map((e) => e.type)).toEqual(['lead.created', 'lead.queued'])
  })
})
