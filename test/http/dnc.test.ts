import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, type Harness, type TestKey, type World, expectError } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/
/** The harness clock start, 2026-01-05T15:00:00Z. */
const START_ISO = '2026-01-05T15:00:00.000Z'

let h: Harness
let w: World
beforeEach(async () => {
  h = createHarness()
  w = await seedWorld(h)
})
afterEach(() => h.close())

const check = (phone: string, key: TestKey = w.live) => h.api('GET', `/dnc/check?phone=${phone}`, { key })
const add = (phone: string, key: TestKey = w.live) => h.api('POST', '/dnc', { key, body: { phone } })


describe('GET /dnc/check', () => {
  test.each([
    ['%2B14155552671', '+14155552671'],
    ['(415)%20555-2671', '(415) 555-2671'],
    ['415.555.2671', '415.555.2671'],
    ['1-415-555-2671', '1-415-555-2671'],
    ['4155552671', '4155552671'],
  ])('%s normalizes to E.164 and echoes the value as sent', async (query, sent) => {
    const r = await check(query)
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: { phone: sent, normalizedPhone: '+14155552671', onDncList: false, livemode: true } })
  })

  test('an unencoded plus arrives as a space and is read as a plus', async () => {
    const r = await check('+14155552671')
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({ phone: '+14155552671', normalizedPhone: '+14155552671', onDncList: false, livemode: true })
  })

  test('an unreadable value is 200 with normalizedPhone null', async () => {
    const r = await check('hello')
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({ phone: 'hello', normalizedPhone: null, onDncList: false, livemode: true })
  })

  test('an invalid number is 400 invalid_phone', async () => {
    const r = await check('123')
    expectError(r, 400, 'invalid_phone', 'phone')
    expect(r.body.error.type).toBe('invalid_request_error')
  })

  test('missing phone is 400 invalid_request param phone', async () => {
    const r = await h.api('GET', '/dnc/check', { key: w.live })
    expectError(r, 400, 'invalid_request', 'phone')
  })

  test('the 555-01XX range is invalid_phone for a live key and usable for a test key', async () => {
    expectError(await check('%2B14155550123', w.live), 400, 'invalid_phone', 'phone')
    const r = await check('%2B14155550123', w.test)
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({ phone: '+14155550123', normalizedPhone: '+14155550123', onDncList: false, livemode: false })
  })

  test('a value over 32 characters is 400 param phone', async () => {
    expectError(await check('4'.repeat(33)), 400, 'invalid_request', 'phone')
  })

  test('a key without dnc:read is 403', async () => {
    const key = await h.createKey(w.orgId, { name: 'no-dnc', mode: 'live', permissions: ['dnc:write'] })
    const r = await check('4155552671', key)
    expect(r.status).toBe(403)
    expect(r.body.error).toMatchObject({ code: 'permission_denied', missing_permission: 'dnc:read', campaign_id: null })
  })
})

describe('POST /dnc', () => {
  test('201 with exactly the entry fields', async () => {
    const r = await add('(415) 555-2671')
    expect(r.status).toBe(201)
    expect(Object.keys(r.body).sort()).toEqual(['data'])
    expect(Object.keys(r.body.data).sort()).toEqual(['createdAt', 'id', 'livemode', 'phone', 'source'])
    expect(r.body.data.id).toMatch(UUID)
    expect(r.body.data).toEqual({ id: r.body.data.id, phone: '+14155552671', source: 'api', createdAt: START_ISO, livemode: true })
    expect(r.body.data.createdAt).toMatch(ISO)
  })

  test('createdAt follows the service clock', async () => {
    await h.advance(90)
    const r = await add('4155552671')
    expect(r.body.data.createdAt).toBe('2026-01-05T15:01:30.000Z')
  })

  test('a test key makes a test entry', async () => {
    const r = await add('+14155550123', w.test)
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ phone: '+14155550123', source: 'api', livemode: false })
  })

  test.each(['+14155552671', '415-555-2671', '1 (415) 555 2671', '415.555.2671'])(
    'the same number again as %s is 409 duplicate_dnc_entry',
    async (again) => {
      expect((await add('4155552671')).status).toBe(201)
      const r = await add(again)
      expectError(r, 409, 'duplicate_dnc_entry', 'phone')
      expect(r.body.error.type).toBe('invalid_request_error')
    },
  )

  test.each(['123', 'hello', '+14155550123'])('%s is 400 invalid_phone param phone for a live key', async (phone) => {
    expectError(await add(phone), 400, 'invalid_phone', 'phone')
  })

  test('missing phone and unknown fields are 400 invalid_request', async () => {
    expectError(await h.api('POST', '/dnc', { key: w.live, body: {} }), 400, 'invalid_request', 'phone')
    expectError(await h.api('POST', '/dnc', { key: w.live, body: { phone: '4155552671', note: 'x' } }), 400, 'invalid_request', 'note')
  })

  test('after adding, check says onDncList true in any format', async () => {
    await add('4155552671')
    for (const q of ['%2B14155552671', '+14155552671', '(415)%20555-2671']) {
      const r = await check(q)
      expect(r.status).toBe(200)
      expect(r.body.data.onDncList).toBe(true)
      expect(r.body.data.normalizedPhone).toBe('+14155552671')
    }
    expect((await check('4155552672')).body.data.onDncList).toBe(false)
  })

  test('a key without dnc:write is 403', async () => {
    const key = await h.createKey(w.orgId, { name: 'read-only', mode: 'live', permissions: ['dnc:read'] })
    const r = await add('4155552671', key)
    expect(r.status).toBe(403)
    expect(r.body.error).toMatchObject({ code: 'permission_denied', missing_permission: 'dnc:write', campaign_id: null })
    expect((await check('4155552671')).body.data.onDncList).toBe(false)
  })
})

