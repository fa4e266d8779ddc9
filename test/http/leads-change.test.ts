import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, type Harness, type TestKey, type World, expectError } from '../harness'
import { apiHelpers } from './helpers'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Changing leads (spec PATCH /leads/{id}, POST /leads/{id}/opt_out, POST /dnc and
 * POST /dnc/batch effects, event lead.opted_out; DESIGN.md "Contract details / Leads and DNC").
 * The clock starts Monday 2026-01-05 15:00 UTC (10:00 in New York): +1 212 leads are queued.
 */

const START_ISO = '2026-01-05T15:00:00.000Z'

let h: Harness
let w: World
beforeEach(async () => {
  h = createHarness()
  w = await seedWorld(h)
})
afterEach(() => h.close())

const { addLeadId: addLead, getLeadReply: getLead } = apiHelpers(() => ({ h, w }))

/** A New York number (queued at 10:00 ET): +1 212 555 3000 + n. */
const ny = (n: number) => `+1212555${String(3000 + n).padStart(4, '0')}`

const patch = (id: string, body: unknown, key: TestKey = w.live, headers?: Record<string, string>) =>
  h.api('PATCH', `/leads/${id}`, { key, body, ...(headers ? { headers } : {}) })
const optOut = (id: string, body?: unknown, key: TestKey = w.live) =>
  h.api('POST', `/leads/${id}/opt_out`, { key, ...(body !== undefined ? { body } : {}) })

async function placeOf(id: string, key: TestKey = w.live): Promise<number | null> {
  const r = await getLead(id, key)
  expect(r.status).toBe(200)
  return r.body.data.place_in_line
}


/** The stored events about one lead, as their envelopes, oldest first. */
function eventsOf(leadId: string, type?: string): any[] {
  return h.services.stores.events.forObject(leadId)
    .map((row) => JSON.parse(row.body))
    .filter((e) => type === undefined || e.type === type)
}

async function dncEntries(key: TestKey = w.live): Promise<any[]> {
  const r = await h.api('GET', '/dnc?limit=100', { key })
  expect(r.status).toBe(200)
  return r.body.data
}

async function onDncList(phone: string, key: TestKey = w.live): Promise<boolean> {
  const r = await h.api('GET', `/dnc/check?phone=${encodeURIComponent(phone)}`, { key })
  expect(r.status).toBe(200)
  return r.body.data.onDncList
}

async function secondActiveCampaign(name = 'Summer roofs'): Promise<string> {
  const r = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name, status: 'active', sdrs: [{ name: 'Kim Park' }] })
  expect(r.status).toBe(201)
  return r.body.data.id as string
}

describe('PATCH /leads/{id}: name, email, address', () => {
  test.each([
    ['null', null],
    ['an empty string', ''],
  ])('%s clears name, email and address', async (_name, value) => {
    const id = await addLead({ phone: ny(1), name: 'Ann Lee', email: 'ann@example.com', address: '1 Main St' })
    const r = await patch(id, { name: value, email: value, address: value })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ id, name: null, email: null, address: null })
    expect((await getLead(id)).body.data).toMatchObject({ name: null, email: null, address: null })
  })

  test('new values replace the old; fields not sent are kept; updated moves, created does not', async () => {
    const id = await addLead({ phone: ny(1), name: 'Ann Lee', email: 'ann@example.com', address: '1 Main St' })
    await h.advance(60)
    const r = await patch(id, { name: 'Ann Smith' })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({
      name: 'Ann Smith', email: 'ann@example.com', address: '1 Main St',
      created: START_ISO, updated: '2026-01-05T15:01:00.000Z', status: 'queued', place_in_line: 1, livemode: true,
    })
  })

  test('a malformed email is 400 param email and changes nothing', async () => {
    const id = await addLead({ phone: ny(1), email: 'ann@example.com' })
    expectError(await patch(id, { email: 'not-an-email' }), 400, 'invalid_request', 'email')
    expect((await getLead(id)).body.data.email).toBe('ann@example.com')
  })

  test('fields merged past 50 keys are 400 param fields; removing one in the same request makes room', async () => {
    const fifty: Record<string, string> = {}
    for (let i = 0; i < 50; i++) fifty[`k${i}`] = 'v'
    const id = await addLead({ phone: ny(1), fields: fifty })
    expectError(await patch(id, { fields: { extra: 'x' } }), 400, 'invalid_request', 'fields')
    expect(Object.keys((await getLead(id)).body.data.fields)).toHaveLength(50)
    const r = await patch(id, { fields: { extra: 'x', k0: '' } })
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.data.fields)).toHaveLength(50)
    expect(r.body.data.fields.extra).toBe('x')
    expect(r.body.data.fields).not.toHaveProperty('k0')
  })

  test('a name over 200 characters is 400 param name', async () => {
    const id = await addLead({ phone: ny(1) })
    expectError(await patch(id, { name: 'x'.repeat(201) }), 400, 'invalid_request', 'name')
  })
})

