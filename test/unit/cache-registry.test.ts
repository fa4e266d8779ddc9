import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import '../../src/app'
import '../../src/services'
import { CacheRegistry, describedCaches, type CacheInfo } from '../../src/cache-registry'
import { checkKey } from '../../src/domain/access/api-keys'
import { createHarness, seedWorld, type Harness } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Every in-memory cache is listed once, in code (src/cache-registry.ts) and in
 * docs/architecture.md "Caches"; every cache of database data is emptied by the one rollback
 * hook of the transaction helper, so no rolled-back write is served from memory.
 */

const DOCS = join(import.meta.dir, '../../docs/architecture.md')
const HEADER = '| Cache | Holds | Bound | Cleared by | On rollback | Measured gain (cached vs not) |'

const onRollback = (c: CacheInfo) => (c.source === 'database' ? 'emptied' : 'kept (pure)')
const rowOf = (c: CacheInfo) => `| \`${c.name}\` | ${c.holds} | ${c.bound} | ${c.clearedBy} | ${onRollback(c)} | ${c.gain} |`
/** The table as the registry says it should read: database caches first, then pure memos, by name. */
const expectedTable = () => {
  const all = describedCaches()
  const ordered = [...all.filter((c) => c.source === 'database'), ...all.filter((c) => c.source === 'pure')]
  return [HEADER, '|---|---|---|---|---|---|', ...ordered.map(rowOf)].join('\n')
}

function docsTable(): string {
  const lines = readFileSync(DOCS, 'utf8').split('\n')
  const section = lines.indexOf('## Caches')
  if (section < 0) return ''
  const start = lines.indexOf(HEADER, section)
  if (start < 0) return ''
  let end = start
  while (end < lines.length && lines[end]!.startsWith('|')) end++
  return lines.slice(start, end).join('\n')
}

describe('cache registry', () => {
  test('the docs table and the code registry list the same caches, word for word', () => {
    const caches = describedCaches()
    expect(caches.length).toBeGreaterThan(10)
    for (const c of caches) {
      expect(c.name).toMatch(/^[a-z0-9-]+$/)
      for (const cell of [c.holds, c.bound, c.clearedBy, c.gain]) {
        expect(cell.length, c.name).toBeGreaterThan(0)
        expect(cell.includes('|'), c.name).toBe(false)
      }
    }
    // On failure, the expected table is printed: paste it into docs/architecture.md "Caches".
    expect(docsTable()).toBe(expectedTable())
  })

  test('every cache of database data is registered with its database, so the rollback hook reaches it', () => {
    h = createHarness()
    const described = describedCaches().filter((c) => c.source === 'database').map((c) => c.name).sort()
    const registered = [...new Set(h.services.database.caches.names())].sort()
    expect(registered).toEqual(described)
  })

  test('a rollback empties the caches of database data and leaves pure memos', () => {
    const registry = new CacheRegistry()
    const info = (name: string, source: CacheInfo['source']): CacheInfo => ({ name, holds: 'x', bound: 'x', clearedBy: 'x', gain: 'x', source })
    const data = new Map([['a', 1]])
    const memo = new Map([['b', 2]])
    registry.register(info('probe-data', 'database'), () => data.clear())
    registry.register(info('probe-pure', 'pure'), () => memo.clear())
    registry.clearAll()
    expect(data.size).toBe(0)
    expect(memo.size).toBe(1)
  })
})

let h: Harness
afterEach(() => h?.close())

describe('no cache holds rolled-back data', () => {
  test('a key created in a transaction that rolls back does not authenticate afterwards', async () => {
    h = createHarness()
    const w = await seedWorld(h)
    const s = h.services
    let made: { id: string; secret: string } | undefined
    expect(() =>
      s.stores.transaction(() => {
        const { key, secret } = s.keys.create(w.orgId, { name: 'gone', mode: 'live' })
        made = { id: key.id, secret }
        // Authenticated inside the transaction: the auth cache now holds the key.
        expect(checkKey(s.keys.findForAuth(key.id), secret, s.clock.now()).ok).toBe(true)
        throw new Error('undo')
      }),
    ).toThrow('undo')
    expect(s.keys.findForAuth(made!.id)).toBeUndefined()
    const r = await h.api('GET', '/campaigns', { key: { ...made!, authorization: `Basic ${Buffer.from(`${made!.id}:${made!.secret}`).toString('base64')}` } })
    expect(r.status).toBe(401)
  })

  test('a key revoked in a transaction that rolls back still authenticates afterwards', async () => {
    h = createHarness()
    const w = await seedWorld(h)
    const s = h.services
    expect((await h.api('GET', '/campaigns', { key: w.live })).status).toBe(200)
    expect(() =>
      s.stores.transaction(() => {
        s.keys.revoke(w.live.id)
        const seen = checkKey(s.keys.findForAuth(w.live.id), w.live.secret, s.clock.now())
        expect(seen).toEqual({ ok: false, reason: 'revoked' })
        throw new Error('undo')
      }),
    ).toThrow('undo')
    expect(s.keys.get(w.live.id).revokedAt).toBeNull()
    expect((await h.api('GET', '/campaigns', { key: w.live })).status).toBe(200)
  })

  test('an organization change rolled back is not served to authentication', async () => {
    h = createHarness()
    const w = await seedWorld(h)
    const s = h.services
    const planOf = () => s.keys.findForAuth(w.live.id)!.principal.planRequestsPerMinute
    const before = planOf()
    expect(() =>
      s.stores.transaction(() => {
        s.orgs.update(w.orgId, { plan_requests_per_minute: 7 })
        expect(planOf()).toBe(7)
        throw new Error('undo')
      }),
    ).toThrow('undo')
    expect(planOf()).toBe(before)
  })
})
