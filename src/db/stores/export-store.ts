import type { Database } from 'bun:sqlite'
import { and, desc, eq, lte } from 'drizzle-orm'
import type { Db } from '../client'
import { exportFiles } from '../schema'

export type ExportRow = typeof exportFiles.$inferSelect
export type NewExport = typeof exportFiles.$inferInsert

/**
 * Export rows read in pages by id (keyset), so memory stays flat and no statement stays open
 * while the file is written (other requests write on the same connection meanwhile).
 */
export function exportStore(db: Db, sqlite: Database) {
  return {
    insert(row: NewExport): ExportRow {
      return db.insert(exportFiles).values(row).returning().get()
    },
    update(id: string, changes: Partial<NewExport>): void {
      db.update(exportFiles).set(changes).where(eq(exportFiles.id, id)).run()
    },
    get(id: string): ExportRow | undefined {
      return db.select().from(exportFiles).where(eq(exportFiles.id, id)).get()
    },
    list(orgId: string, livemode: boolean): ExportRow[] {
      return db.select().from(exportFiles).where(and(eq(exportFiles.orgId, orgId), eq(exportFiles.livemode, livemode))).orderBy(desc(exportFiles.id)).limit(100).all()
    },
    /** Exports still being written: at boot, ones a stop cut short. */
    pending(): ExportRow[] {
      return db.select().from(exportFiles).where(eq(exportFiles.status, 'pending')).all()
    },
    expired(now: number): ExportRow[] {
      return db.select().from(exportFiles).where(and(eq(exportFiles.status, 'ready'), lte(exportFiles.expiresAt, now))).all()
    },
    leadsPage(orgId: string, livemode: boolean, campaignId: string | null, from: number, to: number, afterId: string, limit: number) {
      return sqlite.query<
        { id: string; external_id: string | null; campaign_id: string; name: string | null; phone: string; email: string | null; address: string | null;
          status: string; call_now: number; attempts: number; last_outcome: string | null; last_outcome_label: string | null; lead_source: string | null; created: number; updated: number },
        [string, number, string | null, string | null, number, number, string, number]
      >(
        `SELECT id, external_id, campaign_id, name, phone, email, address, status, call_now, attempts, last_outcome, last_outcome_label, lead_source, created, updated
         FROM leads WHERE org_id = ? AND livemode = ? AND (? IS NULL OR campaign_id = ?) AND created >= ? AND created < ? AND id > ? ORDER BY id LIMIT ?`,
      ).all(orgId, livemode ? 1 : 0, campaignId, campaignId, from, to, afterId, limit)
    },
    callsPage(orgId: string, livemode: boolean, campaignId: string | null, from: number, to: number, afterId: string, limit: number) {
      return sqlite.query<
        { id: string; lead_id: string; external_id: string | null; campaign_id: string; direction: string; status: string; outcome: string | null;
          outcome_label: string | null; duration_seconds: number | null; started: number; answered: number | null; ended: number | null; handled_by: string; note: string | null },
        [string, number, string | null, string | null, number, number, string, number]
      >(
        `SELECT c.id, c.lead_id, l.external_id, c.campaign_id, c.direction, c.status, c.outcome, c.outcome_label, c.duration_seconds,
                c.started, c.answered, c.ended, c.handled_by, c.note
         FROM calls c JOIN leads l ON l.id = c.lead_id
         WHERE c.org_id = ? AND c.livemode = ? AND (? IS NULL OR c.campaign_id = ?) AND c.started >= ? AND c.started < ? AND c.id > ? ORDER BY c.id LIMIT ?`,
      ).all(orgId, livemode ? 1 : 0, campaignId, campaignId, from, to, afterId, limit)
    },
    /** Daily campaign rollups: a few rows a campaign a day, read at once. */
    analytics(orgId: string, livemode: boolean, campaignId: string | null, fromDay: string, toDay: string) {
      return sqlite.query<
        { day: string; campaign_id: string; leads_added: number; calls: number; calls_connected: number; minutes: number },
        [string, number, string | null, string | null, string, string]
      >(
        `SELECT day, dimension_id AS campaign_id, leads_added, calls, calls_connected, minutes FROM usage_daily
         WHERE org_id = ? AND livemode = ? AND dimension = 'campaign' AND (? IS NULL OR dimension_id = ?) AND day >= ? AND day <= ? ORDER BY day, dimension_id`,
      ).all(orgId, livemode ? 1 : 0, campaignId, campaignId, fromDay, toDay)
    },
  }
}

export type ExportStore = ReturnType<typeof exportStore>