describe('POST /dnc/batch', () => {
  test('counts, and errors lists bad, already listed and repeated numbers as sent', async () => {
    await add('+14155552671')
    const phones = ['415-555-2671', '4155552672', 'hello', '(415) 555-2672', '123', '+14155552673', '+14155550123']
    const r = await h.api('POST', '/dnc/batch', { key: w.live, body: { phones } })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      data: {
        succeeded: 2,
        failed: 5,
        errors: ['415-555-2671', 'hello', '(415) 555-2672', '123', '+14155550123'],
        livemode: true,
      },
    })
    expect((await check('%2B14155552672')).body.data.onDncList).toBe(true)
    expect((await check('%2B14155552673')).body.data.onDncList).toBe(true)
  })

  test('a test key batch is livemode false and accepts the magic range', async () => {
    const r = await h.api('POST', '/dnc/batch', { key: w.test, body: { phones: ['+14155550123'] } })
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({ succeeded: 1, failed: 0, errors: [], livemode: false })
  })

  test('100 numbers are accepted', async () => {
    const phones = Array.from({ length: 100 }, (_, i) => `+1415555${2000 + i}`)
    const r = await h.api('POST', '/dnc/batch', { key: w.live, body: { phones } })
    expect(r.status).toBe(200)
    expect(r.body.data).toEqual({ succeeded: 100, failed: 0, errors: [], livemode: true })
    const list = await h.api('GET', '/dnc?limit=100', { key: w.live })
    expect(list.body.data.length).toBe(100)
    expect(list.body.meta).toEqual({ next_cursor: null, has_more: false })
  })

  test('101 numbers are 400 invalid_request and nothing is added', async () => {
    const phones = Array.from({ length: 101 }, (_, i) => `+1415555${2000 + i}`)
    const r = await h.api('POST', '/dnc/batch', { key: w.live, body: { phones } })
    expectError(r, 400, 'invalid_request', 'phones')
    const list = await h.api('GET', '/dnc', { key: w.live })
    expect(list.body.data).toEqual([])
  })
})

