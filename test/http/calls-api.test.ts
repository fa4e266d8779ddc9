import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, START, type Harness, type Reply, type TestKey, type World, expectError } from '../harness'
import { apiHelpers } from './helpers'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * The call endpoints (spec "Calls": GET /calls, GET /calls/{id}, recording, transcript,
 * POST /calls and its errors; DESIGN.md Contract details "Calls", deprecated list shape,
 * signed links). Calls come from the simulator: +1 212 555 XXNN plays scenario NN. The fake
 * clock starts Monday 2026-01-05 15:00 UTC (10:00 New York, 07:00 San Francisco).
 */

let h: Harness
let w: World

const S = 1000
const at = (seconds: number) => new Date(START + seconds * S).toISOString()
const ny = (nn: string, series = 20) => `+1212555${String(series).padStart(2, '0')}${nn}`
const SUNSET = 'Tue, 01 Jun 2027 00:00:00 GMT'
const GREETING = 'Hi, this is the assistant calling about your request. Is now a good time?'
const INTENT = 'Yes, that sounds good. Can someone walk me through the pricing?'
const AGENT = 'Happy to help, let me walk you through it.'
const NO_LEAD = '01a20000-0000-7000-8000-000000000000'

const { addLead, getLead, callsOf, onlyCall, patchCampaign } = apiHelpers(() => ({ h, w }))

const callNow = (body: Record<string, unknown>, key: TestKey = w.live) => h.api('POST', '/calls', { key, body })


async function secondCampaign(): Promise<string> {
  const r = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Second', status: 'active', lines: 10, sdrs: [{ name: 'Kim Park' }] })
  expect(r.status).toBe(201)
  return r.body.data.id
}

/** Keeps both lines of the campaign busy for 95 s with two 00 calls. */
async function fillLines(series = [90, 91]) {
  for (const s of series) expect((await addLead({ phone: ny('00', s) })).status).toBe('dialing')
}

// ---------------------------------------------------------------------------------------------