describe('PATCH /leads/{id}: fields and consent', () => {
  test('fields are merged; a key sent as an empty string is removed', async () => {
    const id = await addLead({ phone: ny(1), fields: { roof: 'slate', budget: '20k', source: 'fair' } })
    const r = await patch(id, { fields: { budget: '', roof: 'tile', color: 'red' } })
    expect(r.status).toBe(200)
    expect(r.body.data.fields).toEqual({ roof: 'tile', source: 'fair', color: 'red' })
    expect((await getLead(id)).body.data.fields).toEqual({ roof: 'tile', source: 'fair', color: 'red' })
  })

  test('consent is replaced, not merged', async () => {
    const first = { source: 'web_form', agreed_at: '2026-01-04T12:00:00.000Z', text: 'I agree to be called.', ip: '203.0.113.7' }
    const second = { source: 'crm', agreed_at: '2026-01-05T09:00:00.000Z', url: 'https://example.com/consent' }
    const id = await addLead({ phone: ny(1), consent: first })
    const r = await patch(id, { consent: second })
    expect(r.status).toBe(200)
    expect(r.body.data.consent).toEqual(second)
    expect((await getLead(id)).body.data.consent).toEqual(second)
  })

  test('consent is validated: without text or url it is 400 param consent and nothing changes', async () => {
    const first = { source: 'web_form', agreed_at: '2026-01-04T12:00:00.000Z', text: 'I agree.' }
    const id = await addLead({ phone: ny(1), consent: first })
    expectError(await patch(id, { consent: { source: 'crm', agreed_at: '2026-01-05T09:00:00.000Z' } }), 400, 'invalid_request', 'consent')
    expect((await getLead(id)).body.data.consent).toEqual(first)
  })

  test('consent without agreed_at is 400', async () => {
    const id = await addLead({ phone: ny(1) })
    const r = await patch(id, { consent: { source: 'crm', text: 'ok' } })
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('invalid_request')
    expect(r.body.error.param).toMatch(/^consent/)
  })
})

describe('PATCH /leads/{id}: external_id', () => {
  test('set once while the lead has none; a second time is 400 param external_id', async () => {
    const id = await addLead({ phone: ny(1) })
    const r = await patch(id, { external_id: 'crm-1' })
    expect(r.status).toBe(200)
    expect(r.body.data.external_id).toBe('crm-1')
    expectError(await patch(id, { external_id: 'crm-2' }), 400, 'invalid_request', 'external_id')
    expectError(await patch(id, { external_id: 'crm-1' }), 400, 'invalid_request', 'external_id')
    expect((await getLead(id)).body.data.external_id).toBe('crm-1')
  })

  test('a lead that came with an external_id cannot change it', async () => {
    const id = await addLead({ phone: ny(1), external_id: 'crm-1' })
    expectError(await patch(id, { external_id: 'crm-9' }), 400, 'invalid_request', 'external_id')
  })

  test("another lead's external_id in the campaign is 409 duplicate_lead with lead_id", async () => {
    const holder = await addLead({ phone: ny(1), external_id: 'crm-1' })
    const id = await addLead({ phone: ny(2) })
    const r = await patch(id, { external_id: 'crm-1' })
    expectError(r, 409, 'duplicate_lead', 'external_id')
    expect(r.body.error.lead_id).toBe(holder)
    expect((await getLead(id)).body.data.external_id).toBeNull()
  })

  test('the same external_id in another campaign is no clash', async () => {
    const second = await secondActiveCampaign()
    await addLead({ campaign_id: second, phone: ny(1), external_id: 'crm-1' })
    const id = await addLead({ phone: ny(2) })
    const r = await patch(id, { external_id: 'crm-1' })
    expect(r.status).toBe(200)
    expect(r.body.data.external_id).toBe('crm-1')
  })
})

