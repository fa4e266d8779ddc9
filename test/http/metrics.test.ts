import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, seedWorld, type Harness, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** GET /metrics: Prometheus text behind the admin token (issue 6, operations). */
let h: Harness
let w: World

const scrape = (authorization?: string) => h.call('GET', '/metrics', { headers: authorization ? { authorization } : {} })

beforeAll(async () => {
  h = createHarness()
  w = await seedWorld(h)
  // Two leads in line (no dialing in this harness), one 404, one 401.
  for (const phone of ['+13125552001', '+13125552002']) {
    expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone } })).status).toBe(201)
  }
  await h.api('GET', '/leads/01a20000-0000-7000-8000-000000000000', { key: w.live })
  await h.api('GET', '/campaigns')
})
afterAll(() => h.close())

describe('GET /metrics', () => {
  test('needs the admin token', async () => {
    expect((await scrape()).status).toBe(401)
    expect((await scrape('Bearer not-the-token-at-all')).status).toBe(401)
    const keyAuth = await scrape(w.live.authorization)
    expect(keyAuth.status).toBe(401)
    expect(keyAuth.body.error.code).toBe('authentication_failed')
  })

  test('Prometheus text: requests by route pattern and status, a latency histogram, queue depth, calls up, webhook backlog', async () => {
    const r = await scrape(`Bearer ${ADMIN_TOKEN}`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toStartWith('text/plain; version=0.0.4')
    const text = r.text
    expect(text).toContain('# TYPE dialer_http_requests_total counter')
    expect(text).toContain('dialer_http_requests_total{method="POST",route="/api/v1/external/leads",status="201"} 2')
    // By route pattern, not by id.
    expect(text).toContain('dialer_http_requests_total{method="GET",route="/api/v1/external/leads/:id",status="404"} 1')
    expect(text).not.toContain('01a20000-0000-7000-8000-000000000000')
    // Answered before routing (the 401 of GET /campaigns and the refused scrapes above).
    expect(text).toContain('dialer_http_requests_total{method="GET",route="(unrouted)",status="401"} 4')
    // Admin routes by pattern too.
    expect(text).toContain('dialer_http_requests_total{method="POST",route="/api/v1/admin/orgs/:id/keys",status="201"} 4')
    expect(text).toContain('# TYPE dialer_http_request_duration_seconds histogram')
    expect(text).toMatch(/dialer_http_request_duration_seconds_bucket\{method="POST",route="\/api\/v1\/external\/leads",le="\+Inf"\} 2/)
    expect(text).toContain('dialer_http_request_duration_seconds_count{method="POST",route="/api/v1/external/leads"} 2')
    expect(text).toContain(`dialer_queue_depth{campaign_id="${w.campaignId}",mode="live"} 2`)
    expect(text).toContain('dialer_calls_up 0')
    // Per endpoint; this organization has none.
    expect(text).toContain('# TYPE dialer_webhook_backlog gauge')
    expect(text).not.toMatch(/^dialer_webhook_backlog/m)
    expect(text).toMatch(/process_resident_memory_bytes \d+/)
    // Every sample line is `name{labels} number`.
    for (const line of text.trim().split('\n')) {
      if (!line.startsWith('#')) expect(line).toMatch(/^[a-z_]+(\{[^}]*\})? -?[\d.e+-]+$/)
    }
  })

  test('histogram buckets are cumulative', async () => {
    const text = (await scrape(`Bearer ${ADMIN_TOKEN}`)).text
    const buckets = [...text.matchAll(/dialer_http_request_duration_seconds_bucket\{method="POST",route="\/api\/v1\/external\/leads",le="[^"]+"\} (\d+)/g)].map((m) => Number(m[1]))
    expect(buckets.length).toBe(14)
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!).toBeGreaterThanOrEqual(buckets[i - 1]!)
  })
})
