import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, type Harness, type Reply, type TestKey, type World, expectError } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * POST /leads/batch and the older campaign paths POST /campaigns/{id}/leads and
 * POST /campaigns/{id}/leads/batch (spec "Lead intake reply", "Errors": a failing lead in a
 * batch, "Limits"; DESIGN.md "Leads and DNC"): up to 60 leads, results in order, each lead
 * checked alone, repeats inside a batch, the new-leads limit for a whole batch, dry runs.
 */

const UUID7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const MISSING_ID = '01a20379-0000-7000-8000-000000000000'

const NY = '+12125551234'
const NY2 = '+12125551235'
const NY3 = '+12125551236'
const LA = '+14155552671'
const UK = '+442071838750'
const CONSENT = { source: 'web_form', agreed_at: '2026-01-01T12:00:00Z', text: 'Yes, call me.' }

const BATCH_KEYS = ['dry_run', 'failed', 'livemode', 'results', 'succeeded']
const INTAKE_KEYS = [
  'call_now', 'dry_run', 'estimated_wait_seconds', 'external_id', 'held_reason', 'id', 'livemode', 'place_in_line',
  'scheduled_for', 'scheduled_reason', 'status',
]

let h: Harness
let w: World
/** Keys with room for many leads a minute. */
let live: TestKey
let testKey: TestKey

beforeEach(async () => {
  h = createHarness()
  w = await seedWorld(h)
  const big = { requests_per_minute: 100000, burst: 100000, leads_per_minute: 100000, max_concurrent: 50 }
  live = await h.createKey(w.orgId, { name: 'batch live', mode: 'live', ...big })
  testKey = await h.createKey(w.orgId, { name: 'batch test', mode: 'test', ...big })
})
afterEach(() => h.close())

// ---- helpers ----

function batch(body: Record<string, unknown>, key: TestKey = live): Promise<Reply> {
  return h.api('POST', '/leads/batch', { key, body })
}

/** Every lead row of both organizations and modes. */
function allLeads() {
  const rows = []
  for (const orgId of [w.orgId, w.otherOrgId]) {
    for (const livemode of [true, false]) rows.push(...h.services.stores.leads.list({ orgId, livemode, campaignIds: null }, {}, 100_000))
  }
  return rows
}

/** Event envelopes, oldest first. */
function events(livemode = true): any[] {
  return h.services.stores.events.list({ orgId: w.orgId, livemode, campaignIds: null }, 500).reverse().map((row) => JSON.parse(row.body))
}

function snapshot() {
  return { leads: allLeads(), liveEvents: events(true).map((e) => e.id), testEvents: events(false).map((e) => e.id) }
}


/** An intake reply in a batch result (place_in_line and wait given separately). */
function intake(overrides: Record<string, unknown> = {}) {
  return {
    id: expect.stringMatching(UUID7),
    external_id: null,
    status: 'queued',
    call_now: false,
    place_in_line: expect.any(Number),
    estimated_wait_seconds: expect.any(Number),
    scheduled_for: null,
    scheduled_reason: null,
    held_reason: null,
    dry_run: false,
    livemode: true,
    ...overrides,
  }
}

/** A failed batch result: exactly index, ok false and the four error fields. */
function failure(index: number, code: string, param: string | null, leadId: string | null = null) {
  return { index, ok: false, error: { code, message: expect.any(String), param, lead_id: leadId } }
}

const phones = (count: number, from = 2000) => Array.from({ length: count }, (_, i) => `+1212555${from + i}`)

