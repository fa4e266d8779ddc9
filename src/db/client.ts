import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import * as schema from './schema'
import { migrations } from './migrations.generated'

export type Db = BunSQLiteDatabase<typeof schema>

/** One open database: the raw connection, the Drizzle handle and the unit-of-work helper. */
export interface DatabaseHandle {
  readonly sqlite: Database
  readonly db: Db
  /**
   * Runs `work` in one SQLite transaction (BEGIN IMMEDIATE), nested calls as savepoints.
   * `work` must be synchronous: bun:sqlite has one connection, so anything awaited inside
   * would interleave other requests' statements into this transaction.
   */
  transaction<T>(work: () => T): T
  /** Called when a transaction rolls back, so in-memory caches drop what it wrote. */
  onRollback(listener: () => void): void
  /**
   * Runs `effect` once the outermost transaction commits (at once outside a transaction);
   * dropped if it rolls back. In-memory indexes (the dial queues) follow SQLite this way.
   */
  afterCommit(effect: () => void): void
  close(): void
}

export interface OpenOptions {
  synchronous?: 'NORMAL' | 'FULL'
}

export function openDatabase(path: string, options: OpenOptions = {}): DatabaseHandle {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true })
  const sqlite = new Database(path, { create: true, strict: true })
  // WAL: readers never block the writer, and a reader (backup) can copy while we serve.
  sqlite.run('PRAGMA journal_mode = WAL')
  sqlite.run(`PRAGMA synchronous = ${options.synchronous ?? 'NORMAL'}`)
  sqlite.run('PRAGMA foreign_keys = ON')
  // A second process (the backup command) may hold a lock briefly; wait rather than fail.
  sqlite.run('PRAGMA busy_timeout = 5000')
  sqlite.run('PRAGMA temp_store = MEMORY')
  const db = drizzle(sqlite, { schema })
  const rollbackListeners: (() => void)[] = []
  let depth = 0
  let pending: (() => void)[] = []
  return {
    sqlite,
    db,
    transaction<T>(work: () => T): T {
      depth++
      let result: T
      try {
        result = sqlite.transaction(work).immediate()
      } catch (error) {
        depth--
        if (depth === 0) pending = []
        for (const listener of rollbackListeners) listener()
        throw error
      }
      depth--
      if (depth === 0 && pending.length > 0) {
        const effects = pending
        pending = []
        for (const effect of effects) effect()
      }
      return result
    },
    onRollback(listener) {
      rollbackListeners.push(listener)
    },
    afterCommit(effect) {
      if (depth === 0) effect()
      else pending.push(effect)
    },
    close() {
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

/** Applies the embedded migrations that the database has not seen yet; returns how many. */
export function migrate(database: DatabaseHandle): number {
  const before = appliedMigrations(database)
  const { dialect, session } = database.db as unknown as {
    dialect: { migrate(m: typeof migrations, s: unknown, c: object): void }
    session: unknown
  }
  dialect.migrate(migrations, session, {})
  return appliedMigrations(database) - before
}

function appliedMigrations(database: DatabaseHandle): number {
  const table = database.sqlite
    .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get()
  if (!table) return 0
  return (database.sqlite.query('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n
}

export const latestMigration = () => migrations[migrations.length - 1]!.tag
