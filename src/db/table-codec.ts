import type { Database, SQLQueryBindings } from 'bun:sqlite'
import { Column, getTableColumns, getTableName } from 'drizzle-orm'
import type { SQLiteTable } from 'drizzle-orm/sqlite-core'
import { describeCache } from '../cache-registry'

// Per codec, never stale (SQL text and column lists in, compiled code out): not registered for clearing.
describeCache({
  name: 'codec-statements',
  holds: 'compiled statements by clause and row decoders by column list, per hot table',
  bound: 'one per query shape in the code',
  clearedBy: 'nothing (pure)',
  gain: 'a statement 0.01 vs 0.03–0.34 µs by SQL text, plus building the text; a decoder 0.9–6.7 µs to compile',
  source: 'pure',
})
describeCache({
  name: 'codec-shared-json',
  holds: "a call's small repeating JSON values (owner, handled by, started by), parsed once and frozen, by text",
  bound: '5,000 texts; full, it is emptied',
  clearedBy: 'nothing (pure)',
  gain: '2–5 vs 15–50 µs a page of 50 calls',
  source: 'pure',
})

/**
 * Fast paths for the hot tables (leads, calls, events): rows written and read through cached
 * bun:sqlite statements, converted with the Drizzle schema's own column mappers (JSON,
 * booleans) and defaults. Drizzle rebuilds a wide row's SQL on every call (docs/architecture.md,
 * "Data access"); these statements are compiled once per shape. The schema stays the one truth.
 */
// Drizzle internal: the base Column's mappers return the value unchanged and subclasses (JSON,
// boolean) override them, so a column still on the base mapper needs no call. Checked by
// test/unit/drizzle-internals.test.ts.
const identityMapper = (Column.prototype as unknown as { mapFromDriverValue: unknown }).mapFromDriverValue
const identityToDriver = (Column.prototype as unknown as { mapToDriverValue: unknown }).mapToDriverValue
/** Whether the codec skips this column's mapper (read, write): it is the base Column's. */
export const usesBaseMapper = (column: Column) => ({
  fromDriver: Object.getPrototypeOf(column).mapFromDriverValue === identityMapper,
  toDriver: column.mapToDriverValue === identityToDriver,
})

/**
 * For JSON columns whose values repeat from row to row (a call's owner, who handled it, who
 * started it: a few people and shapes across a page of 50): each distinct text is parsed once
 * and the frozen result shared. Larger values are parsed each time. Columns whose values are
 * mostly unique (a lead's custom fields) are not worth it and are not shared.
 */
function sharedJson(parse: (value: unknown) => unknown): (value: unknown) => unknown {
  const known = new Map<string, unknown>()
  return (value) => {
    if (typeof value !== 'string' || value.length > 200) return parse(value)
    let parsed = known.get(value)
    if (parsed === undefined) {
      if (known.size >= 5_000) known.clear()
      parsed = deepFreeze(parse(value))
      known.set(value, parsed)
    }
    return parsed
  }
}

function deepFreeze<V>(value: V): V {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}

