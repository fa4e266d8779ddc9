/**
 * Dialer benchmark: 50 campaigns x 20 lines dialing 100,000 queued leads through to
 * call.completed on the simulator (DIALER_SIM_SPEED 1000: a 30-second call lasts 30 ms), then
 * GET /calls with 1,000,000 calls stored. Needs wrk (`apt-get install -y wrk`).
 *
 *   bun run scripts/bench/dialer.ts [--leads 100000] [--campaigns 50] [--lines 20] [--speed 1000]
 *     [--calls 1000000] [--list-orgs 4] [--list-campaigns 5] [--seconds 5] [--rounds 3]
 *     [--connections 8] [--warmup 2] [--stall 30] [--no-dial] [--no-list] [--keep]
 *
 * How, part 1 (dialing), in this process:
 * - createServices(loadConfig({ DIALER_DATA_DIR, DIALER_SIM_SPEED, ... }), { autoDial: false })
 *   on a real database file (WAL, synchronous NORMAL, the checkpointer worker: as served), real
 *   clock and timers. One organization, N active campaigns (lines L, one SDR, calling hours
 *   00:00-24:00 so the clock never schedules a lead) through services.campaigns.create.
 * - The services are closed, the leads written straight into SQLite as queued imports (queue
 *   order = insertion order, spread round-robin over the campaigns; unique New York numbers whose
 *   last two digits are 16-99, so every call takes the simulator's realistic pseudo-random mix of
 *   scenarios), and the services made again on that file: boot rebuilds the dial queues.
 * - services.dialer.setEnabled(true) starts dialing; the run ends when no lead is queued and no
 *   call is up. Retries do not re-enter the run: retry_minutes is 60 on the real clock and
 *   callbacks are booked for hours later, so each lead is called exactly once (checked).
 * - Figures: calls completed per second (call.ended with its outcome, line freed) and event rows
 *   per second over the wall time from setEnabled(true) to the last call ending; the dialer's own
 *   `delays` (a lead next with a free line -> dialed, what the target is about); and, for
 *   reference, the same delay counted from the moment the carrier's end-of-call timer was due
 *   (so it includes event-loop lag while the process is saturated); peak RSS; CPU time.
 *
 * Part 2 (GET /calls), as a child process like the other benchmarks:
 * - `bun run src/main.ts serve` on a fresh data directory; organizations, campaigns and a live
 *   key per organization through the admin API; stopped; plan and key limits raised in SQLite
 *   (so rate limits are not what is measured); 1,000,000 ended calls (and their leads, two calls
 *   a lead) inserted in one transaction with prepared statements (indexes dropped and rebuilt);
 *   started again (boot time printed: boot recovery reads the open calls).
 * - wrk at 8 connections: GET /api/v1/external/calls?limit=50 (each organization's key in turn),
 *   the same with campaign_id, and with starting_after a call id from the middle of the
 *   organization's calls. Rounds interleaved; each figure is the median round by p99.
 *
 * Targets (2-core machine): >= 2,000 simulated calls completed per second; dialer scheduling
 * delay p99 < 50 ms; GET /calls p99 < 10 ms with 1,000,000 calls stored.
 */
import { Database } from 'bun:sqlite'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../../src/config'
import { outcomeLabel, type Outcome } from '../../src/domain/outcomes'
import { createServices, type Services } from '../../src/services'
import {
  bulkClose, bulkOpen, dropIndexes, percentile, rotatingGets,
  ADMIN_TOKEN, adminClient, basicAuth, type Child, memoryOf, requireWrk, runWrk, startService, stop,
} from './lib'