describe('PATCH /leads/{id}: call_now, phone, unknown fields', () => {
  test('call_now false drops the priority: the lead moves behind earlier leads that were not call_now', async () => {
    const a = await addLead({ phone: ny(1) })
    await h.advance(1)
    const b = await addLead({ phone: ny(2) })
    await h.advance(1)
    const c = await addLead({ phone: ny(3), call_now: true })
    await h.advance(1)
    const d = await addLead({ phone: ny(4) })
    expect([await placeOf(c), await placeOf(a), await placeOf(b), await placeOf(d)]).toEqual([1, 2, 3, 4])

    const r = await patch(c, { call_now: false })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ call_now: false, status: 'queued', place_in_line: 3 })
    expect([await placeOf(a), await placeOf(b), await placeOf(c), await placeOf(d)]).toEqual([1, 2, 3, 4])
  })

  test('call_now false on a lead that is not call_now changes nothing', async () => {
    const a = await addLead({ phone: ny(1) })
    await h.advance(1)
    const b = await addLead({ phone: ny(2) })
    const r = await patch(a, { call_now: false })
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ call_now: false, place_in_line: 1 })
    expect(await placeOf(b)).toBe(2)
  })

  test('call_now true is 400 param call_now', async () => {
    const id = await addLead({ phone: ny(1) })
    expectError(await patch(id, { call_now: true }), 400, 'invalid_request', 'call_now')
    expect((await getLead(id)).body.data.call_now).toBe(false)
  })

  test('phone is 422 phone_cannot_change, even with other fields; nothing changes', async () => {
    const id = await addLead({ phone: ny(1), name: 'Ann' })
    const r = await patch(id, { phone: ny(2), name: 'Bea' })
    expectError(r, 422, 'phone_cannot_change', 'phone')
    expect(r.body.error.type).toBe('invalid_request_error')
    expect((await getLead(id)).body.data).toMatchObject({ phone: ny(1), name: 'Ann' })
  })

  test('an unknown field is 400 with the field as param', async () => {
    const id = await addLead({ phone: ny(1) })
    expectError(await patch(id, { nickname: 'Annie' }), 400, 'invalid_request', 'nickname')
    expectError(await patch(id, { status: 'done' }), 400, 'invalid_request', 'status')
  })

  test("another organization's lead, a test lead with a live key, and an out-of-scope lead are 404", async () => {
    const other = await addLead({ campaign_id: w.otherCampaignId, phone: ny(1) }, w.otherLive)
    const testLead = await addLead({ phone: ny(2) }, w.test)
    const draft = await addLead({ campaign_id: w.draftCampaignId, phone: ny(3) })
    expectError(await patch(other, { name: 'x' }), 404, 'not_found', null)
    expectError(await patch(testLead, { name: 'x' }), 404, 'not_found', null)
    expectError(await patch(draft, { name: 'x' }, w.scoped), 404, 'not_found', null)
    expect((await getLead(other, w.otherLive)).body.data.name).toBeNull()
  })
})

describe('PATCH /leads/{id}: Idempotency-Key', () => {
  test('the same key and body replays the first answer; a different body is 409 idempotency_mismatch', async () => {
    const id = await addLead({ phone: ny(1), name: 'Ann' })
    const first = await patch(id, { name: 'Bea', fields: { roof: 'slate' } }, w.live, { 'idempotency-key': 'patch-1' })
    expect(first.status).toBe(200)
    expect(first.headers.get('idempotent-replayed')).toBeNull()
    expect(first.body.data.name).toBe('Bea')

    // A change in between: a replay answers the first reply, it does not run again.
    await h.advance(30)
    expect((await patch(id, { name: 'Cat' })).status).toBe(200)

    const replay = await patch(id, { fields: { roof: 'slate' }, name: 'Bea' }, w.live, { 'idempotency-key': 'patch-1' })
    expect(replay.status).toBe(200)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.body).toEqual(first.body)
    expect((await getLead(id)).body.data.name).toBe('Cat')

    const mismatch = await patch(id, { name: 'Dee' }, w.live, { 'idempotency-key': 'patch-1' })
    expect(mismatch.status).toBe(409)
    expect(mismatch.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_mismatch' })
    expect((await getLead(id)).body.data.name).toBe('Cat')
  })

  test('a stored 4xx is replayed too', async () => {
    const id = await addLead({ phone: ny(1) })
    const first = await patch(id, { phone: ny(2) }, w.live, { 'idempotency-key': 'patch-bad' })
    expect(first.status).toBe(422)
    const replay = await patch(id, { phone: ny(2) }, w.live, { 'idempotency-key': 'patch-bad' })
    expect(replay.status).toBe(422)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    // The same error, except request_id: the replay's own (spec "Errors"); Original-Request names the first.
    expect(replay.body.error.request_id).toBe(replay.headers.get('request-id'))
    expect(replay.headers.get('original-request')).toBe(first.headers.get('request-id'))
    expect({ error: { ...replay.body.error, request_id: first.body.error.request_id } }).toEqual(first.body)
  })
})

