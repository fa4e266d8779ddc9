/** Lead CSV imports: one row per import, so a crash leaves a record and the same file can resume. */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { orgs } from './access'
import { campaigns } from './campaigns'

export const IMPORT_STATES = ['running', 'done', 'interrupted'] as const

export const leadImports = sqliteTable(
  'lead_imports',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    campaignId: text('campaign_id').notNull().references(() => campaigns.id),
    state: text('state', { enum: IMPORT_STATES }).notNull(),
    /** SHA-256 (hex) of the file as sent: the same file imported again resumes this import. */
    fileSha256: text('file_sha256').notNull(),
    /** The column mapping it ran with (JSON), part of what makes a re-run "the same import". */
    mapping: text('mapping').notNull(),
    rowsTotal: integer('rows_total').notNull().default(0),
    /** Data rows committed (imported or refused), in file order: a resume skips this many. */
    rowsDone: integer('rows_done').notNull().default(0),
    rowsImported: integer('rows_imported').notNull().default(0),
    rowsFailed: integer('rows_failed').notNull().default(0),
    created: integer('created').notNull(),
    updated: integer('updated').notNull(),
  },
  (t) => [
    index('lead_imports_org').on(t.orgId, t.id),
    index('lead_imports_resume').on(t.orgId, t.campaignId, t.fileSha256),
  ],
)
