import type { Database } from 'bun:sqlite'
import { and, eq, gte, lte, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { calls, leads, usageDaily } from '../schema'
import type { AiUsage } from '../../telephony/call-values'

export interface RollupDelta {
  orgId: string
  livemode: boolean
  day: string
  dimension: 'campaign' | 'key'
  dimensionId: string
  requests?: number
  leadsAdded?: number
  calls?: number
  callsConnected?: number
  minutes?: number
  aiMinutes?: number
  aiCostMicros?: number
  aiUnpricedCalls?: number
}

export interface RollupSums {
  day: string
  dimension: 'campaign' | 'key'
  dimensionId: string
  requests: number
  leadsAdded: number
  calls: number
  callsConnected: number
  minutes: number
  aiMinutes: number
  aiCostMicros: number
  aiUnpricedCalls: number
}

/** An ended, uncounted call of an AI seat: its seat time, its usage and its campaign's model now. */
export interface UncountedAiCall {
  orgId: string
  livemode: boolean
  campaignId: string
  quarter: number
  aiSeconds: number | null
  aiUsage: AiUsage | null
  model: string | null
}

/** Ended calls not counted yet, grouped by organization, mode, campaign and quarter hour. */
export interface UncountedCalls {
  orgId: string
  livemode: boolean
  campaignId: string
  quarter: number
  calls: number
  connected: number
  minutes: number
}

export function usageStore(db: Db, sqlite: Database) {
  /** Adds to the row's sums (excluded: the values the INSERT would have written). */
  const plus = (column: { name: string }) => sql.raw(`"${column.name}" + excluded."${column.name}"`)
  // Both counts group in SQL by quarter hour (a quarter hour never straddles a local day in
  // any zone), so the job reads a few rows per campaign and hour rather than one per lead or call.
  const leadQuarter = sql<number>`${leads.created} - ${leads.created} % 900000`
  // Raw (cold, but not expressible): the builder cannot write INDEXED BY, which pins the
  // partial index calls_uncounted. Columns aliased to the domain's names.
  const uncountedCalls = sqlite.query<Omit<UncountedCalls, 'livemode'> & { livemode: number }, [string]>(
    `SELECT org_id AS orgId, livemode, campaign_id AS campaignId, started - started % 900000 AS quarter, count(*) AS calls,
       sum(answered_by = 'person') AS connected, sum((max(coalesce(duration_seconds, 0), 0) + 59) / 60) AS minutes
     FROM calls INDEXED BY calls_uncounted WHERE status = 'ended' AND usage_counted = 0 AND id <= ?
     GROUP BY org_id, livemode, campaign_id, quarter`,
  )
  // Raw, as uncountedCalls (INDEXED BY): only calls an AI seat had, one row each (their cost is per call).
  const uncountedAi = sqlite.query<{ orgId: string; livemode: number; campaignId: string; quarter: number; aiSeconds: number | null; aiUsage: string | null; model: string | null }, [string]>(
    `SELECT c.org_id AS orgId, c.livemode, c.campaign_id AS campaignId, c.started - c.started % 900000 AS quarter,
       c.ai_seconds AS aiSeconds, c.ai_usage AS aiUsage, json_extract(p.ai_agent, '$.model') AS model
     FROM calls AS c INDEXED BY calls_uncounted JOIN campaigns AS p ON p.id = c.campaign_id
     WHERE c.status = 'ended' AND c.usage_counted = 0 AND c.id <= ? AND (c.ai_seconds IS NOT NULL OR c.ai_usage IS NOT NULL)`,
  )
  // Raw, as uncountedCalls (INDEXED BY).
  const nthUncounted = sqlite.query<{ id: string }, [number]>(
    "SELECT id FROM calls INDEXED BY calls_uncounted WHERE status = 'ended' AND usage_counted = 0 ORDER BY id LIMIT 1 OFFSET ?",
  )
  // Above every uuid: "no bound".
  const ALL = '~'

  return {
    add(delta: RollupDelta): void {
      const u = usageDaily
      db.insert(u).values({
        orgId: delta.orgId, livemode: delta.livemode, day: delta.day, dimension: delta.dimension, dimensionId: delta.dimensionId,
        requests: delta.requests ?? 0, leadsAdded: delta.leadsAdded ?? 0, calls: delta.calls ?? 0,
        callsConnected: delta.callsConnected ?? 0, minutes: delta.minutes ?? 0,
        aiMinutes: delta.aiMinutes ?? 0, aiCostMicros: delta.aiCostMicros ?? 0, aiUnpricedCalls: delta.aiUnpricedCalls ?? 0,
      }).onConflictDoUpdate({
        target: [u.orgId, u.livemode, u.day, u.dimension, u.dimensionId],
        set: {
          requests: plus(u.requests), leadsAdded: plus(u.leadsAdded), calls: plus(u.calls),
          callsConnected: plus(u.callsConnected), minutes: plus(u.minutes),
          aiMinutes: plus(u.aiMinutes), aiCostMicros: plus(u.aiCostMicros), aiUnpricedCalls: plus(u.aiUnpricedCalls),
        },
      }).run()
    },
    /** The newest lead's rowid: rowids only grow, so the count's watermark needs no index. */
    lastLeadRowid(): number {
      return db.select({ m: sql<number | null>`max(rowid)` }).from(leads).get()?.m ?? 0
    },
    /** Leads with rowid in (after, upTo], counted by organization, mode, campaign, key and quarter hour. */
    leadsAdded(after: number, upTo: number) {
      return db.select({
        orgId: leads.orgId, livemode: leads.livemode, campaignId: leads.campaignId, addedByKeyId: leads.addedByKeyId,
        quarter: leadQuarter.as('quarter'), n: sql<number>`count(*)`.as('n'),
      }).from(leads)
        .where(sql`rowid > ${after} AND rowid <= ${upTo}`)
        .groupBy(leads.orgId, leads.livemode, leads.campaignId, leads.addedByKeyId, sql`quarter`).all()
    },
    /**
     * The id bounding the next `limit` uncounted calls (by id), and whether more are left after
     * them. A flag on the call rather than a time watermark: a call is counted once whatever the
     * clock did, and calls ended before an upgrade are counted too.
     */
    uncountedBound(limit: number): { upToId: string; more: boolean } {
      const nth = nthUncounted.get(limit - 1)
      return nth ? { upToId: nth.id, more: nthUncounted.get(limit) !== null } : { upToId: ALL, more: false }
    },
    /**
     * Ended calls not counted yet with id up to `upToId`, by organization, mode, campaign and
     * the quarter hour they started, with billed minutes (each call rounded up to the minute).
     */
    uncountedCalls(upToId: string): UncountedCalls[] {
      return uncountedCalls.all(upToId).map((r) => ({ ...r, livemode: r.livemode === 1 }))
    },
    /** The AI-seated calls among them (same bound, same transaction). */
    uncountedAiCalls(upToId: string): UncountedAiCall[] {
      return uncountedAi.all(upToId).map((r) => ({
        ...r, livemode: r.livemode === 1, aiUsage: r.aiUsage === null ? null : (JSON.parse(r.aiUsage) as AiUsage),
      }))
    },
    /** Marks those calls counted (in the same transaction as uncountedCalls). */
    markCallsCounted(upToId: string): void {
      // Status and flag as literals: the partial index calls_uncounted covers only those.
      db.update(calls).set({ usageCounted: true })
        .where(sql`${calls.status} = 'ended' AND ${calls.usageCounted} = 0 AND ${calls.id} <= ${upToId}`).run()
    },
    /** Rollup rows of an organization and mode for days in [from, to] (YYYY-MM-DD). */
    rows(orgId: string, livemode: boolean, from: string, to: string): RollupSums[] {
      const u = usageDaily
      return db.select({
        day: u.day, dimension: u.dimension, dimensionId: u.dimensionId, requests: u.requests, leadsAdded: u.leadsAdded,
        calls: u.calls, callsConnected: u.callsConnected, minutes: u.minutes,
        aiMinutes: u.aiMinutes, aiCostMicros: u.aiCostMicros, aiUnpricedCalls: u.aiUnpricedCalls,
      }).from(u).where(and(eq(u.orgId, orgId), eq(u.livemode, livemode), gte(u.day, from), lte(u.day, to))).all()
    },
    /** Billed minutes of a campaign (live) for days in [from, to]. */
    campaignMinutes(orgId: string, campaignId: string, from: string, to: string): number {
      const u = usageDaily
      return db.select({ m: sql<number | null>`sum(${u.minutes})` }).from(u)
        .where(and(eq(u.orgId, orgId), eq(u.livemode, true), eq(u.dimension, 'campaign'), eq(u.dimensionId, campaignId), gte(u.day, from), lte(u.day, to)))
        .get()?.m ?? 0
    },
  }
}

export type UsageStore = ReturnType<typeof usageStore>
