import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { migrations } from '../../src/db/migrations.generated'
import { RETRY_GAPS_MS } from '../../src/domain/webhooks/delivery-worker'
import { logger, maskSecrets, requestLevel } from '../../src/log'
import { ADMIN_TOKEN, basic, createHarness, scratchDir, seedWorld, type Harness, type TestKey, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Issue 15, item 5: the metrics an operator alerts on and the log lines they read. One harness
 * goes through calls, refused leads, every kind of 429, a failing webhook endpoint that gets
 * paused and job runs; then /metrics is checked (by `promtool check metrics` when the machine
 * has it) and the captured log is read for its event lines and for secrets.
 */

const DAY_S = 24 * 60 * 60
let h: Harness
let w: World
let text = ''
let log = ''
/** Secrets handed out during the run: none of them may reach the log. */
const secrets: string[] = [ADMIN_TOKEN]
const saved = { enabled: logger.enabled, capture: logger.capture, minLevel: logger.minLevel }

const lines = () => log.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>)
const events = (msg: string) => lines().filter((l) => l.msg === msg)
/** The value of one sample line, e.g. `dialer_calls_total{outcome="hung_up"}`. */
function sample(series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}
const scrape = async () => {
  const r = await h.call('GET', '/metrics', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  expect(r.status).toBe(200)
  return r.text
}

let failingServer: ReturnType<typeof Bun.serve> | null = null

beforeAll(async () => {
  logger.enabled = true
  logger.minLevel = 'info'
  logger.capture = (chunk) => {
    log += chunk
  }
  h = createHarness({ autoDial: true, env: { DIALER_WEBHOOK_ALLOW_PRIVATE: '1', DIALER_LOG_REQUESTS: '1', DIALER_AUTH_FAILURES_PER_MINUTE: '20' } })
  w = await seedWorld(h)
  for (const key of [w.live, w.test, w.scoped, w.otherLive]) secrets.push(key.secret)

  // A call that is up while scraped, then ends hung_up (scenario 09).
  expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+13125552109' } })).status).toBe(201)
  await h.advance(1)
  const during = await scrape()
  expect(during).toContain(`dialer_campaign_lines_in_use{campaign_id="${w.campaignId}",mode="live"} 1`)
  await h.advance(60)

  // Refused leads: on the DNC list, a bad number, a duplicate inside a batch; a dry run is not counted.
  expect((await h.api('POST', '/dnc', { key: w.live, body: { phone: '+13125552177' } })).status).toBe(201)
  expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+13125552177' } })).status).toBe(422)
  expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '12' } })).status).toBe(400)
  expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '12', dry_run: true } })).status).toBe(400)
  const batch = await h.api('POST', '/leads/batch', {
    key: w.live,
    body: { leads: [{ campaign_id: w.campaignId, phone: '+13125552201' }, { campaign_id: w.campaignId, phone: '+13125552201' }] },
  })
  expect(batch.status).toBe(200)

  // 429s: requests a minute, new leads a minute, failed authentications from one address.
  const slow: TestKey = await h.createKey(w.orgId, { name: 'slow', mode: 'live', requests_per_minute: 1, burst: 1 })
  const fewLeads: TestKey = await h.createKey(w.orgId, { name: 'few leads', mode: 'live', leads_per_minute: 1 })
  secrets.push(slow.secret, fewLeads.secret)
  await h.api('GET', '/campaigns', { key: slow })
  expect((await h.api('GET', '/campaigns', { key: slow })).status).toBe(429)
  expect((await h.api('POST', '/leads', { key: fewLeads, body: { campaign_id: w.campaignId, phone: '+13125552301' } })).status).toBe(201)
  expect((await h.api('POST', '/leads', { key: fewLeads, body: { campaign_id: w.campaignId, phone: '+13125552302' } })).status).toBe(429)
  const wrong = { id: w.live.id, secret: 'dks_wrong', authorization: basic(w.live.id, 'dks_wrong') }
  let limited = 0
  for (let i = 0; i < 21; i++) if ((await h.api('GET', '/campaigns', { key: wrong })).status === 429) limited++
  expect(limited).toBe(1)

  // A webhook endpoint that always fails: 7 tries, then past 24 h of failing it is paused.
  failingServer = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('down', { status: 503 }) })
  const endpoint = await h.api('POST', '/webhook_endpoints', {
    key: w.live, body: { url: `http://127.0.0.1:${failingServer.port}/hook?token=do-not-log-me`, events: ['lead.created'] },
  })
  expect(endpoint.status).toBe(201)
  secrets.push(endpoint.body.data.secret, 'do-not-log-me')
  expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+13125552401' } })).status).toBe(201)
  await h.services.deliveries.drain()
  let elapsed = 0
  for (const gap of RETRY_GAPS_MS) {
    await h.advance(gap / 1000)
    elapsed += gap / 1000
    await h.services.deliveries.drain()
  }
  await h.advance(DAY_S - elapsed)
  expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+13125552402' } })).status).toBe(201)
  await h.services.deliveries.drain()
  expect((await h.api('GET', `/webhook_endpoints/${endpoint.body.data.id}`, { key: w.live })).body.data.status).toBe('paused')
  // Paused: a new event's delivery is skipped at once.
  expect((await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+13125552403' } })).status).toBe(201)
  await h.services.deliveries.drain()

  // Job runs: one by the admin API, one that fails.
  expect((await h.admin('POST', '/jobs/late_sweep/run')).status).toBe(200)
  h.services.scheduler.every({ name: 'always_fails', pattern: '0 0 0 1 1 *', run: () => { throw new Error('broken on purpose') } })
  expect(await h.services.scheduler.runNow('always_fails')).toBe(true)

  text = await scrape()
  logger.flush()
})