async function createdLead(body: Record<string, unknown>): Promise<string> {
  const r = await h.api('POST', '/leads', { key: live, body: { campaign_id: w.campaignId, ...body } })
  if (r.status !== 201) throw new Error(r.text)
  return r.body.data.id
}
const addDnc = async (phone: string) => {
  const r = await h.api('POST', '/dnc', { key: live, body: { phone } })
  if (r.status !== 201) throw new Error(r.text)
}
const retire = async (campaignId: string, phone: string) => {
  const r = await h.admin('POST', `/campaigns/${campaignId}/retired_numbers`, { phone })
  if (r.status !== 201) throw new Error(r.text)
}
const patchCampaign = async (campaignId: string, fields: Record<string, unknown>) => {
  const r = await h.admin('PATCH', `/campaigns/${campaignId}`, fields)
  if (r.status !== 200) throw new Error(r.text)
}
const newCampaign = async (fields: Record<string, unknown> = {}): Promise<string> => {
  const r = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Another', status: 'active', sdrs: [{ name: 'Jo' }], ...fields })
  if (r.status !== 201) throw new Error(r.text)
  return r.body.data.id
}

// ---- POST /leads/batch ----

describe('POST /leads/batch: accepted leads', () => {
  test('campaign_id once for the batch; results in order with index; counts and livemode', async () => {
    const r = await batch({
      campaign_id: w.campaignId,
      leads: [{ phone: NY, external_id: 'a' }, { phone: LA, name: 'Lee' }, { phone: NY2, call_now: true }],
    })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(['data'])
    expect(Object.keys(r.body.data).sort()).toEqual(BATCH_KEYS)
    expect(r.body.data).toEqual({
      succeeded: 3,
      failed: 0,
      dry_run: false,
      livemode: true,
      results: [
        // Places are read after the whole batch joined the queue: the call_now lead is ahead.
        { index: 0, ok: true, lead: intake({ external_id: 'a', place_in_line: 2 }) },
        {
          index: 1, ok: true,
          lead: intake({
            status: 'scheduled', place_in_line: null, estimated_wait_seconds: null, scheduled_for: '2026-01-05T16:00:00.000Z',
            scheduled_reason: 'outside_calling_hours',
          }),
        },
        { index: 2, ok: true, lead: intake({ call_now: true, place_in_line: 1 }) },
      ],
    })
    for (const result of r.body.data.results) {
      expect(Object.keys(result).sort()).toEqual(['index', 'lead', 'ok'])
      expect(Object.keys(result.lead).sort()).toEqual(INTAKE_KEYS)
    }
    const ids = r.body.data.results.map((x: any) => x.lead.id)
    expect(new Set(ids).size).toBe(3)
    expect(allLeads().map((l) => l.id).sort()).toEqual([...ids].sort())
  })

  test('each new lead gets lead.created then lead.queued, in batch order', async () => {
    const r = await batch({ campaign_id: w.campaignId, leads: [{ phone: NY }, { phone: NY2 }] })
    const [a, b] = r.body.data.results.map((x: any) => x.lead.id)
    expect(events(true).map((e) => [e.type, e.data.object.id])).toEqual([
      ['lead.created', a], ['lead.queued', a], ['lead.created', b], ['lead.queued', b],
    ])
    for (const e of events(true)) {
      expect('livemode' in e.data.object).toBe(false)
      expect(e.data.object.place_in_line).toBeNull()
      expect(e.data.object.estimated_wait_seconds).toBeNull()
    }
  })

  test('campaign_id per lead; a lead\u2019s own campaign_id wins over the batch one', async () => {
    const second = await newCampaign()
    const r = await batch({
      campaign_id: w.campaignId,
      leads: [{ phone: NY }, { phone: NY, campaign_id: w.draftCampaignId }, { phone: NY, campaign_id: second }],
    })
    expect(r.body.data.succeeded).toBe(3)
    expect(r.body.data.results[1].lead).toEqual(intake({
      status: 'held', place_in_line: null, estimated_wait_seconds: null, held_reason: 'campaign_not_started',
    }))
    const byId = new Map(allLeads().map((l) => [l.id, l.campaignId]))
    expect(r.body.data.results.map((x: any) => byId.get(x.lead.id))).toEqual([w.campaignId, w.draftCampaignId, second])
  })

  test('without a batch campaign_id, every lead names its own; one that does not fails alone', async () => {
    const r = await batch({ leads: [{ phone: NY, campaign_id: w.campaignId }, { phone: NY2 }, { phone: NY3, campaign_id: w.campaignId }] })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ succeeded: 2, failed: 1 })
    expect(r.body.data.results[1]).toEqual(failure(1, 'invalid_request', 'leads[1].campaign_id'))
    expect(allLeads().map((l) => l.phone).sort()).toEqual([NY, NY3])
  })

  test('60 leads are accepted', async () => {
    const r = await batch({ campaign_id: w.campaignId, leads: phones(60).map((phone) => ({ phone })) })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ succeeded: 60, failed: 0 })
    expect(r.body.data.results.map((x: any) => x.index)).toEqual(Array.from({ length: 60 }, (_, i) => i))
    expect(r.body.data.results.map((x: any) => x.lead.place_in_line)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1))
    expect(allLeads().length).toBe(60)
  })

  test('an existing lead past the duplicate window is re-queued in a batch: requeued true, lead.queued only', async () => {
    // Scheduled at 07:00 PT (not in the dial queue); done through the store; 25 h later it is 08:00 PT.
    const id = await createdLead({ phone: LA })
    h.services.stores.leads.update(h.services.stores.leads.get(id)!, { status: 'done', queueKey: null })
    await h.advance(25 * 3600)
    const r = await batch({ campaign_id: w.campaignId, leads: [{ phone: LA }, { phone: NY }] })
    expect(r.body.data).toMatchObject({ succeeded: 2, failed: 0 })
    expect(r.body.data.results[0]).toEqual({ index: 0, ok: true, lead: intake({ id, requeued: true, place_in_line: 1 }) })
    expect('requeued' in r.body.data.results[1].lead).toBe(false)
    expect(r.body.data.results[1].lead).toEqual(intake({ place_in_line: 2 }))
    const forLead = events(true).filter((e) => e.data.object.id === id).map((e) => e.type)
    expect(forLead).toEqual(['lead.created', 'lead.queued', 'lead.queued'])
  })

  test('a test key: livemode false, the magic range accepted', async () => {
    const r = await batch({ campaign_id: w.campaignId, leads: [{ phone: '+12125550100' }, { phone: '+12125550199' }] }, testKey)
    expect(r.body.data).toMatchObject({ succeeded: 2, failed: 0, livemode: false })
    for (const x of r.body.data.results) expect(x.lead.livemode).toBe(false)
  })
})

