/**
 * Usage and exports benchmark (issue 6 "Speed"):
 *   - with 1,000,000 calls and 5,000,000 requests recorded, GET /usage p99 under 20 ms;
 *   - the 5-minute usage count job under 2 s;
 *   - a 1,000,000-row leads export finishes in under 20 s with peak RSS under 300 MB.
 *
 *   bun run scripts/bench/usage.ts [--calls 1000000] [--requests 5000000] [--seconds 10]
 *     [--rounds 3] [--connections 16]
 *
 * How:
 *   - The service (`bun run src/main.ts serve`, request log on as shipped) makes 10
 *     organizations with 30 campaigns and 30 keys each through the admin API, then stops.
 *   - The first organization gets `--calls` leads and one ended call each, written straight
 *     into SQLite, spread from the start of this month (New York) to an hour ago, with a
 *     realistic outcome mix. `--requests` API requests are recorded as the count job writes
 *     them: per key and day rows of usage_daily (the service tallies requests in memory and
 *     the count adds them up; GET /usage reads only those rollups).
 *   - Count job: POST /api/v1/admin/jobs/usage_count/run, timed by the service (duration_ms):
 *     first over everything at once (all 1,000,000 calls and leads never counted: far more
 *     than 5 minutes' worth), then in steady state after the GET /usage load.
 *   - GET /usage: wrk, `--connections` connections, the first organization's 30 keys, period
 *     current and each group_by in turn; median of `--rounds` rounds.
 *   - Export: the service restarted (so its peak RSS is the export's), POST /exports leads
 *     for the 1,000,000 leads, GET /exports polled until ready; the file is downloaded through
 *     its signed link and its lines counted. RSS is sampled from /proc every 50 ms.
 */
import { Database } from 'bun:sqlite'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import {
  ADMIN_TOKEN, adminClient, basicAuth, bulkClose, bulkOpen, type Child, dropIndexes, medianBy, memoryOf, requireWrk, rotatingGets, runWrk,
  startService, stop, fmt, log, verdict,
} from './lib'

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '1000000' },
    requests: { type: 'string', default: '5000000' },
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
  },
})
const callCount = Number(values.calls)
const requestCount = Number(values.requests)
const seconds = Number(values.seconds)
const rounds = Number(values.rounds)
const connections = Number(values.connections)
const ORGS = 10
const CAMPAIGNS = 30
const KEYS = 30
const RATE = 0.12

requireWrk()
const work = mkdtempSync(join(tmpdir(), 'dialer-bench-usage-'))
const dataDir = join(work, 'data')
mkdirSync(dataDir)
const dbPath = join(dataDir, 'dialer.db')
const procs: Child[] = []

/** 00:00 on the first of this month in New York, as unix ms. */
function monthStartNewYork(now: number): number {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit' }).formatToParts(new Date(now))
  const y = Number(parts.find((p) => p.type === 'year')!.value)
  const m = Number(parts.find((p) => p.type === 'month')!.value)
  // Midnight in New York is 04:00 or 05:00 UTC; take the later and step back if it is already the 1st.
  for (const hour of [4, 5]) {
    const at = Date.UTC(y, m - 1, 1, hour)
    const local = new Intl.DateTimeFormat('en-GB', { timeZone: 'America/New_York', hour: '2-digit', hourCycle: 'h23' }).format(new Date(at))
    if (local === '00') return at
  }
  return Date.UTC(y, m - 1, 1, 5)
}

/** A distinct valid number per i (never 555-01XX): +1 212/646/917 EEE HHTT. */
function phone(i: number): string {
  const tail = i % 10_000
  const exchange = 200 + (Math.floor(i / 10_000) % 700)
  const area = ['212', '646', '917', '718', '347'][Math.floor(i / 7_000_000)]!
  return `+1${area}${exchange}${String(tail).padStart(4, '0')}`
}

// Outcome mix: [outcome, share %, answered_by, talk seconds].
const MIX: [string, number, string | null, number][] = [
  ['no_answer', 45, null, 0], ['busy', 8, null, 0], ['voicemail', 14, 'machine', 25], ['failed', 3, null, 0],
  ['not_interested', 17, 'person', 40], ['interested', 5, 'person', 89], ['callback', 5, 'person', 61], ['hung_up', 3, 'person', 7],
]
function mixAt(i: number): [string, string | null, number] {
  const roll = Math.floor(((Math.imul(i + 1, 2654435761) >>> 0) / 2 ** 32) * 100)
  let sum = 0
  for (const [outcome, share, by, secs] of MIX) {
    sum += share
    if (roll < sum) return [outcome, by, secs + (i % 30)]
  }
  return ['no_answer', null, 0]
}

interface Org {
  id: string
  campaigns: string[]
  keys: { id: string; secret: string }[]
}