describe('GET /calls', () => {
  let campaign2: string
  /** Every live call of the organization, newest first. */
  let all: any[]
  let otherOrgCall: string
  let testCall: string

  beforeAll(async () => {
    h = createHarness({ autoDial: true })
    w = await seedWorld(h)
    await patchCampaign({ lines: 60 })
    campaign2 = await secondCampaign()
    // 30 failed calls at 15:00 (scenario 05 ends after 1 s).
    for (let i = 0; i < 30; i++) await addLead({ phone: ny('05', 30 + i) })
    await h.advance(60)
    // 20 not_interested calls at 15:01, each lead with an external_id.
    for (let i = 0; i < 20; i++) await addLead({ phone: ny('01', 60 + i), external_id: `ext-${i}` })
    // 5 busy calls in the second campaign.
    for (let i = 0; i < 5; i++) await addLead({ phone: ny('03', 80 + i), campaign_id: campaign2, external_id: `two-${i}` })
    const other = await h.api('POST', '/leads', { key: w.otherLive, body: { campaign_id: w.otherCampaignId, phone: ny('01') } })
    expect(other.status).toBe(201)
    const test = await addLead({ phone: '+12125550101' }, w.test)
    await h.advance(120)
    const r = await h.api('GET', '/calls?limit=100', { key: w.live })
    all = r.body.data
    otherOrgCall = (await onlyCall(other.body.data.id, w.otherLive)).id
    testCall = (await onlyCall(test.id, w.test)).id
  })
  afterAll(() => h.close())

  const list = (query: string, key: TestKey = w.live) => h.api('GET', `/calls${query}`, { key })
  const ids = (r: Reply) => (r.body.data as any[]).map((c) => c.id)

  test('newest first, 55 calls of this organization and mode', async () => {
    expect(all).toHaveLength(55)
    const sorted = [...all.map((c) => c.id)].sort().reverse()
    expect(all.map((c) => c.id)).toEqual(sorted)
    expect(all[0].started).toBe(at(60))
    expect(all[54].started).toBe(at(0))
    for (const c of all) expect(c).toMatchObject({ object: 'call', livemode: true, status: 'ended' })
    expect(all.map((c) => c.id)).not.toContain(otherOrgCall)
    expect(all.map((c) => c.id)).not.toContain(testCall)
  })

  test('limit defaults to 50, with a cursor to the next page', async () => {
    const r = await list('')
    expect(r.status).toBe(200)
    expect(r.headers.get('deprecation')).toBeNull()
    expect(Object.keys(r.body).sort()).toEqual(['data', 'meta'])
    expect(ids(r)).toEqual(all.slice(0, 50).map((c) => c.id))
    expect(r.body.meta).toEqual({ next_cursor: all[49].id, has_more: true })
  })

  test('limit 1 and 100', async () => {
    const one = await list('?limit=1')
    expect(ids(one)).toEqual([all[0].id])
    expect(one.body.meta).toEqual({ next_cursor: all[0].id, has_more: true })
    const hundred = await list('?limit=100')
    expect(hundred.body.data).toHaveLength(55)
    expect(hundred.body.meta).toEqual({ next_cursor: null, has_more: false })
  })

  test.each(['0', '-1', 'abc', '1.5'])('limit=%s is 400 invalid_request param limit', async (limit) => {
    expectError(await list(`?limit=${limit}`), 400, 'invalid_request', 'limit')
  })

  test('starting_after pages through every call once', async () => {
    const seen: string[] = []
    let cursor: string | null = null
    const sizes: number[] = []
    do {
      const r: Reply = await list(`?limit=20${cursor ? `&starting_after=${cursor}` : ''}`)
      expect(r.status).toBe(200)
      sizes.push(r.body.data.length)
      seen.push(...ids(r))
      cursor = r.body.meta.next_cursor
      expect(r.body.meta.has_more).toBe(cursor !== null)
    } while (cursor)
    expect(sizes).toEqual([20, 20, 15])
    expect(seen).toEqual(all.map((c) => c.id))
  })

  test('starting_after must be a uuid', async () => {
    expectError(await list('?starting_after=nope'), 400, 'invalid_request', 'starting_after')
  })

  test('filter campaign_id', async () => {
    const r = await list(`?campaign_id=${campaign2}`)
    expect(r.body.data).toHaveLength(5)
    for (const c of r.body.data) expect(c).toMatchObject({ campaign_id: campaign2, outcome: 'busy' })
    const first = await list(`?campaign_id=${w.campaignId}&limit=100`)
    expect(first.body.data).toHaveLength(50)
  })

  test('filter lead_id', async () => {
    const target = all[7]
    const r = await list(`?lead_id=${target.lead.id}`)
    expect(ids(r)).toEqual([target.id])
    expect((await list(`?lead_id=${NO_LEAD}`)).body.data).toEqual([])
  })

  test('filter external_id', async () => {
    const r = await list('?external_id=ext-3')
    expect(r.body.data).toHaveLength(1)
    expect(r.body.data[0].lead).toMatchObject({ external_id: 'ext-3', phone: ny('01', 63) })
    expect((await list('?external_id=two-4')).body.data[0].campaign_id).toBe(campaign2)
    expect((await list('?external_id=unknown')).body.data).toEqual([])
  })

  test('filter outcome', async () => {
    const counts: Record<string, number> = {}
    for (const outcome of ['failed', 'not_interested', 'busy', 'interested']) {
      counts[outcome] = (await list(`?outcome=${outcome}&limit=100`)).body.data.length
    }
    expect(counts).toEqual({ failed: 30, not_interested: 20, busy: 5, interested: 0 })
    expectError(await list('?outcome=sold'), 400, 'invalid_request', 'outcome')
  })

  test('filter created[gte] / created[lte] (ISO or unix seconds), and combined filters', async () => {
    expect((await list(`?created[gte]=${at(60)}&limit=100`)).body.data).toHaveLength(25)
    expect((await list(`?created[lte]=${at(0)}&limit=100`)).body.data).toHaveLength(30)
    expect((await list(`?created[gte]=${START / 1000 + 1}&limit=100`)).body.data).toHaveLength(25)
    expect((await list(`?created[gte]=${at(0)}&created[lte]=${at(59)}&limit=100`)).body.data).toHaveLength(30)
    expect((await list(`?created[gte]=2026-01-06`)).body.data).toEqual([])
    expect((await list(`?created[gte]=${at(60)}&campaign_id=${w.campaignId}&outcome=not_interested&limit=100`)).body.data).toHaveLength(20)
    expectError(await list('?created[gte]=yesterday'), 400, 'invalid_request', 'created[gte]')
  })

  test('a campaign-limited key sees only its campaigns; naming another is 403', async () => {
    const r = await list('?limit=100', w.scoped)
    expect(r.body.data).toHaveLength(50)
    for (const c of r.body.data) expect(c.campaign_id).toBe(w.campaignId)
    const denied = await list(`?campaign_id=${campaign2}`, w.scoped)
    expect(denied.status).toBe(403)
    expect(denied.body.error).toMatchObject({ code: 'permission_denied', type: 'permission_error', missing_permission: 'calls:read', campaign_id: campaign2 })
    const other = all.find((c) => c.campaign_id === campaign2)
    expectError(await h.api('GET', `/calls/${other.id}`, { key: w.scoped }), 404, 'not_found')
    const own = all.find((c) => c.campaign_id === w.campaignId)
    expect((await h.api('GET', `/calls/${own.id}`, { key: w.scoped })).status).toBe(200)
  })

  test('GET /calls/{id}: other organization and other mode are 404', async () => {
    const id = all[0].id
    const own = await h.api('GET', `/calls/${id}`, { key: w.live })
    expect(own.status).toBe(200)
    expect(own.body.data).toEqual(all[0])
    expectError(await h.api('GET', `/calls/${id}`, { key: w.otherLive }), 404, 'not_found')
    expectError(await h.api('GET', `/calls/${id}`, { key: w.test }), 404, 'not_found')
    expectError(await h.api('GET', `/calls/${testCall}`, { key: w.live }), 404, 'not_found')
    expectError(await h.api('GET', `/calls/${otherOrgCall}`, { key: w.live }), 404, 'not_found')
    expectError(await h.api('GET', `/calls/${NO_LEAD}`, { key: w.live }), 404, 'not_found')
    // Each key lists only its own.
    expect(ids(await list('', w.otherLive))).toEqual([otherOrgCall])
    const tests = await list('', w.test)
    expect(ids(tests)).toEqual([testCall])
    expect(tests.body.data[0].livemode).toBe(false)
  })

  test('deprecated: offset answers { data, pagination } with Deprecation and Sunset headers', async () => {
    const r = await list('?offset=0')
    expect(r.status).toBe(200)
    expect(r.headers.get('deprecation')).toBe('true')
    expect(r.headers.get('sunset')).toBe(SUNSET)
    expect(Number.isNaN(Date.parse(r.headers.get('sunset')!))).toBe(false)
    expect(Object.keys(r.body).sort()).toEqual(['data', 'pagination'])
    expect(r.body.pagination).toEqual({ offset: 0, limit: 50, total: 55 })
    expect(ids(r)).toEqual(all.slice(0, 50).map((c) => c.id))

    const rest = await list('?offset=50&limit=20')
    expect(rest.body.pagination).toEqual({ offset: 50, limit: 20, total: 55 })
    expect(ids(rest)).toEqual(all.slice(50).map((c) => c.id))
  })

  test('deprecated: status, and limit over 100', async () => {
    const ended = await list('?status=ended')
    expect(ended.headers.get('deprecation')).toBe('true')
    expect(ended.body.pagination).toEqual({ offset: 0, limit: 50, total: 55 })
    const ringing = await list('?status=ringing')
    expect(ringing.body).toEqual({ data: [], pagination: { offset: 0, limit: 50, total: 0 } })

    const big = await list('?limit=150')
    expect(big.headers.get('deprecation')).toBe('true')
    expect(big.headers.get('sunset')).toBe(SUNSET)
    expect(big.body.pagination).toEqual({ offset: 0, limit: 150, total: 55 })
    expect(ids(big)).toEqual(all.map((c) => c.id))

    const filtered = await list(`?offset=1&campaign_id=${campaign2}`)
    expect(filtered.body.pagination).toEqual({ offset: 1, limit: 50, total: 5 })
    expect(filtered.body.data).toHaveLength(4)
    // The scope still applies.
    expect((await list('?offset=0&limit=200', w.scoped)).body.pagination.total).toBe(50)
  })
})

