import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, seedWorld, START, type Harness, type TestKey, type World } from '../harness'
import { apiHelpers } from './helpers'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * The calling rules at the service (issue 17): caps counted over every call to the number,
 * state days, the address's state, the federal floor over a campaign stored before it, and
 * GET /leads/{id}/contactability. Calls come from the simulator (+1 NPA 555 XXNN plays
 * scenario NN; 09 hangs up and is over in 12 s). The fake clock starts Monday 2026-01-05
 * 15:00 UTC (10:00 New York and Miami, 09:00 Birmingham) unless a test says otherwise.
 */

let h: Harness
let w: World

const S = 1000
const HOUR = 3_600_000
const iso = (ms: number) => new Date(ms).toISOString()
const { addLead, getLead, callsOf } = apiHelpers(() => ({ h, w }))

const callNow = (body: Record<string, unknown>, key: TestKey = w.live) => h.api('POST', '/calls', { key, body })
const contactability = (id: string, key: TestKey = w.live) => h.api('GET', `/leads/${id}/contactability`, { key })

async function start(options: { start?: number; autoDial?: boolean } = {}) {
  h = createHarness({ autoDial: options.autoDial ?? true, start: options.start })
  w = await seedWorld(h)
}

async function secondCampaign(): Promise<string> {
  const r = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Second', status: 'active', sdrs: [{ name: 'Kim Park' }] })
  expect(r.status).toBe(201)
  return r.body.data.id
}

afterEach(() => h?.close())

describe('caps count every call to the number', () => {
  test('a Florida number called 3 times across two campaigns: POST /calls is scheduled recent_contact_cooldown until the oldest call is 24 h old', async () => {
    await start()
    const other = await secondCampaign()
    const phone = '+13055552009'
    const first = await addLead({ phone, call_now: true })
    expect(first.status).toBe('dialing')
    await h.advance(20)
    expect((await getLead(first.id)).status).toBe('done')
    // The second call: POST /calls (an API-started call of the same lead).
    const again = await callNow({ lead_id: first.id })
    expect(again.status).toBe(202)
    expect(again.body.data.status).toBe('dialing')
    await h.advance(20)
    // The third: the same number in another campaign of the organization.
    const second = await addLead({ phone, campaign_id: other, call_now: true })
    expect(second.status).toBe('dialing')
    await h.advance(20)
    const started = [...(await callsOf(first.id)), ...(await callsOf(second.id))].map((c) => Date.parse(c.started)).sort()
    expect(started).toEqual([START, START + 20 * S, START + 40 * S])

    const capped = await callNow({ lead_id: first.id })
    expect(capped.status).toBe(202)
    expect(capped.body.data).toMatchObject({
      status: 'scheduled', scheduled_reason: 'recent_contact_cooldown', scheduled_for: iso(START + 24 * HOUR), place_in_line: null,
    })

    const c = (await contactability(first.id)).body.data
    expect(c).toMatchObject({ lead_id: first.id, allowed_now: false, next_allowed_at: iso(START + 24 * HOUR), calls_last_24h: 3, livemode: true })
    expect(c.states).toContain('FL')
    expect(c.blocked_by).toContainEqual({ rule_id: expect.stringMatching(/^FL-/), reason: 'recent_contact_cooldown', until: iso(START + 24 * HOUR) })
    expect(c.rules.map((r: any) => r.kind)).toContain('cap')
    // Two calls of this lead were dialed, then POST /calls was deferred by the cap: newest first.
    expect(c.decisions.map((d: any) => [d.outcome, d.rule_id])).toEqual([['deferred', 'FL-cap'], ['dialed', null], ['dialed', null]])
    expect(c.decisions.map((d: any) => d.at)).toEqual([iso(START + 60 * S), iso(START + 20 * S), iso(START)])
    expect(c.decisions[0].until).toBe(iso(START + 24 * HOUR))

    // The lead is dialed when the oldest call leaves the 24 hours, not before.
    await h.advance(24 * 3600 - 60 - 1)
    expect((await getLead(first.id)).status).toBe('scheduled')
    await h.advance(2)
    expect((await getLead(first.id)).status).toBe('dialing')
  })

  test('a number without a cap (New York) is called a fourth time the same day', async () => {
    await start()
    const lead = await addLead({ phone: '+12125552009', call_now: true })
    for (let i = 0; i < 2; i++) {
      await h.advance(20)
      expect((await callNow({ lead_id: lead.id })).body.data.status).toBe('dialing')
    }
    await h.advance(20)
    const other = await secondCampaign()
    expect((await addLead({ phone: '+12125552009', campaign_id: other, call_now: true })).status).toBe('dialing')
  })
})