describe('POST /leads/batch: the request itself', () => {
  test.each([
    ['61 leads', () => ({ campaign_id: w.campaignId, leads: phones(61).map((phone) => ({ phone })) }), 'leads'],
    ['no leads field', () => ({ campaign_id: w.campaignId }), 'leads'],
    ['leads not an array', () => ({ campaign_id: w.campaignId, leads: { phone: NY } }), 'leads'],
    ['an unknown top-level field', () => ({ campaign_id: w.campaignId, leads: [{ phone: NY }], mode: 'fast' }), 'mode'],
    ['a batch campaign_id that is not a uuid', () => ({ campaign_id: 'abc', leads: [{ phone: NY }] }), 'campaign_id'],
    ['dry_run not a boolean', () => ({ campaign_id: w.campaignId, leads: [{ phone: NY }], dry_run: 'yes' }), 'dry_run'],
  ])('%s is 400 invalid_request; nothing stored', async (_name, body, param) => {
    const r = await batch(body())
    expectError(r, 400, 'invalid_request', param)
    expect(r.body.error.type).toBe('invalid_request_error')
    expect(allLeads()).toEqual([])
    expect(events(true)).toEqual([])
  })
})

interface ItemFailure {
  name: string
  /** The failing lead, sent at index 1 between two good leads. */
  lead: () => Record<string, unknown>
  setup?: () => Promise<string | void>
  code: string
  param: string
  /** Whether the error names an existing lead (duplicate_lead). */
  namesLead?: boolean
}

