import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, expectError, seedWorld, START, type Harness, type Reply, type World } from '../harness'
import { apiHelpers } from './helpers'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * State Do Not Call lists (docs/dnc-registry.md, "State lists"): POST /admin/dnc_registry?list=TX
 * replaces the Texas list only; a number on it is refused for leads in Texas (by area code or
 * address) at intake, on POST /calls and at dial time, unless the lead carries consent. The fake
 * clock starts Monday 2026-01-05 15:00 UTC (09:00 in Texas, 10:00 in New York).
 */

const CONSENT = { source: 'web_form', agreed_at: '2026-01-01T12:00:00Z', text: 'Yes, call me about roofs.' }
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const AUSTIN = '+15125552009'
const DALLAS = '+12145552009'
/** A New York number of a person who lives in Texas (on the Texas list). */
const NY_IN_TEXAS = '+12125552019'
const NATIONAL = '+13105552009'

let h: Harness
let w: World
const { addLead, getLead, callsOf } = apiHelpers(() => ({ h, w }))

beforeAll(async () => {
  h = createHarness({ autoDial: false })
  w = await seedWorld(h)
})
afterAll(() => h.close())

function upload(body: string, query = ''): Promise<Reply> {
  return h.call('POST', `/api/v1/admin/dnc_registry${query}`, {
    rawBody: body,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' },
  })
}

const lead = (phone: string, extra: Record<string, unknown> = {}) => h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone, ...extra } })
const contactability = (id: string) => h.api('GET', `/leads/${id}/contactability`, { key: w.live })
interface ListShown { state: string; total: number; imported_at: string | null }
const txOf = (data: { states: ListShown[] }): ListShown | undefined => data.states.find((s) => s.state === 'TX')

describe('POST /admin/dnc_registry?list=TX', () => {
  test('imports the Texas list; the national list stays as it was', async () => {
    expect((await upload(`${NATIONAL.slice(2)}\n`)).status).toBe(200)
    const national = (await h.admin('GET', '/dnc_registry')).body.data
    const r = await upload(`${AUSTIN.slice(2)}\n${DALLAS.slice(2)}\n${NY_IN_TEXAS.slice(2)}\nnot a number\n`, '?list=TX')
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({
      list: 'TX', imported: 3, total: 3, lines: 4, rejected: [4], rejected_count: 1, duplicates: 0, imported_at: expect.stringMatching(ISO),
    })
    const read = (await h.admin('GET', '/dnc_registry')).body.data
    expect([read.total, read.imported_at]).toEqual([1, national.imported_at])
    expect(txOf(read)).toEqual({ state: 'TX', total: 3, imported_at: r.body.data.imported_at })
    expect(read.states.find((s: { state: string }) => s.state === 'FL')).toEqual({ state: 'FL', total: 0, imported_at: null })
    expect(h.services.registry.isListed(NATIONAL)).toBe(true)
    expect(h.services.registry.isListed(AUSTIN)).toBe(false)
  })

  test('list=national is the national import; a lower-case state code is taken', async () => {
    const r = await upload(`${NATIONAL.slice(2)}\n`, '?list=national')
    expect(r.body.data).toMatchObject({ list: 'national', total: 1 })
    expect(txOf((await h.admin('GET', '/dnc_registry')).body.data)?.total).toBe(3)
    const lower = await upload('5125550000\n', '?list=wy')
    expect(lower.body.data).toMatchObject({ list: 'WY', total: 1 })
  })

  test('an unknown list, or a state without a list of its own, is 400 invalid_request on list; nothing changes', async () => {
    for (const list of ['CA', 'XX', 'texas', '']) {
      const r = await upload('5125550000\n', `?list=${list}`)
      if (list === '') {
        // An empty value reads as absent: the national import, which the shrink guard lets through (a list of 1).
        expect(r.body.data.list).toBe('national')
        continue
      }
      expectError(r, 400, 'invalid_request', 'list')
      expect(r.body.error.message).toContain('TX')
    }
    // Put the national list back (the empty list= above replaced it).
    expect((await upload(`${NATIONAL.slice(2)}\n`)).status).toBe(200)
    expect(txOf((await h.admin('GET', '/dnc_registry')).body.data)?.total).toBe(3)
  })
})

