import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, basic, createHarness, seedWorld, type Harness, type Reply, type TestKey, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Request-Id and RateLimit-* headers, per-key window and burst, the organization's plan,
 * simultaneous requests and the failed-authentication limit (spec "Limits"; DESIGN.md
 * "Rate limits", "Contract details").
 *
 * The gateway gives a concurrency slot back once the reply exists. Loops of requests on
 * one key still `settle()` between requests, as a real client would have by the time its
 * next request arrives, so no test depends on the exact turn the slot comes back in.
 */

const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

function expectRateLimitHeaders(r: Reply) {
  expect(r.headers.get('request-id')).toMatch(/^req_[0-9a-f]+$/)
  expect(r.headers.get('ratelimit-limit')).toMatch(/^\d+$/)
  expect(r.headers.get('ratelimit-remaining')).toMatch(/^\d+$/)
  expect(r.headers.get('ratelimit-reset')).toMatch(/^\d+$/)
  const reset = Number(r.headers.get('ratelimit-reset'))
  expect(reset).toBeGreaterThanOrEqual(1)
  expect(reset).toBeLessThanOrEqual(60)
}

/** A 429 in the envelope, with a Retry-After of whole seconds above zero. */
function expect429(r: Reply, code: string) {
  expect(r.status).toBe(429)
  expect(r.body.error).toMatchObject({ type: 'rate_limit_error', code, param: null })
  expect(r.body.error.request_id).toBe(r.headers.get('request-id'))
  const retryAfter = r.headers.get('retry-after')
  expect(retryAfter).toMatch(/^\d+$/)
  expect(Number(retryAfter)).toBeGreaterThan(0)
}

async function newOrg(h: Harness, plan: number): Promise<string> {
  const org = await h.admin('POST', '/orgs', { name: `Plan ${plan}`, plan_requests_per_minute: plan })
  if (org.status !== 201) throw new Error(org.text)
  return org.body.data.id
}

/** A POST /dnc whose body does not finish until `release()` is called. */
function heldPost(h: Harness, key: TestKey, json: string, headers: Record<string, string> = {}) {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
  })
  const response = h.app.handle(
    new Request('http://localhost/api/v1/external/dnc', {
      method: 'POST',
      headers: { authorization: key.authorization, 'content-type': 'application/json', ...headers },
      body,
    }),
  )
  return {
    response,
    release() {
      controller.enqueue(new TextEncoder().encode(json))
      controller.close()
    },
  }
}

describe('headers on every authenticated reply', () => {
  let h: Harness
  let w: World
  let readOnly: TestKey
  beforeAll(async () => {
    h = createHarness()
    w = await seedWorld(h)
    readOnly = await h.createKey(w.orgId, { name: 'reader', mode: 'live', permissions: ['dnc:read'], requests_per_minute: 100000, burst: 100000 })
  })
  afterAll(() => h.close())

  test.each([
    ['200', 'GET', '/campaigns', 200],
    ['200 list', 'GET', '/dnc', 200],
    ['400', 'GET', '/dnc?limit=0', 400],
    ['404 object', 'GET', '/campaigns/01a20346-6763-7797-a0d9-bef564844c54', 404],
    ['404 endpoint', 'GET', '/no-such-endpoint', 404],
  ])('%s: %s %s', async (_label, method, path, status) => {
    const r = await h.api(method, path, { key: w.live })
    expect(r.status).toBe(status)
    expectRateLimitHeaders(r)
    if (status >= 400) expect(r.body.error.request_id).toBe(r.headers.get('request-id'))
  })

  test('201 from a write', async () => {
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552621' } })
    expect(r.status).toBe(201)
    expectRateLimitHeaders(r)
  })

  test('409 from a write', async () => {
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552621' } })
    expect(r.status).toBe(409)
    expect(r.body.error.code).toBe('duplicate_dnc_entry')
    expectRateLimitHeaders(r)
  })

  test('403 permission_denied', async () => {
    const r = await h.api('GET', '/campaigns', { key: readOnly })
    expect(r.status).toBe(403)
    expectRateLimitHeaders(r)
    expect(r.body.error.request_id).toBe(r.headers.get('request-id'))
  })

  test('401 replies carry Request-Id and the failed-authentication limit', async () => {
    const r = await h.api('GET', '/campaigns')
    expect(r.status).toBe(401)
    expectRateLimitHeaders(r)
  })

  test('every reply has its own Request-Id', async () => {
    const a = await h.api('GET', '/campaigns', { key: w.live })
    const b = await h.api('GET', '/campaigns', { key: w.live })
    expect(a.headers.get('request-id')).not.toBe(b.headers.get('request-id'))
  })
})

