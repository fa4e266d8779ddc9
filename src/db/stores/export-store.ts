import type { Database } from 'bun:sqlite'
import { and, desc, eq, gte, lte } from 'drizzle-orm'
import type { Db } from '../client'
import { exportFiles, usageDaily } from '../schema'

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
    // Raw (bulk: every lead of an export): faster than the builder (docs/architecture.md, "Data access").
    leadsPage(orgId: string, livemode: boolean, campaignId: string | null, from: number, to: number, afterId: string, limit: number) {
      return sqlite.query<
        { id: string; externalId: string | null; campaignId: string; name: string | null; phone: string; email: string | null; address: string | null;
          status: string; callNow: number; attempts: number; lastOutcome: string | null; lastOutcomeLabel: string | null; leadSource: string | null; created: number; updated: number },
        [string, number, string | null, string | null, number, number, string, number]
      >(
        `SELECT id, external_id AS externalId, campaign_id AS campaignId, name, phone, email, address, status, call_now AS callNow, attempts,
                last_outcome AS lastOutcome, last_outcome_label AS lastOutcomeLabel, lead_source AS leadSource, created, updated
         FROM leads WHERE org_id = ? AND livemode = ? AND (? IS NULL OR campaign_id = ?) AND created >= ? AND created < ? AND id > ? ORDER BY id LIMIT ?`,
      ).all(orgId, livemode ? 1 : 0, campaignId, campaignId, from, to, afterId, limit)
    },
    // Raw (bulk: every call of an export), as leadsPage. `handledBy` stays JSON text (the file shows two of its fields).
    callsPage(orgId: string, livemode: boolean, campaignId: string | null, from: number, to: number, afterId: string, limit: number) {
      return sqlite.query<
        { id: string; leadId: string; externalId: string | null; campaignId: string; direction: string; status: string; outcome: string | null;
          outcomeLabel: string | null; durationSeconds: number | null; started: number; answered: number | null; ended: number | null; handledBy: string; note: string | null },
        [string, number, string | null, string | null, number, number, string, number]
      >(
        `SELECT c.id, c.lead_id AS leadId, l.external_id AS externalId, c.campaign_id AS campaignId, c.direction, c.status, c.outcome,
                c.outcome_label AS outcomeLabel, c.duration_seconds AS durationSeconds, c.started, c.answered, c.ended, c.handled_by AS handledBy, c.note
         FROM calls c JOIN leads l ON l.id = c.lead_id
         WHERE c.org_id = ? AND c.livemode = ? AND (? IS NULL OR c.campaign_id = ?) AND c.started >= ? AND c.started < ? AND c.id > ? ORDER BY c.id LIMIT ?`,
      ).all(orgId, livemode ? 1 : 0, campaignId, campaignId, from, to, afterId, limit)
    },
    /** Daily campaign rollups: a few rows a campaign a day, read at once. */
    analytics(orgId: string, livemode: boolean, campaignId: string | null, fromDay: string, toDay: string) {
      const u = usageDaily
      return db.select({ day: u.day, campaignId: u.dimensionId, leadsAdded: u.leadsAdded, calls: u.calls, callsConnected: u.callsConnected, minutes: u.minutes })
        .from(u)
        .where(and(
          eq(u.orgId, orgId), eq(u.livemode, livemode), eq(u.dimension, 'campaign'),
          campaignId === null ? undefined : eq(u.dimensionId, campaignId), gte(u.day, fromDay), lte(u.day, toDay),
        ))
        .orderBy(u.day, u.dimensionId).all()
    },
  }
}

export type ExportStore = ReturnType<typeof exportStore>