const itemFailures: ItemFailure[] = [
  { name: 'phone a number (123)', lead: () => ({ phone: 123 }), code: 'invalid_request', param: 'leads[1].phone' },
  { name: 'phone "123"', lead: () => ({ phone: '123' }), code: 'invalid_phone', param: 'leads[1].phone' },
  { name: 'no phone', lead: () => ({ name: 'x' }), code: 'invalid_request', param: 'leads[1].phone' },
  { name: 'an unknown field', lead: () => ({ phone: LA, color: 'red' }), code: 'invalid_request', param: 'leads[1].color' },
  { name: 'a lead that is not an object', lead: () => 'hello' as unknown as Record<string, unknown>, code: 'invalid_request', param: 'leads[1]' },
  { name: 'phone over 32 characters', lead: () => ({ phone: '1'.repeat(33) }), code: 'invalid_request', param: 'leads[1].phone' },
  { name: 'name over 200 characters', lead: () => ({ phone: LA, name: 'n'.repeat(201) }), code: 'invalid_request', param: 'leads[1].name' },
  { name: 'a bad email', lead: () => ({ phone: LA, email: 'nope' }), code: 'invalid_request', param: 'leads[1].email' },
  {
    name: 'consent without text or url', lead: () => ({ phone: LA, consent: { source: 'web', agreed_at: CONSENT.agreed_at } }),
    code: 'invalid_request', param: 'leads[1].consent',
  },
  {
    name: 'consent.text over 5000', lead: () => ({ phone: LA, consent: { ...CONSENT, text: 't'.repeat(5001) } }),
    code: 'invalid_request', param: 'leads[1].consent.text',
  },
  {
    name: '51 custom fields', lead: () => ({ phone: LA, fields: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, 'v'])) }),
    code: 'invalid_request', param: 'leads[1].fields',
  },
  { name: 'a custom field that is not a string', lead: () => ({ phone: LA, fields: { a: 1 } }), code: 'invalid_request', param: 'leads[1].fields.a' },
  { name: 'live key, 555-0100', lead: () => ({ phone: '+12125550100' }), code: 'invalid_phone', param: 'leads[1].phone' },
  { name: 'an unknown campaign', lead: () => ({ phone: LA, campaign_id: MISSING_ID }), code: 'not_found', param: 'leads[1].campaign_id' },
  { name: "another organization's campaign", lead: () => ({ phone: LA, campaign_id: w.otherCampaignId }), code: 'not_found', param: 'leads[1].campaign_id' },
  {
    name: 'a completed campaign', setup: async () => {
      const done = await newCampaign({ status: 'completed' })
      itemCampaign = done
    },
    lead: () => ({ phone: LA, campaign_id: itemCampaign }), code: 'campaign_closed', param: 'leads[1].campaign_id',
  },
  { name: 'on the DNC list', setup: () => addDnc(LA), lead: () => ({ phone: LA }), code: 'on_dnc_list', param: 'leads[1].phone' },
  { name: 'retired', setup: () => retire(w.campaignId, LA), lead: () => ({ phone: LA }), code: 'number_retired', param: 'leads[1].phone' },
  {
    name: 'a duplicate of an existing lead (phone)', setup: () => createdLead({ phone: LA }), lead: () => ({ phone: LA }),
    code: 'duplicate_lead', param: 'leads[1].phone', namesLead: true,
  },
  {
    name: 'a duplicate of an existing lead (external_id)', setup: () => createdLead({ phone: LA, external_id: 'crm-1' }),
    lead: () => ({ phone: '+14155552672', external_id: 'crm-1' }), code: 'duplicate_lead', param: 'leads[1].external_id', namesLead: true,
  },
  {
    name: 'consent missing where required', setup: async () => {
      itemCampaign = await newCampaign({ requires_consent: true })
    },
    lead: () => ({ phone: LA, campaign_id: itemCampaign }), code: 'consent_required', param: 'leads[1].consent',
  },
  { name: 'international', lead: () => ({ phone: UK }), code: 'number_not_allowed', param: 'leads[1].phone' },
  { name: 'premium', lead: () => ({ phone: '+19002345678' }), code: 'number_not_allowed', param: 'leads[1].phone' },
]
let itemCampaign = ''

