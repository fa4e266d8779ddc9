import type { Database } from 'bun:sqlite'
import { and, count, desc, eq, gt, inArray, isNotNull, isNull, lt, ne, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { tableCodec } from '../table-codec'
import { calls, callTranscripts, type TranscriptLine } from '../schema'

export type CallRow = typeof calls.$inferSelect
export type NewCall = typeof calls.$inferInsert

/** The columns a Call object shows, and its carrier and AI seat (who took it: call-handler.ts); the list reads only these (each column read costs). */
export const CALL_VIEW_COLUMNS = [
  'id', 'leadId', 'livemode', 'campaignId', 'direction', 'status', 'outcome', 'outcomeLabel', 'note', 'durationSeconds',
  'started', 'answered', 'ended', 'updated', 'handledBy', 'owner', 'tthSeconds', 'callbackAt', 'recordingAvailable',
  'transcriptAvailable', 'startedBy', 'carrier', 'aiSeated',
] as const satisfies readonly (keyof CallRow)[]
export type CallViewRow = Pick<CallRow, (typeof CALL_VIEW_COLUMNS)[number]>
/** A listed call with its lead's fields. */
export type ListedCall = CallViewRow & { lead: CallLead | null }

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
  // A page of calls repeats a few owners and shapes: parsed once, shared (frozen).
  const rows = tableCodec(sqlite, calls, { sharedJson: ['handledBy', 'owner', 'startedBy'] })
  const leadOf = sqlite.query<{ id: string; external_id: string | null; name: string | null; phone: string }, [string]>(
    'SELECT id, external_id, name, phone FROM leads WHERE id = ?',
  )
  const recentForLead = sqlite.query<
    { id: string; started: number; outcome: string | null; outcomeLabel: string | null; durationSeconds: number | null },
    [string, number]
  >(
    'SELECT id, started, outcome, outcome_label AS outcomeLabel, duration_seconds AS durationSeconds ' +
      'FROM calls WHERE lead_id = ? ORDER BY id DESC LIMIT ?',
  )
  const openForLead = sqlite.query<{ one: number }, [string]>("SELECT 1 AS one FROM calls WHERE lead_id = ? AND status != 'ended' LIMIT 1")
  // Calls store no number: the leads holding it (any campaign) lead to their calls, through
  // leads_org_phone_campaign and calls_lead.
  const startsToNumber = sqlite.query<{ started: number }, [string, number, string, number]>(
    'SELECT c.started AS started FROM leads l JOIN calls c ON c.lead_id = l.id ' +
      'WHERE l.org_id = ? AND l.livemode = ? AND l.phone = ? AND c.started >= ? ORDER BY c.started',
  )
  const runningForKey = db.select({ n: count() }).from(calls)
    .where(and(eq(calls.keyId, sql.placeholder('keyId')), ne(calls.status, 'ended'))).prepare()
  /** The list filter as SQL over the calls table (columns qualified by `c` when given), with its parameters in order. */
  const whereSql = (f: CallFilter, c = ''): { clause: string; params: (string | number)[] } => {
    const parts = [`${c}org_id = ?`, `${c}livemode = ?`]
    const params: (string | number)[] = [f.orgId, f.livemode ? 1 : 0]
    if (f.campaignIds) {
      parts.push(f.campaignIds.length ? `${c}campaign_id IN (${f.campaignIds.map(() => '?').join(', ')})` : '0')
      params.push(...f.campaignIds)
    }
    if (f.campaignId) {
      parts.push(`${c}campaign_id = ?`)
      params.push(f.campaignId)
    }
    if (f.leadId) {
      parts.push(`${c}lead_id = ?`)
      params.push(f.leadId)
    }
    if (f.externalId) {
      parts.push(`${c}lead_id IN (SELECT id FROM leads WHERE org_id = ? AND livemode = ? AND external_id = ?)`)
      params.push(f.orgId, f.livemode ? 1 : 0, f.externalId)
    }
    if (f.outcome) {
      parts.push(`${c}outcome = ?`)
      params.push(f.outcome)
    }
    if (f.createdGte !== undefined) {
      parts.push(`${c}started >= ?`)
      params.push(f.createdGte)
    }
    if (f.createdLte !== undefined) {
      parts.push(`${c}started <= ?`)
      params.push(f.createdLte)
    }
    if (f.startingAfter) {
      parts.push(`${c}id < ?`)
      params.push(f.startingAfter)
    }
    return { clause: parts.join(' AND '), params }
  }

  return {
    // Codec (hot: dialer): faster than the builder (docs/architecture.md, "Data access").
    insert(row: NewCall): CallRow {
      return rows.insert(row)
    },
    saveTranscript(callId: string, lines: TranscriptLine[]): void {
      db.insert(callTranscripts).values({ callId, lines }).onConflictDoUpdate({ target: callTranscripts.callId, set: { lines } }).run()
    },
    /**
     * Adds lines a carrier sent as they came to the stored ones, kept in time order (a stable
     * sort: lines of the same instant stay in arrival order); the total count. Read and write:
     * the caller runs it in its transaction.
     */
    appendTranscript(callId: string, lines: TranscriptLine[]): number {
      const stored = db.select({ lines: callTranscripts.lines }).from(callTranscripts).where(eq(callTranscripts.callId, callId)).get()
      const all = [...(stored?.lines ?? []), ...lines].sort((a, b) => a.at - b.at)
      db.insert(callTranscripts).values({ callId, lines: all }).onConflictDoUpdate({ target: callTranscripts.callId, set: { lines: all } }).run()
      return all.length
    },
    /**
     * Ids of the organization's recorded calls that ended before `cutoff` (the retention purge,
     * daily: the builder). Through calls_recorded: its predicate is written as the index's
     * (a bound parameter would not match it), and `+org_id` keeps SQLite off calls_org_list,
     * which would read every call the organization ever made.
     */
    recordedEndedBefore(orgId: string, cutoff: number, limit: number): string[] {
      return db.select({ id: calls.id }).from(calls)
        .where(and(sql`${calls.recordingAvailable} = 1`, lt(calls.ended, cutoff), sql`+${calls.orgId} = ${orgId}`))
        .limit(limit).all().map((r) => r.id)
    },
    /** Marks these calls as having no recording; how many had one. */
    clearRecordings(ids: readonly string[]): number {
      if (ids.length === 0) return 0
      return db.update(calls).set({ recordingAvailable: false })
        .where(and(inArray(calls.id, [...ids]), sql`${calls.recordingAvailable} = 1`)).returning({ id: calls.id }).all().length
    },
    transcript(callId: string): TranscriptLine[] {
      return db.select().from(callTranscripts).where(eq(callTranscripts.callId, callId)).get()?.lines ?? []
    },
    // Codec (hot: every call state change): faster than the builder (docs/architecture.md, "Data access").
    update(id: string, changes: Partial<NewCall>): CallRow {
      return rows.update('id', id, changes)!
    },
    // Codec (hot: every call event): faster than the builder (docs/architecture.md, "Data access").
    get(id: string): CallRow | undefined {
      return rows.selectOne('id = ?', [id])
    },
    // Raw (hot: every Call reply): faster than the builder (docs/architecture.md, "Data access").
    lead(leadId: string): CallLead | undefined {
      const r = leadOf.get(leadId)
      return r ? { id: r.id, externalId: r.external_id, name: r.name, phone: r.phone } : undefined
    },
    /**
     * Newest first. Through the codec with SQL written here (cached per filter shape): the
     * query builder and its row mapping were most of a GET /calls page (docs/architecture.md,
     * "Data access").
     */
    list(filter: CallFilter, limit: number): ListedCall[] {
      const { clause, params } = whereSql(filter, 'c.')
      params.push(limit)
      const reader = rows.columns(CALL_VIEW_COLUMNS, 'c')
      const n = CALL_VIEW_COLUMNS.length
      // The lead's fields come with each call (one statement rather than a second read by id).
      const found = sqlite
        .query<unknown[], (string | number)[]>(
          `SELECT ${reader.select}, l.id, l.external_id, l.name, l.phone FROM calls c LEFT JOIN leads l ON l.id = c.lead_id ` +
            `WHERE ${clause} ORDER BY c.id DESC LIMIT ?`,
        )
        .values(...params) as unknown[][]
      return found.map((v) => {
        const row = reader.decode(v) as ListedCall
        row.lead = v[n] == null ? null : { id: v[n] as string, externalId: v[n + 1] as string | null, name: v[n + 2] as string | null, phone: v[n + 3] as string }
        return row
      })
    },
    /** The lead fields of several calls at once, by lead id. */
    // Raw (hot: list pages): faster than the builder (docs/architecture.md, "Data access").
    leadsOf(leadIds: readonly string[]): Map<string, CallLead> {
      const unique = [...new Set(leadIds)]
      const found = new Map<string, CallLead>()
      if (unique.length === 0) return found
      const list = sqlite
        .query<{ id: string; external_id: string | null; name: string | null; phone: string }, string[]>(
          `SELECT id, external_id, name, phone FROM leads WHERE id IN (${unique.map(() => '?').join(', ')})`,
        )
        .all(...unique)
      for (const r of list) found.set(r.id, { id: r.id, externalId: r.external_id, name: r.name, phone: r.phone })
      return found
    },
    /** The deprecated list shape: offset paging with a total. */
    // Codec and raw (hot: list page): faster than the builder (docs/architecture.md, "Data access").
    page(filter: CallFilter & { status?: string }, offset: number, limit: number): { rows: CallRow[]; total: number } {
      const { clause, params } = whereSql(filter)
      const where = filter.status ? `${clause} AND status = ?` : clause
      const all = filter.status ? [...params, filter.status] : params
      const total = sqlite.query<{ n: number }, (string | number)[]>(`SELECT count(*) AS n FROM calls WHERE ${where}`).get(...all)?.n ?? 0
      return { rows: rows.selectAll(where, [...all, limit, offset], 'ORDER BY id DESC LIMIT ? OFFSET ?'), total }
    },
    // Raw (hot: every Lead reply): faster than the builder (docs/architecture.md, "Data access").
    recentForLead(leadId: string, limit = 10) {
      return recentForLead.all(leadId, limit)
    },
    /**
     * Start instants (unix ms, oldest first) of every call to `phone` in the organization and
     * mode since `since`: any campaign, any source (dialer, retry, callback, POST /calls).
     * What the calling-rules caps count.
     */
    callStartsToNumber(orgId: string, livemode: boolean, phone: string, since: number): number[] {
      return startsToNumber.all(orgId, livemode ? 1 : 0, phone, since).map((r) => r.started)
    },
    // Raw (hot: lead changes and call-now): faster than the builder (docs/architecture.md, "Data access").
    openForLead(leadId: string): boolean {
      return openForLead.get(leadId) !== null
    },
    runningForKey(keyId: string): number {
      return runningForKey.get({ keyId })?.n ?? 0
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
      const recent = db.select({ seconds: calls.durationSeconds }).from(calls)
        .where(and(eq(calls.campaignId, campaignId), eq(calls.livemode, livemode), eq(calls.status, 'ended'), gt(calls.durationSeconds, 0)))
        .orderBy(desc(calls.id)).limit(sample).as('recent')
      return db.select({ avg: sql<number | null>`avg(${recent.seconds})` }).from(recent).get()?.avg ?? null
    },
  }
}

export type CallStore = ReturnType<typeof callStore>
