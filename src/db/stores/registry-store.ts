import type { Database } from 'bun:sqlite'

/** One area code of the national registry: its sorted subscriber numbers (the last 7 digits). */
export interface RegistryArea {
  areaCode: number
  subscribers: Uint32Array
}

/** What one import did (a row of dnc_registry_imports). */
export interface RegistryImportRow {
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
 * The national Do Not Call registry's rows (src/db/schema/dnc-registry.ts). Straight to
 * bun:sqlite: a few hundred blobs of up to megabytes each, where Drizzle's row mapping adds
 * nothing. `standalone` is the database's own-commit transaction: an import is one large unit
 * of work and commits on its own, not inside the turn's group.
 */
export function registryStore(sqlite: Database, standalone: <T>(work: () => T) => T) {
  const insertArea = sqlite.query<never, [number, number, Uint8Array]>(
    'INSERT INTO dnc_registry_areas (area_code, numbers, subscribers) VALUES (?, ?, ?)',
  )
  const insertImport = sqlite.query<never, [number, number, number, number, number]>(
    'INSERT INTO dnc_registry_imports (imported_at, total, lines, rejected, duplicates) VALUES (?, ?, ?, ?, ?)',
  )
  const allAreas = sqlite.query<{ area_code: number; subscribers: Uint8Array }, []>(
    'SELECT area_code, subscribers FROM dnc_registry_areas ORDER BY area_code',
  )
  const lastImport = sqlite.query<{ imported_at: number; total: number; lines: number; rejected: number; duplicates: number }, []>(
    'SELECT imported_at, total, lines, rejected, duplicates FROM dnc_registry_imports ORDER BY id DESC LIMIT 1',
  )
  return {
    /** Replaces the whole registry with `areas` and records the import: one transaction, all or nothing. */
    replace(areas: readonly RegistryArea[], record: RegistryImportRow): void {
      standalone(() => {
        sqlite.run('DELETE FROM dnc_registry_areas')
        for (const area of areas) {
          if (area.subscribers.length > 0) insertArea.run(area.areaCode, area.subscribers.length, bytesOf(area.subscribers))
        }
        insertImport.run(record.importedAt, record.total, record.lines, record.rejected, record.duplicates)
      })
    },
    /** Every area code with its numbers, one at a time (boot builds the in-memory index from them). */
    *areas(): Generator<RegistryArea> {
      for (const row of allAreas.iterate()) yield { areaCode: row.area_code, subscribers: numbersOf(row.subscribers) }
    },
    lastImport(): RegistryImportRow | null {
      const row = lastImport.get()
      return row ? { importedAt: row.imported_at, total: row.total, lines: row.lines, rejected: row.rejected, duplicates: row.duplicates } : null
    },
  }
}

export type RegistryStore = ReturnType<typeof registryStore>
