import { setDefaultTimeout } from 'bun:test'
import { afterEach, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migrate, openDatabase, type DatabaseHandle } from '../../src/db/client'
import * as schema from '../../src/db/schema'
import { createStores } from '../../src/db/stores'
import { callStore } from '../../src/db/stores/call-store'
import { recordingFiles } from '../../src/domain/calls/recording-files'
import { purgeRecordings } from '../../src/domain/calls/recording-retention'
import { newId } from '../../src/domain/ids'
import { FakeClock } from '../../src/jobs/clock'

setDefaultTimeout(60_000)

const DAY = 86_400_000
const NOW = Date.UTC(2026, 5, 1, 3, 15)

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function setUp(options: { groupCommits?: boolean } = {}) {
  const database = openDatabase(':memory:', { groupCommits: options.groupCommits ?? false })
  migrate(database)
  // Calls without their campaigns and leads: this is about the calls table alone.
  database.sqlite.run('PRAGMA foreign_keys = OFF')
  const stores = createStores(database)
  const data = mkdtempSync(join(tmpdir(), 'dialer-retention-'))
  dirs.push(data)
  const files = recordingFiles(data)
  const clock = new FakeClock(NOW)
  const org = (id: string, recordingRetentionDays?: number) =>
    stores.orgs.insert({
      id, name: id, timezone: 'UTC', rateUsdPerMinute: 0, planRequestsPerMinute: 120, recordingEnabled: true,
      webhookEndpointLimit: 5, outcomeLabels: {}, created: 0, updated: 0, ...(recordingRetentionDays === undefined ? {} : { recordingRetentionDays }),
    })
  /** An ended call; with a file when `file` (a Twilio call), none otherwise (a simulator call). */
  const call = (orgId: string, ended: number | null, o: { recorded?: boolean; file?: boolean; livemode?: boolean } = {}) => {
    const id = newId()
    stores.calls.insert({
      id, orgId, campaignId: 'camp', leadId: 'lead', livemode: o.livemode ?? true, direction: 'outbound',
      status: ended === null ? 'in_progress' : 'ended', started: (ended ?? NOW) - 60_000, ended, updated: ended ?? NOW,
      handledBy: { id: null, name: 'AI', role: 'ai' }, startedBy: { type: 'dialer', api_key_id: null },
      carrier: o.file ? 'twilio' : 'simulator', recordingAvailable: o.recorded ?? true,
    })
    if (o.file) files.save(id, new Uint8Array([1, 2, 3]))
    return id
  }
  const recorded = (id: string) => stores.calls.get(id)!.recordingAvailable
  const hasFile = (id: string) => existsSync(files.path(id))
  return { database, stores, files, clock, org, call, recorded, hasFile }
}