describe('GET /dnc', () => {
  const five = ['+14155552671', '+14155552672', '+14155552673', '+12125552368', '+13125552299']

  async function addFive(): Promise<string[]> {
    const ids: string[] = []
    for (const phone of five) {
      const r = await add(phone)
      expect(r.status).toBe(201)
      ids.push(r.body.data.id)
    }
    return ids
  }

  test('newest first, paged by limit and cursor', async () => {
    const ids = await addFive()
    const newestFirst = [...ids].reverse()

    const p1 = await h.api('GET', '/dnc?limit=2', { key: w.live })
    expect(p1.status).toBe(200)
    expect(p1.body.data.map((e: any) => e.id)).toEqual(newestFirst.slice(0, 2))
    expect(p1.body.meta).toEqual({ next_cursor: newestFirst[1], has_more: true })

    const p2 = await h.api('GET', `/dnc?limit=2&cursor=${p1.body.meta.next_cursor}`, { key: w.live })
    expect(p2.body.data.map((e: any) => e.id)).toEqual(newestFirst.slice(2, 4))
    expect(p2.body.meta).toEqual({ next_cursor: newestFirst[3], has_more: true })

    const p3 = await h.api('GET', `/dnc?limit=2&cursor=${p2.body.meta.next_cursor}`, { key: w.live })
    expect(p3.body.data.map((e: any) => e.id)).toEqual(newestFirst.slice(4))
    expect(p3.body.meta).toEqual({ next_cursor: null, has_more: false })

    const all = await h.api('GET', '/dnc', { key: w.live })
    expect(all.body.data.map((e: any) => e.phone)).toEqual([...five].reverse())
    expect(all.body.data[0]).toEqual({ id: newestFirst[0], phone: '+13125552299', source: 'api', createdAt: START_ISO, livemode: true })
  })

  test('search by digits matches part of the number', async () => {
    await addFive()
    const r = await h.api('GET', '/dnc?search=555267', { key: w.live })
    expect(r.status).toBe(200)
    expect(r.body.data.map((e: any) => e.phone)).toEqual(['+14155552673', '+14155552672', '+14155552671'])
    expect(r.body.meta).toEqual({ next_cursor: null, has_more: false })
  })

  test.each([
    ['(415)%20555', ['+14155552673', '+14155552672', '+14155552671']],
    ['2671', ['+14155552671']],
    ['212-555', ['+12125552368']],
    ['999999', []],
  ])('search %s matches the digits of the stored number', async (search, phones) => {
    await addFive()
    const r = await h.api('GET', `/dnc?search=${search}`, { key: w.live })
    expect(r.status).toBe(200)
    expect(r.body.data.map((e: any) => e.phone)).toEqual(phones)
  })

  test('search with no digits is 400 param search', async () => {
    const r = await h.api('GET', '/dnc?search=abc', { key: w.live })
    expectError(r, 400, 'invalid_request', 'search')
  })

  test('search over 200 characters is 400 param search', async () => {
    expectError(await h.api('GET', `/dnc?search=${'1'.repeat(201)}`, { key: w.live }), 400, 'invalid_request', 'search')
  })

  test('a malformed cursor is 400 param cursor', async () => {
    expectError(await h.api('GET', '/dnc?cursor=abc', { key: w.live }), 400, 'invalid_request', 'cursor')
  })

  test.each(['0', '101', 'x'])('limit=%s is 400 param limit', async (limit) => {
    expectError(await h.api('GET', `/dnc?limit=${limit}`, { key: w.live }), 400, 'invalid_request', 'limit')
  })
})

describe('DELETE /dnc/{id}', () => {
  test('200 with the removed entry; the number is off the list; again is 404', async () => {
    const created = await add('(415) 555-2671')
    const id = created.body.data.id
    const r = await h.api('DELETE', `/dnc/${id}`, { key: w.live })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ data: created.body.data })

    expect((await check('%2B14155552671')).body.data.onDncList).toBe(false)
    expect((await h.api('GET', '/dnc', { key: w.live })).body.data).toEqual([])

    expectError(await h.api('DELETE', `/dnc/${id}`, { key: w.live }), 404, 'not_found', null)
    // The number can be listed again.
    expect((await add('4155552671')).status).toBe(201)
  })

  test("another organization's entry is 404 and stays listed", async () => {
    const created = await add('4155552671')
    const r = await h.api('DELETE', `/dnc/${created.body.data.id}`, { key: w.otherLive })
    expectError(r, 404, 'not_found', null)
    expect((await check('4155552671')).body.data.onDncList).toBe(true)
  })

  test("the other mode's entry is 404", async () => {
    const created = await add('4155552671')
    expectError(await h.api('DELETE', `/dnc/${created.body.data.id}`, { key: w.test }), 404, 'not_found', null)
  })

  test('a malformed id is 404', async () => {
    expectError(await h.api('DELETE', '/dnc/not-a-uuid', { key: w.live }), 404, 'not_found', null)
  })
})

describe('organization and mode isolation', () => {
  test("another organization neither sees nor is blocked by this organization's entries", async () => {
    await add('4155552671')
    expect((await check('4155552671', w.otherLive)).body.data.onDncList).toBe(false)
    expect((await h.api('GET', '/dnc', { key: w.otherLive })).body.data).toEqual([])
    expect((await h.api('GET', '/dnc?search=2671', { key: w.otherLive })).body.data).toEqual([])
    // It can list the same number for itself.
    const r = await add('4155552671', w.otherLive)
    expect(r.status).toBe(201)
    expect((await h.api('GET', '/dnc', { key: w.live })).body.data.length).toBe(1)
  })

  test('a campaign-limited key sees the organization-wide list', async () => {
    const created = await add('4155552671')
    expect((await check('4155552671', w.scoped)).body.data.onDncList).toBe(true)
    expect((await h.api('GET', '/dnc', { key: w.scoped })).body.data).toEqual([created.body.data])
  })

  test('live and test lists are separate', async () => {
    await add('4155552671', w.live)
    expect((await check('4155552671', w.test)).body.data).toEqual({
      phone: '4155552671', normalizedPhone: '+14155552671', onDncList: false, livemode: false,
    })
    expect((await h.api('GET', '/dnc', { key: w.test })).body.data).toEqual([])
    const r = await add('4155552671', w.test)
    expect(r.status).toBe(201)
    expect(r.body.data.livemode).toBe(false)
  })
})
