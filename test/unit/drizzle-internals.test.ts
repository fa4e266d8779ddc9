import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { Column, eq, getTableColumns } from 'drizzle-orm'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { readMigrationFiles } from 'drizzle-orm/migrator'
import { join } from 'node:path'
import { openDatabase, withStatementCache } from '../../src/db/client'
import { migrate, migratorOf } from '../../src/db/migrate'
import { migrations } from '../../src/db/migrations.generated'
import * as schema from '../../src/db/schema'
import { tableCodec, usesBaseMapper } from '../../src/db/table-codec'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * The three Drizzle internals the code relies on (docs/architecture.md "Data access"), each
 * asserted on the real objects the way the code uses them. A failure names the internal and
 * the file to fix: after a drizzle-orm upgrade, read that file's comment before changing this one.
 */
function internal(name: string, file: string, check: () => void): void {
  test(`${name} (used by ${file})`, () => {
    try {
      check()
    } catch (error) {
      throw new Error(
        `Drizzle internal "${name}" no longer holds (drizzle-orm upgrade?); ${file} relies on it.\n${error instanceof Error ? error.message : String(error)}`,
      )
    }
  })
}

function migrated() {
  const database = openDatabase(':memory:')
  migrate(database)
  // Rows below stand alone: no organization or campaign behind them.
  database.sqlite.run('PRAGMA foreign_keys = OFF')
  return database
}

describe('the prepare proxy (src/db/client.ts withStatementCache)', () => {
  internal("bun-sqlite session calls client.prepare(sql) for every builder query", 'src/db/client.ts', () => {
    const sqlite = new Database(':memory:')
    sqlite.run('CREATE TABLE settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)')
    const prepared: string[] = []
    const cached = withStatementCache(sqlite)
    const spy = new Proxy(cached, {
      get(target, property, receiver) {
        if (property === 'prepare') return (text: string) => (prepared.push(text), target.prepare(text))
        return Reflect.get(target, property, receiver)
      },
    })
    const db = drizzle(spy, { schema })
    db.insert(schema.settings).values({ name: 'a', value: '1' }).run()
    const read = db.select().from(schema.settings).where(eq(schema.settings.name, 'a')).prepare()
    expect(read.get()).toEqual({ name: 'a', value: '1' })
    expect(db.select().from(schema.settings).all()).toEqual([{ name: 'a', value: '1' }])
    expect(db.select({ v: schema.settings.value }).from(schema.settings).get()).toEqual({ v: '1' })
    expect(db.select().from(schema.settings).values()).toEqual([['a', '1']])
    expect(prepared.some((text) => text.startsWith('insert into "settings"'))).toBe(true)
    expect(prepared.filter((text) => text.startsWith('select')).length).toBeGreaterThanOrEqual(4)
    sqlite.close()
  })

  internal('the Drizzle handle keeps the proxied client as session.client, statements shared by SQL text', 'src/db/client.ts', () => {
    const database = openDatabase(':memory:')
    const session = (database.db as unknown as { session?: { client?: Database } }).session
    expect(session?.client).toBeDefined()
    const client = session!.client!
    // bun:sqlite's query() cache: the same statement object for the same text.
    expect(client.prepare('SELECT 1 AS one')).toBe(client.prepare('SELECT 1 AS one'))
    expect(client.prepare('SELECT 1 AS one')).toBe(database.sqlite.query('SELECT 1 AS one'))
    database.close()
  })
})