describe('intake', () => {
  test('a Texas number (512, 214) on the Texas list is 422 on_dnc_list, reason state_registry', async () => {
    for (const phone of [AUSTIN, DALLAS]) {
      const r = await lead(phone)
      expectError(r, 422, 'on_dnc_list', 'phone')
      expect(r.body.error.reason).toBe('state_registry')
      expect(r.body.error.message).toContain('TX')
    }
  })

  test('a New York number on the Texas list: refused with a Texas address, taken without one', async () => {
    const r = await lead(NY_IN_TEXAS, { address: '100 Congress Ave, Austin, TX 78701', external_id: 'tx-1' })
    expectError(r, 422, 'on_dnc_list', 'phone')
    expect(r.body.error.reason).toBe('state_registry')
    const named = await lead(NY_IN_TEXAS, { address: 'Austin, Texas', external_id: 'tx-2' })
    expect(named.body.error?.reason).toBe('state_registry')
    expect((await lead(NY_IN_TEXAS, { external_id: 'ny-1' })).status).toBe(201)
  })

  test('consent lifts it, as for the national registry', async () => {
    expect((await lead(AUSTIN, { consent: CONSENT })).status).toBe(201)
  })

  test('a batch item fails with on_dnc_list naming the state', async () => {
    const r = await h.api('POST', '/leads/batch', { key: w.live, body: { campaign_id: w.campaignId, leads: [{ phone: DALLAS }, { phone: '+12145552029' }] } })
    expect(r.status).toBe(200)
    expect(r.body.data.results[0]).toMatchObject({ ok: false, error: { code: 'on_dnc_list', param: 'leads[0].phone' } })
    expect(r.body.data.results[0].error.message).toContain('TX state Do Not Call list')
    expect(r.body.data.results[1].ok).toBe(true)
  })
})

describe('a number put on the Texas list after intake', () => {
  test('contactability blocks it (TX-dnc), POST /calls refuses it, the dialer takes it out of the queue; with consent it is called', async () => {
    // A campaign of its own: the leads above wait in the first one's queue.
    const other = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Texas', status: 'active', sdrs: [{ name: 'Kim Park' }] })
    expect(other.status).toBe(201)
    const campaign_id = other.body.data.id
    const bare = await addLead({ phone: '+15125552039', campaign_id })
    const byAddress = await addLead({ phone: '+12125552059', address: 'Houston, TX 77002', campaign_id })
    const consented = await addLead({ phone: '+15125552049', consent: CONSENT, campaign_id })
    expect([bare.status, consented.status, byAddress.status]).toEqual(['queued', 'queued', 'queued'])
    const list = ['5125552039', '5125552049', '2125552059', AUSTIN.slice(2), DALLAS.slice(2), NY_IN_TEXAS.slice(2)].join('\n')
    expect((await upload(list, '?list=TX')).status).toBe(200)

    for (const id of [bare.id, byAddress.id]) {
      const c = (await contactability(id)).body.data
      expect(c).toMatchObject({ allowed_now: false, next_allowed_at: null })
      expect(c.states).toContain('TX')
      expect(c.blocked_by).toContainEqual({ rule_id: 'TX-dnc', reason: 'state_registry', until: null })
    }
    expect((await contactability(consented.id)).body.data).toMatchObject({ allowed_now: true, blocked_by: [] })

    const refused = await h.api('POST', '/calls', { key: w.live, body: { lead_id: bare.id } })
    expectError(refused, 422, 'on_dnc_list')
    expect(refused.body.error.reason).toBe('state_registry')

    h.services.dialer.setEnabled(true)
    for (const id of [bare.id, byAddress.id]) {
      expect(await getLead(id)).toMatchObject({ status: 'out_of_queue' })
      expect(await callsOf(id)).toEqual([])
      expect((await contactability(id)).body.data.decisions).toEqual([
        { at: new Date(START).toISOString(), rule_id: 'TX-dnc', outcome: 'deferred', until: null },
      ])
    }
    expect((await getLead(consented.id)).status).toBe('dialing')
  })
})