describe('days and the address', () => {
  test('an Alabama lead on a Sunday: scheduled outside_calling_hours for Monday 08:00 in Birmingham', async () => {
    // Sunday 2026-01-04 16:00 UTC, 10:00 in Birmingham.
    await start({ start: Date.UTC(2026, 0, 4, 16) })
    const lead = await addLead({ phone: '+12055552009' })
    const monday8 = iso(Date.UTC(2026, 0, 5, 14))
    expect(lead).toMatchObject({ status: 'scheduled', scheduled_reason: 'outside_calling_hours', scheduled_for: monday8 })
    const c = (await contactability(lead.id)).body.data
    expect(c).toMatchObject({ allowed_now: false, next_allowed_at: monday8, states: ['AL'], zones: ['America/Chicago'] })
    expect(c.blocked_by.map((b: any) => b.reason)).toContain('outside_calling_hours')
    expect(c.rules.some((r: any) => r.kind === 'day' && r.state === 'AL')).toBe(true)
    // POST /calls says the same.
    const r = await callNow({ lead_id: lead.id })
    expect(r.body.data).toMatchObject({ status: 'scheduled', scheduled_reason: 'outside_calling_hours', scheduled_for: monday8 })
    await h.advance(22 * 3600 - 1)
    expect((await getLead(lead.id)).status).toBe('scheduled')
    await h.advance(1)
    expect((await getLead(lead.id)).status).toBe('dialing')
  })

  test("an address ZIP in another state adds that state's rules: a New York number in Florida waits for Florida's 20:00", async () => {
    // 20:30 in New York and Miami: the federal window is open, Florida's (08:00-20:00) is not.
    await start({ start: Date.UTC(2026, 0, 6, 1, 30), autoDial: false })
    const plain = await addLead({ phone: '+12125552009' })
    expect(plain.status).toBe('queued')
    const inFlorida = await addLead({ phone: '+12125552109', address: '100 Main St, Tallahassee, FL 32301' })
    expect(inFlorida).toMatchObject({ status: 'scheduled', scheduled_reason: 'outside_calling_hours' })
    const c = (await contactability(inFlorida.id)).body.data
    expect(c.states).toEqual(['FL', 'NY'])
    expect(c.zones).toContain('America/New_York')
    expect(c.rules.map((r: any) => r.state)).toContain('FL')
    expect(c.allowed_now).toBe(false)
    // An address with nothing recognizable adds nothing.
    const vague = await addLead({ phone: '+12125552209', address: 'somewhere nice' })
    expect(vague.status).toBe('queued')
    expect((await contactability(vague.id)).body.data.states).toEqual(['NY'])
    expect((await contactability(vague.id)).body.data.notes).toEqual([])
    // A ZIP that does not exist adds no rule and is noted in the explanation.
    const nowhere = await addLead({ phone: '+12125552309', address: '1 Elm St, Springfield 00000' })
    expect(nowhere.status).toBe('queued')
    const n = (await contactability(nowhere.id)).body.data
    expect(n.states).toEqual(['NY'])
    expect(n.notes).toEqual(['zip_unknown:00000'])
  })
})