describe('the migrate cast (src/db/migrate.ts)', () => {
  internal('db.dialect.migrate(migrations, db.session, {}) applies only the entries newer than the last applied', 'src/db/migrate.ts', () => {
    const database = openDatabase(':memory:')
    const { dialect, session } = migratorOf(database.db)
    const applied = () => (database.sqlite.query('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n
    dialect.migrate(migrations.slice(0, 1), session, {})
    expect(applied()).toBe(1)
    dialect.migrate(migrations.slice(0, 2), session, {})
    expect(applied()).toBe(2)
    dialect.migrate(migrations.slice(0, 2), session, {})
    expect(applied()).toBe(2)
    // The rest through the code's own path.
    expect(migrate(database)).toBe(migrations.length - 2)
    database.close()
  })

  internal("embedded migrations have the shape of Drizzle's own readMigrationFiles()", 'src/db/migrations.generated.ts (scripts/embed-migrations.ts)', () => {
    const own = readMigrationFiles({ migrationsFolder: join(import.meta.dir, '..', '..', 'drizzle') })
    // Every field Drizzle reads (the embedded ones add `tag`, for the log).
    expect(Object.keys(migrations[0]!)).toEqual(expect.arrayContaining(Object.keys(own[0]!)))
    expect(migrations.map((m) => m.hash)).toEqual(own.map((m) => m.hash))
    expect(migrations.map((m) => m.folderMillis)).toEqual(own.map((m) => m.folderMillis))
  })
})

describe('Column prototype mappers (src/db/table-codec.ts)', () => {
  const codecTables = { leads: schema.leads, calls: schema.calls, events: schema.events, webhookDeliveries: schema.webhookDeliveries }

  internal('Column.prototype.mapFromDriverValue / mapToDriverValue exist and return the value unchanged', 'src/db/table-codec.ts', () => {
    const proto = Column.prototype as unknown as { mapFromDriverValue: (v: unknown) => unknown; mapToDriverValue: (v: unknown) => unknown }
    expect(typeof proto.mapFromDriverValue).toBe('function')
    expect(typeof proto.mapToDriverValue).toBe('function')
    const value = { any: 'thing' }
    expect(proto.mapFromDriverValue(value)).toBe(value)
    expect(proto.mapToDriverValue(value)).toBe(value)
  })

  internal('only JSON and boolean columns override the base mappers (the codec skips the rest)', 'src/db/table-codec.ts', () => {
    for (const [tableName, table] of Object.entries(codecTables)) {
      for (const [key, column] of Object.entries(getTableColumns(table))) {
        const c = column as Column
        const mapped = c.dataType === 'json' || c.dataType === 'boolean'
        const base = usesBaseMapper(c)
        const where = `${tableName}.${key} (${c.columnType})`
        expect({ column: where, skipsRead: base.fromDriver }).toEqual({ column: where, skipsRead: !mapped })
        expect({ column: where, skipsWrite: base.toDriver }).toEqual({ column: where, skipsWrite: !mapped })
        // A skipped mapper must really be the identity for this column's values.
        const sample = c.dataType === 'number' ? 42 : 'text'
        if (base.fromDriver) expect(c.mapFromDriverValue(sample)).toBe(sample)
        if (base.toDriver) expect(c.mapToDriverValue(sample)).toBe(sample)
      }
    }
  })

  internal('a row written and read by the codec equals the same row through the builder', 'src/db/table-codec.ts', () => {
    const database = migrated()
    const { db, sqlite } = database
    const leads = tableCodec(sqlite, schema.leads)
    const base = {
      orgId: 'org_1', campaignId: 'cmp_1', livemode: true, phone: '+14155550100', name: 'Ada', email: null, address: null,
      fields: { plan: 'gold', nested: 'x' }, owner: { name: 'Sam', email: 'sam@example.com' }, leadSource: 'api', status: 'queued' as const,
      callNow: true, queueKey: 7, queuedAt: 1, lastPostedAt: 1, created: 1, updated: 1,
    }
    const written = leads.insert({ ...base, id: 'lead_a' } as unknown as typeof schema.leads.$inferInsert)
    const viaBuilder = db.select().from(schema.leads).where(eq(schema.leads.id, 'lead_a')).get()
    expect(written).toEqual(viaBuilder!)
    db.insert(schema.leads).values({ ...base, id: 'lead_b', phone: '+14155550101', callNow: false } as unknown as typeof schema.leads.$inferInsert).run()
    expect(leads.selectOne('id = ?', ['lead_b'])).toEqual(db.select().from(schema.leads).where(eq(schema.leads.id, 'lead_b')).get()!)
    const updated = leads.update('id', 'lead_a', { fields: { plan: 'silver' }, callNow: false, late: true })
    expect(updated).toEqual(db.select().from(schema.leads).where(eq(schema.leads.id, 'lead_a')).get()!)
    expect(updated!.fields).toEqual({ plan: 'silver' })
    expect(updated!.callNow).toBe(false)
    database.close()
  })
})