const { values } = parseArgs({
  options: {
    leads: { type: 'string', default: '100000' },
    campaigns: { type: 'string', default: '50' },
    lines: { type: 'string', default: '20' },
    speed: { type: 'string', default: '1000' },
    calls: { type: 'string', default: '1000000' },
    'list-orgs': { type: 'string', default: '4' },
    'list-campaigns': { type: 'string', default: '5' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '2' },
    stall: { type: 'string', default: '30' },
    'no-dial': { type: 'boolean', default: false },
    'no-list': { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
})
const leadCount = Number(values.leads)
const campaignCount = Number(values.campaigns)
const lines = Number(values.lines)
const speed = Number(values.speed)
const callCount = Number(values.calls)
const listOrgs = Number(values['list-orgs'])
const listCampaigns = Number(values['list-campaigns'])
const seconds = Number(values.seconds)
const rounds = Number(values.rounds)
const connections = Number(values.connections)
const warmup = Number(values.warmup)
const stallSeconds = Number(values.stall)
const doDial = !values['no-dial']
const doList = !values['no-list'] && callCount > 0
const RAISED_LIMIT = 100_000_000
const THREADS = 2

const work = mkdtempSync(join(tmpdir(), 'dialer-bench-dialer-'))
const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
const log = (line: string) => console.log(line)
const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met')

if (doList) requireWrk()

// ---- phone numbers ----

// Number i -> +1 AAA EEE HH TT: TT (last two digits) 16-99, so the simulator picks the scenario
// from its realistic mix by call id (00-15 are scripted scenarios, 15 waits for a person's
// outcome); HH 00 or 02-99 (never 555-01XX); exchange 200-899; area 212, 646, then 917.
const AREAS = ['212', '646', '917']
const PER_AREA = 84 * 99 * 700
function phone(i: number): string {
  const tail = 16 + (i % 84)
  let rest = Math.floor(i / 84)
  const hi = rest % 99
  rest = Math.floor(rest / 99)
  const exchange = 200 + (rest % 700)
  const area = AREAS[Math.floor(rest / 700)]
  if (!area) throw new Error(`phone ${i}: out of numbers (${fmt(PER_AREA * AREAS.length)})`)
  return `+1${area}${exchange}${String(hi === 0 ? 0 : hi + 1).padStart(2, '0')}${String(tail).padStart(2, '0')}`
}

// ---- small helpers ----

const sortedCopy = (list: ArrayLike<number>) => Float64Array.from(list).sort()

// ---- part 1: dialing ----

interface DialResult {
  leads: number
  campaigns: number
  lines: number
  bootMs: number
  wallMs: number
  completed: number
  callsStored: number
  eventRows: number
  eventTypes: string
  delays: Float64Array
  endToDial: Float64Array
  timerLag: Float64Array
  rssBefore: number
  hwm: number
  cpuSeconds: number
  leadStatuses: string
  problems: string[]
}

async function dialBench(): Promise<DialResult> {
  const dataDir = join(work, 'dial')
  const config = loadConfig({
    DIALER_DATA_DIR: dataDir,
    DIALER_ADMIN_TOKEN: ADMIN_TOKEN,
    DIALER_SIM_SPEED: String(speed),
    DIALER_LOG_REQUESTS: '0',
    ...(process.env.DIALER_GROUP_COMMITS ? { DIALER_GROUP_COMMITS: process.env.DIALER_GROUP_COMMITS } : {}),
  })

  // 1. Organization and campaigns through the services.
  let services: Services = createServices(config, { autoDial: false })
  const org = services.orgs.create({ name: 'Dialer bench', plan_requests_per_minute: 100_000 })
  const campaignIds: string[] = []
  for (let c = 0; c < campaignCount; c++) {
    const campaign = services.campaigns.create(org.id, {
      name: `Dialer bench ${c}`,
      status: 'active',
      lines,
      sdrs: [{ name: `SDR ${c}` }],
      calling_hours: { start: '00:00', end: '24:00' },
      max_attempts: 3,
      retry_minutes: 60,
    })
    campaignIds.push(campaign.id)
  }
  services.close()

  // 2. The queued leads, straight into SQLite.
  const seedStart = performance.now()
  const db = bulkOpen(config.databasePath)
  const insert = db.prepare(
    `INSERT INTO leads (id, org_id, campaign_id, livemode, phone, name, fields, lead_source, status, call_now, queue_key, queued_at, late, attempts, last_posted_at, created, updated)
     VALUES (?1, ?2, ?3, 1, ?4, ?5, '{}', 'import', 'queued', 0, ?6, ?7, 0, 0, ?7, ?7, ?7)`,
  )
  // Queued one millisecond apart, ending a minute ago: distinct, ordered keys.
  const first = Date.now() - leadCount - 60_000
  db.transaction(() => {
    const rebuild = dropIndexes(db, 'leads')
    for (let i = 0; i < leadCount; i++) {
      const at = first + i
      insert.run(Bun.randomUUIDv7('hex', at), org.id, campaignIds[i % campaignCount]!, phone(i), `Lead ${i}`, 2 * 2 ** 44 + at, at)
    }
    rebuild()
  })()
  insert.finalize()
  bulkClose(db)
  log(`inserted ${fmt(leadCount)} queued import leads over ${campaignCount} campaigns in ${fmt((performance.now() - seedStart) / 1000, 1)} s`)

  // 3. Services again on that file: the queues are rebuilt from SQLite.
  const bootStart = performance.now()
  services = createServices(config, { autoDial: false })
  const bootMs = performance.now() - bootStart
  const { dialer, queues, scheduler } = services
  const sqlite = services.database.sqlite
  const queued = campaignIds.reduce((sum, id) => sum + queues.size(id, true), 0)
  log(`services up in ${fmt(bootMs)} ms with ${fmt(queued)} leads in ${campaignCount} dial queues; simulator speed ${speed}`)
  if (queued !== leadCount) throw new Error(`expected ${leadCount} queued leads after boot, found ${queued}`)

  // 4. Instruments: the time each carrier timer was due, and each line freed.
  let currentDue: number | null = null
  const realAt = scheduler.at.bind(scheduler)
  scheduler.at = (when, task) =>
    realAt(when, () => {
      const previous = currentDue
      currentDue = when
      try {
        return task()
      } finally {
        currentDue = previous
      }
    })
  let completed = 0
  let lastEnd = 0
  const timerLag: number[] = []
  const endToDial: number[] = []
  const realLineFree = dialer.lineFree.bind(dialer)
  dialer.lineFree = (campaignId: string, livemode: boolean) => {
    completed++
    lastEnd = performance.now()
    const lag = currentDue === null ? 0 : Math.max(0, Date.now() - currentDue)
    if (timerLag.length < 1_000_000) timerLag.push(lag)
    const before = dialer.delays.length
    realLineFree(campaignId, livemode)
    for (let i = before; i < dialer.delays.length; i++) endToDial.push(lag + dialer.delays[i]!)
  }

  const count = (sql: string) => (sqlite.query(sql).get() as { n: number }).n
  const eventsBefore = count('SELECT count(*) AS n FROM events')
  const callsBefore = count('SELECT count(*) AS n FROM calls')
  Bun.gc(true)
  const rssBefore = memoryOf(process.pid)?.rss ?? NaN
  log(`load average before the run: ${loadavg().map((l) => l.toFixed(2)).join(' ')} (${navigator.hardwareConcurrency} CPUs)`)

  // 5. Dial.
  const problems: string[] = []
  const cpuStart = process.cpuUsage()
  const start = performance.now()
  dialer.setEnabled(true)
  const busy = () => {
    let left = 0
    let up = 0
    for (const id of campaignIds) {
      left += queues.size(id, true)
      up += dialer.callsUp(id, true)
    }
    return { left, up }
  }
  let lastProgress = start
  let lastCompleted = 0
  let lastChange = start
  let lastChangeCount = 0
  for (;;) {
    await Bun.sleep(100)
    const { left, up } = busy()
    const now = performance.now()
    if (left === 0 && up === 0) break
    if (completed !== lastChangeCount) {
      lastChangeCount = completed
      lastChange = now
    } else if (now - lastChange > stallSeconds * 1000) {
      problems.push(`stalled: no call ended for ${stallSeconds} s with ${fmt(left)} leads queued and ${fmt(up)} calls up`)
      break
    }
    if (now - lastProgress >= 5000) {
      const rate = ((completed - lastCompleted) / (now - lastProgress)) * 1000
      log(`  ${fmt((now - start) / 1000, 1).padStart(6)} s  ${fmt(completed).padStart(9)} calls completed (${fmt(rate)}/s)  ${fmt(left)} queued  ${fmt(up)} up  rss ${fmt(memoryOf(process.pid)?.rss ?? 0)} MB`)
      lastProgress = now
      lastCompleted = completed
    }
  }
  const wallMs = (lastEnd || performance.now()) - start
  const cpu = process.cpuUsage(cpuStart)
  const hwm = memoryOf(process.pid)?.hwm ?? NaN

  // 6. What SQLite says.
  const callsStored = count('SELECT count(*) AS n FROM calls') - callsBefore
  const callsEnded = count("SELECT count(*) AS n FROM calls WHERE status = 'ended'")
  const callsNoOutcome = count('SELECT count(*) AS n FROM calls WHERE outcome IS NULL')
  const eventRows = count('SELECT count(*) AS n FROM events') - eventsBefore
  const eventTypes = (sqlite.query('SELECT type, count(*) AS n FROM events GROUP BY type ORDER BY n DESC').all() as { type: string; n: number }[])
    .map((r) => `${r.type} ${fmt(r.n)}`).join(', ')
  const statuses = sqlite.query('SELECT status, count(*) AS n FROM leads GROUP BY status ORDER BY n DESC').all() as { status: string; n: number }[]
  const stuck = statuses.filter((s) => ['queued', 'dialing', 'on_call'].includes(s.status)).reduce((sum, s) => sum + s.n, 0)
  const completedEvents = count("SELECT count(*) AS n FROM events WHERE type = 'call.completed'")
  if (callsEnded !== callsStored) problems.push(`${fmt(callsStored - callsEnded)} calls not ended`)
  if (callsNoOutcome > 0) problems.push(`${fmt(callsNoOutcome)} ended calls without an outcome`)
  if (stuck > 0) problems.push(`${fmt(stuck)} leads still queued/dialing/on_call`)
  if (callsStored !== leadCount) problems.push(`${fmt(callsStored)} calls for ${fmt(leadCount)} leads (expected one call per lead)`)
  if (completed !== callsStored) problems.push(`lines freed ${fmt(completed)} times for ${fmt(callsStored)} calls`)
  if (completedEvents !== callsStored) problems.push(`${fmt(completedEvents)} call.completed events for ${fmt(callsStored)} calls`)
  services.close()

  return {
    leads: leadCount,
    campaigns: campaignCount,
    lines,
    bootMs,
    wallMs,
    completed: callsEnded,
    callsStored,
    eventRows,
    eventTypes,
    delays: sortedCopy(dialer.delays),
    endToDial: sortedCopy(endToDial),
    timerLag: sortedCopy(timerLag),
    rssBefore,
    hwm,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    leadStatuses: statuses.map((s) => `${s.status} ${fmt(s.n)}`).join(', '),
    problems,
  }
}

// ---- part 2: GET /calls with many calls stored ----

// The simulator's mix (simulator.ts MIX) as stored outcomes: [outcome, share %, answered by, seconds].
const CALL_MIX: [Outcome, number, string | null, number][] = [
  ['no_answer', 45, null, 0], ['busy', 8, null, 0], ['voicemail', 14, 'machine', 27], ['failed', 3, null, 0],
  ['not_interested', 14, 'person', 40], ['undetermined', 3, 'person', 25], ['hung_up', 3, 'person', 7],
  ['callback', 3, 'person', 45], ['interested', 4, 'person', 89], ['callback', 1, 'person', 45], ['wrong_number', 2, 'person', 25],
]
const NOTES: Partial<Record<Outcome, string>> = {
  no_answer: 'No answer after 30 seconds of ringing.', busy: 'The line was busy.', voicemail: 'Voicemail left.',
  failed: 'The carrier could not connect the call.', not_interested: 'Not interested.', undetermined: 'The outcome is undetermined.',
  hung_up: 'The lead hung up.', callback: 'Asked for a call back tomorrow at 10:00.', interested: 'Interested; the SDR took the call and set next steps.',
  wrong_number: 'Wrong number.',
}

interface ListCampaign {
  orgId: string
  campaignId: string
  sdr: { id: string; name: string }
}

/** Inserts `count` ended calls (two a lead) and their leads; returns per-organization ids from the middle of their calls. */
function insertCalls(dbPath: string, campaigns: ListCampaign[], count: number): { ms: number; middle: Map<string, string[]> } {
  const start = performance.now()
  const db = bulkOpen(dbPath)
  const leadRows = Math.ceil(count / 2)
  const insertLead = db.prepare(
    `INSERT INTO leads (id, org_id, campaign_id, livemode, phone, name, fields, lead_source, owner, status, call_now, queue_key, queued_at, late, attempts, last_outcome, last_outcome_label, last_posted_at, created, updated)
     VALUES (?1, ?2, ?3, 1, ?4, ?5, '{}', 'import', ?6, 'done', 0, NULL, ?7, 0, 2, ?8, ?9, ?7, ?7, ?10)`,
  )
  const insertCall = db.prepare(
    `INSERT INTO calls (id, org_id, campaign_id, lead_id, livemode, key_id, direction, status, outcome, outcome_label, note, duration_seconds,
       started, answered, ended, updated, answered_by, handled_by, owner, tth_seconds, callback_at, intent, recording_available, transcript_available,
       started_by, revision, outcome_due_at, carrier)
     VALUES (?1, ?2, ?3, ?4, 1, NULL, 'outbound', 'ended', ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11, ?12, ?13, ?14, ?15, ?16, NULL, ?17, ?17,
       '{"type":"dialer","api_key_id":null}', 1, NULL, 'simulator')`,
  )
  const insertTranscript = db.prepare('INSERT INTO call_transcripts (call_id, lines) VALUES (?1, ?2)')
  const AI = JSON.stringify({ id: null, name: 'AI assistant', role: 'ai' })
  // Calls 2 s apart, ending an hour ago (about 23 days for 1,000,000).
  const spacing = 2000
  const first = Date.now() - 3_600_000 - count * spacing
  const leadIds: string[] = new Array(leadRows)
  const middle = new Map<string, string[]>()
  const perOrg = new Map<string, number>()
  const orgTotals = new Map<string, number>()
  for (let i = 0; i < count; i++) {
    const o = campaigns[(i % leadRows) % campaigns.length]!.orgId
    orgTotals.set(o, (orgTotals.get(o) ?? 0) + 1)
  }
  db.transaction(() => {
    const rebuildLeads = dropIndexes(db, 'leads')
    const rebuildCalls = dropIndexes(db, 'calls')
    for (let j = 0; j < leadRows; j++) {
      const c = campaigns[j % campaigns.length]!
      const at = first + j * spacing - 1000
      const id = Bun.randomUUIDv7('hex', at)
      leadIds[j] = id
      const last = (j + leadRows) < count ? j + leadRows : j
      const [outcome] = mixAt(last)
      insertLead.run(id, c.orgId, c.campaignId, phone(j), `Lead ${j}`, JSON.stringify(c.sdr), at, outcome, outcomeLabel({}, outcome), first + last * spacing + 120_000)
    }
    for (let i = 0; i < count; i++) {
      const j = i % leadRows
      const c = campaigns[j % campaigns.length]!
      const started = first + i * spacing
      const [outcome, answeredBy, seconds] = mixAt(i)
      const answered = answeredBy ? started + 5000 : null
      const ended = started + (answeredBy ? 5000 + seconds * 1000 : outcome === 'no_answer' ? 30_000 : 2000)
      const handledBy = outcome === 'interested' ? JSON.stringify({ id: c.sdr.id, name: c.sdr.name, role: 'sdr' }) : AI
      const transcript = answeredBy
        ? JSON.stringify([
            { speaker: 'ai', name: 'AI assistant', text: 'Hi, this is the assistant calling about your request. Is now a good time?', at: started + 6000 },
            { speaker: 'lead', name: `Lead ${j}`, text: NOTES[outcome] ?? 'Okay.', at: started + 10_000 },
          ])
        : null
      const id = Bun.randomUUIDv7('hex', started)
      insertCall.run(
        id, c.orgId, c.campaignId, leadIds[j]!, outcome, outcomeLabel({}, outcome), NOTES[outcome] ?? null, answeredBy ? seconds : 0,
        started, answered, ended, answeredBy, handledBy, JSON.stringify(c.sdr), outcome === 'interested' ? 10 : null,
        outcome === 'callback' ? ended + 86_400_000 : null, answeredBy ? 1 : 0,
      )
      if (transcript) insertTranscript.run(id, transcript)
      // About 1,000 ids between 45% and 55% of each organization's calls (oldest first).
      const k = perOrg.get(c.orgId) ?? 0
      perOrg.set(c.orgId, k + 1)
      const total = orgTotals.get(c.orgId)!
      const step = Math.max(1, Math.floor(total / 10_000))
      if (k >= total * 0.45 && k < total * 0.55 && k % step === 0) {
        const list = middle.get(c.orgId) ?? []
        list.push(id)
        middle.set(c.orgId, list)
      }
    }
    rebuildLeads()
    rebuildCalls()
  })()
  insertLead.finalize()
  insertCall.finalize()
  insertTranscript.finalize()
  db.run('ANALYZE')
  bulkClose(db)
  return { ms: performance.now() - start, middle }
}

/** Outcome, answered by and talk seconds of call i: the mix, spread by a multiplicative hash. */
function mixAt(i: number): [Outcome, string | null, number] {
  const roll = Math.floor(((Math.imul(i + 1, 2654435761) >>> 0) / 2 ** 32) * 100)
  let sum = 0
  for (const [outcome, share, by, secs] of CALL_MIX) {
    sum += share
    if (roll < sum) return [outcome, by, secs]
  }
  return ['no_answer', null, 0]
}

interface ListResult {
  name: string
  rps: number
  p50: number
  p99: number
  bad: number
  sample: string
}

const listScript = (requests: { path: string; auth: string }[]) =>
  rotatingGets(requests, `status ~= 200 or not string.find(body, '"data":[{', 1, true) or not string.find(body, '"has_more":true', 1, true)`)

interface ListBench {
  calls: number
  orgs: number
  campaigns: number
  insertMs: number
  bootMs: number
  results: ListResult[]
  rounds: ListResult[][]
  memory: { rss: number; hwm: number } | null
  dbMb: number
}

async function listBench(procs: Child[]): Promise<ListBench> {
  const dataDir = join(work, 'list')
  mkdirSync(dataDir, { recursive: true })
  let service = await startService({ dataDir, logFile: join(work, 'list-seed.log') })
  procs.push(service.proc)
  const admin = adminClient(service.base)
  const campaigns: ListCampaign[] = []
  const keys = new Map<string, string>()
  for (let o = 0; o < listOrgs; o++) {
    const org = await admin('/orgs', { name: `List org ${o}`, plan_requests_per_minute: 100_000 })
    for (let c = 0; c < listCampaigns; c++) {
      const campaign = await admin(`/orgs/${org.id}/campaigns`, { name: `List ${o}.${c}`, status: 'active', sdrs: [{ name: `SDR ${o}.${c}` }] })
      campaigns.push({ orgId: org.id, campaignId: campaign.id, sdr: campaign.sdrs[0] })
    }
    const key = await admin(`/orgs/${org.id}/keys`, { name: `list ${o}`, mode: 'live', requests_per_minute: 100_000, burst: 100_000, max_concurrent: 50 })
    keys.set(org.id, basicAuth(key.id, key.secret))
  }
  await stop(service.proc)
  const dbPath = join(dataDir, 'dialer.db')
  {
    const db = new Database(dbPath)
    db.run('UPDATE orgs SET plan_requests_per_minute = ?', [RAISED_LIMIT])
    db.run('UPDATE api_keys SET requests_per_minute = ?1, burst = ?1, leads_per_minute = ?1', [RAISED_LIMIT])
    db.close()
  }
  const { ms: insertMs, middle } = insertCalls(dbPath, campaigns, callCount)
  const dbMb = Bun.file(dbPath).size / 2 ** 20
  log(`inserted ${fmt(callCount)} ended calls (${fmt(Math.ceil(callCount / 2))} leads) over ${listOrgs} organizations x ${listCampaigns} campaigns in ${fmt(insertMs / 1000, 1)} s; database ${fmt(dbMb)} MB`)

  service = await startService({ dataDir, logFile: join(work, 'list.log'), timeoutMs: 120_000, intervalMs: 5 })
  procs.push(service.proc)
  log(`service up in ${fmt(service.bootMs)} ms with ${fmt(callCount)} calls stored; plan and key limits raised to ${fmt(RAISED_LIMIT)}/min in SQLite`)
  const base = service.base

  const orgIds = [...keys.keys()]
  const plain = orgIds.map((id) => ({ path: '/api/v1/external/calls?limit=50', auth: keys.get(id)! }))
  const byCampaign = campaigns.map((c) => ({ path: `/api/v1/external/calls?limit=50&campaign_id=${c.campaignId}`, auth: keys.get(c.orgId)! }))
  const after: { path: string; auth: string }[] = []
  const mids = orgIds.map((id) => middle.get(id) ?? [])
  for (let k = 0; after.length < 4000 && mids.some((m) => k < m.length); k++) {
    for (const [o, list] of mids.entries()) if (k < list.length) after.push({ path: `/api/v1/external/calls?limit=50&starting_after=${list[k]}`, auth: keys.get(orgIds[o]!)! })
  }
  const scenarios = [
    { name: 'GET /calls?limit=50', reqs: plain },
    { name: 'GET /calls?limit=50&campaign_id', reqs: byCampaign },
    { name: 'GET /calls?limit=50&starting_after (middle)', reqs: after },
  ]
  for (const s of scenarios) {
    const r = await fetch(`${base}${s.reqs[0]!.path}`, { headers: { authorization: s.reqs[0]!.auth } })
    const body = (await r.json()) as { data?: unknown[]; meta?: { has_more: boolean } }
    if (r.status !== 200 || body.data?.length !== 50) throw new Error(`${s.name}: ${r.status} ${JSON.stringify(body).slice(0, 300)}`)
  }
  log(`${rounds} round(s) of ${seconds}s per scenario after ${warmup}s warm-ups, ${connections} connections, ${THREADS} wrk threads; ` +
    `requests rotate over ${plain.length} keys, ${byCampaign.length} campaigns and ${after.length} cursors\n`)

  const measure = (name: string, reqs: { path: string; auth: string }[], duration: number): ListResult => {
    const r = runWrk({ url: base, script: listScript(reqs), scriptFile: join(work, `${name.replace(/\W+/g, '_')}.lua`), seconds: duration, connections, threads: THREADS, timeoutSeconds: 10 })
    return {
      name, rps: r.requests / r.seconds, p50: r.p50 / 1000, p99: r.p99 / 1000, bad: r.bad + r.socket_errors,
      sample: r.bad > 0 ? `${r.first_status} ${r.first_body}` : '',
    }
  }
  if (warmup > 0) for (const s of scenarios) measure(`warm-up ${s.name}`, s.reqs, warmup)
  const runs: ListResult[][] = scenarios.map(() => [])
  for (let round = 0; round < rounds; round++) {
    for (const [i, s] of scenarios.entries()) {
      const r = measure(s.name, s.reqs, seconds)
      runs[i]!.push(r)
      log(`  round ${round + 1} ${s.name.padEnd(44)} ${fmt(r.rps).padStart(7)} req/s  p50 ${r.p50.toFixed(2)} ms  p99 ${r.p99.toFixed(2)} ms  bad ${r.bad}${r.sample ? `  (${r.sample})` : ''}`)
    }
  }
  const memory = memoryOf(service.proc.pid)
  await stop(service.proc)
  const results = runs.map((list) => [...list].sort((a, b) => a.p99 - b.p99)[Math.floor(list.length / 2)]!)
  return { calls: callCount, orgs: listOrgs, campaigns: listOrgs * listCampaigns, insertMs, bootMs: service.bootMs, results, rounds: runs, memory, dbMb }
}

// ---- run ----

const procs: Child[] = []
let exitCode = 0
try {
  log(`Dialer benchmark, Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs; work dir ${work}`)
  const dial = doDial ? await dialBench() : null
  if (dial) {
    log(`\nlead statuses after the run: ${dial.leadStatuses}`)
    log(`event rows by type: ${dial.eventTypes}`)
    for (const p of dial.problems) log(`PROBLEM: ${p}`)
    log('')
  }
  const list = doList ? await listBench(procs) : null

  const rows: string[][] = [['measure', 'figure', 'target', '']]
  if (dial) {
    const seconds = dial.wallMs / 1000
    const cps = dial.completed / seconds
    const p = (a: Float64Array, q: number) => percentile(a, q).toFixed(0)
    rows.push([`dialing: ${fmt(dial.leads)} leads, ${dial.campaigns} campaigns x ${dial.lines} lines, sim speed ${speed}`,
      `${fmt(dial.completed)} calls in ${fmt(seconds, 1)} s`, '', ''])
    rows.push(['  calls completed per second', `${fmt(cps)}/s`, '>= 2,000/s', verdict(cps >= 2000 && dial.problems.length === 0)])
    rows.push(['  event rows per second', `${fmt(dial.eventRows / seconds)}/s (${fmt(dial.eventRows)} rows)`, '(reference)', ''])
    rows.push(['  scheduling delay, due -> dialed (dialer delays)', `p50 ${p(dial.delays, 0.5)} ms, p99 ${p(dial.delays, 0.99)} ms, max ${p(dial.delays, 1)} ms (${fmt(dial.delays.length)})`,
      'p99 < 50 ms', verdict(percentile(dial.delays, 0.99) < 50)])
    rows.push(['  same from the end-of-call timer being due', `p50 ${p(dial.endToDial, 0.5)} ms, p99 ${p(dial.endToDial, 0.99)} ms, max ${p(dial.endToDial, 1)} ms`, '(reference)', ''])
    rows.push(['  end-of-call timer lag (event loop)', `p50 ${p(dial.timerLag, 0.5)} ms, p99 ${p(dial.timerLag, 0.99)} ms`, '(reference)', ''])
    rows.push(['  CPU time of this process over the run', `${fmt(dial.cpuSeconds, 1)} s (${fmt((dial.cpuSeconds / seconds) * 100)}% of one core)`, '(reference)', ''])
    rows.push(['  RSS: after boot / peak (VmHWM)', `${fmt(dial.rssBefore)} MB / ${fmt(dial.hwm)} MB`, '(reference)', ''])
    rows.push(['  boot with the leads queued (queues rebuilt)', `${fmt(dial.bootMs)} ms`, '(reference)', ''])
  }
  if (list) {
    rows.push([`GET /calls: ${fmt(list.calls)} calls stored, ${list.orgs} orgs, ${list.campaigns} campaigns, c${connections}`, `database ${fmt(list.dbMb)} MB`, '', ''])
    for (const r of list.results) {
      const bad = list.rounds.flat().filter((x) => x.name === r.name).reduce((sum, x) => sum + x.bad, 0)
      rows.push([`  ${r.name}`, `p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, ${fmt(r.rps)} req/s, bad ${bad}`, 'p99 < 10 ms', verdict(r.p99 < 10 && bad === 0)])
    }
    rows.push([`  boot with ${fmt(list.calls)} calls stored`, `${fmt(list.bootMs)} ms to /healthz`, '(reference)', ''])
    rows.push(['  service RSS after the runs / peak', list.memory ? `${fmt(list.memory.rss)} MB / ${fmt(list.memory.hwm)} MB` : '?', '(reference)', ''])
  }
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  log('')
  for (const [i, row] of rows.entries()) {
    log(row.map((cell, c) => cell.padEnd(widths[c]!)).join('  ').trimEnd())
    if (i === 0) log(widths.map((w) => '-'.repeat(w)).join('  '))
  }
  log(
    '\nnotes: each lead is called once (retry_minutes 60 on the real clock, callbacks booked hours ahead, so no retry re-enters the run);' +
      ' "due -> dialed" is what the dialer records (lead next with a free line -> call started; the carrier is asked once that commits);' +
      ' the reference row adds the wait between a call\'s end timer being due and it running, which grows when the process is CPU-bound.' +
      (list ? ` GET /calls figures are the median round by p99 of ${rounds}; "bad" counts non-200 replies, pages without 50 calls and has_more, and socket errors.` : ''),
  )
  if (dial && dial.problems.length > 0) exitCode = 1
} catch (error) {
  console.error(error)
  exitCode = 1
} finally {
  for (const p of procs) if (p.exitCode === null) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
  if (values.keep) log(`kept ${work}`)
  else rmSync(work, { recursive: true, force: true })
}
process.exit(exitCode)