describe('RateLimit-Limit is the tighter of key and plan', () => {
  let h: Harness
  let orgId: string
  let loose: TestKey
  let tight: TestKey
  beforeAll(async () => {
    h = createHarness()
    orgId = await newOrg(h, 150)
    loose = await h.createKey(orgId, { name: 'loose', mode: 'live', requests_per_minute: 1000, burst: 1000 })
    tight = await h.createKey(orgId, { name: 'tight', mode: 'live', requests_per_minute: 130, burst: 100 })
  })
  afterAll(() => h.close())

  test('key tighter than plan: the key limit; Remaining counts this request', async () => {
    const r = await h.api('GET', '/campaigns', { key: tight })
    expect(r.status).toBe(200)
    expect(r.headers.get('ratelimit-limit')).toBe('130')
    expect(r.headers.get('ratelimit-remaining')).toBe('129')
  })

  test('plan tighter than key: the plan limit; Remaining counts every key of the organization', async () => {
    await settle()
    const r = await h.api('GET', '/campaigns', { key: loose })
    expect(r.status).toBe(200)
    expect(r.headers.get('ratelimit-limit')).toBe('150')
    expect(r.headers.get('ratelimit-remaining')).toBe('148')
  })

  test('Remaining goes down by one a request', async () => {
    await settle()
    const r = await h.api('GET', '/campaigns', { key: tight })
    expect(r.headers.get('ratelimit-remaining')).toBe('128')
  })

  test('RateLimit-Reset counts down with the service clock', async () => {
    await settle()
    const before = Number((await h.api('GET', '/campaigns', { key: tight })).headers.get('ratelimit-reset'))
    expect(before).toBe(60)
    await h.advance(15)
    await settle()
    const after = await h.api('GET', '/campaigns', { key: tight })
    expect(Number(after.headers.get('ratelimit-reset'))).toBe(45)
  })

  test('a plan change applies: PATCH /orgs/{id} to 125 makes the plan the tighter', async () => {
    const patch = await h.admin('PATCH', `/orgs/${orgId}`, { plan_requests_per_minute: 125 })
    expect(patch.status).toBe(200)
    await settle()
    const r = await h.api('GET', '/campaigns', { key: tight })
    expect(r.headers.get('ratelimit-limit')).toBe('125')
  })
})

describe('per-key requests a minute', () => {
  let h: Harness
  let key: TestKey
  let other: TestKey
  beforeAll(async () => {
    h = createHarness()
    const orgId = await newOrg(h, 100000)
    key = await h.createKey(orgId, { name: 'five', mode: 'live', requests_per_minute: 5, burst: 100 })
    other = await h.createKey(orgId, { name: 'other', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  })
  afterAll(() => h.close())

  test('5 requests pass, Remaining 4..0', async () => {
    for (let i = 0; i < 5; i++) {
      const r = await h.api('GET', '/campaigns', { key })
      expect(r.status).toBe(200)
      expect(r.headers.get('ratelimit-limit')).toBe('5')
      expect(r.headers.get('ratelimit-remaining')).toBe(String(4 - i))
      await settle()
    }
  })

  test('the 6th is 429 rate_limited with Retry-After and RateLimit-* headers', async () => {
    const r = await h.api('GET', '/campaigns', { key })
    expect429(r, 'rate_limited')
    expectRateLimitHeaders(r)
    expect(r.headers.get('ratelimit-remaining')).toBe('0')
    expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(60)
    await settle()
  })

  test('writes are refused too, and do not run', async () => {
    const r = await h.api('POST', '/dnc', { key, body: { phone: '+14155552631' } })
    expect429(r, 'rate_limited')
    await settle()
    const check = await h.api('GET', '/dnc/check?phone=%2B14155552631', { key: other })
    expect(check.body.data.onDncList).toBe(false)
  })

  test('another key of the same organization is not limited by it', async () => {
    await settle()
    expect((await h.api('GET', '/campaigns', { key: other })).status).toBe(200)
  })

  test('works again after the minute (h.advance(60))', async () => {
    await h.advance(60)
    await settle()
    const r = await h.api('GET', '/campaigns', { key })
    expect(r.status).toBe(200)
    expect(r.headers.get('ratelimit-remaining')).toBe('4')
  })
})

describe('per-key burst', () => {
  let h: Harness
  let key: TestKey
  beforeAll(async () => {
    h = createHarness()
    const orgId = await newOrg(h, 100000)
    key = await h.createKey(orgId, { name: 'burst 3', mode: 'live', requests_per_minute: 600, burst: 3 })
  })
  afterAll(() => h.close())

  test('3 immediate requests pass, the 4th is 429 rate_limited', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
      await settle()
    }
    const r = await h.api('GET', '/campaigns', { key })
    expect429(r, 'rate_limited')
    expect(r.headers.get('ratelimit-limit')).toBe('600')
    await settle()
  })

  test('after one second (10 a second refill) it works again', async () => {
    await h.advance(1)
    await settle()
    expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
  })

  test('the bucket holds at most `burst` tokens: after a long wait, 3 pass and the 4th is refused', async () => {
    await h.advance(30)
    for (let i = 0; i < 3; i++) {
      await settle()
      expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
    }
    await settle()
    expect429(await h.api('GET', '/campaigns', { key }), 'rate_limited')
  })
})

