import type { Database } from 'bun:sqlite'
import { and, desc, eq, gte, inArray, isNotNull, isNull, lte, ne, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { tableCodec } from '../table-codec'
import { calls, callTranscripts, leads, type TranscriptLine } from '../schema'

export type CallRow = typeof calls.$inferSelect
export type NewCall = typeof calls.$inferInsert

export interface CallFilter {
  orgId: string
  livemode: boolean
  campaignIds: readonly string[] | null
  campaignId?: string
  leadId?: string
  /** Calls of the leads with this external_id. */
  externalId?: string
  outcome?: string
  createdGte?: number
  createdLte?: number
  startingAfter?: string
}

/** The lead fields a Call carries (`lead: { id, external_id, name, phone }`). */
export interface CallLead {
  id: string
  externalId: string | null
  name: string | null
  phone: string
}

export function callStore(db: Db, sqlite: Database) {
  // Every call is written several times as it goes: the codec's cached statements.
  const rows = tableCodec(sqlite, calls)
  const leadOf = sqlite.query<{ id: string; external_id: string | null; name: string | null; phone: string }, [string]>(
    'SELECT id, external_id, name, phone FROM leads WHERE id = ?',
  )
  const recentForLead = sqlite.query<
    { id: string; started: number; outcome: string | null; outcome_label: string | null; duration_seconds: number | null },
    [string, number]
  >('SELECT id, started, outcome, outcome_label, duration_seconds FROM calls WHERE lead_id = ? ORDER BY id DESC LIMIT ?')
  const openForLead = sqlite.query<{ one: number }, [string]>("SELECT 1 AS one FROM calls WHERE lead_id = ? AND status != 'ended' LIMIT 1")
  const runningForKey = sqlite.query<{ n: number }, [string]>(
    "SELECT count(*) AS n FROM calls WHERE key_id = ? AND status != 'ended'",
  )
  const where = (f: CallFilter) =>
    and(
      eq(calls.orgId, f.orgId),
      eq(calls.livemode, f.livemode),
      f.campaignIds ? inArray(calls.campaignId, [...f.campaignIds]) : undefined,
      f.campaignId ? eq(calls.campaignId, f.campaignId) : undefined,
      f.leadId ? eq(calls.leadId, f.leadId) : undefined,
      f.externalId
        ? inArray(calls.leadId, db.select({ id: leads.id }).from(leads)
            .where(and(eq(leads.orgId, f.orgId), eq(leads.livemode, f.livemode), eq(leads.externalId, f.externalId))))
        : undefined,
      f.outcome ? eq(calls.outcome, f.outcome) : undefined,
      f.createdGte !== undefined ? gte(calls.started, f.createdGte) : undefined,
      f.createdLte !== undefined ? lte(calls.started, f.createdLte) : undefined,
    )

  return {
    insert(row: NewCall): CallRow {
      return rows.insert(row)
    },
    saveTranscript(callId: string, lines: TranscriptLine[]): void {
      db.insert(callTranscripts).values({ callId, lines }).onConflictDoUpdate({ target: callTranscripts.callId, set: { lines } }).run()
    },
    transcript(callId: string): TranscriptLine[] {
      return db.select().from(callTranscripts).where(eq(callTranscripts.callId, callId)).get()?.lines ?? []
    },
    update(id: string, changes: Partial<NewCall>): CallRow {
      return rows.update('id', id, changes)!
    },
    get(id: string): CallRow | undefined {
      return rows.selectOne('id = ?', [id])
    },
    lead(leadId: string): CallLead | undefined {
      const r = leadOf.get(leadId)
      return r ? { id: r.id, externalId: r.external_id, name: r.name, phone: r.phone } : undefined
    },
    /** Newest first. */
    list(filter: CallFilter, limit: number): CallRow[] {
      return db.select().from(calls)
        .where(and(where(filter), filter.startingAfter ? sql`${calls.id} < ${filter.startingAfter}` : undefined))
        .orderBy(desc(calls.id)).limit(limit).all()
    },
    /** The deprecated list shape: offset paging with a total. */
    page(filter: CallFilter & { status?: string }, offset: number, limit: number): { rows: CallRow[]; total: number } {
      const condition = and(where(filter), filter.status ? eq(calls.status, filter.status as CallRow['status']) : undefined)
      const rows = db.select().from(calls).where(condition).orderBy(desc(calls.id)).limit(limit).offset(offset).all()
      const total = db.select({ n: sql<number>`count(*)` }).from(calls).where(condition).get()?.n ?? 0
      return { rows, total }
    },
    recentForLead(leadId: string, limit = 10) {
      return recentForLead.all(leadId, limit)
    },
    openForLead(leadId: string): boolean {
      return openForLead.get(leadId) !== null
    },
    runningForKey(keyId: string): number {
      return runningForKey.get(keyId)?.n ?? 0
    },
    /** Calls not ended (boot recovery). */
    open(): CallRow[] {
      return db.select().from(calls).where(ne(calls.status, 'ended')).all()
    },
    /** Person-handled calls still waiting for their outcome. */
    awaitingOutcome(): CallRow[] {
      return db.select().from(calls).where(and(isNotNull(calls.outcomeDueAt), isNull(calls.outcome))).all()
    },
    /** Average duration of the campaign's recent answered calls, seconds (null when none). */
    averageDuration(campaignId: string, livemode: boolean, sample = 50): number | null {
      const row = sqlite.query<{ avg: number | null }, [string, number, number]>(
        `SELECT avg(duration_seconds) AS avg FROM (SELECT duration_seconds FROM calls
         WHERE campaign_id = ? AND livemode = ? AND status = 'ended' AND duration_seconds > 0 ORDER BY id DESC LIMIT ?)`,
      ).get(campaignId, livemode ? 1 : 0, sample)
      return row?.avg ?? null
    },
  }
}

export type CallStore = ReturnType<typeof callStore>
