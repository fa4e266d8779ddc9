/** Part 1 of the dialer benchmark (scripts/bench/dialer.ts): dialing queued leads in this process. */
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config'
import { systemClock } from '../../src/jobs/clock'
import { createServices, type Services } from '../../src/services'
import { campaignCount, leadCount, lines, phone, speed, stallSeconds, work } from './dialer-setup'
import { ADMIN_TOKEN, bulkClose, bulkOpen, dropIndexes, fmt, log, memoryOf, sortedCopy } from './lib'
import { shiftToNewYorkMorning } from './clock-shift'

export interface DialResult {
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

export async function dialBench(): Promise<DialResult> {
  const restoreClock = shiftToNewYorkMorning()
  try {
    return await dialPart()
  } finally {
    restoreClock()
  }
}

async function dialPart(): Promise<DialResult> {
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
      // The widest window the federal floor allows.
      calling_hours: { start: '08:00', end: '21:00' },
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
  const first = systemClock.now() - leadCount - 60_000
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
  const delays = dialer.measureDelays()
  const realLineFree = dialer.lineFree.bind(dialer)
  dialer.lineFree = (campaignId: string, livemode: boolean) => {
    completed++
    lastEnd = performance.now()
    const lag = currentDue === null ? 0 : Math.max(0, systemClock.now() - currentDue)
    if (timerLag.length < 1_000_000) timerLag.push(lag)
    const before = delays.length
    realLineFree(campaignId, livemode)
    for (let i = before; i < delays.length; i++) endToDial.push(lag + delays[i]!)
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
    delays: sortedCopy(delays),
    endToDial: sortedCopy(endToDial),
    timerLag: sortedCopy(timerLag),
    rssBefore,
    hwm,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    leadStatuses: statuses.map((s) => `${s.status} ${fmt(s.n)}`).join(', '),
    problems,
  }
}
