/** Options, work directories and seeding (queued leads straight into SQLite) of the intake benchmark (scripts/bench/intake.ts). */
import { Database } from 'bun:sqlite'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { bulkClose, bulkOpen, dropIndexes, fmt } from './lib'

export const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    keys: { type: 'string', default: '200' },
    orgs: { type: 'string', default: '10' },
    queued: { type: 'string', default: '100000' },
    batch: { type: 'string', default: '60' },
    'boot-queued': { type: 'string', default: '1000000' },
    'no-boot': { type: 'boolean', default: false },
    'campaigns-per-org': { type: 'string' },
    warmup: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
    'admin-limits': { type: 'boolean', default: false },
  },
})
export const seconds = Number(values.seconds)
export const rounds = Number(values.rounds)
export const connections = Number(values.connections)
export const keyCount = Number(values.keys)
export const orgCount = Math.min(Number(values.orgs), keyCount)
export const queuedCount = Number(values.queued)
export const batchSize = Number(values.batch)
export const bootQueued = Number(values['boot-queued'])
export const doBoot = !values['no-boot'] && bootQueued > 0
export const warmup = Number(values.warmup)
export const raiseLimits = !values['admin-limits']
/** Plan and key limits written straight into SQLite (the admin API stops at 100,000 a minute). */
export const RAISED_LIMIT = 100_000_000
export const THREADS = 2
export const API_WAITING_LIMIT = 5000

// Campaigns enough for the most leads this run could post (assumed ceilings of 10,000 single
// and 60,000 batched leads a second), each kept under 4,000 of the 5,000 waiting API leads.
const intakeSeconds = rounds * seconds + warmup
export const campaignsPerOrg = values['campaigns-per-org']
  ? Number(values['campaigns-per-org'])
  : Math.max(1, Math.ceil((intakeSeconds * (10_000 + 60_000)) / (orgCount * 4000)))

export const work = mkdtempSync(join(tmpdir(), 'dialer-bench-intake-'))
export const mainDir = join(work, 'main')
export const bootDir = join(work, 'boot')

// ---- phone numbers ----

// Global number g -> +1 AAA EEE LLLL: area 212 then 917, exchange 200-899 (no 976 premium, no
// 555-01XX fictional), last four 0000-0099 or 0200-9999 (never 01XX). The same mapping in Lua
// (intake-scenarios.ts).
export const PER_AREA = 700 * 9900
export const INTAKE_AREAS = ['212', '917']
export const PHONE_CAPACITY = PER_AREA * INTAKE_AREAS.length
function lastFour(h: number): string {
  const l = h % 9900
  return String(l >= 100 ? l + 100 : l).padStart(4, '0')
}
/** Numbers of the pre-queued (imported) leads: area 646, never posted by the load. */
export const importedPhone = (i: number) => `+1646${200 + Math.floor(i / 9900)}${lastFour(i)}`

// ---- direct SQLite writes ----

/**
 * Appends `count` queued import leads to one campaign, in queue order, in one transaction. The
 * leads table's indexes are dropped first and built again after (a sort, much faster than
 * growing nine b-trees row by row), with the journal in memory; the file is left in WAL mode.
 */
export function insertQueued(dbPath: string, orgId: string, campaignId: string, count: number): { ms: number; middle: string[] } {
  const start = performance.now()
  const db = bulkOpen(dbPath)
  const insert = db.prepare(
    `INSERT INTO leads (id, org_id, campaign_id, livemode, phone, fields, lead_source, status, call_now, queue_key, queued_at, late, attempts, last_posted_at, created, updated)
     VALUES (?1, ?2, ?3, 1, ?4, '{}', 'import', 'queued', 0, ?5, ?6, 0, 0, ?6, ?6, ?6)`,
  )
  // Queued one millisecond apart, ending a minute ago: distinct, ordered keys.
  const first = Date.now() - count - 60_000
  const middle: string[] = []
  const from = Math.floor(count * 0.45)
  const to = Math.floor(count * 0.55)
  const step = Math.max(1, Math.floor((to - from) / 1000))
  db.transaction(() => {
    const rebuild = dropIndexes(db, 'leads')
    for (let i = 0; i < count; i++) {
      const at = first + i
      const id = Bun.randomUUIDv7('hex', at)
      insert.run(id, orgId, campaignId, importedPhone(i), 2 * 2 ** 44 + at, at)
      if (i >= from && i < to && (i - from) % step === 0) middle.push(id)
    }
    rebuild()
  })()
  insert.finalize()
  bulkClose(db)
  return { ms: performance.now() - start, middle }
}

export function statusCounts(dbPath: string): string {
  const db = new Database(dbPath, { readonly: true })
  const rows = db.query<{ status: string; source: string; n: number }, []>(
    'SELECT status, lead_source AS source, count(*) AS n FROM leads GROUP BY status, lead_source ORDER BY n DESC',
  ).all()
  db.close()
  return rows.map((r) => `${r.source} ${r.status} ${fmt(r.n)}`).join(', ')
}
