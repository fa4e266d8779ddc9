/** Part 2 of the dialer benchmark (scripts/bench/dialer.ts): GET /calls with many calls stored, on a child process. */
import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { outcomeLabel, type Outcome } from '../../src/domain/outcomes'
import { callCount, connections, listCampaigns, listOrgs, phone, RAISED_LIMIT, rounds, seconds, THREADS, warmup, work } from './dialer-setup'
import {
  adminClient, basicAuth, bulkClose, bulkOpen, dropIndexes, fmt, log, memoryOf, rotatingGets, runWrk, startService, stop, type Child,
} from './lib'

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

export interface ListBench {
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

export async function listBench(procs: Child[]): Promise<ListBench> {
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
