import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, expectError, seedWorld, type Harness, type Reply, type World } from '../harness'
import { REGISTRY_MAX_BODY_BYTES } from '../../src/http/registry-upload'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * The national Do Not Call registry (issue 17, item 6; docs/dnc-registry.md): the admin
 * import and read, and the refusals at intake (single, batch) and POST /calls.
 */

const CONSENT = { source: 'web_form', agreed_at: '2026-01-01T12:00:00Z', text: 'Yes, call me about roofs.' }
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/
const LISTED = '+12124152671'
const LISTED_TEST = '+14155550123'
const NOT_LISTED = '+12124152672'

let h: Harness
let w: World
beforeAll(async () => {
  h = createHarness()
  w = await seedWorld(h)
})
afterAll(() => h.close())

function upload(body: string, headers: Record<string, string> = {}, query = ''): Promise<Reply> {
  return h.call('POST', `/api/v1/admin/dnc_registry${query}`, {
    rawBody: body,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain', ...headers },
  })
}

const lead = (phone: string, extra: Record<string, unknown> = {}, key = w.live) =>
  h.api('POST', '/leads', { key, body: { campaign_id: w.campaignId, phone, ...extra } })

describe('POST /admin/dnc_registry', () => {
  test('imports the good lines, reports the bad ones by line number, counts duplicates once', async () => {
    const r = await upload(`2125550147\r\n+1 212 555 0199\nnot a number\n\n212,5550147\n4155550123\n12125550100,2024-01-01\n`)
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({
      list: 'national', imported: 4, total: 4, lines: 7, rejected: [3], rejected_count: 1, duplicates: 1, imported_at: expect.stringMatching(ISO),
    })
    const read = await h.admin('GET', '/dnc_registry')
    expect(read.status).toBe(200)
    // The state lists follow the national fields (none imported here: docs/dnc-registry.md, "State lists").
    expect(read.body.data).toEqual({ total: 4, imported_at: r.body.data.imported_at, states: expect.any(Array) })
    expect(read.body.data.states).toContainEqual({ state: 'TX', total: 0, imported_at: null })
  })

  test('a re-import replaces the list', async () => {
    const r = await upload('3105550100\n')
    expect(r.body.data.total).toBe(1)
    expect(h.services.registry.isListed('+13105550100')).toBe(true)
    expect(h.services.registry.isListed(LISTED)).toBe(false)
    expect((await h.admin('GET', '/dnc_registry')).body.data.total).toBe(1)
  })

  test('text/csv is taken too; a content type parameter is fine', async () => {
    expect((await upload('3105550101\n', { 'content-type': 'text/csv; charset=utf-8' })).body.data.total).toBe(1)
  })

  test('a wrong or missing content type is 400 with param Content-Type, and the list stays', async () => {
    for (const type of ['application/json', 'application/octet-stream', '']) {
      const r = await upload('["2125550147"]', { 'content-type': type })
      expectError(r, 400, 'invalid_request', 'Content-Type')
      expect(r.body.error.message).toContain('text/plain')
    }
    expect(h.services.registry.isListed('+13105550101')).toBe(true)
  })

  test('an empty file, or one with no good line, is 400 and changes nothing', async () => {
    for (const body of ['', 'phone\nabc\n']) {
      const r = await upload(body)
      expectError(r, 400, 'invalid_request', 'body')
      expect(r.body.error.message).toContain('not changed')
    }
    expect(h.services.registry.total).toBe(1)
  })

  test('bodies over 1 MB are taken on this route only; over the registry limit is 400 before reading', async () => {
    const lines = Array.from({ length: 100_000 }, (_, i) => `212${String(2_000_000 + i)}\n`).join('')
    expect(lines.length).toBeGreaterThan(1_000_000)
    const r = await upload(lines)
    expect(r.status).toBe(200)
    expect(r.body.data.total).toBe(100_000)
    const big = await upload('x', { 'content-length': String(REGISTRY_MAX_BODY_BYTES + 1) })
    expectError(big, 400, 'invalid_request', 'body')
    // Other admin routes keep the 1 MB limit.
    const other = await h.call('POST', '/api/v1/admin/orgs', {
      rawBody: '{}', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': '2000000' },
    })
    expectError(other, 400, 'invalid_request')
  })

  test('no token is 401, a wrong token 401, an API key is refused', async () => {
    const none = await h.call('POST', '/api/v1/admin/dnc_registry', { rawBody: '2125550147\n', headers: { 'content-type': 'text/plain' } })
    expectError(none, 401, 'authentication_failed')
    const wrong = await upload('2125550147\n', { authorization: 'Bearer nope' })
    expectError(wrong, 401, 'authentication_failed')
    const key = await h.call('POST', '/api/v1/admin/dnc_registry', { rawBody: '2125550147\n', headers: { authorization: w.live.authorization, 'content-type': 'text/plain' } })
    expectError(key, 401, 'authentication_failed')
    const read = await h.call('GET', '/api/v1/admin/dnc_registry', { headers: { authorization: w.live.authorization } })
    expectError(read, 401, 'authentication_failed')
    expect(h.services.registry.isListed(LISTED)).toBe(false)
  })
})