describe('POST /leads/batch: a failing lead fails alone', () => {
  test.each(itemFailures.map((f) => [f.name, f] as const))('%s', async (_name, row) => {
    const existing = (await row.setup?.()) ?? null
    const before = allLeads()
    const r = await batch({ campaign_id: w.campaignId, leads: [{ phone: NY }, row.lead(), { phone: NY2 }] })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ succeeded: 2, failed: 1, dry_run: false, livemode: true })
    expect(r.body.data.results[0]).toEqual({ index: 0, ok: true, lead: intake() })
    expect(r.body.data.results[1]).toEqual(failure(1, row.code, row.param, row.namesLead ? existing : null))
    expect(Object.keys(r.body.data.results[1].error).sort()).toEqual(['code', 'lead_id', 'message', 'param'])
    expect(r.body.data.results[2]).toEqual({ index: 2, ok: true, lead: intake() })
    // Only the two good leads were added.
    const added = allLeads().filter((l) => !before.some((b) => b.id === l.id))
    expect(added.map((l) => l.phone).sort()).toEqual([NY, NY2])
  })

  test('a campaign-limited key naming another campaign: permission_denied for that lead only', async () => {
    const r = await batch({ leads: [{ phone: NY, campaign_id: w.campaignId }, { phone: NY2, campaign_id: w.draftCampaignId }] }, w.scoped)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ succeeded: 1, failed: 1 })
    expect(r.body.data.results[1]).toMatchObject({ index: 1, ok: false, error: { code: 'permission_denied', lead_id: null } })
    expect(allLeads().map((l) => l.phone)).toEqual([NY])
  })

  // Regression test (found while writing the suite; fixed in src).
  test('a campaign-limited key naming another campaign: param is leads[i].campaign_id', async () => {
    const r = await batch({ leads: [{ phone: NY, campaign_id: w.campaignId }, { phone: NY2, campaign_id: w.draftCampaignId }] }, w.scoped)
    expect(r.body.data.results[1]).toEqual(failure(1, 'permission_denied', 'leads[1].campaign_id'))
  })
})

describe('POST /leads/batch: repeats inside one batch', () => {
  test('a lead repeating an earlier phone gets duplicate_lead with the earlier lead\u2019s id', async () => {
    const r = await batch({ campaign_id: w.campaignId, leads: [{ phone: NY }, { phone: NY2 }, { phone: '(212) 555-1234' }] })
    const first = r.body.data.results[0].lead.id
    expect(r.body.data).toMatchObject({ succeeded: 2, failed: 1 })
    expect(r.body.data.results[2]).toEqual(failure(2, 'duplicate_lead', 'leads[2].phone', first))
    expect(allLeads().length).toBe(2)
  })

  test('a lead repeating an earlier external_id gets duplicate_lead param external_id', async () => {
    const r = await batch({ campaign_id: w.campaignId, leads: [{ phone: NY, external_id: 'x-1' }, { phone: NY2, external_id: 'x-1' }] })
    const first = r.body.data.results[0].lead.id
    expect(r.body.data.results[1]).toEqual(failure(1, 'duplicate_lead', 'leads[1].external_id', first))
  })

  test('the same phone and external_id in two campaigns of one batch are two leads', async () => {
    const second = await newCampaign()
    const r = await batch({ leads: [{ phone: NY, external_id: 'x-1', campaign_id: w.campaignId }, { phone: NY, external_id: 'x-1', campaign_id: second }] })
    expect(r.body.data).toMatchObject({ succeeded: 2, failed: 0 })
  })

  test('a repeat of a lead that failed fails for its own reason, not as a duplicate', async () => {
    await addDnc(NY)
    const r = await batch({ campaign_id: w.campaignId, leads: [{ phone: NY }, { phone: NY }] })
    expect(r.body.data.results).toEqual([failure(0, 'on_dnc_list', 'leads[0].phone'), failure(1, 'on_dnc_list', 'leads[1].phone')])
  })

  test('in a dry run a repeat is still duplicate_lead, with lead_id null (nothing was stored)', async () => {
    const r = await batch({ campaign_id: w.campaignId, dry_run: true, leads: [{ phone: NY }, { phone: NY }] })
    expect(r.body.data.results[1]).toEqual(failure(1, 'duplicate_lead', 'leads[1].phone', null))
  })
})