// ---------------------------------------------------------------------------------------------

describe('recording and transcript', () => {
  let leadId: string
  let callId: string

  beforeEach(async () => {
    h = createHarness({ autoDial: true })
    w = await seedWorld(h)
    leadId = (await addLead({ phone: ny('00'), name: 'Jordan Lee' })).id
    callId = (await onlyCall(leadId)).id
    await h.advance(95)
  })
  afterEach(() => h.close())

  const recording = (id = callId, key: TestKey = w.live) => h.api('GET', `/calls/${id}/recording`, { key })
  const pathOf = (url: string) => {
    const u = new URL(url)
    return `${u.pathname}${u.search}`
  }

  test('a 5-minute signed link that serves the WAV file', async () => {
    const r = await recording()
    expect(r.status).toBe(200)
    expect(Object.keys(r.body.data).sort()).toEqual(['expires_at', 'livemode', 'url'])
    expect(r.body.data.expires_at).toBe(at(95 + 300))
    expect(r.body.data.livemode).toBe(true)
    const url = new URL(r.body.data.url)
    expect(url.origin).toBe(h.services.config.publicUrl)
    expect(url.pathname).toBe(`/recordings/${callId}`)
    expect(url.searchParams.get('expires')).toBe(String((START + 395 * S) / 1000))

    const audio = await h.call('GET', pathOf(r.body.data.url))
    expect(audio.status).toBe(200)
    expect(audio.headers.get('content-type')).toBe('audio/wav')
    expect(audio.text.startsWith('RIFF')).toBe(true)
    expect(audio.text.slice(8, 12)).toBe('WAVE')

    // Still good just before it expires; refused after.
    await h.advance(299)
    expect((await h.call('GET', pathOf(r.body.data.url))).status).toBe(200)
    await h.advance(2)
    const expired = await h.call('GET', pathOf(r.body.data.url))
    expect(expired.status).toBe(403)
    expect(expired.body.error.code).toBe('permission_denied')
    // A new link works again.
    const fresh = await recording()
    expect(fresh.body.data.expires_at).toBe(at(95 + 301 + 300))
    expect((await h.call('GET', pathOf(fresh.body.data.url))).status).toBe(200)
  })

  test('a tampered or missing signature is 403', async () => {
    const url = new URL((await recording()).body.data.url)
    const signature = url.searchParams.get('signature')!
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`
    const tampered = new URL(url)
    tampered.searchParams.set('signature', flipped)
    expect((await h.call('GET', `${tampered.pathname}${tampered.search}`)).status).toBe(403)
    // A later expiry with the old signature.
    const longer = new URL(url)
    longer.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600))
    expect((await h.call('GET', `${longer.pathname}${longer.search}`)).status).toBe(403)
    // Another call's path with this signature.
    const other = await addLead({ phone: ny('01', 21) })
    const otherCall = (await onlyCall(other.id)).id
    expect((await h.call('GET', `/recordings/${otherCall}${url.search}`)).status).toBe(403)
    expect((await h.call('GET', `/recordings/${callId}`)).status).toBe(403)
  })

  test('a call with no recording (no answer) is 404 recording_not_available', async () => {
    const lead = await addLead({ phone: ny('02') })
    await h.advance(30)
    const call = await onlyCall(lead.id)
    expect(call.recording_available).toBe(false)
    const r = await recording(call.id)
    expectError(r, 404, 'recording_not_available')
    expect(r.body.error.type).toBe('invalid_request_error')
  })

  test('an organization with recording off: recording_available false and 404', async () => {
    const org = await h.admin('PATCH', `/orgs/${w.orgId}`, { recording_enabled: false })
    expect(org.status).toBe(200)
    // The existing recording is no longer given out.
    expectError(await recording(), 404, 'recording_not_available')
    const lead = await addLead({ phone: ny('00', 21) })
    await h.advance(95)
    const call = await onlyCall(lead.id)
    expect(call).toMatchObject({ status: 'ended', recording_available: false, transcript_available: true })
    expectError(await recording(call.id), 404, 'recording_not_available')
    const completed = h.services.stores.events.forObject(call.id).map((e) => JSON.parse(e.body)).find((e) => e.type === 'call.completed')
    expect(completed.data.object.recording_path).toBeNull()
    expect(completed.data.object.transcript_path).toBe(`/api/v1/external/calls/${call.id}/transcript`)
  })

  test('recording and transcript of another organization or mode are 404', async () => {
    expectError(await recording(callId, w.otherLive), 404, 'not_found')
    expectError(await recording(callId, w.test), 404, 'not_found')
    expectError(await h.api('GET', `/calls/${callId}/transcript`, { key: w.otherLive }), 404, 'not_found')
  })

  test('transcript as JSON lines in order', async () => {
    const r = await h.api('GET', `/calls/${callId}/transcript`, { key: w.live })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      data: {
        call_id: callId,
        lines: [
          { speaker: 'ai', name: 'AI assistant', text: GREETING, at: at(7) },
          { speaker: 'lead', name: 'Jordan Lee', text: INTENT, at: at(25) },
          { speaker: 'agent', name: 'Alex Rivera', text: AGENT, at: at(36) },
        ],
        livemode: true,
      },
    })
    const json = await h.api('GET', `/calls/${callId}/transcript?format=json`, { key: w.live })
    expect(json.body).toEqual(r.body)
  })

  test('transcript as text: "Name: text" lines joined by \\n, text/plain', async () => {
    const r = await h.api('GET', `/calls/${callId}/transcript?format=text`, { key: w.live })
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toStartWith('text/plain')
    expect(r.text).toBe([`AI assistant: ${GREETING}`, `Jordan Lee: ${INTENT}`, `Alex Rivera: ${AGENT}`].join('\n'))
  })

  test('a call with no transcript: no lines; an unknown format is 400', async () => {
    const lead = await addLead({ phone: ny('03') })
    await h.advance(2)
    const call = await onlyCall(lead.id)
    expect(call.transcript_available).toBe(false)
    const r = await h.api('GET', `/calls/${call.id}/transcript`, { key: w.live })
    expect(r.body).toEqual({ data: { call_id: call.id, lines: [], livemode: true } })
    const text = await h.api('GET', `/calls/${call.id}/transcript?format=text`, { key: w.live })
    expect(text.status).toBe(200)
    expect(text.text).toBe('')
    expectError(await h.api('GET', `/calls/${callId}/transcript?format=xml`, { key: w.live }), 400, 'invalid_request', 'format')
  })
})

// ---------------------------------------------------------------------------------------------

describe('POST /calls', () => {
  beforeEach(async () => {
    h = createHarness({ autoDial: true })
    w = await seedWorld(h)
  })
  afterEach(() => h.close())

  test('a line is free: 202 dialing, the call is started by the API key', async () => {
    const lead = await addLead({ phone: ny('01'), external_id: 'crm-1' })
    await h.advance(45)
    expect((await getLead(lead.id)).status).toBe('done')

    const r = await callNow({ lead_id: lead.id })
    expect(r.status).toBe(202)
    expect(r.body).toEqual({
      data: {
        lead_id: lead.id, external_id: 'crm-1', campaign_id: w.campaignId, status: 'dialing', place_in_line: 0,
        estimated_wait_seconds: 0, scheduled_for: null, scheduled_reason: null, held_reason: null, calls_left_today: 2, livemode: true,
      },
    })
    expect(await getLead(lead.id)).toMatchObject({ status: 'dialing', attempts: 2, call_now: true })
    const calls = await callsOf(lead.id)
    expect(calls.map((c) => c.started_by)).toEqual([{ type: 'api', api_key_id: w.live.id }, { type: 'dialer', api_key_id: null }])
    expect(calls[0]).toMatchObject({ status: 'ringing', started: at(45) })
  })

  test('by external_id (with campaign_id), the same reply', async () => {
    const lead = await addLead({ phone: ny('01'), external_id: 'crm-2' })
    await h.advance(45)
    const r = await callNow({ external_id: 'crm-2', campaign_id: w.campaignId })
    expect(r.status).toBe(202)
    expect(r.body.data).toMatchObject({ lead_id: lead.id, external_id: 'crm-2', status: 'dialing', calls_left_today: 2 })
    // lead_id and external_id naming the same lead is fine.
    await h.advance(45)
    const both = await callNow({ lead_id: lead.id, external_id: 'crm-2' })
    expect(both.status).toBe(202)
    expect(both.body.data.calls_left_today).toBe(1)
  })

  test('lines busy: the lead goes to the front of the queue, ahead of older leads', async () => {
    await fillLines()
    const a = await addLead({ phone: ny('01', 30) })
    const b = await addLead({ phone: ny('01', 31) })
    await h.advance(5)
    const c = await addLead({ phone: ny('01', 32) })
    expect([a.place_in_line, b.place_in_line, c.place_in_line]).toEqual([1, 2, 3])

    const r = await callNow({ lead_id: c.id })
    expect(r.status).toBe(202)
    expect(r.body.data).toEqual({
      lead_id: c.id, external_id: null, campaign_id: w.campaignId, status: 'queued', place_in_line: 1,
      estimated_wait_seconds: 180, scheduled_for: null, scheduled_reason: null, held_reason: null, calls_left_today: 2, livemode: true,
    })
    const places = async () => [(await getLead(c.id)).place_in_line, (await getLead(a.id)).place_in_line, (await getLead(b.id)).place_in_line]
    expect(await places()).toEqual([1, 2, 3])
    // A second call-now goes behind the first (oldest call-now first).
    await h.advance(1)
    expect((await callNow({ lead_id: b.id })).body.data.place_in_line).toBe(2)
    expect(await places()).toEqual([1, 3, 2])

    // The lines free at 95 s: c and b first.
    await h.advance(95 - 6)
    expect((await getLead(c.id)).status).toBe('dialing')
    expect((await getLead(b.id)).status).toBe('dialing')
    expect(await getLead(a.id)).toMatchObject({ status: 'queued', place_in_line: 1 })
    expect((await onlyCall(c.id)).started_by).toEqual({ type: 'api', api_key_id: w.live.id })
    expect((await onlyCall(b.id)).started_by).toEqual({ type: 'api', api_key_id: w.live.id })
    // The dialer takes a from the queue.
    await h.advance(45)
    expect((await onlyCall(a.id)).started_by).toEqual({ type: 'dialer', api_key_id: null })
  })

  test('a call_now intake is started by the API key too', async () => {
    const lead = await addLead({ phone: ny('01'), call_now: true })
    expect((await onlyCall(lead.id)).started_by).toEqual({ type: 'api', api_key_id: w.live.id })
  })

  test('overrides a retry wait', async () => {
    const lead = await addLead({ phone: ny('02') })
    await h.advance(30)
    expect((await getLead(lead.id)).status).toBe('scheduled')
    const r = await callNow({ lead_id: lead.id })
    expect(r.body.data).toMatchObject({ status: 'dialing', scheduled_for: null, scheduled_reason: null })
    expect(await getLead(lead.id)).toMatchObject({ status: 'dialing', next_dial_at: null, attempts: 2 })
  })

  test('3 API-started calls a lead in 24 hours; the 4th is 429 call_limit_reached with Retry-After', async () => {
    await fillLines()
    const lead = await addLead({ phone: ny('01', 30) })
    const left: number[] = []
    for (let i = 0; i < 3; i++) {
      const r = await callNow({ lead_id: lead.id })
      expect(r.status).toBe(202)
      expect(r.body.data.status).toBe('queued')
      left.push(r.body.data.calls_left_today)
      await h.advance(10)
    }
    expect(left).toEqual([2, 1, 0])
    const fourth = await callNow({ lead_id: lead.id })
    expectError(fourth, 429, 'call_limit_reached')
    expect(fourth.body.error.type).toBe('rate_limit_error')
    // The first of the three was 30 s ago.
    expect(fourth.headers.get('retry-after')).toBe(String(86_400 - 30))

    // A day after the first, one is free again.
    await h.advance(86_400 - 30)
    const again = await callNow({ lead_id: lead.id })
    expect(again.status).toBe(202)
    expect(again.body.data.calls_left_today).toBe(0)
  })

  test('outside the lead calling hours: 202 scheduled outside_calling_hours, dialed when the window opens', async () => {
    // San Francisco: 07:00 local, the window opens at 08:00 (16:00 UTC).
    const lead = await addLead({ phone: '+14155552001' })
    expect(lead.status).toBe('scheduled')
    const r = await callNow({ lead_id: lead.id })
    expect(r.status).toBe(202)
    expect(r.body.data).toEqual({
      lead_id: lead.id, external_id: null, campaign_id: w.campaignId, status: 'scheduled', place_in_line: null,
      estimated_wait_seconds: null, scheduled_for: '2026-01-05T16:00:00.000Z', scheduled_reason: 'outside_calling_hours',
      held_reason: null, calls_left_today: 2, livemode: true,
    })
    expect(await callsOf(lead.id)).toEqual([])
    await h.advance(3600)
    expect((await getLead(lead.id)).status).toBe('dialing')
    expect((await onlyCall(lead.id)).started_by).toEqual({ type: 'api', api_key_id: w.live.id })
  })

  test('a paused campaign: 202 held campaign_paused, dialed once it runs again', async () => {
    expect((await h.api('POST', `/campaigns/${w.campaignId}/pause`, { key: w.live })).status).toBe(200)
    const lead = await addLead({ phone: ny('01') })
    expect(lead.status).toBe('held')
    const r = await callNow({ lead_id: lead.id })
    expect(r.status).toBe(202)
    expect(r.body.data).toEqual({
      lead_id: lead.id, external_id: null, campaign_id: w.campaignId, status: 'held', place_in_line: null,
      estimated_wait_seconds: null, scheduled_for: null, scheduled_reason: null, held_reason: 'campaign_paused',
      calls_left_today: 2, livemode: true,
    })
    expect((await h.api('POST', `/campaigns/${w.campaignId}/activate`, { key: w.live })).status).toBe(200)
    expect((await getLead(lead.id)).status).toBe('dialing')
    expect((await onlyCall(lead.id)).started_by).toEqual({ type: 'api', api_key_id: w.live.id })
  })

  test('unknown lead, lead of another organization, scope or mode: 404', async () => {
    const lead = await addLead({ phone: ny('01') })
    const campaign2 = await secondCampaign()
    const elsewhere = await addLead({ phone: ny('01'), campaign_id: campaign2 })
    expectError(await callNow({ lead_id: NO_LEAD }), 404, 'not_found')
    expectError(await callNow({ lead_id: lead.id }, w.otherLive), 404, 'not_found')
    expectError(await callNow({ lead_id: lead.id }, w.test), 404, 'not_found')
    expectError(await callNow({ lead_id: elsewhere.id }, w.scoped), 404, 'not_found')
    expectError(await callNow({ external_id: 'nobody' }), 404, 'not_found')
    // Naming the other campaign outright is 403.
    const denied = await callNow({ lead_id: elsewhere.id, campaign_id: campaign2 }, w.scoped)
    expect(denied.status).toBe(403)
    expect(denied.body.error).toMatchObject({ code: 'permission_denied', missing_permission: 'calls:write', campaign_id: campaign2 })
    // A campaign_id that is not the lead's.
    expectError(await callNow({ lead_id: elsewhere.id, campaign_id: w.campaignId }), 404, 'not_found')
  })

  test('lead_id and external_id naming different leads: 400; neither: 400; unknown field: 400', async () => {
    const a = await addLead({ phone: ny('01'), external_id: 'a' })
    await addLead({ phone: ny('01', 21), external_id: 'b' })
    expectError(await callNow({ lead_id: a.id, external_id: 'b' }), 400, 'invalid_request', 'external_id')
    expectError(await callNow({}), 400, 'invalid_request', 'lead_id')
    expectError(await callNow({ lead_id: a.id, priority: 1 }), 400, 'invalid_request', 'priority')
    expectError(await callNow({ lead_id: 'not-a-uuid' }), 400, 'invalid_request', 'lead_id')
  })

  test('an opted-out lead: 422 on_dnc_list', async () => {
    const lead = await addLead({ phone: ny('01') })
    await h.advance(45)
    expect((await h.api('POST', `/leads/${lead.id}/opt_out`, { key: w.live })).status).toBe(200)
    expectError(await callNow({ lead_id: lead.id }), 422, 'on_dnc_list')
    expect(await callsOf(lead.id)).toHaveLength(1)
  })

  test('a number on the DNC list added later: 422 on_dnc_list', async () => {
    const lead = await addLead({ phone: ny('02') })
    await h.advance(30)
    expect((await h.api('POST', '/dnc', { key: w.live, body: { phone: ny('02') } })).status).toBe(201)
    expectError(await callNow({ lead_id: lead.id }), 422, 'on_dnc_list')
  })

  test('a retired number: 422 number_retired', async () => {
    const lead = await addLead({ phone: ny('01') })
    await h.advance(45)
    expect((await h.admin('POST', `/campaigns/${w.campaignId}/retired_numbers`, { phone: ny('01') })).status).toBe(201)
    expectError(await callNow({ lead_id: lead.id }), 422, 'number_retired')
  })

  test('a completed campaign: 409 campaign_closed', async () => {
    const lead = await addLead({ phone: ny('01') })
    await h.advance(45)
    await patchCampaign({ status: 'completed' })
    expectError(await callNow({ lead_id: lead.id }), 409, 'campaign_closed')
  })

  test('a lead being dialed or on a call: 409 lead_busy', async () => {
    const lead = await addLead({ phone: ny('01') })
    expectError(await callNow({ lead_id: lead.id }), 409, 'lead_busy')
    await h.advance(10)
    expect((await getLead(lead.id)).status).toBe('on_call')
    expectError(await callNow({ lead_id: lead.id }), 409, 'lead_busy')
    await h.advance(35)
    expect((await callNow({ lead_id: lead.id })).status).toBe(202)
  })

  test('a lead a person took out of the queue: 409 lead_taken_out_of_queue', async () => {
    await fillLines()
    const lead = await addLead({ phone: ny('01') })
    const taken = await h.admin('POST', `/leads/${lead.id}/take_out_of_queue`, { reason: 'Customer asked for email only' })
    expect(taken.status).toBe(200)
    expect((await getLead(lead.id)).status).toBe('out_of_queue')
    expectError(await callNow({ lead_id: lead.id }), 409, 'lead_taken_out_of_queue')
    // Not dialed when the lines free either.
    await h.advance(200)
    expect(await callsOf(lead.id)).toEqual([])
  })

  test('two POST /calls at once for the same lead start one call', async () => {
    const lead = await addLead({ phone: ny('01') })
    await h.advance(45)
    const replies = await Promise.all([callNow({ lead_id: lead.id }), callNow({ lead_id: lead.id })])
    const statuses = replies.map((r) => r.status).sort()
    expect(statuses.includes(202)).toBe(true)
    for (const s of statuses) expect([202, 409]).toContain(s)
    for (const r of replies) if (r.status === 409) expect(r.body.error.code).toBe('lead_busy')
    await h.advance(1)
    expect(await callsOf(lead.id)).toHaveLength(2)
    await h.advance(200)
    expect(await callsOf(lead.id)).toHaveLength(2)
  })

  test('two POST /calls at once for a queued lead: both accepted, one call', async () => {
    await fillLines()
    const lead = await addLead({ phone: ny('01') })
    const replies = await Promise.all([callNow({ lead_id: lead.id }), callNow({ lead_id: lead.id })])
    expect(replies.map((r) => r.status)).toEqual([202, 202])
    expect(replies.map((r) => r.body.data.calls_left_today).sort()).toEqual([1, 2])
    await h.advance(95)
    expect(await callsOf(lead.id)).toHaveLength(1)
    await h.advance(300)
    expect(await callsOf(lead.id)).toHaveLength(1)
    expect((await getLead(lead.id)).status).toBe('done')
  })
})

// ---------------------------------------------------------------------------------------------

describe('test_flows_busy', () => {
  beforeEach(async () => {
    h = createHarness({ autoDial: true })
    w = await seedWorld(h)
  })
  afterEach(() => h.close())

  test('a test key with 20 sample calls running: POST /leads and POST /calls are 429', async () => {
    await patchCampaign({ lines: 25 })
    // A test lead that is not on a call (failed after 1 s, waiting for its retry).
    const idle = await addLead({ phone: '+12125550105' }, w.test)
    await h.advance(2)
    expect((await getLead(idle.id, w.test)).status).toBe('scheduled')
    for (let i = 0; i < 19; i++) expect((await addLead({ phone: ny('00', 21 + i) }, w.test)).status).toBe('dialing')
    // 19 running: still fine, and the 20th starts.
    expect((await addLead({ phone: ny('00', 40) }, w.test)).status).toBe('dialing')

    const lead = await h.api('POST', '/leads', { key: w.test, body: { campaign_id: w.campaignId, phone: ny('00', 41) } })
    expectError(lead, 429, 'test_flows_busy')
    expect(lead.body.error.type).toBe('rate_limit_error')
    expect(Number(lead.headers.get('retry-after'))).toBeGreaterThan(0)
    const call = await callNow({ lead_id: idle.id }, w.test)
    expectError(call, 429, 'test_flows_busy')
    expect(Number(call.headers.get('retry-after'))).toBeGreaterThan(0)

    // Live keys are not affected.
    expect((await addLead({ phone: ny('01') })).status).toBe('dialing')
    // Once the sample calls end, the test key works again.
    await h.advance(95)
    expect((await h.api('POST', '/leads', { key: w.test, body: { campaign_id: w.campaignId, phone: ny('00', 41) } })).status).toBe(201)
  })
})