describe('call store: recorded calls by end time', () => {
  test('ids of the organization\u2019s recorded calls ended strictly before the cutoff, up to the limit', () => {
    const { stores, org, call } = setUp()
    org('org_a')
    org('org_b')
    const cutoff = NOW - 10 * DAY
    const old = [call('org_a', cutoff - 1), call('org_a', cutoff - DAY), call('org_a', cutoff - 2 * DAY, { livemode: false })]
    call('org_a', cutoff) // exactly at the cutoff: kept
    call('org_a', cutoff + 1)
    call('org_a', cutoff - DAY, { recorded: false })
    call('org_a', null) // still going
    call('org_b', cutoff - DAY)
    expect(stores.calls.recordedEndedBefore('org_a', cutoff, 10).sort()).toEqual([...old].sort())
    expect(stores.calls.recordedEndedBefore('org_a', cutoff, 2).length).toBe(2)
    expect(stores.calls.recordedEndedBefore('org_c', cutoff, 10)).toEqual([])
  })

  test('clearRecordings clears the flag and counts only the calls that had it', () => {
    const { stores, org, call, recorded } = setUp()
    org('org_a')
    const a = call('org_a', NOW - DAY)
    const b = call('org_a', NOW - DAY)
    const none = call('org_a', NOW - DAY, { recorded: false })
    const other = call('org_a', NOW - DAY)
    expect(stores.calls.clearRecordings([])).toBe(0)
    expect(stores.calls.clearRecordings([a, b, none, newId()])).toBe(2)
    expect([recorded(a), recorded(b), recorded(none), recorded(other)]).toEqual([false, false, false, true])
    expect(stores.calls.clearRecordings([a, b])).toBe(0)
  })

  test('reads the calls_recorded index, not every call of the organization', () => {
    const database = openDatabase(':memory:')
    migrate(database)
    // The store over a connection that keeps the SQL it is asked to prepare.
    const seen: string[] = []
    const recording = new Proxy(database.sqlite, {
      get(target, property) {
        if (property === 'prepare') return (text: string) => (seen.push(text), target.query(text))
        const value = Reflect.get(target, property, target)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const calls = callStore(drizzle(recording, { schema }), database.sqlite)
    calls.recordedEndedBefore('org_a', NOW, 500)
    const text = seen.find((s) => s.includes('ended'))!
    expect(text).toBeDefined()
    const plan = database.sqlite.query<{ detail: string }, (string | number)[]>(`EXPLAIN QUERY PLAN ${text}`).all(NOW, 'org_a', 500)
    expect(plan.map((p) => p.detail).join('\n')).toContain('USING INDEX calls_recorded (ended<?)')
  })
})

describe('recording retention purge', () => {
  function run(s: ReturnType<typeof setUp>, transaction: <T>(work: () => T) => T = s.database.standalone) {
    return purgeRecordings({ stores: s.stores, files: s.files, clock: s.clock, transaction })
  }

  test('each organization by its own recording_retention_days; a call exactly at the cutoff is kept', () => {
    const s = setUp()
    s.org('org_default') // 90 days
    s.org('org_week', 7)
    s.org('org_year', 365)
    const purged = [
      s.call('org_default', NOW - 90 * DAY - 1, { file: true }),
      s.call('org_default', NOW - 200 * DAY), // simulator: no file
      s.call('org_week', NOW - 7 * DAY - 1, { file: true }),
      s.call('org_week', NOW - 30 * DAY, { file: true, livemode: false }),
      s.call('org_year', NOW - 365 * DAY - 1, { file: true }),
    ]
    const kept = [
      s.call('org_default', NOW - 90 * DAY, { file: true }), // exactly at the cutoff
      s.call('org_default', NOW - 30 * DAY, { file: true }),
      s.call('org_week', NOW - 7 * DAY, { file: true }), // exactly at the cutoff
      s.call('org_week', NOW - DAY, { file: true }),
      s.call('org_year', NOW - 200 * DAY, { file: true }),
      s.call('org_year', NOW - 365 * DAY, { file: true }), // exactly at the cutoff
      s.call('org_week', null, { file: true }), // not ended
    ]
    const notRecorded = s.call('org_week', NOW - 30 * DAY, { recorded: false })

    expect(run(s)).toEqual({ calls: 5, files: 4 })
    for (const id of purged) {
      expect(s.recorded(id)).toBe(false)
      expect(s.hasFile(id)).toBe(false)
    }
    for (const id of kept) {
      expect(s.recorded(id)).toBe(true)
      expect(s.hasFile(id)).toBe(true)
    }
    expect(s.recorded(notRecorded)).toBe(false)

    // A second run finds nothing.
    expect(run(s)).toEqual({ calls: 0, files: 0 })
    for (const id of kept) expect(s.hasFile(id)).toBe(true)

    // A day later the calls that were at the cutoff have passed it.
    s.clock.set(NOW + DAY)
    expect(run(s)).toEqual({ calls: 3, files: 3 })
    for (const id of [kept[0]!, kept[2]!, kept[5]!]) {
      expect(s.recorded(id)).toBe(false)
      expect(s.hasFile(id)).toBe(false)
    }
  })

  test('a shorter retention setting takes effect on the next run', () => {
    const s = setUp()
    s.org('org_a')
    const id = s.call('org_a', NOW - 10 * DAY, { file: true })
    expect(run(s)).toEqual({ calls: 0, files: 0 })
    s.stores.orgs.update('org_a', { recordingRetentionDays: 9 })
    expect(run(s)).toEqual({ calls: 1, files: 1 })
    expect(s.hasFile(id)).toBe(false)
  })

  test('more than a batch of 500, over more than a page of organizations', () => {
    const s = setUp()
    const ids: string[] = []
    s.database.transaction(() => {
      for (let o = 0; o < 105; o++) s.org(`org_${String(o).padStart(3, '0')}`, 30)
      for (let i = 0; i < 1234; i++) ids.push(s.call('org_050', NOW - 31 * DAY - i, { file: i % 2 === 0 }))
      ids.push(s.call('org_000', NOW - 31 * DAY, { file: true }), s.call('org_104', NOW - 31 * DAY, { file: true }))
    })
    expect(run(s)).toEqual({ calls: 1236, files: 619 })
    expect(ids.filter(s.recorded)).toEqual([])
    expect(ids.filter(s.hasFile)).toEqual([])
  })

  test('grouped commits: the files go only once the batch is durable', () => {
    const s = setUp({ groupCommits: true })
    s.org('org_a', 1)
    const id = s.call('org_a', NOW - 2 * DAY, { file: true })
    s.database.flush()
    // Grouped, the transaction returns before its commit: the flag is cleared, the file still there.
    const result = run(s, s.database.transaction)
    expect(result.calls).toBe(1)
    expect(s.recorded(id)).toBe(false)
    expect(s.hasFile(id)).toBe(true)
    s.database.flush()
    expect(s.hasFile(id)).toBe(false)
    // Standalone commits on its own: the count is complete when it returns.
    const next = s.call('org_a', NOW - 2 * DAY, { file: true })
    expect(run(s, s.database.standalone)).toEqual({ calls: 1, files: 1 })
    expect(s.hasFile(next)).toBe(false)
  })

  test('a batch that rolls back keeps both the flag and the file', () => {
    const s = setUp()
    s.org('org_a', 1)
    const id = s.call('org_a', NOW - 2 * DAY, { file: true })
    const failing = <T>(work: () => T): T =>
      s.database.transaction(() => {
        work()
        throw new Error('disk full')
      })
    expect(() => run(s, failing)).toThrow('disk full')
    expect(s.recorded(id)).toBe(true)
    expect(s.hasFile(id)).toBe(true)
    expect(run(s)).toEqual({ calls: 1, files: 1 })
  })

  test('a file that cannot be removed does not stop the others', () => {
    const s = setUp()
    s.org('org_a', 1)
    const a = s.call('org_a', NOW - 2 * DAY, { file: true })
    const b = s.call('org_a', NOW - 3 * DAY, { file: true })
    const files = {
      remove: (id: string) => {
        if (id === a) throw new Error('EACCES')
        return s.files.remove(id)
      },
    }
    const result = purgeRecordings({ stores: s.stores, files, clock: s.clock, transaction: s.database.standalone })
    expect(result).toEqual({ calls: 2, files: 1 })
    expect(s.hasFile(a)).toBe(true)
    expect(s.hasFile(b)).toBe(false)
  })
})