describe('POST /leads/batch: dry run', () => {
  test('every check runs, ids are null, nothing is stored and no event is sent', async () => {
    await addDnc(NY3)
    const before = snapshot()
    const r = await batch({ campaign_id: w.campaignId, dry_run: true, leads: [{ phone: NY }, { phone: LA }, { phone: NY3 }] })
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({
      succeeded: 2,
      failed: 1,
      dry_run: true,
      livemode: true,
      results: [
        { index: 0, ok: true, lead: intake({ id: null, place_in_line: null, estimated_wait_seconds: null, dry_run: true }) },
        {
          index: 1, ok: true,
          lead: intake({
            id: null, status: 'scheduled', place_in_line: null, estimated_wait_seconds: null, scheduled_for: '2026-01-05T16:00:00.000Z',
            scheduled_reason: 'outside_calling_hours', dry_run: true,
          }),
        },
        failure(2, 'on_dnc_list', 'leads[2].phone'),
      ],
    })
    expect(snapshot()).toEqual(before)
  })
})

describe('POST /leads/batch: new leads a minute per key', () => {
  const limitedKey = (leadsPerMinute: number) =>
    h.createKey(w.orgId, { name: 'limited', mode: 'live', requests_per_minute: 100000, burst: 100000, leads_per_minute: leadsPerMinute })

  test('a batch that does not fit is refused whole: 429 lead_rate_limited, nothing stored', async () => {
    const key = await limitedKey(5)
    const before = snapshot()
    const r = await batch({ campaign_id: w.campaignId, leads: phones(6).map((phone) => ({ phone })) }, key)
    expectError(r, 429, 'lead_rate_limited', null)
    expect(r.body.error.type).toBe('rate_limit_error')
    expect(r.headers.get('retry-after')).toBe('60')
    expect(snapshot()).toEqual(before)
    // The refused batch took nothing: five still fit.
    const ok = await batch({ campaign_id: w.campaignId, leads: phones(5).map((phone) => ({ phone })) }, key)
    expect(ok.status).toBe(200)
    expect(ok.body.data.succeeded).toBe(5)
  })

  test('each lead of a batch counts', async () => {
    const key = await limitedKey(5)
    expect((await batch({ campaign_id: w.campaignId, leads: phones(4).map((phone) => ({ phone })) }, key)).status).toBe(200)
    expect((await h.api('POST', '/leads', { key, body: { campaign_id: w.campaignId, phone: NY } })).status).toBe(201)
    const r = await h.api('POST', '/leads', { key, body: { campaign_id: w.campaignId, phone: NY2 } })
    expectError(r, 429, 'lead_rate_limited', null)
    expectError(await batch({ campaign_id: w.campaignId, leads: [{ phone: NY3 }] }, key), 429, 'lead_rate_limited', null)
    await h.advance(60)
    expect((await batch({ campaign_id: w.campaignId, leads: [{ phone: NY3 }] }, key)).body.data.succeeded).toBe(1)
  })

  test('dry runs do not count', async () => {
    const key = await limitedKey(3)
    const dry = await batch({ campaign_id: w.campaignId, dry_run: true, leads: phones(10).map((phone) => ({ phone })) }, key)
    expect(dry.status).toBe(200)
    expect(dry.body.data.succeeded).toBe(10)
    const real = await batch({ campaign_id: w.campaignId, leads: phones(3).map((phone) => ({ phone })) }, key)
    expect(real.body.data.succeeded).toBe(3)
  })

  test('the default of 60 a minute takes a full batch of 60 and then nothing more', async () => {
    const key = await h.createKey(w.orgId, { name: 'default', mode: 'live', requests_per_minute: 100000, burst: 100000 })
    const r = await batch({ campaign_id: w.campaignId, leads: phones(60).map((phone) => ({ phone })) }, key)
    expect(r.body.data.succeeded).toBe(60)
    expectError(await batch({ campaign_id: w.campaignId, leads: [{ phone: NY }] }, key), 429, 'lead_rate_limited', null)
  })

  test('the older batch path counts the same way', async () => {
    const key = await limitedKey(2)
    const r = await h.api('POST', `/campaigns/${w.campaignId}/leads/batch`, { key, body: { leads: phones(3).map((phone) => ({ phone })) } })
    expectError(r, 429, 'lead_rate_limited', null)
    expect(allLeads()).toEqual([])
  })
})

