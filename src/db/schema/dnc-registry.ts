/** The national Do Not Call registry (docs/dnc-registry.md): the numbers, packed, and each import. */
import { blob, integer, sqliteTable } from 'drizzle-orm/sqlite-core'

/**
 * One row per area code: its subscriber numbers (the 7 digits after the area code) as a
 * sorted, duplicate-free little-endian Uint32 array. About 4 bytes a number, so 10 million
 * numbers are about 40 MB in a few hundred rows, and backups carry them with everything else.
 * An import replaces every row in one transaction.
 */
export const dncRegistryAreas = sqliteTable('dnc_registry_areas', {
  areaCode: integer('area_code').primaryKey(),
  /** How many numbers `subscribers` holds. */
  numbers: integer('numbers').notNull(),
  subscribers: blob('subscribers', { mode: 'buffer' }).notNull(),
})

/** Every import, newest last: when the registry was last refreshed (the FTC's 31-day rule) and what the file held. */
export const dncRegistryImports = sqliteTable('dnc_registry_imports', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  importedAt: integer('imported_at').notNull(),
  /** Distinct numbers imported (the registry's size afterwards: an import replaces). */
  total: integer('total').notNull(),
  /** Lines of the file, blank ones included. */
  lines: integer('lines').notNull(),
  rejected: integer('rejected').notNull(),
  duplicates: integer('duplicates').notNull(),
})