describe('the registry at intake and POST /calls', () => {
  beforeAll(async () => {
    // The large file of the tests above is replaced by two numbers: past the shrink guard.
    const r = await upload(`${LISTED.slice(2)}\n${LISTED_TEST.slice(2)}\n`, {}, '?force=true')
    expect(r.status).toBe(200)
  })

  test('a listed number is 422 on_dnc_list with reason national_registry', async () => {
    const r = await lead(LISTED)
    expectError(r, 422, 'on_dnc_list', 'phone')
    expect(r.body.error.reason).toBe('national_registry')
    expect(r.body.error.message).toContain('national Do Not Call registry')
    expect((await lead(NOT_LISTED)).status).toBe(201)
  })

  test('every organization and both modes are bound (test keys with 555-01XX numbers too)', async () => {
    expectError(await h.api('POST', '/leads', { key: w.otherLive, body: { campaign_id: w.otherCampaignId, phone: LISTED } }), 422, 'on_dnc_list')
    const r = await lead(LISTED_TEST, {}, w.test)
    expectError(r, 422, 'on_dnc_list', 'phone')
    expect(r.body.error.reason).toBe('national_registry')
  })

  test('a lead with consent (prior express written consent) is taken', async () => {
    expect((await lead(LISTED, { consent: CONSENT })).status).toBe(201)
  })

  test('batch: the same refusal per item', async () => {
    const r = await h.api('POST', '/leads/batch', {
      key: w.live,
      body: { campaign_id: w.campaignId, leads: [{ phone: '+12124152681' }, { phone: LISTED, external_id: 'b-listed' }] },
    })
    expect(r.status).toBe(200)
    expect(r.body.data.results[0].ok).toBe(true)
    expect(r.body.data.results[1]).toMatchObject({ index: 1, ok: false, error: { code: 'on_dnc_list', param: 'leads[1].phone' } })
    expect(r.body.data.results[1].error.message).toContain('national')
  })

  test('POST /calls: a lead whose number was listed after intake is refused unless it has consent', async () => {
    const plain = '+12124152691'
    const consented = '+12124152692'
    const plainLead = await lead(plain)
    const consentedLead = await lead(consented, { consent: CONSENT })
    expect(plainLead.status).toBe(201)
    expect(consentedLead.status).toBe(201)
    expect((await upload(`${LISTED.slice(2)}\n${plain.slice(2)}\n${consented.slice(2)}\n`)).status).toBe(200)
    const refused = await h.api('POST', '/calls', { key: w.live, body: { lead_id: plainLead.body.data.id } })
    expectError(refused, 422, 'on_dnc_list')
    expect(refused.body.error.reason).toBe('national_registry')
    const allowed = await h.api('POST', '/calls', { key: w.live, body: { lead_id: consentedLead.body.data.id } })
    expect(allowed.status).toBe(202)
  })
})