// ---- the older campaign paths ----

describe('POST /campaigns/{id}/leads (older path)', () => {
  test('201 with the intake reply; customFields merged into fields, fields win on a clash', async () => {
    const r = await h.api('POST', `/campaigns/${w.campaignId}/leads`, {
      key: live,
      body: { phone: NY, name: 'Dana', customFields: { roof: 'slate', color: 'red' }, fields: { color: 'blue', size: 'L' } },
    })
    expect(r.status).toBe(201)
    expect(Object.keys(r.body.data).sort()).toEqual(INTAKE_KEYS)
    expect(r.body.data).toEqual(intake({ place_in_line: 1 }))
    const lead = await h.api('GET', `/leads/${r.body.data.id}`, { key: live })
    expect(lead.body.data).toMatchObject({ campaign_id: w.campaignId, phone: NY, name: 'Dana', fields: { roof: 'slate', color: 'blue', size: 'L' } })
    const list = await h.api('GET', `/campaigns/${w.campaignId}/leads`, { key: live })
    expect(list.body.data).toHaveLength(1)
    expect(list.body.data[0]).toMatchObject({ id: r.body.data.id, campaignId: w.campaignId, customFields: { roof: 'slate', color: 'blue', size: 'L' } })
    expect(events(true).map((e) => e.type)).toEqual(['lead.created', 'lead.queued'])
  })

  test('dry run: 200, id null, nothing stored', async () => {
    const r = await h.api('POST', `/campaigns/${w.campaignId}/leads`, { key: live, body: { phone: NY, dry_run: true } })
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual(intake({ id: null, place_in_line: null, estimated_wait_seconds: null, dry_run: true }))
    expect(allLeads()).toEqual([])
  })

  test.each([
    ['on the DNC list', () => addDnc(NY), { phone: NY }, 422, 'on_dnc_list', 'phone'],
    ['a duplicate', () => createdLead({ phone: NY }), { phone: NY }, 409, 'duplicate_lead', 'phone'],
    ['campaign_id in the body (unknown here)', async () => {}, { phone: NY, campaign_id: MISSING_ID }, 400, 'invalid_request', 'campaign_id'],
    ['a bad phone', async () => {}, { phone: '123' }, 400, 'invalid_phone', 'phone'],
  ] as const)('%s is refused; nothing stored', async (_name, setup, body, status, code, param) => {
    await setup()
    const before = snapshot()
    expectError(await h.api('POST', `/campaigns/${w.campaignId}/leads`, { key: live, body }), status, code, param)
    expect(snapshot()).toEqual(before)
  })

  test("another organization's campaign in the path is 404", async () => {
    const r = await h.api('POST', `/campaigns/${w.otherCampaignId}/leads`, { key: live, body: { phone: NY } })
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('not_found')
    expect(allLeads()).toEqual([])
  })
})

