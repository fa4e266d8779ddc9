import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { basic, scratchDir } from '../harness'
import { startClock, type RunningClock } from './daytime-clock'
import { spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Restart safety: the service process is killed (SIGKILL) while three calls are up. On the
// next boot those calls must be closed as failed, with a note and call.completed, and their
// leads must leave dialing/on_call (a retry is scheduled); the lines must be free again.
//
// The calling rules (issue 17) dial a New York number only between 08:00 and 21:00 there, so
// the service runs on the fake clock (DIALER_FAKE_CLOCK=1), moved at real speed from the
// instant it boots at (Monday 10:00 in New York). The fake clock is not kept across a restart:
// the second process boots at that same instant again, closes the cut calls there, and is then
// moved on from where the first one stopped.
const ADMIN = 'restart-test-admin-token-0123456789'
const root = join(import.meta.dir, '../..')
const work = scratchDir('dialer-restart-')
const dataDir = join(work.path, 'data')
const DB_FILE = join(dataDir, 'dialer.db')
const NOTE = 'The service restarted during the call; it was not completed.'

const procs: ServiceProcess[] = []

/**
 * `bun run src/main.ts serve --port 0` on the shared data directory; resolves with its base URL
 * once it prints "listening on". DIALER_SIM_SPEED 2: answered after ~3 s, calls last 10-50 s.
 */
async function startServer(): Promise<{ proc: ServiceProcess; base: string }> {
  const started = await spawnService({
    command: [process.execPath, 'run', join(root, 'src/main.ts')], dataDir, cwd: work.path,
    env: { ...process.env, DIALER_ADMIN_TOKEN: ADMIN, DIALER_SIM_SPEED: '2', DIALER_LOG_REQUESTS: '0', DIALER_FAKE_CLOCK: '1' } as Record<string, string>,
  })
  procs.push(started.proc)
  return started
}

let clock: RunningClock | null = null

let base = ''
let auth = ''
let campaignId = ''
const leadIds: string[] = []

const admin = async (path: string, body: unknown) => {
  const r = await fetch(`${base}/api/v1/admin${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${await r.text()}`)
  return ((await r.json()) as { data: any }).data
}

const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> => {
  const r = await fetch(`${base}/api/v1/external${path}`, {
    method,
    headers: { authorization: auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: r.status, body: await r.json() }
}

const listCalls = async (): Promise<any[]> => {
  const r = await api('GET', `/calls?campaign_id=${campaignId}&limit=100`)
  expect(r.status).toBe(200)
  return r.body.data
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe()
    if (value) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(100)
  }
}

beforeAll(async () => {
  ;({ base } = await startServer())
  clock = await startClock(base, ADMIN)
  const org = await admin('/orgs', { name: 'Restart Org', plan_requests_per_minute: 100_000 })
  const campaign = await admin(`/orgs/${org.id}/campaigns`, {
    name: 'Restart campaign',
    status: 'active',
    lines: 3,
    sdrs: [{ name: 'Alex Rivera' }],
    // The widest window the federal floor allows.
    calling_hours: { start: '08:00', end: '21:00' },
  })
  campaignId = campaign.id
  const key = await admin(`/orgs/${org.id}/keys`, { name: 'live', mode: 'live', requests_per_minute: 100_000, burst: 100_000 })
  auth = basic(key.id, key.secret)
}, 30_000)

afterAll(async () => {
  await clock?.stop()
  for (const proc of procs) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
  await Promise.all(procs.map((p) => p.exited))
  work.remove()
})

describe('restart in the middle of calls', () => {
  test('calls cut by SIGKILL are closed as failed on boot and their leads rescheduled', async () => {
    // Scenarios by the last two digits: 00 answered then handed over (ends at 47 s here),
    // 01 answered (ends at 22 s), 02 rings unanswered (ends at 15 s).
    for (const phone of ['+12125550300', '+12125550301', '+12125550302']) {
      const r = await api('POST', '/leads', { campaign_id: campaignId, phone, name: `Lead ${phone.slice(-2)}` })
      expect(r.status).toBe(201)
      leadIds.push(r.body.data.id)
    }

    // Three calls up, two of them answered (leads on_call) and one still ringing (lead dialing).
    const before = await until('3 calls up, 2 answered', async () => {
      const calls = await listCalls()
      const up = calls.filter((c) => c.status !== 'ended')
      return up.length === 3 && up.filter((c) => c.status === 'in_progress').length === 2 ? calls : null
    })
    const callIds = before.map((c) => c.id).sort()
    expect(new Set(before.map((c) => c.lead.id))).toEqual(new Set(leadIds))
    const leadStatuses = await Promise.all(leadIds.map(async (id) => (await api('GET', `/leads/${id}`)).body.data.status))
    expect(leadStatuses.sort()).toEqual(['dialing', 'on_call', 'on_call'])

    // Killed without warning: nothing gets to close the calls.
    const first = procs[0]!
    await clock!.stop()
    const stoppedAt = clock!.now()
    first.kill('SIGKILL')
    await first.exited

    ;({ base } = await startServer())
    clock = await startClock(base, ADMIN, stoppedAt)
    const after = await listCalls()
    expect(after.map((c) => c.id).sort()).toEqual(callIds)
    for (const call of after) {
      expect(call.status).toBe('ended')
      expect(call.outcome).toBe('failed')
      expect(call.note).toBe(NOTE)
      expect(call.ended).not.toBeNull()
      // The second process's clock boots behind the first's: a call never ends before it began.
      expect(Date.parse(call.ended)).toBeGreaterThanOrEqual(Date.parse(call.answered ?? call.started))
      expect(call.duration_seconds ?? 0).toBeGreaterThanOrEqual(0)
    }
    for (const id of leadIds) {
      const lead = (await api('GET', `/leads/${id}`)).body.data
      expect(lead.status).toBe('scheduled')
      expect(lead.status).not.toBe('dialing')
      expect(lead.status).not.toBe('on_call')
    }

    // The three lines are free again: a new lead is dialed at once.
    const fresh = await api('POST', '/leads', { campaign_id: campaignId, phone: '+12125550402', name: 'After restart' })
    expect(fresh.status).toBe(201)
    await until('the new lead to be dialed', async () => (await listCalls()).some((c) => c.lead.id === fresh.body.data.id && c.status !== 'ended'))

    // Stop cleanly, then read the stored rows and events.
    const second = procs[1]!
    await clock.stop()
    second.kill('SIGTERM')
    expect(await second.exited).toBe(0)
    const db = new Database(DB_FILE, { readonly: true })
    try {
      const marks = callIds.map(() => '?').join(', ')
      const completed = db
        .query(`SELECT object_id, body FROM events WHERE type = 'call.completed' AND object_id IN (${marks})`)
        .all(...callIds) as { object_id: string; body: string }[]
      expect(completed.map((e) => e.object_id).sort()).toEqual(callIds)
      for (const event of completed) {
        const call = JSON.parse(event.body).data.object
        expect(call).toMatchObject({ id: event.object_id, status: 'ended', outcome: 'failed', note: NOTE })
      }
      const leads = db
        .query(`SELECT id, status, due_reason, attempts, last_outcome FROM leads WHERE id IN (${leadIds.map(() => '?').join(', ')})`)
        .all(...leadIds) as { id: string; status: string; due_reason: string | null; attempts: number; last_outcome: string }[]
      expect(leads).toHaveLength(3)
      for (const lead of leads) {
        expect(lead).toMatchObject({ status: 'scheduled', due_reason: 'retry_after_outcome', attempts: 1, last_outcome: 'failed' })
      }
      const open = db.query(`SELECT count(*) AS n FROM calls WHERE id IN (${marks}) AND status != 'ended'`).get(...callIds) as { n: number }
      expect(open.n).toBe(0)
    } finally {
      db.close()
    }
  }, 30_000)
})
