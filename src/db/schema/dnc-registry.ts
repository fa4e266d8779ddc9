/** The national and state Do Not Call registries (docs/dnc-registry.md): the numbers, packed, and each import. */
import { blob, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'

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
  /** Which list the import replaced: "national", or a state's two-letter code. */
  list: text('list').notNull().default('national'),
})

/** State Do Not Call lists, packed as the national one is (one row per state and area code); an import replaces one state's rows. */
export const dncStateRegistryAreas = sqliteTable(
  'dnc_state_registry_areas',
  {
    state: text('state').notNull(),
    areaCode: integer('area_code').notNull(),
    numbers: integer('numbers').notNull(),
    subscribers: blob('subscribers', { mode: 'buffer' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.state, t.areaCode] })],
)
