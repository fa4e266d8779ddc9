import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { is } from 'drizzle-orm'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { renderMigrationsModule } from '../../scripts/embed-migrations'
import { latestMigration, migrate, openDatabase } from '../../src/db/client'
import { migrations } from '../../src/db/migrations.generated'
import * as schema from '../../src/db/schema'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const root = join(import.meta.dir, '..', '..')

/** Every table declared in src/db/schema.ts, with its column names. */
const schemaTables = Object.values(schema as Record<string, unknown>)
  .filter((value): value is SQLiteTable => is(value, SQLiteTable))
  .map((table) => {
    const config = getTableConfig(table)
    return { name: config.name, columns: config.columns.map((c) => c.name).sort() }
  })
  .sort((a, b) => a.name.localeCompare(b.name))

describe('embedded migrations', () => {
  test('src/db/migrations.generated.ts is up to date with drizzle/ (run `bun run db:generate`)', () => {
    const onDisk = readFileSync(join(root, 'src/db/migrations.generated.ts'), 'utf8')
    expect(onDisk).toBe(renderMigrationsModule(join(root, 'drizzle')))
  })

  test('one entry per journal entry, in order', () => {
    const journal = JSON.parse(readFileSync(join(root, 'drizzle/meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] }
    expect(migrations.map((m) => m.tag)).toEqual(journal.entries.map((e) => e.tag))
    expect(latestMigration()).toBe(journal.entries.at(-1)!.tag)
  })
})

describe('migrate()', () => {
  test('applies every migration once on a fresh database; a second call applies none', () => {
    const database = openDatabase(':memory:')
    try {
      expect(migrate(database)).toBe(migrations.length)
      expect(migrations.length).toBeGreaterThan(0)
      expect(migrate(database)).toBe(0)
    } finally {
      database.close()
    }
  })

  test('creates exactly the tables and columns of src/db/schema.ts', () => {
    const database = openDatabase(':memory:')
    try {
      migrate(database)
      const names = database.sqlite
        .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != '__drizzle_migrations' ORDER BY name")
        .all() as { name: string }[]
      // FTS5 tables (lead_search) and their shadow tables are SQLite's, not the schema's.
      const virtual = (database.sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'").all() as { name: string }[]).map((v) => v.name)
      const ftsTable = (name: string) => virtual.some((v) => name === v || ['data', 'idx', 'docsize', 'config', 'content'].some((suffix) => name === `${v}_${suffix}`))
      const created = names.filter(({ name }) => !ftsTable(name)).map(({ name }) => ({
        name,
        columns: (database.sqlite.query(`PRAGMA table_info(\`${name}\`)`).all() as { name: string }[]).map((c) => c.name).sort(),
      }))
      expect(schemaTables.length).toBeGreaterThan(0)
      expect(created).toEqual(schemaTables)
    } finally {
      database.close()
    }
  })
})
