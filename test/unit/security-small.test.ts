import { afterAll, afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadConfig } from '../../src/config'
import { migrate, openDatabase, synchronousOf } from '../../src/db/client'
import { writePrivateBackup } from '../../src/db/file-modes'
import { createStores } from '../../src/db/stores'
import { keyService, ownerCeilings } from '../../src/domain/access/key-service'
import { checkShrink, nationalRegistry, SHRINK_GUARD_MIN } from '../../src/domain/dnc/national-registry'
import { ApiError } from '../../src/errors'
import { FakeClock } from '../../src/jobs/clock'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Issue 25, the smaller items: synchronous FULL by default, no key born expired, owners' key
// limits capped at the operator's, private database files, and the registry shrink guard.

const NOW = Date.UTC(2026, 0, 5, 15, 0, 0)
const iso = (ms: number) => new Date(ms).toISOString()
const modeOf = (path: string) => statSync(path).mode & 0o777

function thrown(work: () => unknown): ApiError {
  try {
    work()
  } catch (error) {
    if (error instanceof ApiError) return error
    throw error
  }
  throw new Error('did not throw')
}

const scratch = mkdtempSync(join(tmpdir(), 'dialer-security-small-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

describe('synchronous', () => {
  test('FULL by default; NORMAL can still be chosen', () => {
    expect(loadConfig({}, {}).synchronous).toBe('FULL')
    expect(loadConfig({ DIALER_SYNCHRONOUS: 'normal' }, {}).synchronous).toBe('NORMAL')
    expect(loadConfig({}, { synchronous: 'NORMAL' }).synchronous).toBe('NORMAL')
  })

  test('a database opened without the option runs FULL; NORMAL when asked', () => {
    const plain = openDatabase(join(scratch, 'sync-default', 'dialer.db'))
    expect(synchronousOf(plain.sqlite)).toBe('FULL')
    plain.close()
    const normal = openDatabase(join(scratch, 'sync-normal', 'dialer.db'), { synchronous: 'NORMAL' })
    expect(synchronousOf(normal.sqlite)).toBe('NORMAL')
    normal.close()
  })
})

describe('database files are 0600, whatever the umask', () => {
  let umask = 0
  beforeEach(() => {
    umask = process.umask(0o022)
  })
  afterEach(() => {
    process.umask(umask)
  })

  test('a new database: folder 0700, dialer.db, -wal and -shm 0600', () => {
    const dir = join(scratch, 'fresh', 'data')
    const path = join(dir, 'dialer.db')
    const db = openDatabase(path)
    migrate(db)
    expect(modeOf(dir).toString(8)).toBe('700')
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect({ file, mode: modeOf(file).toString(8) }).toEqual({ file, mode: '600' })
    db.close()
  })

  test('an existing 0644 database is set to 0600 on open', () => {
    const dir = join(scratch, 'older')
    const path = join(dir, 'dialer.db')
    openDatabase(path).close()
    chmodSync(path, 0o644)
    const db = openDatabase(path)
    expect(modeOf(path).toString(8)).toBe('600')
    expect(modeOf(`${path}-wal`).toString(8)).toBe('600')
    db.close()
  })

  test('a backup is 0600; a failed one leaves no file', () => {
    const db = openDatabase(join(scratch, 'backup-source', 'dialer.db'))
    migrate(db)
    const target = join(scratch, 'backup.db')
    writePrivateBackup(target, () => db.sqlite.query('VACUUM INTO ?').run(target))
    expect(modeOf(target).toString(8)).toBe('600')
    expect(statSync(target).size).toBeGreaterThan(0)
    const failed = join(scratch, 'backup-failed.db')
    expect(() => writePrivateBackup(failed, () => {
      throw new Error('disk full')
    })).toThrow('disk full')
    expect(() => statSync(failed)).toThrow()
    // An existing file is never overwritten.
    writeFileSync(join(scratch, 'taken.db'), 'x')
    expect(() => writePrivateBackup(join(scratch, 'taken.db'), () => {})).toThrow()
    db.close()
  })
})

function keysWorld(plan = 600) {
  const database = openDatabase(':memory:')
  migrate(database)
  const stores = createStores(database)
  const clock = new FakeClock(NOW)
  const org = stores.orgs.insert({
    id: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', name: 'Acme', timezone: 'America/New_York', rateUsdPerMinute: 0.02,
    planRequestsPerMinute: plan, recordingEnabled: false, webhookEndpointLimit: 16, outcomeLabels: {}, created: NOW, updated: NOW,
  })
  const keys = keyService({ keys: stores.keys, orgs: stores.orgs, campaigns: stores.campaigns, clock, caches: database.caches })
  return { database, keys, org, clock }
}

describe('a key cannot be born expired', () => {
  test('create: expires_at now or earlier is 400 invalid_request on expires_at; later is fine', () => {
    const { keys, org, database } = keysWorld()
    for (const at of [NOW - 1000, NOW]) {
      const error = thrown(() => keys.create(org.id, { name: 'k', mode: 'live', expires_at: iso(at) }))
      expect([error.code, error.status, error.param]).toEqual(['invalid_request', 400, 'expires_at'])
    }
    expect(keys.create(org.id, { name: 'k', mode: 'live', expires_at: iso(NOW + 1000) }).key.expiresAt).toBe(NOW + 1000)
    expect(keys.create(org.id, { name: 'k', mode: 'live', expires_at: null }).key.expiresAt).toBeNull()
    database.close()
  })

  test('update: a past expires_at is 400; null and a later time are fine; the stored key is unchanged by the refusal', () => {
    const { keys, org, database } = keysWorld()
    const { key } = keys.create(org.id, { name: 'k', mode: 'live', expires_at: iso(NOW + 60_000) })
    const error = thrown(() => keys.update(key.id, { expires_at: iso(NOW - 1) }))
    expect([error.code, error.param]).toEqual(['invalid_request', 'expires_at'])
    expect(keys.get(key.id).expiresAt).toBe(NOW + 60_000)
    expect(keys.update(key.id, { expires_at: null }).expiresAt).toBeNull()
    expect(keys.update(key.id, { expires_at: iso(NOW + 5000) }).expiresAt).toBe(NOW + 5000)
    database.close()
  })

  test('judged by the injected clock, not the machine clock', () => {
    const { keys, org, clock, database } = keysWorld()
    clock.set(NOW + 3_600_000)
    expect(thrown(() => keys.create(org.id, { name: 'k', mode: 'live', expires_at: iso(NOW + 60_000) })).param).toBe('expires_at')
    database.close()
  })
})

describe("an owner's key limits stay at or below the operator's", () => {
  test('the ceilings: the plan for requests a minute, the defaults for the rest', () => {
    expect(ownerCeilings({ planRequestsPerMinute: 600 })).toEqual({ requests_per_minute: 600, burst: 20, leads_per_minute: 60, max_concurrent: 20 })
  })

  test('above a ceiling is 400 naming the field; at or below is fine; the operator is not capped', () => {
    const { keys, org, database } = keysWorld(600)
    const cases: [string, number][] = [['requests_per_minute', 601], ['burst', 21], ['leads_per_minute', 61], ['max_concurrent', 21]]
    for (const [field, value] of cases) {
      const error = thrown(() => keys.create(org.id, { name: 'k', mode: 'live', [field]: value }, 'owner'))
      expect({ field, code: error.code, param: error.param }).toEqual({ field, code: 'invalid_request', param: field })
      expect(keys.create(org.id, { name: 'k', mode: 'live', [field]: value }, 'operator').key).toBeDefined()
    }
    const atCeiling = keys.create(org.id, { name: 'k', mode: 'live', requests_per_minute: 600, burst: 20, leads_per_minute: 60, max_concurrent: 20 }, 'owner').key
    expect([atCeiling.requestsPerMinute, atCeiling.burst, atCeiling.leadsPerMinute, atCeiling.maxConcurrent]).toEqual([600, 20, 60, 20])
    const lower = keys.create(org.id, { name: 'k', mode: 'live', requests_per_minute: 10, burst: 2, leads_per_minute: 5, max_concurrent: 1 }, 'owner').key
    expect([lower.requestsPerMinute, lower.burst, lower.leadsPerMinute, lower.maxConcurrent]).toEqual([10, 2, 5, 1])
    // Defaults for what is left out are within the ceilings.
    expect(keys.create(org.id, { name: 'k', mode: 'live' }, 'owner').key.requestsPerMinute).toBe(120)
    database.close()
  })
})

describe('registry shrink guard', () => {
  test('checkShrink: 409 registry_shrink past half of a list of 1,000 or more, unless forced', () => {
    const error = thrown(() => checkShrink('national', 5_000_000, 5, false))
    expect([error.code, error.status]).toEqual(['registry_shrink', 409])
    expect(error.message).toContain('5,000,000')
    expect(error.message).toContain('holds 5 numbers')
    expect(() => checkShrink('national', 5_000_000, 5, true)).not.toThrow()
    expect(() => checkShrink('national', SHRINK_GUARD_MIN, SHRINK_GUARD_MIN / 2, false)).not.toThrow()
    expect(() => checkShrink('national', SHRINK_GUARD_MIN, SHRINK_GUARD_MIN / 2 - 1, false)).toThrow()
    expect(() => checkShrink('national', SHRINK_GUARD_MIN - 1, 1, false)).not.toThrow()
    expect(() => checkShrink('TX', 2000, 10, false)).toThrow('TX list')
  })

  test('an import of 5 numbers over 1,000 is refused and the list kept; force replaces it', async () => {
    const database = openDatabase(':memory:')
    migrate(database)
    const stores = createStores(database)
    const registry = nationalRegistry({ store: stores.registry, clock: new FakeClock(NOW) })
    const big = Array.from({ length: 1000 }, (_, i) => `212555${String(i).padStart(4, '0')}`).join('\n')
    const once = async function* (text: string) {
      yield new TextEncoder().encode(text)
    }
    expect((await registry.import(once(big))).total).toBe(1000)
    const small = '3105550100\n3105550101\n3105550102\n3105550103\n3105550104\n'
    const error = await registry.import(once(small)).then(() => null, (e: unknown) => e as ApiError)
    expect(error?.code).toBe('registry_shrink')
    expect(registry.total).toBe(1000)
    expect(registry.isListed('+12125550999')).toBe(true)
    registry.load()
    expect(registry.total).toBe(1000)
    expect((await registry.import(once(small), { force: true })).total).toBe(5)
    expect(registry.isListed('+12125550999')).toBe(false)
    database.close()
  })
})
