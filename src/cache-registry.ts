/**
 * Every in-memory cache and memo of the service, in one list (docs/architecture.md "Caches" is
 * checked against it by test/unit/cache-registry.test.ts). A cache describes itself once, at
 * module level (`describeCache`), and then registers its clear function:
 * - `database` caches hold what was read from or written to SQLite. Each registers with its
 *   database's `CacheRegistry`; the transaction helper (src/db/commit-groups.ts) empties every one of
 *   them when any transaction or savepoint rolls back, so no rolled-back write is served from memory.
 * - `pure` memos hold answers of pure functions (parsing, zone offsets, compiled statements):
 *   never stale, so a rollback leaves them; they register process-wide (`registerPureMemo`).
 *   Compiled statements kept per connection are only described: nothing could make them stale.
 * Imports nothing: the db layer, the domain and HTTP all use it.
 */

export type CacheSource = 'database' | 'pure'

export interface CacheInfo {
  /** Kebab-case, unique: the docs table's first column. */
  readonly name: string
  /** What it keeps, and by which key. */
  readonly holds: string
  /** How many entries at most, and what happens at the bound. */
  readonly bound: string
  /** What empties or updates it (besides a rollback, for `database` caches). */
  readonly clearedBy: string
  /** The measured gain (on vs off, same run; docs/decisions.md "Caches, measured"). */
  readonly gain: string
  readonly source: CacheSource
}

const catalogue = new Map<string, CacheInfo>()

/** Adds a cache to the process-wide list (once, at module level). */
export function describeCache(info: CacheInfo): CacheInfo {
  const known = catalogue.get(info.name)
  if (known !== undefined && known !== info) throw new Error(`cache "${info.name}" is described twice`)
  catalogue.set(info.name, Object.freeze(info))
  return info
}

/** Every cache described by the modules loaded so far, by name. */
export const describedCaches = (): CacheInfo[] => [...catalogue.values()].sort((a, b) => a.name.localeCompare(b.name))

const pureMemos = new Map<string, () => void>()

/** A process-wide memo of a pure function, with its clear (measurements and tests call it). */
export function registerPureMemo(info: CacheInfo, clear: () => void): void {
  if (info.source !== 'pure') throw new Error(`cache "${info.name}" holds database data: register it with its database`)
  pureMemos.set(info.name, clear)
}

/** Empties one pure memo (measurements); false when none has that name. */
export function clearPureMemo(name: string): boolean {
  const clear = pureMemos.get(name)
  clear?.()
  return clear !== undefined
}

/** The caches of one database's data; the transaction helper calls `clearAll` on every rollback. */
export class CacheRegistry {
  private readonly entries: { info: CacheInfo; clear: () => void }[] = []

  register(info: CacheInfo, clear: () => void): void {
    this.entries.push({ info, clear })
  }

  /** Names of the registered caches (one entry per instance). */
  names(): string[] {
    return this.entries.map((e) => e.info.name)
  }

  /** Empties every instance of the named cache (measurements, tests). */
  clear(name: string): void {
    for (const e of this.entries) if (e.info.name === name) e.clear()
  }

  /** The rollback hook: every cache of this database's data forgets everything (pure memos stay). */
  clearAll(): void {
    for (const e of this.entries) if (e.info.source === 'database') e.clear()
  }
}
