import type { Database, SQLQueryBindings } from 'bun:sqlite'
import { Column, getTableColumns, getTableName } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'

/**
 * Fast paths for the hot tables (leads, calls, events): rows written and read through cached
 * bun:sqlite statements, converted with the Drizzle schema's own column mappers (JSON,
 * booleans) and defaults. Drizzle rebuilds a wide row's SQL on every call (about 0.1-0.2 ms
 * for a lead); these statements are compiled once per shape. The schema stays the one truth.
 */
// Drizzle's base Column returns the driver value unchanged; subclasses (JSON, boolean) override it.
const identityMapper = (Column.prototype as unknown as { mapFromDriverValue: unknown }).mapFromDriverValue

export function tableCodec<T extends SQLiteTable>(sqlite: Database, table: T) {
  type Row = T['$inferSelect']
  type Insert = T['$inferInsert']
  const columns = Object.entries(getTableColumns(table)).map(([key, column]) => ({ key, column: column as Column, name: column.name }))
  const byKey = new Map(columns.map((c) => [c.key, c]))
  const tableName = getTableName(table)
  const quoted = (name: string) => `"${name}"`
  const insertStatement = sqlite.query(
    `INSERT INTO ${quoted(tableName)} (${columns.map((c) => quoted(c.name)).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  )

  const toDriver = (column: Column, value: unknown): SQLQueryBindings =>
    value === null || value === undefined ? null : (column.mapToDriverValue(value) as SQLQueryBindings)

  // Most columns come back as stored; only JSON and boolean columns need their mapper (a row of
  // a page of 50 calls decodes 32 columns, so the skipped calls add up).
  const readers = columns.map(({ key, column, name }) => ({
    key,
    name,
    map: Object.getPrototypeOf(column).mapFromDriverValue === identityMapper ? null : (value: unknown) => column.mapFromDriverValue(value),
  }))

  function decode(raw: Record<string, unknown>): Row {
    const row: Record<string, unknown> = {}
    for (const { key, name, map } of readers) {
      const value = raw[name]
      row[key] = value === null || value === undefined ? null : map ? map(value) : value
    }
    return row as Row
  }

  return {
    decode,

    /** Inserts a row (defaults filled from the schema) and returns it as a select would. */
    insert(values: Insert): Row {
      const row: Record<string, unknown> = {}
      const params: SQLQueryBindings[] = []
      for (const { key, column } of columns) {
        let value = (values as Record<string, unknown>)[key]
        if (value === undefined) value = column.hasDefault && column.default !== undefined ? column.default : null
        row[key] = value
        params.push(toDriver(column, value))
      }
      insertStatement.run(...params)
      return row as Row
    },

    /** Updates the given columns of the row with this primary key; returns the new row. */
    update(idColumn: keyof Row & string, id: string, changes: Partial<Insert>): Row | undefined {
      const keys = Object.keys(changes).filter((k) => (changes as Record<string, unknown>)[k] !== undefined)
      const idName = byKey.get(idColumn)!.name
      if (keys.length === 0) return this.selectOne(`${quoted(idName)} = ?`, [id])
      const set = keys.map((k) => `${quoted(byKey.get(k)!.name)} = ?`).join(', ')
      const statement = sqlite.query(`UPDATE ${quoted(tableName)} SET ${set} WHERE ${quoted(idName)} = ? RETURNING *`)
      const params = keys.map((k) => toDriver(byKey.get(k)!.column, (changes as Record<string, unknown>)[k]))
      const raw = statement.get(...params, id) as Record<string, unknown> | null
      return raw ? decode(raw) : undefined
    },

    /** One row by a WHERE clause of column names and ? placeholders (statement cached by text). */
    selectOne(where: string, params: SQLQueryBindings[]): Row | undefined {
      const raw = sqlite.query(`SELECT * FROM ${quoted(tableName)} WHERE ${where} LIMIT 1`).get(...params) as Record<string, unknown> | null
      return raw ? decode(raw) : undefined
    },

    selectAll(where: string, params: SQLQueryBindings[], tail = ''): Row[] {
      const rows = sqlite.query(`SELECT * FROM ${quoted(tableName)} WHERE ${where} ${tail}`).all(...params) as Record<string, unknown>[]
      return rows.map(decode)
    },
  }
}