describe('POST /campaigns/{id}/leads/batch (older path)', () => {
  test('{ leads, dry_run }: results in order; customFields merged; campaign_id in an item is an unknown field', async () => {
    const r = await h.api('POST', `/campaigns/${w.campaignId}/leads/batch`, {
      key: live,
      body: {
        leads: [
          { phone: NY, customFields: { a: '1', b: '2' }, fields: { b: '3' } },
          { phone: NY2, campaign_id: w.campaignId },
          { phone: NY3 },
        ],
      },
    })
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({
      succeeded: 2,
      failed: 1,
      dry_run: false,
      livemode: true,
      results: [
        { index: 0, ok: true, lead: intake({ place_in_line: 1 }) },
        failure(1, 'invalid_request', 'leads[1].campaign_id'),
        { index: 2, ok: true, lead: intake({ place_in_line: 2 }) },
      ],
    })
    const lead = await h.api('GET', `/leads/${r.body.data.results[0].lead.id}`, { key: live })
    expect(lead.body.data.fields).toEqual({ a: '1', b: '3' })
  })

  test('dry run stores nothing', async () => {
    const r = await h.api('POST', `/campaigns/${w.campaignId}/leads/batch`, { key: live, body: { dry_run: true, leads: [{ phone: NY }] } })
    expect(r.body.data).toEqual({
      succeeded: 1, failed: 0, dry_run: true, livemode: true,
      results: [{ index: 0, ok: true, lead: intake({ id: null, place_in_line: null, estimated_wait_seconds: null, dry_run: true }) }],
    })
    expect(allLeads()).toEqual([])
  })

  test('61 leads are 400 param leads', async () => {
    const r = await h.api('POST', `/campaigns/${w.campaignId}/leads/batch`, { key: live, body: { leads: phones(61).map((phone) => ({ phone })) } })
    expectError(r, 400, 'invalid_request', 'leads')
    expect(allLeads()).toEqual([])
  })

  // Regression test (found while writing the suite; fixed in src).
  test("another organization's campaign in the path is 404", async () => {
    const r = await h.api('POST', `/campaigns/${w.otherCampaignId}/leads/batch`, { key: live, body: { leads: [{ phone: NY }] } })
    expect(r.status).toBe(404)
    expect(r.body.error.code).toBe('not_found')
    expect(allLeads()).toEqual([])
  })
})

describe('POST /leads/batch while the dialer runs', () => {
  let dh: Harness
  afterEach(() => dh.close())

  test('leads a free line took at once read dialing (place 0); the rest queued in order', async () => {
    dh = createHarness({ autoDial: true })
    const world = await seedWorld(dh)
    // The campaign's two lines; scenario 00 numbers keep a call up for 95 s.
    const phones = ['+12125559000', '+12125559100', '+12125559200', '+12125559300']
    const r = await dh.api('POST', '/leads/batch', { key: world.live, body: { campaign_id: world.campaignId, leads: phones.map((phone) => ({ phone })) } })
    expect(r.status).toBe(200)
    const leads = r.body.data.results.map((x: any) => x.lead)
    expect(leads.map((l: any) => [l.status, l.place_in_line])).toEqual([['dialing', 0], ['dialing', 0], ['queued', 1], ['queued', 2]])
    expect(leads[0].estimated_wait_seconds).toBe(0)
    // The replies say what a read says.
    for (const lead of leads) {
      const read = await dh.api('GET', `/leads/${lead.id}`, { key: world.live })
      expect([read.body.data.status, read.body.data.place_in_line]).toEqual([lead.status, lead.place_in_line])
    }
  })
})
