import type { Database } from 'bun:sqlite'

/** One area code of the national registry: its sorted subscriber numbers (the last 7 digits). */
export interface RegistryArea {
  areaCode: number
  subscribers: Uint32Array
}

/** What one import did (a row of dnc_registry_imports). */
export interface RegistryImportRow {
  /** "national" (the default), or the state whose list it replaced. */
  list?: string
  importedAt: number
  total: number
  lines: number
  rejected: number
  duplicates: number
}

/** The Uint32 array as the bytes SQLite keeps (little-endian, as every platform Bun runs on). */
const bytesOf = (numbers: Uint32Array) => new Uint8Array(numbers.buffer, numbers.byteOffset, numbers.byteLength)

function numbersOf(bytes: Uint8Array): Uint32Array {
  const count = bytes.byteLength >>> 2
  // A view when the blob's bytes are aligned (they normally are: each blob is its own buffer).
  if (bytes.byteOffset % 4 === 0) return new Uint32Array(bytes.buffer, bytes.byteOffset, count)
  return new Uint32Array(bytes.slice(0, count * 4).buffer)
}

/**
 * The national and state Do Not Call registries' rows (src/db/schema/dnc-registry.ts). Straight to
 * bun:sqlite: a few hundred blobs of up to megabytes each, where Drizzle's row mapping adds
 * nothing. `standalone` is the database's own-commit transaction: an import is one large unit
 * of work and commits on its own, not inside the turn's group.
 */
export function registryStore(sqlite: Database, standalone: <T>(work: () => T) => T) {
  const insertArea = sqlite.query<never, [number, number, Uint8Array]>(
    'INSERT INTO dnc_registry_areas (area_code, numbers, subscribers) VALUES (?, ?, ?)',
  )
  const insertImport = sqlite.query<never, [string, number, number, number, number, number]>(
    'INSERT INTO dnc_registry_imports (list, imported_at, total, lines, rejected, duplicates) VALUES (?, ?, ?, ?, ?, ?)',
  )
  const allAreas = sqlite.query<{ area_code: number; subscribers: Uint8Array }, []>(
    'SELECT area_code, subscribers FROM dnc_registry_areas ORDER BY area_code',
  )
  const insertStateArea = sqlite.query<never, [string, number, number, Uint8Array]>(
    'INSERT INTO dnc_state_registry_areas (state, area_code, numbers, subscribers) VALUES (?, ?, ?, ?)',
  )
  const stateAreas = sqlite.query<{ state: string; area_code: number; subscribers: Uint8Array }, []>(
    'SELECT state, area_code, subscribers FROM dnc_state_registry_areas ORDER BY state, area_code',
  )
  const lastImport = sqlite.query<{ list: string; imported_at: number; total: number; lines: number; rejected: number; duplicates: number }, [string]>(
    'SELECT list, imported_at, total, lines, rejected, duplicates FROM dnc_registry_imports WHERE list = ? ORDER BY id DESC LIMIT 1',
  )
  const lastImports = sqlite.query<{ list: string; imported_at: number; total: number; lines: number; rejected: number; duplicates: number }, []>(
    'SELECT list, imported_at, total, lines, rejected, duplicates FROM dnc_registry_imports WHERE id IN (SELECT MAX(id) FROM dnc_registry_imports GROUP BY list)',
  )
  const rowOf = (row: { list: string; imported_at: number; total: number; lines: number; rejected: number; duplicates: number }): RegistryImportRow =>
    ({ list: row.list, importedAt: row.imported_at, total: row.total, lines: row.lines, rejected: row.rejected, duplicates: row.duplicates })
  const record = (list: string, r: RegistryImportRow) => insertImport.run(list, r.importedAt, r.total, r.lines, r.rejected, r.duplicates)
  return {
    /** Replaces the whole national registry with `areas` and records the import: one transaction, all or nothing. */
    replace(areas: readonly RegistryArea[], row: RegistryImportRow): void {
      standalone(() => {
        sqlite.run('DELETE FROM dnc_registry_areas')
        for (const area of areas) {
          if (area.subscribers.length > 0) insertArea.run(area.areaCode, area.subscribers.length, bytesOf(area.subscribers))
        }
        record('national', row)
      })
    },
    /** Replaces one state's list (the national one and other states' stay) and records the import: one transaction. */
    replaceState(state: string, areas: readonly RegistryArea[], row: RegistryImportRow): void {
      standalone(() => {
        sqlite.run('DELETE FROM dnc_state_registry_areas WHERE state = ?', [state])
        for (const area of areas) {
          if (area.subscribers.length > 0) insertStateArea.run(state, area.areaCode, area.subscribers.length, bytesOf(area.subscribers))
        }
        record(state, row)
      })
    },
    /** Every area code with its numbers, one at a time (boot builds the in-memory index from them). */
    *areas(): Generator<RegistryArea> {
      for (const row of allAreas.iterate()) yield { areaCode: row.area_code, subscribers: numbersOf(row.subscribers) }
    },
    /** Every state list's area codes, ordered by state (boot). */
    *stateAreas(): Generator<RegistryArea & { state: string }> {
      for (const row of stateAreas.iterate()) yield { state: row.state, areaCode: row.area_code, subscribers: numbersOf(row.subscribers) }
    },
    /** The last import of `list` (the national registry when not given). */
    lastImport(list = 'national'): RegistryImportRow | null {
      const row = lastImport.get(list)
      return row ? rowOf(row) : null
    },
    /** The last import of every list ever imported. */
    lastImports(): RegistryImportRow[] {
      return lastImports.all().map(rowOf)
    },
  }
}

export type RegistryStore = ReturnType<typeof registryStore>
