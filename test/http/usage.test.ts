import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { RequestTally } from '../../src/domain/usage/request-tally'
import { usageService } from '../../src/domain/usage/usage-service'
import { createHarness, START, type Harness, type TestKey, type World, seedWorld, expectError } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * GET /usage (spec "Usage"; DESIGN.md "Webhooks, usage, exports") and the monthly spend cap.
 * Calls come from the simulator (+1 212 555 XXNN plays scenario NN); the fake clock starts
 * Monday 2026-01-05 15:00 UTC, 10:00 in New York (the organizations' zone). Usage is counted
 * by the usage_count job every 5 minutes, so each check first moves the clock past a count.
 */

const ny = (nn: string, series: number) => `+1212555${String(series).padStart(2, '0')}${nn}`
const RATE = 0.12


const usage = (h: Harness, key: TestKey, query = '') => h.api('GET', `/usage${query}`, { key })

async function addLead(h: Harness, key: TestKey, campaignId: string, phone: string) {
  const r = await h.api('POST', '/leads', { key, body: { campaign_id: campaignId, phone } })
  if (r.status !== 201) throw new Error(`lead intake failed: ${r.status} ${r.text}`)
  return r.body.data as { id: string; status: string; held_reason?: string | null }
}

/** Every call of the key's organization and mode, all pages. */
async function allCalls(h: Harness, key: TestKey): Promise<any[]> {
  const calls: any[] = []
  let after = ''
  for (;;) {
    const r = await h.api('GET', `/calls?limit=100${after ? `&starting_after=${after}` : ''}`, { key })
    expect(r.status).toBe(200)
    calls.push(...r.body.data)
    if (!r.body.meta.has_more) return calls
    after = r.body.data.at(-1).id
  }
}

const billed = (calls: any[]) => calls.reduce((sum, c) => sum + Math.ceil((c.duration_seconds ?? 0) / 60), 0)
const money = (n: number) => Math.round(n * 1e6) / 1e6

describe('GET /usage', () => {
  let h: Harness
  let w: World
  let campaign2: string
  let liveCalls: any[]

  beforeAll(async () => {
    h = createHarness({ autoDial: true })
    w = await seedWorld(h)
    const second = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Second', status: 'active', lines: 10, sdrs: [{ name: 'Kim Park' }] })
    campaign2 = second.body.data.id
    await h.admin('PATCH', `/campaigns/${w.campaignId}`, { lines: 10 })
    // A mix of scenarios in both campaigns: interested (89 s talk), not interested (40 s),
    // no answer (0 s), voicemail (machine), hung up (7 s), busy.
    let series = 10
    for (const nn of ['00', '01', '02', '04', '09', '03', '01']) {
      await addLead(h, w.live, w.campaignId, ny(nn, series++))
      await addLead(h, w.live, campaign2, ny(nn, series++))
    }
    // Test mode: magic numbers, its own lines.
    for (const nn of ['01', '09']) await addLead(h, w.test, w.campaignId, `+1212555010${nn.slice(1)}`)
    // Every call ends (the longest is 95 s), then the 5-minute count runs.
    await h.advance(600)
    liveCalls = await allCalls(h, w.live)
  })
  afterAll(() => h.close())

  test('before any count: zeros, updated null, the current month in the organization zone', async () => {
    const fresh = createHarness()
    try {
      const world = await seedWorld(fresh)
      const r = await usage(fresh, world.live)
      expect(r.status).toBe(200)
      expect(r.body.data).toEqual({
        object: 'usage',
        period: '2026-01',
        timezone: 'America/New_York',
        livemode: true,
        totals: { requests: 0, leads_added: 0, calls: 0, calls_connected: 0, minutes: 0, cost_usd: 0, ai_minutes: 0, ai_cost_usd: null, ai_unpriced_calls: 0 },
        group_by: null,
        groups: [],
        updated: null,
      })
    } finally {
      fresh.close()
    }
  })

  test("the month's total is the sum of its calls' billed minutes times the rate", async () => {
    expect(liveCalls).toHaveLength(14)
    expect(liveCalls.every((c) => c.status === 'ended')).toBe(true)
    const minutes = billed(liveCalls)
    // 2 x 89 s -> 2 + 2, 4 x 40 s -> 1 each, 2 x 7 s -> 1 each, the rest 0 minutes (voicemail talk aside).
    expect(minutes).toBeGreaterThanOrEqual(10)
    const r = await usage(h, w.live)
    expect(r.status).toBe(200)
    const totals = r.body.data.totals
    expect(totals.calls).toBe(14)
    expect(totals.leads_added).toBe(14)
    expect(totals.minutes).toBe(minutes)
    expect(totals.cost_usd).toBe(money(minutes * RATE))
    expect(r.body.data.updated).toBe(new Date(START + 600_000).toISOString())
  })

  test('calls_connected counts calls a person answered (not machines, not unanswered)', async () => {
    const r = await usage(h, w.live)
    // 00, 01, 09 and the second 01 in each campaign: 8 calls; voicemail, busy and no answer are not.
    expect(r.body.data.totals.calls_connected).toBe(8)
  })

  test('requests are counted per key once the count has run', async () => {
    const before = (await usage(h, w.scoped)).body.data.totals.requests
    for (let i = 0; i < 5; i++) expect((await h.api('GET', `/campaigns/${w.campaignId}`, { key: w.scoped })).status).toBe(200)
    // Not yet counted: the count runs every 5 minutes.
    expect((await usage(h, w.scoped)).body.data.totals.requests).toBe(before)
    await h.advance(300)
    // The 5 requests plus the two GET /usage calls before the count.
    expect((await usage(h, w.scoped)).body.data.totals.requests).toBe(before + 7)
  })

  test('group_by day, campaign and key add up to the totals', async () => {
    const total = (await usage(h, w.live)).body.data.totals
    for (const groupBy of ['day', 'campaign', 'key'] as const) {
      const r = await usage(h, w.live, `?group_by=${groupBy}`)
      expect(r.status).toBe(200)
      expect(r.body.data.group_by).toBe(groupBy)
      const groups: any[] = r.body.data.groups
      const sum = (field: string) => groups.reduce((n, g) => n + g[field], 0)
      if (groupBy !== 'campaign') expect(sum('requests')).toBe(total.requests)
      if (groupBy !== 'key') {
        for (const field of ['calls', 'calls_connected', 'minutes']) expect(sum(field)).toBe(total[field])
        expect(money(sum('cost_usd'))).toBe(total.cost_usd)
      }
      expect(sum('leads_added')).toBe(total.leads_added)
    }
  })

  test('group_by names the day, campaign or key of each group', async () => {
    const byDay = (await usage(h, w.live, '?group_by=day')).body.data.groups
    expect(byDay.map((g: any) => g.day)).toEqual(['2026-01-05'])
    const byCampaign = (await usage(h, w.live, '?group_by=campaign')).body.data.groups
    expect(byCampaign.map((g: any) => [g.campaign_id, g.campaign_name]).sort()).toEqual(
      [[w.campaignId, 'Spring roofs'], [campaign2, 'Second']].sort(),
    )
    for (const g of byCampaign) expect(g.calls).toBe(7)
    const byKey = (await usage(h, w.live, '?group_by=key')).body.data.groups
    const live = byKey.find((g: any) => g.key_id === w.live.id)
    expect(live.key_name).toBe('live')
    expect(live.leads_added).toBe(14)
    expect(live.requests).toBeGreaterThan(14)
  })

  test('a test key sees test counts only, never billed', async () => {
    const r = await usage(h, w.test)
    expect(r.status).toBe(200)
    expect(r.body.data.livemode).toBe(false)
    const totals = r.body.data.totals
    expect(totals.calls).toBe(2)
    expect(totals.leads_added).toBe(2)
    expect(totals.minutes).toBe(2)
    expect(totals.cost_usd).toBe(0)
    // And live counts leave the test calls out.
    expect((await usage(h, w.live)).body.data.totals.calls).toBe(14)
  })

  test("a campaign-limited key sees its campaigns' activity plus its own requests", async () => {
    const r = await usage(h, w.scoped, '?group_by=campaign')
    expect(r.status).toBe(200)
    const own = liveCalls.filter((c) => c.campaign_id === w.campaignId)
    expect(r.body.data.totals.calls).toBe(7)
    expect(r.body.data.totals.minutes).toBe(billed(own))
    expect(r.body.data.groups.map((g: any) => g.campaign_id)).toEqual([w.campaignId])
    const byKey = (await usage(h, w.scoped, '?group_by=key')).body.data.groups
    expect(byKey.map((g: any) => g.key_id)).toEqual([w.scoped.id])
  })

  test('another organization sees none of it', async () => {
    const r = await usage(h, w.otherLive)
    expect(r.body.data.totals.calls).toBe(0)
    expect(r.body.data.totals.leads_added).toBe(0)
  })

  test('a past month by YYYY-MM; a month with nothing is zeros', async () => {
    expect((await usage(h, w.live, '?period=2026-01')).body.data.totals.calls).toBe(14)
    const december = await usage(h, w.live, '?period=2025-12')
    expect(december.status).toBe(200)
    expect(december.body.data.period).toBe('2025-12')
    expect(december.body.data.totals.calls).toBe(0)
  })

  test.each([
    ['?period=2026-13', 'period'],
    ['?period=2026-00', 'period'],
    ['?period=last', 'period'],
    ['?period=2026-1', 'period'],
    ['?period=', 'period'],
    ['?group_by=week', 'group_by'],
    ['?group_by=', 'group_by'],
    ['?month=2026-01', 'month'],
  ])('GET /usage%s is 400 invalid_request naming %s', async (query, param) => {
    expectError(await usage(h, w.live, query), 400, 'invalid_request', param)
  })

  test('needs usage:read', async () => {
    const key = await h.createKey(w.orgId, { name: 'no usage', mode: 'live', permissions: ['leads:read'] })
    const r = await usage(h, key)
    expectError(r, 403, 'permission_denied')
    expect(r.body.error.missing_permission).toBe('usage:read')
    expectError(await h.api('GET', '/usage'), 401, 'authentication_failed')
  })
})

describe('months follow the organization zone', () => {
  // Saturday 2026-01-31 15:00 in Honolulu (UTC-10) is 2026-02-01 01:00 UTC.
  const JAN_31_HONOLULU = Date.UTC(2026, 1, 1, 1, 0, 0)
  let h: Harness
  let key: TestKey
  let orgId: string

  beforeAll(async () => {
    h = createHarness({ autoDial: true, start: JAN_31_HONOLULU })
    const org = await h.admin('POST', '/orgs', { name: 'Aloha', timezone: 'Pacific/Honolulu', plan_requests_per_minute: 100000 })
    orgId = org.body.data.id
    const campaign = await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Islands', status: 'active', sdrs: [{ name: 'Kai' }] })
    if (campaign.status !== 201) throw new Error(campaign.text)
    key = await h.createKey(orgId, { name: 'k', mode: 'live' })
    // A Honolulu number (808): 15:00 its time, inside calling hours.
    const lead = await h.api('POST', '/leads', { key, body: { campaign_id: campaign.body.data.id, phone: '+18085552001' } })
    expect(lead.status).toBe(201)
    await h.advance(400)
  })
  afterAll(() => h.close())

  test('a call on January 31 local time counts in January, though it is February in UTC', async () => {
    const current = await usage(h, key, '?group_by=day')
    expect(current.body.data.period).toBe('2026-01')
    expect(current.body.data.timezone).toBe('Pacific/Honolulu')
    expect(current.body.data.totals.calls).toBe(1)
    expect(current.body.data.groups.map((g: any) => g.day)).toEqual(['2026-01-31'])
    expect((await usage(h, key, '?period=2026-02')).body.data.totals.calls).toBe(0)
  })
})

describe('spend cap', () => {
  let h: Harness
  let w: World

  const leadOf = async (id: string) => (await h.api('GET', `/leads/${id}`, { key: w.live })).body.data

  beforeAll(async () => {
    h = createHarness({ autoDial: true })
    w = await seedWorld(h)
  })
  afterAll(() => h.close())

  test('reaching the cap holds new and waiting leads; raising it places them again', async () => {
    // 0.24 USD = 2 billed minutes at 0.12.
    expect((await h.admin('PATCH', `/campaigns/${w.campaignId}`, { spend_cap_usd: 0.24, lines: 1 })).status).toBe(200)
    // One 89-second call (2 minutes) ...
    const first = await addLead(h, w.live, w.campaignId, ny('00', 40))
    expect(first.status).toBe('dialing')
    // ... and a lead waiting behind it on the one line, far from done.
    const waiting = await addLead(h, w.live, w.campaignId, ny('01', 41))
    expect(waiting.status).toBe('queued')
    // The call ends at 95 s; the waiting lead is dialed and ends at 45 s more; count at 300 s.
    await h.advance(300)
    const after = await h.api('GET', '/usage', { key: w.live })
    expect(after.body.data.totals.minutes).toBe(3)

    const late = await addLead(h, w.live, w.campaignId, ny('01', 42))
    expect(late.status).toBe('held')
    expect(late.held_reason).toBe('spend_cap_reached')
    // The test mode is never billed, so never capped.
    const testLead = await addLead(h, w.test, w.campaignId, '+12125550101')
    expect(testLead.status).not.toBe('held')

    // Raising the cap releases the held lead at once.
    expect((await h.admin('PATCH', `/campaigns/${w.campaignId}`, { spend_cap_usd: 10 })).status).toBe(200)
    const released = await leadOf(late.id)
    expect(['queued', 'dialing']).toContain(released.status)
    expect(released.held_reason).toBeNull()
  })

  test('queued leads are held when the count finds the cap reached, and the month turning releases them', async () => {
    expect((await h.admin('PATCH', `/campaigns/${w.campaignId}`, { spend_cap_usd: 0.6, lines: 1 })).status).toBe(200)
    // Let everything in flight end and be counted.
    await h.advance(600)
    const queued: string[] = []
    // One line: the first dials, the rest wait in line, one 95-second call after another.
    for (let i = 0; i < 8; i++) queued.push((await addLead(h, w.live, w.campaignId, ny('00', 50 + i))).id)
    // At the next count (300 s on) three 2-minute calls have ended: 6 more minutes, over the cap.
    await h.advance(300)
    expect((await h.api('GET', '/usage', { key: w.live })).body.data.totals.cost_usd).toBeGreaterThanOrEqual(0.6)
    const statuses = await Promise.all(queued.map(leadOf))
    const held = statuses.filter((l) => l.status === 'held')
    expect(held.length).toBe(4)
    for (const lead of held) expect(lead.held_reason).toBe('spend_cap_reached')
    // Nothing more is dialed while the cap holds.
    await h.advance(3600)
    for (const lead of held) expect((await leadOf(lead.id)).status).toBe('held')

    // February 1 in New York: a new month, nothing spent, the leads go back in line.
    const now = (await h.admin('GET', '/clock')).body.data.now
    const toFebruary = (Date.parse('2026-02-01T05:00:00Z') - Date.parse(now)) / 1000 + 301
    await h.advance(toFebruary)
    for (const lead of held) expect((await leadOf(lead.id)).status).not.toBe('held')
  })
})

describe('the count in chunks', () => {
  test('a count split into chunks of 2 adds each lead and call once; the next count finds nothing new', async () => {
    const h = createHarness({ autoDial: true })
    try {
      const w = await seedWorld(h)
      await h.admin('PATCH', `/campaigns/${w.campaignId}`, { lines: 10 })
      for (const [i, nn] of ['00', '01', '01', '09', '02', '04', '01'].entries()) await addLead(h, w.live, w.campaignId, ny(nn, 60 + i))
      // Every call ends within 95 s; the 5-minute count has not run yet (it runs at 15:05).
      await h.advance(120)
      expect((await usage(h, w.live)).body.data.updated).toBeNull()
      const calls = await allCalls(h, w.live)
      expect(calls).toHaveLength(7)
      const chunked = usageService({ stores: h.services.stores, clock: h.services.clock, tally: new RequestTally(), chunk: 2 })
      expect(await chunked.count()).toEqual({ requests: 0, leads: 7, calls: 7 })
      // The service's own count (at 15:05) adds the requests, and no lead or call a second time.
      await h.advance(300)
      const totals = (await usage(h, w.live)).body.data.totals
      expect(totals.calls).toBe(7)
      expect(totals.leads_added).toBe(7)
      expect(totals.minutes).toBe(billed(calls))
      expect(totals.requests).toBeGreaterThan(7)
      expect(chunked.countNow()).toEqual({ requests: 0, leads: 0, calls: 0 })
    } finally {
      h.close()
    }
  })
})
