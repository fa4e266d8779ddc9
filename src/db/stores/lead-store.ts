import type { Database } from 'bun:sqlite'
import { and, desc, eq, gte, inArray, like, lte, min, or, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { tableCodec } from '../table-codec'
import { callRequests, campaignCounters, leads, LEAD_STATUSES } from '../schema'

export type LeadRow = typeof leads.$inferSelect
export type NewLead = typeof leads.$inferInsert
export type LeadStatus = (typeof LEAD_STATUSES)[number]

const WAITING: ReadonlySet<string> = new Set<LeadStatus>(['queued', 'scheduled', 'held'])

/** Counts toward the 5,000 waiting API leads of its campaign (campaign_counters.api_waiting). */
export const isWaitingApiLead = (row: Pick<LeadRow, 'leadSource' | 'status'>): boolean => row.leadSource === 'api' && WAITING.has(row.status)

/** A campaign as the lead indexes know it: its organization first. */
export interface CampaignKey {
  id: string
  orgId: string
}

export interface LeadScope {
  orgId: string
  livemode: boolean
  /** null: every campaign of the organization. */
  campaignIds: readonly string[] | null
}

export interface LeadListFilter {
  campaignId?: string
  status?: LeadStatus
  createdGte?: number
  createdLte?: number
  startingAfter?: string
}

export function leadStore(db: Db, sqlite: Database) {
  // Intake and the dialer write leads thousands of times a second: the codec's cached statements.
  // Measured against the builder's prepared equivalent (docs/architecture.md "Data access").
  const rows = tableCodec(sqlite, leads)
  const waiting = sqlite.query<{ n: number }, [string, number]>(
    'SELECT api_waiting AS n FROM campaign_counters WHERE campaign_id = ? AND livemode = ?',
  )
  // The waiting count moves here, in the same transaction as the row: a trigger made each lead
  // write dearer (SQLite runs it as a sub-program with its own journal).
  const countWaiting = sqlite.query<unknown, [number, string, number]>(
    'UPDATE campaign_counters SET api_waiting = api_waiting + ? WHERE campaign_id = ? AND livemode = ?',
  )
  // Raw (hot: in insert and update): faster than the builder (docs/architecture.md, "Data access").
  // Intake reads the count for every lead, uncached: a copy in memory saved too little to be
  // worth a second count to keep in step (docs/architecture.md "Caches").
  const moveWaiting = (row: Pick<LeadRow, 'campaignId' | 'livemode'>, by: 1 | -1) => {
    countWaiting.run(by, row.campaignId, row.livemode ? 1 : 0)
  }
  const callRequestsSince = sqlite.query<{ n: number }, [string, number]>(
    'SELECT count(*) AS n FROM call_requests WHERE lead_id = ? AND at > ?',
  )
  const lastContact = sqlite.query<{ at: number | null }, [string, number, string]>(
    'SELECT max(last_contact_at) AS at FROM leads WHERE org_id = ? AND livemode = ? AND phone = ?',
  )
  // The IN list as literals: SQLite uses the partial index leads_waiting_due only for those
  // (bound as parameters it scans every lead; docs/architecture.md, "Data access").
  const nextDue = db.select({ at: min(leads.dueAt) }).from(leads)
    .where(sql`${leads.status} IN ('scheduled', 'callback_scheduled')`).prepare()
  const scoped = (scope: LeadScope) =>
    and(
      eq(leads.orgId, scope.orgId),
      eq(leads.livemode, scope.livemode),
      scope.campaignIds ? inArray(leads.campaignId, [...scope.campaignIds]) : undefined,
    )

  return {
    // Codec (hot: intake): faster than the builder (docs/architecture.md, "Data access").
    insert(row: NewLead): LeadRow {
      const inserted = rows.insert(row)
      if (isWaitingApiLead(inserted)) moveWaiting(inserted, 1)
      return inserted
    },
    /** Changes a lead; `before` is its row as read in this transaction (the waiting count follows its status). */
    // Codec (hot: dialer): faster than the builder (docs/architecture.md, "Data access").
    update(before: LeadRow, changes: Partial<NewLead>): LeadRow {
      const after = rows.update('id', before.id, changes)!
      const was = isWaitingApiLead(before)
      if (was !== isWaitingApiLead(after)) moveWaiting(after, was ? -1 : 1)
      return after
    },
    /** Changes columns that do not move the waiting count (never status or lead_source). */
    // Codec (hot: dialer), as update.
    annotate(id: string, changes: Omit<Partial<NewLead>, 'status' | 'leadSource' | 'campaignId' | 'livemode'>): void {
      rows.update('id', id, changes)
    },
    // Codec (hot: every lead read): faster than the builder (docs/architecture.md, "Data access").
    get(id: string): LeadRow | undefined {
      return rows.selectOne('id = ?', [id])
    },
    /** An existing lead of the campaign with this external_id (checked first) or phone. */
    // Codec (hot: intake): faster than the builder (docs/architecture.md, "Data access").
    findDuplicate(campaign: CampaignKey, livemode: boolean, phone: string, externalId: string | null): LeadRow | undefined {
      if (externalId !== null) {
        const byExternal = this.findByExternalIdInCampaign(campaign, livemode, externalId)
        if (byExternal) return byExternal
      }
      return rows.selectOne('org_id = ? AND livemode = ? AND phone = ? AND campaign_id = ?', [campaign.orgId, livemode ? 1 : 0, phone, campaign.id])
    },
    // Codec (hot: intake), as findDuplicate.
    findByExternalIdInCampaign(campaign: CampaignKey, livemode: boolean, externalId: string): LeadRow | undefined {
      return rows.selectOne('org_id = ? AND livemode = ? AND external_id = ? AND campaign_id = ?', [campaign.orgId, livemode ? 1 : 0, externalId, campaign.id])
    },
    findByExternalId(scope: LeadScope, externalId: string, campaignId?: string): LeadRow[] {
      return db.select().from(leads)
        .where(and(scoped(scope), eq(leads.externalId, externalId), campaignId ? eq(leads.campaignId, campaignId) : undefined))
        // `+id`: ordered by the id index, SQLite would walk every lead of the organization to find
        // the few with this external_id; this way it reads them by leads_org_external_campaign.
        .orderBy(sql`+${leads.id} DESC`).limit(50).all()
    },
    /** Newest first. */
    list(scope: LeadScope, filter: LeadListFilter, limit: number): LeadRow[] {
      return db.select().from(leads)
        .where(and(
          scoped(scope),
          filter.campaignId ? eq(leads.campaignId, filter.campaignId) : undefined,
          filter.status ? eq(leads.status, filter.status) : undefined,
          filter.createdGte !== undefined ? gte(leads.created, filter.createdGte) : undefined,
          filter.createdLte !== undefined ? lte(leads.created, filter.createdLte) : undefined,
          filter.startingAfter ? sql`${leads.id} < ${filter.startingAfter}` : undefined,
        ))
        .orderBy(desc(leads.id)).limit(limit).all()
    },
    /** The older campaign list: newest first, `search` in name, phone or email. */
    listForCampaign(campaignId: string, livemode: boolean, limit: number, options: { cursor?: string; search?: string }): LeadRow[] {
      const pattern = options.search ? `%${options.search.replace(/[%_\\]/g, (c) => `\\${c}`)}%` : undefined
      const digits = options.search?.replace(/\D/g, '')
      return db.select().from(leads)
        .where(and(
          eq(leads.campaignId, campaignId),
          eq(leads.livemode, livemode),
          options.cursor ? sql`${leads.id} < ${options.cursor}` : undefined,
          pattern
            ? or(
                sql`${leads.name} LIKE ${pattern} ESCAPE '\\'`,
                sql`${leads.email} LIKE ${pattern} ESCAPE '\\'`,
                digits ? like(leads.phone, `%${digits}%`) : undefined,
              )
            : undefined,
        ))
        .orderBy(desc(leads.id)).limit(limit).all()
    },
    withPhone(orgId: string, livemode: boolean, phone: string): LeadRow[] {
      return db.select().from(leads)
        .where(and(eq(leads.orgId, orgId), eq(leads.livemode, livemode), eq(leads.phone, phone))).all()
    },
    inStatuses(campaignId: string, livemode: boolean | null, statuses: LeadStatus[]): LeadRow[] {
      return db.select().from(leads)
        .where(and(
          eq(leads.campaignId, campaignId),
          livemode === null ? undefined : eq(leads.livemode, livemode),
          inArray(leads.status, statuses),
        ))
        .orderBy(leads.queuedAt, leads.id).all()
    },
    /** Scheduled leads and callbacks whose time has come, oldest due first (partial index leads_waiting_due). */
    // Codec (hot: the dialer's due sweep, up to 500 rows): faster than the builder (docs/architecture.md, "Data access").
    dueWaiting(now: number, limit: number): LeadRow[] {
      return rows.selectAll("status IN ('scheduled', 'callback_scheduled') AND due_at <= ?", [now], 'ORDER BY due_at, id LIMIT ' + Math.floor(limit))
    },
    nextDueAt(): number | null {
      return nextDue.get()?.at ?? null
    },
    /** Every queued lead in queue order, campaigns interleaved (boot rebuild; read from the covering index `leads_queued`). */
    // Raw (bulk: boot, every queued lead): faster than the builder (docs/architecture.md, "Data access").
    *queuedInOrder(): Generator<{ campaignId: string; livemode: boolean; id: string; queueKey: number }> {
      const rows = sqlite.query<{ campaign_id: string; livemode: number; id: string; queue_key: number }, []>(
        "SELECT campaign_id, livemode, id, queue_key FROM leads WHERE status = 'queued' ORDER BY queue_key, id",
      )
      for (const r of rows.iterate()) yield { campaignId: r.campaign_id, livemode: r.livemode === 1, id: r.id, queueKey: r.queue_key }
    },
    // Raw (hot: intake): faster than the builder (docs/architecture.md, "Data access").
    apiWaiting(campaignId: string, livemode: boolean): number {
      return waiting.get(campaignId, livemode ? 1 : 0)?.n ?? 0
    },
    /** Ensures the counter rows exist (campaigns made before the counters migration have them from it). */
    counterRows(campaignId: string): void {
      db.insert(campaignCounters).values([{ campaignId, livemode: true }, { campaignId, livemode: false }]).onConflictDoNothing().run()
    },
    // Raw (hot: call-now intake check): faster than the builder (docs/architecture.md, "Data access").
    callRequestsSince(leadId: string, since: number): number {
      return callRequestsSince.get(leadId, since)?.n ?? 0
    },
    /** The oldest call-now request still inside the window (for Retry-After). */
    oldestCallRequestSince(leadId: string, since: number): number | null {
      return db.select({ at: sql<number | null>`min(${callRequests.at})` }).from(callRequests)
        .where(and(eq(callRequests.leadId, leadId), sql`${callRequests.at} > ${since}`)).get()?.at ?? null
    },
    insertCallRequest(row: typeof callRequests.$inferInsert): void {
      db.insert(callRequests).values(row).run()
    },
    // Raw (hot: placement with a cooldown): faster than the builder (docs/architecture.md, "Data access").
    lastContactAt(orgId: string, livemode: boolean, phone: string): number | null {
      return lastContact.get(orgId, livemode ? 1 : 0, phone)?.at ?? null
    },
  }
}

export type LeadStore = ReturnType<typeof leadStore>