describe('the federal floor over a campaign stored before it', () => {
  test('a stored 00:00-24:00 window is clamped at intake and at dial time, with the deferral recorded once', async () => {
    // 20:50 in New York; the dialer is off so the lead waits in line past 21:00.
    await start({ start: Date.UTC(2026, 0, 6, 1, 50), autoDial: false })
    h.services.stores.campaigns.update(w.campaignId, { callingHoursStart: '00:00', callingHoursEnd: '24:00' })
    const lead = await addLead({ phone: '+12125552009' })
    expect(lead.status).toBe('queued')
    await h.advance(15 * 60)
    // 21:05: a new lead is scheduled for 08:00 (the floor, not the stored window).
    const next8 = iso(Date.UTC(2026, 0, 6, 13))
    expect(await addLead({ phone: '+12125552109' })).toMatchObject({ status: 'scheduled', scheduled_for: next8 })
    // The queued lead is taken at 21:05: deferred, not dialed.
    h.services.dialer.setEnabled(true)
    expect(await callsOf(lead.id)).toEqual([])
    expect(await getLead(lead.id)).toMatchObject({ status: 'scheduled', scheduled_reason: 'outside_calling_hours', scheduled_for: next8 })
    const c = (await contactability(lead.id)).body.data
    expect(c.decisions.length).toBeGreaterThanOrEqual(1)
    for (const d of c.decisions) expect(d).toMatchObject({ at: iso(Date.UTC(2026, 0, 6, 2, 5)), outcome: 'deferred', until: next8 })
    // One decision per rule: no two for the same rule.
    const rules = c.decisions.map((d: any) => d.rule_id)
    expect(new Set(rules).size).toBe(rules.length)
    // Dialed at 08:00, with its decision.
    await h.advance(11 * 3600 - 5 * 60)
    expect((await getLead(lead.id)).status).toBe('dialing')
    const after = (await contactability(lead.id)).body.data
    expect(after.decisions[0]).toEqual({ at: next8, rule_id: null, outcome: 'dialed', until: null })
  })

  test('the same deferral is not written twice (no flood)', async () => {
    await start()
    const lead = await addLead({ phone: '+12125552009' })
    const store = h.services.stores.decisions
    const row = { orgId: w.orgId, livemode: true, leadId: lead.id, at: START, ruleId: 'US-hours', until: START + HOUR }
    expect(store.recordDeferred({ id: crypto.randomUUID(), ...row })).toBe(true)
    expect(store.recordDeferred({ id: crypto.randomUUID(), ...row, at: START + 1 })).toBe(false)
    // Another until is another deferral; after a dial, the same one is new again.
    expect(store.recordDeferred({ id: crypto.randomUUID(), ...row, at: START + 2, until: START + 2 * HOUR })).toBe(true)
    // A call is the lead's `dialed` decision (the calls table, not a copy).
    const dialed = (at: number) => h.services.stores.calls.insert({
      id: crypto.randomUUID(), orgId: w.orgId, campaignId: w.campaignId, leadId: lead.id, livemode: true, direction: 'outbound', status: 'ended',
      started: at, updated: at, handledBy: { id: null, name: 'AI', role: 'ai' }, startedBy: { type: 'dialer', api_key_id: null }, carrier: 'simulator',
    })
    dialed(START + 3)
    expect(store.recordDeferred({ id: crypto.randomUUID(), ...row, at: START + 4 })).toBe(true)
    expect(store.forLead(lead.id).map((d) => d.outcome).slice(0, 4)).toEqual(['deferred', 'dialed', 'deferred', 'deferred'])
    // At most 20 shown, the newest; deferrals beyond 20 a lead are pruned.
    for (let i = 0; i < 30; i++) store.recordDeferred({ id: crypto.randomUUID(), ...row, at: START + 10 + i, until: START + 10 + i })
    const kept = store.forLead(lead.id)
    expect(kept).toHaveLength(20)
    expect(kept[0]!.at).toBe(START + 39)
    expect(kept[19]!.at).toBe(START + 20)
  })
})

