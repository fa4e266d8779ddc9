/** Lead search (console): how far the FTS5 index lead_search has read the leads table (drizzle/0018_lead_search.sql). */
import { sql } from 'drizzle-orm'
import { check, integer, sqliteTable } from 'drizzle-orm/sqlite-core'

export const leadSearchState = sqliteTable(
  'lead_search_state',
  {
    /** One row. */
    id: integer('id').primaryKey(),
    /** Leads up to this rowid are in the index; those after it are read without it. */
    indexedTo: integer('indexed_to').notNull(),
  },
  (t) => [check('lead_search_state_one_row', sql`${t.id} = 1`)],
)