export function tableCodec<T extends SQLiteTable>(sqlite: Database, table: T, options: { sharedJson?: readonly (keyof T['$inferSelect'] & string)[] } = {}) {
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

  /**
   * The insert as a function generated from the schema's keys (JSON-quoted, never input): one
   * object literal for the row and the statement's arguments written out, which costs a lead
   * about a third of the loop it replaces (a lead has 36 columns, and intake writes one lead
   * and two events per lead).
   */
  const insertRow = (() => {
    const defaults = columns.map(({ column }) => (column.hasDefault && column.default !== undefined ? column.default : null))
    const mappers = columns.map(({ column }) =>
      usesBaseMapper(column).toDriver ? null : (value: unknown) => column.mapToDriverValue(value),
    )
    const fields = columns.map(({ key }, i) => `${JSON.stringify(key)}: v[${JSON.stringify(key)}] === undefined ? d[${i}] : v[${JSON.stringify(key)}]`)
    const args = columns.map(({ key }, i) =>
      mappers[i] ? `r[${JSON.stringify(key)}] == null ? null : m[${i}](r[${JSON.stringify(key)}])` : `r[${JSON.stringify(key)}]`,
    )
    return new Function('statement', 'd', 'm', `return function insertRow(v) {
      const r = { ${fields.join(', ')} }
      statement.run(${args.join(', ')})
      return r
    }`)(insertStatement, defaults, mappers) as (values: Insert) => Row
  })()

  // Most columns come back as stored; only JSON and boolean columns need their mapper (a row of
  // a page of 50 calls decodes 32 columns, so the skipped calls add up).
  const shared = new Set<string>(options.sharedJson ?? [])
  const mapperOf = (key: string, column: Column) => {
    if (usesBaseMapper(column).fromDriver) return null
    const map = (value: unknown) => column.mapFromDriverValue(value)
    return shared.has(key) ? sharedJson(map) : map
  }

  /**
   * Rows are read as value arrays (bun:sqlite builds those far faster than keyed objects) and
   * turned into row objects by a function generated per column list: one object literal, so
   * every row has the same shape. Cached by the list of keys.
   */
  interface Reader<R> {
    select: string
    decode: (values: unknown[]) => R
  }
  const readers = new Map<string, Reader<unknown>>()
  /** `alias` qualifies the column names (`c."id"`) for a query that joins another table. */
  function readerOf<R>(keys: readonly string[], alias = ''): Reader<R> {
    const name = `${alias}:${keys.join(',')}`
    let reader = readers.get(name)
    if (!reader) {
      const chosen = keys.map((key) => byKey.get(key)!)
      const maps = chosen.map((c) => mapperOf(c.key, c.column))
      const fields = chosen.map((c, i) =>
        `${JSON.stringify(c.key)}: v[${i}] == null ? null : ${maps[i] ? `m[${i}](v[${i}])` : `v[${i}]`}`,
      )
      // Generated from the schema's own keys (JSON-quoted), never from input.
      const decode = new Function('m', `return function decode(v) { return { ${fields.join(', ')} } }`)(maps) as (values: unknown[]) => unknown
      reader = { select: chosen.map((c) => (alias ? `${alias}.` : '') + quoted(c.name)).join(', '), decode }
      readers.set(name, reader)
    }
    return reader as Reader<R>
  }
  /**
   * Statements by the caller's clause. bun:sqlite's query() caches by SQL text too, but
   * finding a 600-character SELECT there means hashing it on every call.
   */
  const statements = new Map<string, ReturnType<Database['query']>>()
  const statement = (key: string, sql: () => string) => {
    let found = statements.get(key)
    if (found === undefined) {
      found = sqlite.query(sql())
      statements.set(key, found)
    }
    return found
  }
  const allKeys = columns.map((c) => c.key)
  let wholeRow: Reader<Row> | null = null
  const whole = () => (wholeRow ??= readerOf<Row>(allKeys))

  return {
    /** Inserts a row (defaults filled from the schema) and returns it as a select would. */
    insert: insertRow,

    /** Updates the given columns of the row with this primary key; returns the new row. */
    update(idColumn: keyof Row & string, id: string, changes: Partial<Insert>): Row | undefined {
      const keys = Object.keys(changes).filter((k) => (changes as Record<string, unknown>)[k] !== undefined)
      const idName = byKey.get(idColumn)!.name
      if (keys.length === 0) return this.selectOne(`${quoted(idName)} = ?`, [id])
      const reader = whole()
      const update = statement(`update:${idName}:${keys.join(',')}`, () => {
        const set = keys.map((k) => `${quoted(byKey.get(k)!.name)} = ?`).join(', ')
        return `UPDATE ${quoted(tableName)} SET ${set} WHERE ${quoted(idName)} = ? RETURNING ${reader.select}`
      })
      const params = keys.map((k) => toDriver(byKey.get(k)!.column, (changes as Record<string, unknown>)[k]))
      const values = update.values(...params, id)[0]
      return values ? reader.decode(values) : undefined
    },

    /** One row by a WHERE clause of column names and ? placeholders (statement cached by text). */
    selectOne(where: string, params: SQLQueryBindings[]): Row | undefined {
      const reader = whole()
      const values = statement(`one:${where}`, () => `SELECT ${reader.select} FROM ${quoted(tableName)} WHERE ${where} LIMIT 1`).values(...params)[0]
      return values ? reader.decode(values) : undefined
    },

    selectAll(where: string, params: SQLQueryBindings[], tail = ''): Row[] {
      return this.selectColumns(allKeys as (keyof Row & string)[], where, params, tail) as Row[]
    },

    /**
     * The SELECT list and decoder for some columns, for a query written by the store (a join):
     * `decode` reads the first keys.length values of a row and ignores any after them.
     */
    columns<K extends keyof Row & string>(keys: readonly K[], alias: string): Reader<Pick<Row, K>> {
      return readerOf<Pick<Row, K>>(keys, alias)
    },

    /** Only the given columns (a list page that shows a few of a wide row's columns). */
    selectColumns<K extends keyof Row & string>(keys: readonly K[], where: string, params: SQLQueryBindings[], tail = ''): Pick<Row, K>[] {
      const reader = readerOf<Pick<Row, K>>(keys)
      const rows = sqlite.query(`SELECT ${reader.select} FROM ${quoted(tableName)} WHERE ${where} ${tail}`).values(...params)
      return rows.map(reader.decode)
    },
  }
}