describe('the national registry at dial time', () => {
  test('a number put on the registry after intake: a lead without consent leaves the queue with a decision; with consent it is dialed', async () => {
    await start({ autoDial: false })
    const bare = await addLead({ phone: '+12125552009' })
    const consent = { source: 'web_form', agreed_at: '2026-01-05T14:00:00Z', text: 'I agree to be called.' }
    const consented = await addLead({ phone: '+12125552109', consent })
    expect([bare.status, consented.status]).toEqual(['queued', 'queued'])
    const upload = await h.call('POST', '/api/v1/admin/dnc_registry', {
      rawBody: '2125552009\n2125552109\n',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' },
    })
    expect(upload.status).toBe(200)
    const c = (await contactability(bare.id)).body.data
    expect(c).toMatchObject({ allowed_now: false, next_allowed_at: null })
    expect(c.blocked_by).toContainEqual({ rule_id: 'national-dnc-registry', reason: 'national_registry', until: null })
    expect((await contactability(consented.id)).body.data.allowed_now).toBe(true)

    h.services.dialer.setEnabled(true)
    expect(await getLead(bare.id)).toMatchObject({ status: 'out_of_queue' })
    expect(await callsOf(bare.id)).toEqual([])
    expect((await contactability(bare.id)).body.data.decisions).toEqual([
      { at: iso(START), rule_id: 'national-dnc-registry', outcome: 'deferred', until: null },
    ])
    expect((await getLead(consented.id)).status).toBe('dialing')
    // POST /calls refuses it (422 on_dnc_list, national_registry).
    const r = await callNow({ lead_id: bare.id })
    expect(r.status).toBe(422)
    expect(r.body.error).toMatchObject({ code: 'on_dnc_list', reason: 'national_registry' })
  })
})

describe('GET /leads/{id}/contactability', () => {
  test('the reply, with consent evidence', async () => {
    await start({ autoDial: false })
    const consent = { source: 'web_form', agreed_at: '2026-01-05T14:00:00Z', text: 'I agree to be called.', ip: '203.0.113.9' }
    const lead = await addLead({ phone: '+12125552009', consent })
    const r = await contactability(lead.id)
    expect(r.status).toBe(200)
    const sha = new Bun.CryptoHasher('sha256').update(consent.text).digest('hex')
    expect(r.body.data).toMatchObject({
      lead_id: lead.id, allowed_now: true, next_allowed_at: iso(START), states: ['NY'], zones: ['America/New_York'],
      calls_last_24h: 0, blocked_by: [], decisions: [], rules_version: expect.any(String), livemode: true,
      consent: { ...consent, recorded_at: iso(START), evidence_sha256: sha },
    })
    expect(r.body.data.rules[0].id).toBe('campaign-hours')
    // PATCH replaces the consent: new evidence.
    await h.advance(60)
    const url = { source: 'crm', agreed_at: '2026-01-05T15:00:00Z', url: 'https://example.com/form' }
    expect((await h.api('PATCH', `/leads/${lead.id}`, { key: w.live, body: { consent: url } })).status).toBe(200)
    expect((await contactability(lead.id)).body.data.consent).toEqual({
      ...url, recorded_at: iso(START + 60 * S), evidence_sha256: new Bun.CryptoHasher('sha256').update(url.url).digest('hex'),
    })
    // No consent: null.
    const bare = await addLead({ phone: '+12125552109' })
    expect((await contactability(bare.id)).body.data.consent).toBeNull()
  })

  test('404 for another organization, the other mode, and outside the key scope; 403 without leads:read', async () => {
    await start({ autoDial: false })
    const lead = await addLead({ phone: '+12125552009' })
    const other = await secondCampaign()
    const elsewhere = await addLead({ phone: '+12125552109', campaign_id: other })
    for (const [id, key] of [[lead.id, w.otherLive], [lead.id, w.test], [elsewhere.id, w.scoped]] as const) {
      const r = await contactability(id, key)
      expect(r.status).toBe(404)
      expect(r.body.error.code).toBe('not_found')
    }
    expect((await contactability(lead.id, w.scoped)).status).toBe(200)
    const writer = await h.createKey(w.orgId, { name: 'writer', mode: 'live', permissions: ['leads:write'] })
    const denied = await contactability(lead.id, writer)
    expect(denied.status).toBe(403)
    expect(denied.body.error.missing_permission).toBe('leads:read')
  })
})
