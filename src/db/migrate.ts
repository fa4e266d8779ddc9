import { logger } from '../log'
import type { Database } from 'bun:sqlite'
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import type * as schema from './schema'
import { migrations } from './migrations.generated'

type Db = BunSQLiteDatabase<typeof schema>
/** What migrating reads: the connection and its Drizzle handle (client.ts's DatabaseHandle has both). */
type Migratable = { readonly sqlite: Database; readonly db: Db }

/**
 * Applies the embedded migrations the database has not seen yet (the first `upTo`: tests of
 * upgrades), one transaction each, each logged as `migration_applied`; returns how many.
 */
export function migrate(database: Migratable, upTo: number = migrations.length): number {
  const before = appliedMigrations(database)
  const { dialect, session } = migratorOf(database.db)
  const last = lastMigrationMillis(database)
  for (let i = 0; i < upTo; i++) {
    const migration = migrations[i]!
    if (last !== null && migration.folderMillis <= last) continue
    // Drizzle applies what in the list is newer than the last applied: here, this one only.
    const started = performance.now()
    dialect.migrate(migrations.slice(0, i + 1), session, {})
    logger.info('migration_applied', { migration: migration.tag, duration_ms: Math.round((performance.now() - started) * 100) / 100 })
  }
  return appliedMigrations(database) - before
}

/**
 * Drizzle internal: the database object's `dialect.migrate(migrations, session, config)`, what
 * drizzle-orm/bun-sqlite/migrator calls with migrations read from a folder; here they are the
 * embedded ones (the binary has no drizzle/ folder). Checked by test/unit/drizzle-internals.test.ts.
 */
export function migratorOf(db: Db): { dialect: { migrate(m: typeof migrations, s: unknown, c: object): void }; session: unknown } {
  const inner = db as unknown as { dialect?: { migrate?: unknown }; session?: unknown }
  if (typeof inner.dialect?.migrate !== 'function' || typeof inner.session !== 'object' || inner.session === null) {
    throw new Error('Drizzle internal changed: db.dialect.migrate / db.session, used by migrate() in src/db/migrate.ts')
  }
  return inner as ReturnType<typeof migratorOf>
}

/** `created_at` of the newest applied migration (Drizzle's own bookkeeping), null on a new database. */
function lastMigrationMillis(database: Migratable): number | null {
  const table = database.sqlite
    .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get()
  if (!table) return null
  const row = database.sqlite.query('SELECT max(created_at) AS at FROM __drizzle_migrations').get() as { at: number | null } | null
  return row?.at === null || row?.at === undefined ? null : Number(row.at)
}

function appliedMigrations(database: Migratable): number {
  const table = database.sqlite
    .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'")
    .get()
  if (!table) return 0
  return (database.sqlite.query('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n
}

export const latestMigration = () => migrations[migrations.length - 1]!.tag