afterAll(() => {
  h?.close()
  failingServer?.stop(true)
  logger.flush()
  Object.assign(logger, saved)
})

describe('GET /metrics after activity', () => {
  test('promtool check metrics finds nothing to fix (skipped when promtool is not installed)', async () => {
    const promtool = Bun.which('promtool')
    if (!promtool) {
      console.log('note: promtool is not installed; the promtool check was skipped (structural checks still run)')
      return
    }
    const dir = scratchDir('dialer-metrics-')
    try {
      const file = join(dir.path, 'metrics.txt')
      writeFileSync(file, text)
      const proc = Bun.spawnSync([promtool, 'check', 'metrics'], { stdin: Bun.file(file), stdout: 'pipe', stderr: 'pipe' })
      const output = `${proc.stdout.toString()}${proc.stderr.toString()}`
      expect(output).toBe('')
      expect(proc.exitCode).toBe(0)
    } finally {
      dir.remove()
    }
  })

  test('every family has HELP and TYPE once, counters end in _total, every sample belongs to a family declared before it', () => {
    const types = new Map<string, string>()
    const helps = new Set<string>()
    const seen = new Set<string>()
    for (const line of text.trimEnd().split('\n')) {
      const help = /^# HELP ([a-z_:][a-z0-9_:]*) \S/.exec(line)
      const type = /^# TYPE ([a-z_:][a-z0-9_:]*) (counter|gauge|histogram)$/.exec(line)
      if (help) {
        expect(helps.has(help[1]!)).toBe(false)
        helps.add(help[1]!)
        continue
      }
      if (type) {
        expect(types.has(type[1]!)).toBe(false)
        expect(helps.has(type[1]!)).toBe(true)
        types.set(type[1]!, type[2]!)
        continue
      }
      expect(line).toMatch(/^[a-z_:][a-z0-9_:]*(\{([a-z_]+="([^"\\\n]|\\.)*",?)*\})? -?(\d+(\.\d+)?(e[+-]?\d+)?|\+Inf|NaN)$/)
      // The same series twice would be a bug (promtool does not catch it).
      const series = line.slice(0, line.lastIndexOf(' '))
      expect(seen.has(series)).toBe(false)
      seen.add(series)
      const name = /^[a-z_:][a-z0-9_:]*/.exec(line)![0]
      const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '')
      expect(types.has(family)).toBe(true)
      if (family !== name) expect(types.get(family)).toBe('histogram')
    }
    for (const [name, type] of types) {
      if (type === 'counter') expect(name).toEndWith('_total')
      else expect(name.endsWith('_total')).toBe(false)
    }
    expect(helps.size).toBe(types.size)
    // What the issue asks for, each present.
    for (const name of [
      'dialer_campaign_lines_in_use', 'dialer_campaign_lines', 'dialer_calls_total', 'dialer_intake_refusals_total', 'dialer_rate_limited_total',
      'dialer_webhook_backlog', 'dialer_webhook_deliveries_total', 'dialer_sqlite_wal_bytes', 'dialer_sqlite_commit_seconds',
      'dialer_job_last_run_timestamp_seconds', 'dialer_job_duration_seconds', 'dialer_job_failures_total', 'process_start_time_seconds', 'dialer_build_info',
      'dialer_http_requests_total', 'dialer_http_request_duration_seconds', 'dialer_queue_depth',
    ]) expect(types.has(name)).toBe(true)
  })

  test('histograms: buckets cumulative, +Inf equals _count', () => {
    for (const family of ['dialer_sqlite_commit_seconds', 'dialer_http_request_duration_seconds']) {
      const bySeries = new Map<string, number[]>()
      for (const m of text.matchAll(new RegExp(`^${family}_bucket\\{(.*?)le="([^"]+)"\\} (\\d+)$`, 'gm'))) {
        const key = m[1]!
        bySeries.set(key, [...(bySeries.get(key) ?? []), Number(m[3])])
      }
      expect(bySeries.size).toBeGreaterThan(0)
      for (const [key, counts] of bySeries) {
        for (let i = 1; i < counts.length; i++) expect(counts[i]!).toBeGreaterThanOrEqual(counts[i - 1]!)
        const labels = key.replace(/,$/, '')
        expect(sample(`${family}_count${labels ? `{${labels}}` : ''}`)).toBe(counts.at(-1)!)
      }
    }
    expect(sample('dialer_sqlite_commit_seconds_count')).toBeGreaterThan(0)
  })

  test('calls by outcome, lines and lines in use per campaign', async () => {
    expect(sample('dialer_calls_total{outcome="hung_up"}')).toBeGreaterThanOrEqual(1)
    // Every outcome is there from the start (0 until seen).
    expect(sample('dialer_calls_total{outcome="language_barrier"}')).toBeNumber()
    const campaign = (await h.admin('GET', `/campaigns/${w.campaignId}`)).body.data
    expect(sample(`dialer_campaign_lines{campaign_id="${w.campaignId}"}`)).toBe(campaign.lines)
    expect(sample(`dialer_campaign_lines_in_use{campaign_id="${w.campaignId}",mode="test"}`)).toBe(0)
    // The draft campaign has no lines to show.
    expect(text).not.toContain(`campaign_id="${w.draftCampaignId}"`)
  })

  test('intake refusals by code and 429s by reason', () => {
    expect(sample('dialer_intake_refusals_total{code="on_dnc_list"}')).toBe(1)
    // The dry run with the same bad number is not counted.
    expect(sample('dialer_intake_refusals_total{code="invalid_phone"}')).toBe(1)
    expect(sample('dialer_intake_refusals_total{code="duplicate_lead"}')).toBe(1)
    expect(sample('dialer_intake_refusals_total{code="lead_rate_limited"}')).toBe(1)
    expect(sample('dialer_rate_limited_total{reason="rate_limited"}')).toBe(1)
    expect(sample('dialer_rate_limited_total{reason="lead_rate_limited"}')).toBe(1)
    expect(sample('dialer_rate_limited_total{reason="authentication_failures"}')).toBe(1)
    expect(sample('dialer_rate_limited_total{reason="too_many_concurrent_requests"}')).toBe(0)
    // Every 429 answered has its reason counted.
    const answered = [...text.matchAll(/^dialer_http_requests_total\{[^}]*status="429"\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0)
    const byReason = [...text.matchAll(/^dialer_rate_limited_total\{[^}]*\} (\d+)$/gm)].reduce((n, m) => n + Number(m[1]), 0)
    expect(byReason).toBe(answered)
  })

  test('webhook deliveries by result and backlog per endpoint', async () => {
    expect(sample('dialer_webhook_deliveries_total{result="failed"}')).toBeGreaterThanOrEqual(7)
    expect(sample('dialer_webhook_deliveries_total{result="gave_up"}')).toBe(1)
    expect(sample('dialer_webhook_deliveries_total{result="sent"}')).toBe(0)
    expect(sample('dialer_webhook_deliveries_total{result="skipped_paused"}')).toBe(1)
    const [endpoint] = (await h.api('GET', '/webhook_endpoints', { key: w.live })).body.data
    // The delivery that paused the endpoint still has a retry due.
    expect(sample(`dialer_webhook_backlog{endpoint_id="${endpoint.id}"}`)).toBe(1)
  })

  test('jobs: last run, duration, failures; the process and the build', () => {
    const now = h.services.clock.now() / 1000
    expect(sample('dialer_job_last_run_timestamp_seconds{job="late_sweep"}')).toBeCloseTo(now, -3)
    expect(sample('dialer_job_duration_seconds{job="late_sweep"}')).toBeGreaterThanOrEqual(0)
    expect(sample('dialer_job_failures_total{job="late_sweep"}')).toBe(0)
    expect(sample('dialer_job_failures_total{job="always_fails"}')).toBe(1)
    // Known jobs that have not run yet show 0 failures and no last run.
    expect(sample('dialer_job_failures_total{job="export_cleanup"}')).toBeNumber()
    const start = sample('process_start_time_seconds')!
    expect(Math.abs(start - (Date.now() / 1000 - process.uptime()))).toBeLessThan(5)
    expect(text).toMatch(/^dialer_build_info\{version="\d+\.\d+\.\d+[^"]*"\} 1$/m)
    // In memory: no WAL file.
    expect(sample('dialer_sqlite_wal_bytes')).toBe(0)
  })
})

describe('the log', () => {
  test('migrations applied on start, one line each', () => {
    const applied = events('migration_applied')
    expect(applied.map((l) => l.migration)).toEqual(migrations.map((m) => m.tag))
    for (const line of applied) expect(line.duration_ms).toBeNumber()
  })

  test('request lines: info for 2xx, warn for 4xx and 429, error for 5xx', () => {
    const requests = events('request')
    const levels = new Map<number, Set<string>>()
    for (const r of requests) levels.set(r.status, (levels.get(r.status) ?? new Set()).add(r.level))
    expect([...levels.get(200)!]).toEqual(['info'])
    expect([...levels.get(201)!]).toEqual(['info'])
    expect([...levels.get(401)!]).toEqual(['warn'])
    expect([...levels.get(422)!]).toEqual(['warn'])
    expect([...levels.get(429)!]).toEqual(['warn'])
    expect([requestLevel(500), requestLevel(503), requestLevel(404), requestLevel(304), requestLevel(204)]).toEqual(['error', 'error', 'warn', 'info', 'info'])
  })

  test('webhook delivery failures and the auto-pause', async () => {
    const [endpoint] = (await h.api('GET', '/webhook_endpoints', { key: w.live })).body.data
    const failures = events('webhook_delivery_failed')
    expect(failures.length).toBeGreaterThanOrEqual(8)
    expect(failures[0]).toMatchObject({ level: 'warn', endpoint_id: endpoint.id, attempt: 1, reason: 'http_status', http_status: 503, gave_up: false })
    expect(failures[0]!.delivery_id).toStartWith('wd_')
    expect(failures[0]!.next_attempt_at).toMatch(/^\d{4}-\d\d-\d\dT/)
    expect(failures.find((f) => f.attempt === 7)).toMatchObject({ gave_up: true, next_attempt_at: null })
    const paused = events('webhook_endpoint_paused')
    expect(paused).toHaveLength(1)
    expect(paused[0]).toMatchObject({ level: 'warn', endpoint_id: endpoint.id, org_id: w.orgId })
    expect(paused[0]!.paused_at).toBe(endpoint.paused_at)
  })

  test('job runs: name, duration, result', () => {
    const runs = events('job_run')
    expect(runs.find((r) => r.job === 'late_sweep')).toMatchObject({ level: 'info', result: 'ok' })
    const failed = runs.find((r) => r.job === 'always_fails')!
    expect(failed).toMatchObject({ level: 'error', result: 'failed' })
    expect(failed.error).toContain('broken on purpose')
    for (const r of runs) expect(r.duration_ms).toBeNumber()
  })

  test('no secret reaches the log: key secrets, the admin token, webhook secrets, the webhook URL', () => {
    expect(log.length).toBeGreaterThan(1000)
    for (const secret of secrets) expect(log).not.toContain(secret)
    expect(log).not.toMatch(/\b(dks|dat|whsec)_[A-Za-z0-9]{8,}/)
    expect(log.toLowerCase()).not.toContain('authorization')
  })

  test('anything shaped like a secret is masked in free-form fields', () => {
    expect(maskSecrets('key dks_abcDEF123-_x and dat_zzz, whsec_AAAA+/==.')).toBe('key dks_[redacted] and dat_[redacted], whsec_[redacted].')
    const before = log.length
    logger.error('test_line', { error: 'failed with secret dks_abcdefghijklmnop for +13125552199' })
    logger.flush()
    const line = events('test_line')[0]!
    expect(log.length).toBeGreaterThan(before)
    expect(line.error).toBe('failed with secret dks_[redacted] for +*********99')
  })

  test('DIALER_LOG_LEVEL filters request lines by their level', () => {
    const before = log.length
    logger.minLevel = 'warn'
    try {
      for (const status of [200, 404, 500]) logger.request({ request_id: 'req_x', method: 'GET', route: '/x', status, key_id: null, duration_ms: 1 })
      logger.flush()
    } finally {
      logger.minLevel = 'info'
    }
    const added = log.slice(before).trim().split('\n').map((l) => JSON.parse(l)).filter((l) => l.request_id === 'req_x')
    expect(added.map((l) => [l.status, l.level])).toEqual([[404, 'warn'], [500, 'error']])
  })
})