async function makeOrgs(base: string): Promise<Org[]> {
  const admin = adminClient(base)
  const orgs: Org[] = []
  for (let o = 0; o < ORGS; o++) {
    const org = await admin('/orgs', { name: `Usage org ${o}`, plan_requests_per_minute: 100_000 })
    const campaigns: string[] = []
    for (let c = 0; c < CAMPAIGNS; c++) {
      campaigns.push((await admin(`/orgs/${org.id}/campaigns`, { name: `Campaign ${o}-${c}`, status: 'paused', sdrs: [{ name: 'Alex' }] })).id)
    }
    const keys: { id: string; secret: string }[] = []
    for (let k = 0; k < KEYS; k++) {
      const key = await admin(`/orgs/${org.id}/keys`, { name: `key ${k}`, mode: 'live', requests_per_minute: 100_000, burst: 100_000 })
      keys.push({ id: key.id, secret: key.secret })
    }
    orgs.push({ id: org.id, campaigns, keys })
  }
  return orgs
}

/** Leads and ended calls of the first organization, and the requests rollups of every key. */
function seed(orgs: Org[]): { ms: number; minutes: number; connected: number; from: number; to: number } {
  const start = performance.now()
  const db = bulkOpen(dbPath)
  const insertLead = db.prepare(
    `INSERT INTO leads (id, org_id, campaign_id, livemode, phone, name, fields, lead_source, status, call_now, queue_key, queued_at, late, attempts,
       last_outcome, last_outcome_label, last_posted_at, created, updated)
     VALUES (?1, ?2, ?3, 1, ?4, ?5, '{}', 'api', 'done', 0, NULL, ?6, 0, 1, ?7, ?7, ?6, ?6, ?8)`,
  )
  const insertCall = db.prepare(
    `INSERT INTO calls (id, org_id, campaign_id, lead_id, livemode, key_id, direction, status, outcome, outcome_label, note, duration_seconds,
       started, answered, ended, updated, answered_by, handled_by, owner, tth_seconds, callback_at, intent, recording_available, transcript_available,
       started_by, revision, outcome_due_at, carrier)
     VALUES (?1, ?2, ?3, ?4, 1, NULL, 'outbound', 'ended', ?5, ?5, NULL, ?6, ?7, ?8, ?9, ?9, ?10,
       '{"id":null,"name":"AI assistant","role":"ai"}', NULL, NULL, NULL, NULL, 0, 0, '{"type":"dialer","api_key_id":null}', 1, NULL, 'simulator')`,
  )
  const org = orgs[0]!
  const to = Date.now() - 3_600_000
  const from = Math.min(monthStartNewYork(Date.now()) + 60_000, to - callCount * 10)
  const spacing = (to - from) / callCount
  let minutes = 0
  let connected = 0
  db.transaction(() => {
    const rebuildLeads = dropIndexes(db, 'leads')
    const rebuildCalls = dropIndexes(db, 'calls')
    for (let i = 0; i < callCount; i++) {
      const created = Math.floor(from + i * spacing)
      const started = created + 5
      const campaign = org.campaigns[i % CAMPAIGNS]!
      const [outcome, by, talk] = mixAt(i)
      const duration = by ? talk : 0
      const ended = started + (by ? 5000 + talk * 1000 : outcome === 'no_answer' ? 30_000 : 2000)
      const leadId = Bun.randomUUIDv7('hex', created)
      insertLead.run(leadId, org.id, campaign, phone(i), `Lead ${i}`, created, outcome, ended)
      insertCall.run(Bun.randomUUIDv7('hex', started), org.id, campaign, leadId, outcome, duration, started, by ? started + 5000 : null, ended, by)
      minutes += Math.ceil(duration / 60)
      if (by === 'person') connected++
    }
    rebuildLeads()
    rebuildCalls()
    // Requests as the count writes them: per key and local day, spread over every key.
    const upsert = db.prepare(
      `INSERT INTO usage_daily (org_id, livemode, day, dimension, dimension_id, requests, leads_added, calls, calls_connected, minutes)
       VALUES (?1, 1, ?2, 'key', ?3, ?4, 0, 0, 0, 0)`,
    )
    const dayOf = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York', year: 'numeric', month: '2-digit', day: '2-digit' })
    const days = [...new Set(Array.from({ length: Math.ceil((to - from) / 3_600_000) + 1 }, (_, h) => dayOf.format(new Date(Math.min(to, from + h * 3_600_000)))))]
    const keys = orgs.flatMap((o) => o.keys.map((k) => ({ orgId: o.id, keyId: k.id })))
    const perRow = Math.floor(requestCount / (keys.length * days.length))
    let left = requestCount
    keys.forEach((k, ki) =>
      days.forEach((day, di) => {
        const n = ki === keys.length - 1 && di === days.length - 1 ? left : perRow
        upsert.run(k.orgId, day, k.keyId, n)
        left -= n
      }),
    )
    upsert.finalize()
  })()
  insertLead.finalize()
  insertCall.finalize()
  db.run('ANALYZE')
  bulkClose(db)
  return { ms: performance.now() - start, minutes, connected, from, to }
}

