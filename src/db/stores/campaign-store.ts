import { and, desc, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { Db } from '../client'
import { rowCache } from '../row-cache'
import { campaigns, retiredNumbers } from '../schema'

export type CampaignRow = typeof campaigns.$inferSelect
export type NewCampaign = typeof campaigns.$inferInsert
export type RetiredNumberRow = typeof retiredNumbers.$inferSelect

/** Campaign rows are read on nearly every request: cached by id (`rowCache`). */
export function campaignStore(db: Db, sqlite: Database, onRollback: (listener: () => void) => void) {
  const byId = db.select().from(campaigns).where(eq(campaigns.id, sql.placeholder('id'))).prepare()
  const cache = rowCache<CampaignRow>(onRollback)
  const retired = db.select().from(retiredNumbers)
    .where(and(
      eq(retiredNumbers.campaignId, sql.placeholder('campaignId')),
      eq(retiredNumbers.livemode, sql.placeholder('livemode')),
      eq(retiredNumbers.phone, sql.placeholder('phone')),
    )).prepare()
  // Asked for every lead taken in; a bare statement spares Drizzle's row mapping.
  const isRetired = sqlite.query<{ one: number }, [string, number, string]>(
    'SELECT 1 AS one FROM retired_numbers WHERE campaign_id = ? AND livemode = ? AND phone = ? LIMIT 1',
  )
  const anyRetired = sqlite.query<{ one: number }, [string, number]>(
    'SELECT 1 AS one FROM retired_numbers WHERE campaign_id = ? AND livemode = ? LIMIT 1',
  )
  // Most campaigns retire no number: those found to have none skip the read per lead. A retire
  // (or a rollback, which may undo one) forgets what was known.
  const noneRetired = new Set<string>()
  onRollback(() => noneRetired.clear())
  const retiredKey = (campaignId: string, livemode: boolean) => (livemode ? `l${campaignId}` : `t${campaignId}`)
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
    withSpendCap(): CampaignRow[] {
      return db.select().from(campaigns).where(isNotNull(campaigns.spendCapUsd)).all()
    },
    idsOfOrg(orgId: string, ids: readonly string[]): string[] {
      if (ids.length === 0) return []
      return db.select({ id: campaigns.id }).from(campaigns)
        .where(and(eq(campaigns.orgId, orgId), inArray(campaigns.id, [...ids]))).all().map((r) => r.id)
    },
    insertRetired(row: typeof retiredNumbers.$inferInsert): RetiredNumberRow | undefined {
      noneRetired.delete(retiredKey(row.campaignId, row.livemode))
      return db.insert(retiredNumbers).values(row).onConflictDoNothing().returning().get()
    },
    isRetired(campaignId: string, livemode: boolean, phone: string): boolean {
      const key = retiredKey(campaignId, livemode)
      if (noneRetired.has(key)) return false
      if (isRetired.get(campaignId, livemode ? 1 : 0, phone) !== null) return true
      if (anyRetired.get(campaignId, livemode ? 1 : 0) === null) noneRetired.add(key)
      return false
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
