import { and, desc, eq, lt, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { leadImports } from '../schema'

export type LeadImportRow = typeof leadImports.$inferSelect
export type NewLeadImport = typeof leadImports.$inferInsert
export type ImportCounters = Pick<LeadImportRow, 'rowsDone' | 'rowsImported' | 'rowsFailed'>

/** The record of each lead CSV import (one row per import; its chunks update the counters). */
export function importStore(db: Db) {
  const byId = db.select().from(leadImports).where(eq(leadImports.id, sql.placeholder('id'))).prepare()
  return {
    insert(row: NewLeadImport): LeadImportRow {
      return db.insert(leadImports).values(row).returning().get()
    },
    get(id: string): LeadImportRow | undefined {
      return byId.get({ id })
    },
    /** Newest first (ids are uuid v7, time-ordered). */
    listForOrg(orgId: string, limit: number, startingAfter?: string): LeadImportRow[] {
      return db.select().from(leadImports)
        .where(and(eq(leadImports.orgId, orgId), startingAfter ? lt(leadImports.id, startingAfter) : undefined))
        .orderBy(desc(leadImports.id)).limit(limit).all()
    },
    /** The newest interrupted import of this file into this campaign with this mapping: the one a re-run resumes. */
    findInterrupted(orgId: string, campaignId: string, fileSha256: string, mapping: string): LeadImportRow | undefined {
      return db.select().from(leadImports)
        .where(and(
          eq(leadImports.orgId, orgId), eq(leadImports.campaignId, campaignId), eq(leadImports.fileSha256, fileSha256),
          eq(leadImports.mapping, mapping), eq(leadImports.state, 'interrupted'),
        ))
        .orderBy(desc(leadImports.id)).limit(1).get()
    },
    /** A chunk's counters, in the chunk's transaction. */
    progress(id: string, counters: ImportCounters, now: number): void {
      db.update(leadImports).set({ ...counters, updated: now }).where(eq(leadImports.id, id)).run()
    },
    setState(id: string, state: LeadImportRow['state'], now: number): void {
      db.update(leadImports).set({ state, updated: now }).where(eq(leadImports.id, id)).run()
    },
    /** At boot: imports a stop cut short. How many. */
    interruptRunning(now: number): number {
      return db.update(leadImports).set({ state: 'interrupted', updated: now }).where(eq(leadImports.state, 'running')).returning({ id: leadImports.id }).all().length
    },
  }
}

export type ImportStore = ReturnType<typeof importStore>