async function runJob(base: string, name: string): Promise<{ ms: number; serverMs: number }> {
  const start = performance.now()
  const r = await fetch(`${base}/api/v1/admin/jobs/${name}/run`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
  if (!r.ok) throw new Error(`${name}: ${r.status} ${await r.text()}`)
  const body = (await r.json()) as { data: { duration_ms: number } }
  return { ms: performance.now() - start, serverMs: body.data.duration_ms }
}

/** GET /usage with and without each group_by, over the given keys. */
function usageScript(auths: string[]): string {
  const paths = ['/api/v1/external/usage', '/api/v1/external/usage?group_by=day', '/api/v1/external/usage?group_by=campaign', '/api/v1/external/usage?group_by=key']
  const requests = auths.flatMap((auth) => paths.map((path) => ({ path, auth })))
  return rotatingGets(requests, `status ~= 200 or not string.find(body, '"totals"', 1, true)`)
}

async function main(): Promise<void> {
  log(`usage bench: ${fmt(callCount)} calls, ${fmt(requestCount)} requests recorded; ${ORGS} organizations x ${CAMPAIGNS} campaigns x ${KEYS} keys`)
  const logFile = join(work, 'service.log')

  // 1. Organizations through the admin API.
  let svc = await startService({ dataDir, logFile })
  procs.push(svc.proc)
  const orgs = await makeOrgs(svc.base)
  await stop(svc.proc)

  // 2. Leads, calls and request rollups straight into SQLite.
  const seeded = seed(orgs)
  log(`seeded in ${fmt(seeded.ms / 1000, 1)} s: ${fmt(callCount)} leads and calls (${new Date(seeded.from).toISOString()} .. ${new Date(seeded.to).toISOString()}), ${fmt(seeded.minutes)} billed minutes`)

  // 3. The count over everything never counted, then the figures checked.
  svc = await startService({ dataDir, logFile })
  procs.push(svc.proc)
  // Meanwhile /healthz is probed every 20 ms: the longest answer is how long a request waits behind a count chunk.
  let probing = true
  let worstProbe = 0
  const base0 = svc.base
  const prober = (async () => {
    while (probing) {
      const t = performance.now()
      await fetch(`${base0}/healthz`)
      worstProbe = Math.max(worstProbe, performance.now() - t)
      await Bun.sleep(20)
    }
  })()
  const fullCount = await runJob(svc.base, 'usage_count')
  probing = false
  await prober
  const big = orgs[0]!
  const bigAuth = big.keys.map((k) => basicAuth(k.id, k.secret))
  const usage = (await (await fetch(`${svc.base}/api/v1/external/usage`, { headers: { authorization: bigAuth[0]! } })).json()) as any
  const totals = usage.data.totals
  const allRequests = await Promise.all(orgs.map(async (o) => {
    const r = (await (await fetch(`${svc.base}/api/v1/external/usage`, { headers: { authorization: basicAuth(o.keys[0]!.id, o.keys[0]!.secret) } })).json()) as any
    return r.data.totals.requests as number
  }))
  const requestsSeen = allRequests.reduce((a, b) => a + b, 0)
  const totalsRight = totals.calls === callCount && totals.leads_added === callCount && totals.minutes === seeded.minutes &&
    totals.calls_connected === seeded.connected && Math.abs(totals.cost_usd - seeded.minutes * RATE) < 1e-6 && requestsSeen >= requestCount
  log(`first count over everything: ${fmt(fullCount.serverMs)} ms in the service (in chunks; /healthz answered within ${fmt(worstProbe)} ms meanwhile); totals ${JSON.stringify(totals)}; requests seen ${fmt(requestsSeen)}; ${totalsRight ? 'match the seed' : 'DO NOT match the seed'}`)

  // 4. GET /usage under load.
  const results: { rps: number; p50: number; p99: number; bad: number }[] = []
  for (let round = 1; round <= rounds; round++) {
    // Each round starts on a fresh rate-limit minute (the organization's plan allows 100,000 a minute).
    const probe = await fetch(`${svc.base}/api/v1/external/usage`, { headers: { authorization: bigAuth[0]! } })
    await Bun.sleep((Number(probe.headers.get('ratelimit-reset') ?? 0) + 1) * 1000)
    const out = runWrk({ url: svc.base, script: usageScript(bigAuth), scriptFile: join(work, 'usage.lua'), seconds, connections })
    const r = { rps: out.requests / out.seconds, p50: out.p50 / 1000, p99: out.p99 / 1000, bad: out.bad + out.socket_errors }
    results.push(r)
    log(`  round ${round} GET /usage   ${fmt(r.rps)}/s  p50 ${fmt(r.p50, 2)} ms  p99 ${fmt(r.p99, 2)} ms  bad ${r.bad}${out.first_status ? ` (first ${out.first_status} ${out.first_body})` : ''}`)
  }
  const get = medianBy(results, (r) => r.p99)
  const served = results.reduce((n, r) => n + Math.round(r.rps * seconds), 0)

  // 5. The count in steady state: the requests of the load above (and nothing else new).
  const steady = await runJob(svc.base, 'usage_count')
  const steadyAgain = await runJob(svc.base, 'usage_count')
  log(`steady counts: ${fmt(steady.serverMs, 1)} ms (${fmt(served)} requests since the last count), then ${fmt(steadyAgain.serverMs, 1)} ms (nothing new)`)
  await stop(svc.proc)

  // 6. The export, on a freshly started service.
  svc = await startService({ dataDir, logFile })
  procs.push(svc.proc)
  const pid = svc.proc.pid
  let peak = memoryOf(pid)?.rss ?? 0
  const before = peak
  const sampler = setInterval(() => {
    const m = memoryOf(pid)
    if (m && m.rss > peak) peak = m.rss
  }, 50)
  const exportStart = performance.now()
  const created = await fetch(`${svc.base}/api/v1/external/exports`, {
    method: 'POST',
    headers: { authorization: bigAuth[0]!, 'content-type': 'application/json' },
    body: JSON.stringify({ exportType: 'leads' }),
  })
  if (created.status !== 200) throw new Error(`POST /exports: ${created.status} ${await created.text()}`)
  const { data } = (await created.json()) as any
  let status = data.export.status as string
  let rowCount = data.export.rowCount as number
  while (status === 'pending') {
    await Bun.sleep(100)
    const list = (await (await fetch(`${svc.base}/api/v1/external/exports`, { headers: { authorization: bigAuth[0]! } })).json()) as any
    const mine = list.data.find((e: any) => e.id === data.export.id)
    status = mine.status
    rowCount = mine.rowCount
  }
  const exportMs = performance.now() - exportStart
  clearInterval(sampler)
  const hwm = memoryOf(pid)?.hwm ?? NaN
  // Download through the signed link; count lines as they stream.
  const url = new URL(data.downloadUrl)
  const downloadStart = performance.now()
  const file = await fetch(`${svc.base}${url.pathname}${url.search}`)
  let lines = 0
  let bytes = 0
  for await (const chunk of file.body!) {
    bytes += chunk.length
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++
  }
  const downloadMs = performance.now() - downloadStart
  await stop(svc.proc)
  log(`export: ${status}, ${fmt(rowCount)} rows in ${fmt(exportMs / 1000, 2)} s (answered ${data.export.status} first); download ${fmt(bytes / 1e6, 1)} MB, ${fmt(lines)} lines in ${fmt(downloadMs / 1000, 2)} s; RSS ${fmt(before)} MB before, peak ${fmt(peak)} MB sampled, VmHWM ${fmt(hwm)} MB`)

  const rows: [string, string, string, boolean][] = [
    ['GET /usage p99 (1M calls, 5M requests)', `p99 ${fmt(get.p99, 2)} ms, p50 ${fmt(get.p50, 2)} ms, ${fmt(get.rps)} req/s, ${get.bad} bad`, 'p99 < 20 ms', get.p99 < 20 && get.bad === 0],
    ['usage count job, steady state', `${fmt(steady.serverMs, 1)} ms`, '< 2 s', steady.serverMs < 2000],
    ['usage count, everything at once', `${fmt(fullCount.serverMs)} ms, requests waited <= ${fmt(worstProbe)} ms`, '(reference)', true],
    ['usage totals = seed', totalsRight ? 'calls, leads, minutes, connected, cost, requests all match' : 'mismatch', 'exact', totalsRight],
    ['1M-row leads export', `${fmt(exportMs / 1000, 2)} s, ${fmt(rowCount)} rows, ${fmt(lines - 1)} data lines downloaded`, '< 20 s', exportMs < 20_000 && rowCount === callCount && lines === callCount + 1],
    ['service peak RSS during the export', `${fmt(Math.max(peak, hwm))} MB (VmHWM, boot included)`, '< 300 MB', Math.max(peak, hwm) < 300],
  ]
  log('')
  log(`${'measure'.padEnd(40)}  ${'figure'.padEnd(62)}  ${'target'.padEnd(12)}`)
  for (const [name, figure, target, ok] of rows) log(`${name.padEnd(40)}  ${figure.padEnd(62)}  ${target.padEnd(12)}  ${verdict(ok)}`)
}

try {
  await main()
} finally {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL')
  rmSync(work, { recursive: true, force: true })
}
