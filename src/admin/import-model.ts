import { t, type Static } from 'elysia'
import { IMPORT_STATES } from '../db/schema/imports'
import type { LeadImportRow } from '../db/stores/import-store'
import { iso } from '../jobs/clock'

/** GET /admin/imports/{id}'s `data` (and each item of GET /admin/orgs/{id}/imports): a lead CSV import's record. */
export const LeadImportShape = t.Object({
  id: t.String({ format: 'uuid' }),
  org_id: t.String({ format: 'uuid' }),
  campaign_id: t.String({ format: 'uuid' }),
  state: t.Union(IMPORT_STATES.map((s) => t.Literal(s))),
  rows_total: t.Integer({ minimum: 0 }),
  rows_done: t.Integer({ minimum: 0 }),
  rows_imported: t.Integer({ minimum: 0 }),
  rows_failed: t.Integer({ minimum: 0 }),
  created: t.String({ format: 'date-time' }),
  updated: t.String({ format: 'date-time' }),
})

export const presentImport = (r: LeadImportRow): Static<typeof LeadImportShape> => ({
  id: r.id,
  org_id: r.orgId,
  campaign_id: r.campaignId,
  state: r.state,
  rows_total: r.rowsTotal,
  rows_done: r.rowsDone,
  rows_imported: r.rowsImported,
  rows_failed: r.rowsFailed,
  created: iso(r.created),
  updated: iso(r.updated),
})