describe('POST /leads/{id}/opt_out', () => {
  test('out_of_queue with the dnc outcome; call_in_progress false; the rest of the lead unchanged', async () => {
    const id = await addLead({ phone: '+12125551234', name: 'Ann', external_id: 'crm-1' })
    await h.advance(60)
    const r = await optOut(id)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({
      id,
      external_id: 'crm-1',
      name: 'Ann',
      phone: '+12125551234',
      status: 'out_of_queue',
      last_outcome: 'dnc',
      last_outcome_label: 'Do not call',
      call_in_progress: false,
      place_in_line: null,
      estimated_wait_seconds: null,
      scheduled_for: null,
      held_reason: null,
      created: START_ISO,
      updated: '2026-01-05T15:01:00.000Z',
      livemode: true,
    })
    expect((await getLead(id)).body.data).toMatchObject({ status: 'out_of_queue', last_outcome: 'dnc', last_outcome_label: 'Do not call' })
  })

  test("the organization's own label for dnc", async () => {
    const labels = await h.admin('PATCH', `/orgs/${w.orgId}`, { outcome_labels: { 'Stop calling': 'dnc' } })
    expect(labels.status).toBe(200)
    const id = await addLead({ phone: ny(1) })
    const r = await optOut(id)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ last_outcome: 'dnc', last_outcome_label: 'Stop calling' })
  })

  /** A lead on a real simulated call: scenario 00 (number ending 00) talks for 95 s. */
  async function leadOnCall(): Promise<string> {
    h.services.dialer.setEnabled(true)
    const id = await addLead({ phone: '+12125553100' })
    await h.advance(30)
    expect((await h.api('GET', `/leads/${id}`, { key: w.live })).body.data.status).toBe('on_call')
    return id
  }

  test('call_in_progress is true when the lead is on a call (and it still leaves the queue)', async () => {
    const id = await leadOnCall()
    const r = await optOut(id)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ status: 'out_of_queue', last_outcome: 'dnc', call_in_progress: true })
    // The call goes on and ends; the lead stays out of the queue.
    await h.advance(120)
    const call = (await h.api('GET', `/calls?lead_id=${id}`, { key: w.live })).body.data[0]
    expect(call).toMatchObject({ status: 'ended', outcome: 'interested' })
    expect((await h.api('GET', `/leads/${id}`, { key: w.live })).body.data).toMatchObject({ status: 'out_of_queue', last_outcome: 'dnc' })
  })

  test('asking twice during a call answers the same: call_in_progress true both times', async () => {
    const id = await leadOnCall()
    const first = await optOut(id)
    const second = await optOut(id)
    expect(first.body.data.call_in_progress).toBe(true)
    expect(second.status).toBe(200)
    expect(second.body.data.call_in_progress).toBe(true)
    expect(second.body).toEqual(first.body)
  })

  test('the number goes on the Do Not Call list with source api', async () => {
    const id = await addLead({ phone: '+12125551234' })
    expect(await onDncList('+12125551234')).toBe(false)
    expect((await optOut(id, { reason: 'asked by email' })).status).toBe(200)
    expect(await onDncList('+12125551234')).toBe(true)
    const entries = await dncEntries()
    expect(entries).toHaveLength(1)
    expect(entries[0]).toMatchObject({ phone: '+12125551234', source: 'api', createdAt: START_ISO, livemode: true })
    // A new lead with the number is refused now.
    const again = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125551234' } })
    expectError(again, 422, 'on_dnc_list', 'phone')
  })

  test('one lead.opted_out event with opt_out { source: api, at }; asking twice answers the same and adds nothing', async () => {
    const id = await addLead({ phone: '+12125551234' })
    await h.advance(10)
    const first = await optOut(id)
    expect(first.status).toBe(200)
    await h.advance(10)
    const second = await optOut(id)
    expect(second.status).toBe(200)
    expect(second.body).toEqual(first.body)

    const opted = eventsOf(id, 'lead.opted_out')
    expect(opted).toHaveLength(1)
    expect(opted[0].created).toBe('2026-01-05T15:00:10.000Z')
    expect(opted[0].livemode).toBe(true)
    expect(opted[0].data.object).toMatchObject({
      id, status: 'out_of_queue', last_outcome: 'dnc', opt_out: { source: 'api', at: '2026-01-05T15:00:10.000Z' },
    })
    // A lead inside a live event leaves livemode out.
    expect(opted[0].data.object).not.toHaveProperty('livemode')
    expect(eventsOf(id).map((e) => e.type)).toEqual(['lead.created', 'lead.queued', 'lead.opted_out'])
    expect(await dncEntries()).toHaveLength(1)
  })

  test("a test key's opt-out lists the number for test mode only; the live lead with the number stays queued", async () => {
    const live = await addLead({ phone: ny(1) })
    const testLead = await addLead({ phone: ny(1) }, w.test)
    const r = await optOut(testLead, undefined, w.test)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ status: 'out_of_queue', last_outcome: 'dnc', livemode: false })
    expect(await onDncList(ny(1), w.test)).toBe(true)
    expect(await onDncList(ny(1), w.live)).toBe(false)
    expect((await getLead(live)).body.data).toMatchObject({ status: 'queued', place_in_line: 1, last_outcome: null })
    expect(eventsOf(live, 'lead.opted_out')).toHaveLength(0)
    const opted = eventsOf(testLead, 'lead.opted_out')
    expect(opted).toHaveLength(1)
    expect(opted[0].livemode).toBe(false)
    expect(opted[0].data.object.livemode).toBe(false)
  })

  test('the lead leaves the queue: the leads behind it move up', async () => {
    const a = await addLead({ phone: ny(1) })
    await h.advance(1)
    const b = await addLead({ phone: ny(2) })
    await h.advance(1)
    const c = await addLead({ phone: ny(3) })
    expect([await placeOf(a), await placeOf(b), await placeOf(c)]).toEqual([1, 2, 3])
    expect((await optOut(a)).status).toBe(200)
    expect([await placeOf(a), await placeOf(b), await placeOf(c)]).toEqual([null, 1, 2])
    expect(h.services.queues.size(w.campaignId, true)).toBe(2)
  })

  test('a scheduled lead is taken out too (no longer scheduled)', async () => {
    const id = await addLead({ phone: '+14155551234' })
    const r = await optOut(id)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ status: 'out_of_queue', scheduled_for: null, scheduled_reason: null })
    // When its old time comes it stays out.
    await h.advance(3600)
    expect((await getLead(id)).body.data.status).toBe('out_of_queue')
  })

  test('a reason over 500 characters is 400 param reason; an unknown body field is 400', async () => {
    const id = await addLead({ phone: ny(1) })
    expectError(await optOut(id, { reason: 'x'.repeat(501) }), 400, 'invalid_request', 'reason')
    expectError(await optOut(id, { why: 'x' }), 400, 'invalid_request', 'why')
    expect((await getLead(id)).body.data.status).toBe('queued')
  })

  test("another organization's lead and an out-of-scope lead are 404 and stay queued", async () => {
    const other = await addLead({ campaign_id: w.otherCampaignId, phone: ny(1) }, w.otherLive)
    const draft = await addLead({ campaign_id: w.draftCampaignId, phone: ny(2) })
    expectError(await optOut(other), 404, 'not_found', null)
    expectError(await optOut(draft, undefined, w.scoped), 404, 'not_found', null)
    expect((await getLead(other, w.otherLive)).body.data.status).toBe('queued')
    expect((await getLead(draft)).body.data.status).toBe('held')
    expect(await dncEntries()).toHaveLength(0)
  })

  test('opting out a lead takes the same number out in the other campaigns of the organization', async () => {
    const second = await secondActiveCampaign()
    const a = await addLead({ phone: ny(1) })
    const b = await addLead({ campaign_id: second, phone: ny(1) })
    expect((await optOut(a)).status).toBe(200)
    expect((await getLead(b)).body.data).toMatchObject({ status: 'out_of_queue', last_outcome: 'dnc' })
    expect(eventsOf(a, 'lead.opted_out')).toHaveLength(1)
    expect(eventsOf(b, 'lead.opted_out')).toHaveLength(1)
    expect(eventsOf(b, 'lead.opted_out')[0].data.object.opt_out.source).toBe('api')
  })
})