describe("organization's plan requests a minute", () => {
  let h: Harness
  let a: TestKey
  let b: TestKey
  let elsewhere: TestKey
  beforeAll(async () => {
    h = createHarness()
    const orgId = await newOrg(h, 120)
    a = await h.createKey(orgId, { name: 'a', mode: 'live', requests_per_minute: 100000, burst: 100000, max_concurrent: 50 })
    b = await h.createKey(orgId, { name: 'b', mode: 'test', requests_per_minute: 100000, burst: 100000, max_concurrent: 50 })
    const otherOrg = await newOrg(h, 120)
    elsewhere = await h.createKey(otherOrg, { name: 'elsewhere', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  })
  afterAll(() => h.close())

  test('two keys share 120 a minute: 120 pass, the 121st is 429 rate_limited', async () => {
    for (let i = 0; i < 120; i++) {
      const r = await h.api('GET', '/campaigns', { key: i % 2 === 0 ? a : b })
      expect(r.status).toBe(200)
      expect(r.headers.get('ratelimit-limit')).toBe('120')
      expect(r.headers.get('ratelimit-remaining')).toBe(String(119 - i))
      await settle()
    }
    const r = await h.api('GET', '/campaigns', { key: a })
    expect429(r, 'rate_limited')
    expect(r.headers.get('ratelimit-remaining')).toBe('0')
    await settle()
    expect429(await h.api('GET', '/campaigns', { key: b }), 'rate_limited')
    await settle()
  })

  test("another organization's key is not affected", async () => {
    expect((await h.api('GET', '/campaigns', { key: elsewhere })).status).toBe(200)
  })

  test('the next minute the organization can call again', async () => {
    await h.advance(60)
    await settle()
    expect((await h.api('GET', '/campaigns', { key: b })).status).toBe(200)
  })
})

describe('simultaneous requests per key', () => {
  let h: Harness
  let key: TestKey
  let other: TestKey
  beforeAll(async () => {
    h = createHarness()
    const orgId = await newOrg(h, 100000)
    key = await h.createKey(orgId, { name: 'one at a time', mode: 'live', max_concurrent: 1, requests_per_minute: 100000, burst: 100000 })
    other = await h.createKey(orgId, { name: 'other', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  })
  afterAll(() => h.close())

  test('a request whose body is still arriving holds the slot: the next is 429 too_many_concurrent_requests', async () => {
    const first = heldPost(h, key, JSON.stringify({ phone: '+14155552641' }))
    const second = await h.api('GET', '/campaigns', { key })
    expect429(second, 'too_many_concurrent_requests')

    // Another key is not held up by it.
    expect((await h.api('GET', '/campaigns', { key: other })).status).toBe(200)

    first.release()
    const done = await first.response
    expect(done.status).toBe(201)
    expect(((await done.json()) as { data: { phone: string } }).data.phone).toBe('+14155552641')
    await settle()

    const third = await h.api('GET', '/dnc', { key })
    expect(third.status).toBe(200)
    expect(third.body.data.map((e: { phone: string }) => e.phone)).toEqual(['+14155552641'])
  })

  test('an error reply gives the slot back too', async () => {
    await settle()
    const bad = await h.api('POST', '/dnc', { key, body: { phone: 123 } })
    expect(bad.status).toBe(400)
    await settle()
    const notFound = await h.api('GET', '/campaigns/01a20346-6763-7797-a0d9-bef564844c54', { key })
    expect(notFound.status).toBe(404)
    await settle()
    expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
  })

  test('a 429 too_many_concurrent_requests does not take a slot of its own', async () => {
    await settle()
    const first = heldPost(h, key, JSON.stringify({ phone: '+14155552642' }))
    for (let i = 0; i < 3; i++) expect429(await h.api('GET', '/campaigns', { key }), 'too_many_concurrent_requests')
    first.release()
    expect((await first.response).status).toBe(201)
    await settle()
    expect((await h.api('GET', '/campaigns', { key })).status).toBe(200)
  })

  // Regression test (found while writing the suite; fixed in src).
  test('the 429 too_many_concurrent_requests reply carries RateLimit-* headers', async () => {
    await settle()
    const first = heldPost(h, key, JSON.stringify({ phone: '+14155552643' }))
    const r = await h.api('GET', '/campaigns', { key })
    first.release()
    await first.response
    await settle()
    expect429(r, 'too_many_concurrent_requests')
    expectRateLimitHeaders(r)
  })
})

describe('failed-authentication limit (20 a minute per address)', () => {
  let h: Harness
  let key: TestKey
  beforeAll(async () => {
    h = createHarness({ env: { DIALER_AUTH_FAILURES_PER_MINUTE: '20' } })
    const orgId = await newOrg(h, 100000)
    key = await h.createKey(orgId, { name: 'good', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  })
  afterAll(() => h.close())

  test('20 bad requests give 401, counting down the failed-auth limit', async () => {
    for (let i = 0; i < 20; i++) {
      const headers = { authorization: i % 2 === 0 ? basic(key.id, 'dks_wrong') : 'Basic !!!' }
      const r = await h.api('GET', '/campaigns', { headers })
      expect(r.status).toBe(401)
      expect(r.body.error.code).toBe('authentication_failed')
      expect(r.headers.get('ratelimit-limit')).toBe('20')
      expect(r.headers.get('ratelimit-remaining')).toBe(String(19 - i))
    }
  })

  // Issue 14: valid credentials are checked first and never refused for others' failures
  // (many clients share one address behind a proxy); only further failures get 429.
  test('over the budget, a valid key from the same address still works', async () => {
    const r = await h.api('GET', '/campaigns', { key })
    expect(r.status).toBe(200)
  })

  test('the 21st bad one is 429 rate_limited (not 401)', async () => {
    const r = await h.api('GET', '/campaigns', { headers: { authorization: basic(key.id, 'dks_wrong') } })
    expect429(r, 'rate_limited')
    expect(r.headers.get('ratelimit-remaining')).toBe('0')
    expect(r.body.error.code).toBe('rate_limited')
  })

  test('a missing admin token counts with failed keys (429 here); tried admin tokens have their own budget, so a wrong one is 401 and the right one works', async () => {
    expect429(await h.call('GET', '/metrics'), 'rate_limited')
    expect((await h.call('GET', '/api/v1/admin/orgs', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401)
    expect((await h.admin('GET', '/orgs')).status).toBe(200)
  })

  test('after the minute (h.advance(60)) a valid key works', async () => {
    await h.advance(60)
    const r = await h.api('GET', '/campaigns', { key })
    expect(r.status).toBe(200)
  })

  test('and a bad key is 401 again, not 429', async () => {
    const r = await h.api('GET', '/campaigns', { headers: { authorization: basic(key.id, 'dks_wrong') } })
    expect(r.status).toBe(401)
  })
})

describe('tried admin tokens: over the address’s or the token’s own budget, the right one is refused too', () => {
  let h: Harness
  beforeAll(() => {
    h = createHarness({ env: { DIALER_AUTH_FAILURES_PER_MINUTE: '20', DIALER_TRUST_PROXY: '1' } })
  })
  afterAll(() => h.close())
  const bearer = (token: string, from: string) => h.call('GET', '/api/v1/admin/orgs', { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from } })

  test('10 wrong tokens are 401 counting down the address budget; the 11th, and then the right one from any address, are 429 for 15 minutes', async () => {
    for (let i = 0; i < 10; i++) {
      const r = await bearer(`wrong-admin-token-${i}`, '198.51.100.7')
      expect(r.status).toBe(401)
      expect(r.body.error.code).toBe('authentication_failed')
      expect(r.headers.get('ratelimit-remaining')).toBe(String(19 - i))
    }
    const limited = await bearer('wrong-admin-token-x', '198.51.100.7')
    expect429(limited, 'rate_limited')
    expect(limited.body.error.reason).toBe('account_failures')
    expect(limited.headers.get('retry-after')).toBe('900')
    expect429(await bearer(ADMIN_TOKEN, '198.51.100.7'), 'rate_limited')
    expect429(await bearer(ADMIN_TOKEN, '203.0.113.1'), 'rate_limited')
    await h.services.fakeScheduler!.advanceTo(h.services.clock.now() + 15 * 60_000)
    expect((await bearer(ADMIN_TOKEN, '203.0.113.1')).status).toBe(200)
  })

  test('the address budget: 20 tokens tried a minute from one address, then even the right one is 429 until the minute turns; a right one never counts', async () => {
    await h.services.fakeScheduler!.advanceTo(h.services.clock.now() + 15 * 60_000)
    for (let i = 0; i < 50; i++) expect((await bearer(ADMIN_TOKEN, '198.51.100.8')).status).toBe(200)
    // 9 wrong tokens stay under the token's own budget of 10.
    for (let i = 0; i < 9; i++) expect((await bearer(`wrong-${i}`, '198.51.100.8')).status).toBe(401)
    // The rest of the address's 20 go to console sign-ins (the same budget).
    for (let i = 0; i < 11; i++) {
      const r = await h.call('POST', '/console/api/session', { body: { email: `n${i}@example.com`, password: 'x' }, headers: { 'x-forwarded-for': '198.51.100.8' } })
      expect(r.status).toBe(401)
    }
    const refused = await bearer(ADMIN_TOKEN, '198.51.100.8')
    expect429(refused, 'rate_limited')
    expect(refused.body.error.reason).toBe('authentication_failures')
    expect((await bearer(ADMIN_TOKEN, '198.51.100.9')).status).toBe(200)
    await h.services.fakeScheduler!.advanceTo(h.services.clock.now() + 60_000)
    expect((await bearer(ADMIN_TOKEN, '198.51.100.8')).status).toBe(200)
  })
})

describe('behind trusted proxies (DIALER_TRUST_PROXY=N), the client is N hops from the right of X-Forwarded-For', () => {
  let h: Harness
  let key: TestKey
  beforeAll(async () => {
    h = createHarness({ env: { DIALER_AUTH_FAILURES_PER_MINUTE: '20', DIALER_TRUST_PROXY: '1' } })
    const orgId = await newOrg(h, 100000)
    key = await h.createKey(orgId, { name: 'good', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  })
  afterAll(() => h.close())

  const bad = (forwardedFor: string) =>
    h.api('GET', '/campaigns', { headers: { authorization: basic(key.id, 'dks_wrong'), 'x-forwarded-for': forwardedFor } })

  test('an attacker who writes the victim into X-Forwarded-For is counted as itself', async () => {
    // The proxy appends the address it saw (203.0.113.66) after whatever the client sent.
    for (let i = 0; i < 20; i++) expect((await bad('198.51.100.7, 203.0.113.66')).status).toBe(401)
    expect429(await bad('198.51.100.7, 203.0.113.66'), 'rate_limited')
    // Changing the forged left part changes nothing: still the same address, still 429.
    expect429(await bad(`10.0.0.${Math.floor(Math.random() * 200)}, 203.0.113.66`), 'rate_limited')
  })

  test('the victim, whose address the attacker wrote, is not locked out', async () => {
    expect((await bad('198.51.100.7')).status).toBe(401)
    const ok = await h.api('GET', '/campaigns', { key, headers: { 'x-forwarded-for': '203.0.113.66' } })
    expect(ok.status).toBe(200)
  })
})
