import { and, desc, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { Db } from '../client'
import { describeCache, type CacheRegistry } from '../../cache-registry'
import { rowCache } from '../row-cache'
import { campaigns, retiredNumbers } from '../schema'

export type CampaignRow = typeof campaigns.$inferSelect
export type NewCampaign = typeof campaigns.$inferInsert
export type RetiredNumberRow = typeof retiredNumbers.$inferSelect

const CAMPAIGN_ROWS = describeCache({
  name: 'campaign-rows',
  holds: 'campaign rows by id, frozen',
  bound: 'one per campaign',
  clearedBy: 'an update through the store replaces the row',
  gain: '0.01–0.05 vs 5.2–7.7 µs a read',
  source: 'database',
})

/** Campaign rows are read on nearly every request: cached by id (`rowCache`). */
export function campaignStore(db: Db, sqlite: Database, caches: CacheRegistry) {
  const byId = db.select().from(campaigns).where(eq(campaigns.id, sql.placeholder('id'))).prepare()
  const cache = rowCache<CampaignRow>(caches, CAMPAIGN_ROWS)
  const retired = db.select().from(retiredNumbers)
    .where(and(
      eq(retiredNumbers.campaignId, sql.placeholder('campaignId')),
      eq(retiredNumbers.livemode, sql.placeholder('livemode')),
      eq(retiredNumbers.phone, sql.placeholder('phone')),
    )).prepare()
  // Asked for every lead taken in; a bare statement spares Drizzle's row mapping.
  // Raw (hot: intake): faster than the builder (docs/architecture.md, "Data access").
  const isRetired = sqlite.query<{ one: number }, [string, number, string]>(
    'SELECT 1 AS one FROM retired_numbers WHERE campaign_id = ? AND livemode = ? AND phone = ? LIMIT 1',
  )
  // Read for every lead, uncached: a memo of "no number retired" saved too little to be
  // worth a retired number dialed if it went stale (docs/architecture.md "Caches").
  return {
    insert(row: NewCampaign): CampaignRow {
      return cache.remember(db.insert(campaigns).values(row).returning().get())!
    },
    update(id: string, changes: Partial<NewCampaign>): CampaignRow | undefined {
      cache.forget(id)
      return cache.remember(db.update(campaigns).set(changes).where(eq(campaigns.id, id)).returning().get())
    },
    get(id: string): CampaignRow | undefined {
      return cache.get(id) ?? cache.remember(byId.get({ id }))
    },
    /** Newest first; `only` limits to a key's campaigns (null: all of the organization). */
    list(orgId: string, only: readonly string[] | null, limit: number, startingAfter?: string): CampaignRow[] {
      return db.select().from(campaigns)
        .where(and(
          eq(campaigns.orgId, orgId),
          only ? inArray(campaigns.id, [...only]) : undefined,
          startingAfter ? lt(campaigns.id, startingAfter) : undefined,
        ))
        .orderBy(desc(campaigns.id)).limit(limit).all()
    },
    /** Active campaigns' lines, by id (metrics). */
    activeLines(): { id: string; lines: number }[] {
      return db.select({ id: campaigns.id, lines: campaigns.lines }).from(campaigns).where(eq(campaigns.status, 'active')).orderBy(campaigns.id).all()
    },
    /** Every sealed agent key, by campaign: the start checks its secret key opens them. */
    sealedAgentKeys(): { id: string; sealed: string }[] {
      return db.select({ id: campaigns.id, sealed: campaigns.aiAgentKey }).from(campaigns).where(isNotNull(campaigns.aiAgentKey)).all()
        .flatMap((r) => (r.sealed === null ? [] : [{ id: r.id, sealed: r.sealed }]))
    },
    withSpendCap(): CampaignRow[] {
      return db.select().from(campaigns).where(isNotNull(campaigns.spendCapUsd)).all()
    },
    idsOfOrg(orgId: string, ids: readonly string[]): string[] {
      if (ids.length === 0) return []
      return db.select({ id: campaigns.id }).from(campaigns)
        .where(and(eq(campaigns.orgId, orgId), inArray(campaigns.id, [...ids]))).all().map((r) => r.id)
    },
    insertRetired(row: typeof retiredNumbers.$inferInsert): RetiredNumberRow | undefined {
      return db.insert(retiredNumbers).values(row).onConflictDoNothing().returning().get()
    },
    isRetired(campaignId: string, livemode: boolean, phone: string): boolean {
      return isRetired.get(campaignId, livemode ? 1 : 0, phone) !== null
    },
    findRetired(campaignId: string, livemode: boolean, phone: string): RetiredNumberRow | undefined {
      return retired.get({ campaignId, livemode: livemode ? 1 : 0, phone })
    },
    listRetired(campaignId: string, limit: number, startingAfter?: string): RetiredNumberRow[] {
      return db.select().from(retiredNumbers)
        .where(and(eq(retiredNumbers.campaignId, campaignId), startingAfter ? lt(retiredNumbers.id, startingAfter) : undefined))
        .orderBy(desc(retiredNumbers.id)).limit(limit).all()
    },
    deleteRetired(campaignId: string, id: string): RetiredNumberRow | undefined {
      return db.delete(retiredNumbers)
        .where(and(eq(retiredNumbers.campaignId, campaignId), eq(retiredNumbers.id, id))).returning().get()
    },
  }
}

export type CampaignStore = ReturnType<typeof campaignStore>
