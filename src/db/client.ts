import { Database } from 'bun:sqlite'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { CacheRegistry, describeCache } from '../cache-registry'
import { startCheckpointer } from './checkpointer'
import { unitsOfWork, type CommitOptions, type UnitsOfWork } from './commit-groups'
import { createPrivateFile, restrictDatabaseFiles } from './file-modes'
import * as schema from './schema'

// Migrations live in ./migrate.ts; callers import them from here as before.
export { latestMigration, migrate, migratorOf } from './migrate'

export type Db = BunSQLiteDatabase<typeof schema>

// bun:sqlite's own statement cache behind the prepare proxy below; never stale, nothing to clear.
describeCache({
  name: 'drizzle-statements', holds: "Drizzle's compiled statements, by SQL text (bun:sqlite query())",
  bound: 'one per query shape in the code', clearedBy: 'nothing (pure)',
  gain: 'a key read by id, median 43 vs 74 µs (Drizzle compiles on every prepare)', source: 'pure',
})

/** One open database: the raw connection, the Drizzle handle and the unit-of-work helper (commit-groups.ts). */
export interface DatabaseHandle extends UnitsOfWork {
  readonly sqlite: Database
  readonly db: Db
  /**
   * The in-memory caches of this database's data (src/cache-registry.ts): all emptied when a
   * transaction or savepoint rolls back, so none serves a write that did not happen.
   */
  readonly caches: CacheRegistry
  close(): void
}

export interface OpenOptions extends CommitOptions {
  /** Unset: FULL (a power cut loses no commit a client was told about). */
  synchronous?: 'NORMAL' | 'FULL'
  /** The page cache of this connection in MB; unset: SQLite's default (2 MB). */
  cacheMb?: number
  /** WAL file size kept after writes pause, and the pause (tests use small ones). */
  wal?: { keepBytes?: number; idleMs?: number }
}

/**
 * The connection as Drizzle gets it. Drizzle prepares (compiles) every query's SQL anew
 * (Drizzle internal: its bun-sqlite session calls `client.prepare(sql)`, checked by
 * test/unit/drizzle-internals.test.ts); bun:sqlite's query() keeps compiled statements by SQL
 * text, so queries of the same shape compile once. Drizzle never finalizes its statements, and
 * everything runs synchronously, so sharing them is safe.
 */
export function withStatementCache(sqlite: Database): Database {
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property === 'prepare') return (sql: string) => target.query(sql)
      const value = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

export function openDatabase(path: string, options: OpenOptions = {}): DatabaseHandle {
  if (path !== ':memory:') createPrivateFile(path)
  const sqlite = new Database(path, { create: true, strict: true })
  // WAL: readers never block the writer, and a reader (backup) can copy while we serve.
  sqlite.run('PRAGMA journal_mode = WAL')
  if (path !== ':memory:') restrictDatabaseFiles(path)
  const synchronous = options.synchronous ?? 'FULL'
  sqlite.run(`PRAGMA synchronous = ${synchronous}`)
  sqlite.run('PRAGMA foreign_keys = ON')
  // A second process (the backup command) may hold a lock briefly; wait rather than fail.
  sqlite.run('PRAGMA busy_timeout = 5000')
  sqlite.run('PRAGMA temp_store = MEMORY')
  // Negative: a size in KiB rather than in pages.
  if (options.cacheMb !== undefined) sqlite.run(`PRAGMA cache_size = -${Math.round(options.cacheMb * 1024)}`)
  const checkpointer = path === ':memory:' ? null : startCheckpointer(sqlite, path, synchronous, options.wal)
  const db = drizzle(withStatementCache(sqlite), { schema })
  const caches = new CacheRegistry()
  const units = unitsOfWork(sqlite, caches, options)
  return {
    sqlite,
    db,
    caches,
    ...units,
    close() {
      units.flush()
      // The worker closes its connection itself (killing the thread could leave it open a while);
      // once close() returns no connection of ours is left to hold a lock on the file.
      checkpointer?.stop()
      // Folds the WAL back into the main file, so a stopped service leaves one file to copy.
      try {
        sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
      } catch {
        // Another process may be reading; the WAL is folded on the next open instead.
      }
      sqlite.close()
    },
  }
}

const SYNCHRONOUS_NAMES = ['OFF', 'NORMAL', 'FULL', 'EXTRA']

/** The connection's `PRAGMA synchronous` as SQLite reports it (the start-up log line shows it). */
export function synchronousOf(sqlite: Database): string {
  const row = sqlite.query<{ synchronous: number }, []>('PRAGMA synchronous').get()
  return row ? (SYNCHRONOUS_NAMES[row.synchronous] ?? String(row.synchronous)) : 'unknown'
}