describe('Do Not Call endpoints take the number\u2019s leads out of the queue', () => {
  async function threeLeads() {
    const second = await secondActiveCampaign()
    const phone = ny(5)
    const mine1 = await addLead({ phone })
    const mine2 = await addLead({ campaign_id: second, phone })
    const bystander = await addLead({ phone: ny(6) })
    const otherOrg = await addLead({ campaign_id: w.otherCampaignId, phone }, w.otherLive)
    const testLead = await addLead({ phone }, w.test)
    return { second, phone, mine1, mine2, bystander, otherOrg, testLead }
  }

  async function expectTakenOut(ids: string[]) {
    for (const id of ids) {
      const r = await getLead(id)
      expect(r.status).toBe(200)
      expect(r.body.data).toMatchObject({
        status: 'out_of_queue', last_outcome: 'dnc', last_outcome_label: 'Do not call', place_in_line: null,
      })
      const opted = eventsOf(id, 'lead.opted_out')
      expect(opted).toHaveLength(1)
      expect(opted[0].data.object.opt_out).toEqual({ source: 'api', at: START_ISO })
    }
  }

  async function expectUntouched(x: Awaited<ReturnType<typeof threeLeads>>) {
    const other = await getLead(x.otherOrg, w.otherLive)
    expect(other.body.data).toMatchObject({ status: 'queued', last_outcome: null, place_in_line: 1 })
    expect(eventsOf(x.otherOrg, 'lead.opted_out')).toHaveLength(0)
    const testLead = await getLead(x.testLead, w.test)
    expect(testLead.body.data).toMatchObject({ status: 'queued', last_outcome: null })
    expect(eventsOf(x.testLead, 'lead.opted_out')).toHaveLength(0)
    // The other lead of the campaign moved up to first.
    const bystander = await getLead(x.bystander)
    expect(bystander.body.data).toMatchObject({ status: 'queued', place_in_line: 1 })
    expect(eventsOf(x.bystander, 'lead.opted_out')).toHaveLength(0)
  }

  test('POST /dnc: each lead of the organization with the number, in every campaign, one event each', async () => {
    const x = await threeLeads()
    expect(await placeOf(x.bystander)).toBe(2)
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: x.phone } })
    expect(r.status).toBe(201)
    expect(r.body.data.source).toBe('api')
    await expectTakenOut([x.mine1, x.mine2])
    await expectUntouched(x)
  })

  test('POST /dnc with the number in another format', async () => {
    const x = await threeLeads()
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: '(212) 555-3005' } })
    expect(r.status).toBe(201)
    await expectTakenOut([x.mine1, x.mine2])
    await expectUntouched(x)
  })

  test('POST /dnc/batch likewise', async () => {
    const x = await threeLeads()
    const r = await h.api('POST', '/dnc/batch', { key: w.live, body: { phones: [x.phone, '+12125559876'] } })
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({ succeeded: 2, failed: 0, errors: [], livemode: true })
    await expectTakenOut([x.mine1, x.mine2])
    await expectUntouched(x)
  })

  test('opting out after POST /dnc adds no second entry and no second event', async () => {
    const x = await threeLeads()
    expect((await h.api('POST', '/dnc', { key: w.live, body: { phone: x.phone } })).status).toBe(201)
    const r = await optOut(x.mine1)
    expect(r.status).toBe(200)
    expect(r.body.data).toMatchObject({ status: 'out_of_queue', last_outcome: 'dnc', call_in_progress: false })
    expect(await dncEntries()).toHaveLength(1)
    await expectTakenOut([x.mine1, x.mine2])
  })
})
