import type { Database } from 'bun:sqlite'
import type { Db } from '../client'

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
}

export interface RollupSums {
  day: string
  dimension: 'campaign' | 'key'
  dimension_id: string
  requests: number
  leads_added: number
  calls: number
  calls_connected: number
  minutes: number
}

export function usageStore(_db: Db, sqlite: Database) {
  const add = sqlite.query(
    `INSERT INTO usage_daily (org_id, livemode, day, dimension, dimension_id, requests, leads_added, calls, calls_connected, minutes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (org_id, livemode, day, dimension, dimension_id) DO UPDATE SET
       requests = requests + excluded.requests, leads_added = leads_added + excluded.leads_added, calls = calls + excluded.calls,
       calls_connected = calls_connected + excluded.calls_connected, minutes = minutes + excluded.minutes`,
  )
  // Both counts group in SQL by quarter hour (a quarter hour never straddles a local day in
  // any zone), so the job reads a few rows per campaign and hour rather than one per lead or call.
  const maxLeadRowid = sqlite.query<{ m: number | null }, []>('SELECT max(rowid) AS m FROM leads')
  const leadsAdded = sqlite.query<
    { org_id: string; livemode: number; campaign_id: string; added_by_key_id: string | null; quarter: number; n: number },
    [number, number]
  >(
    `SELECT org_id, livemode, campaign_id, added_by_key_id, created - created % 900000 AS quarter, count(*) AS n FROM leads
     WHERE rowid > ? AND rowid <= ? GROUP BY org_id, livemode, campaign_id, added_by_key_id, quarter`,
  )
  const uncountedCalls = sqlite.query<
    { org_id: string; livemode: number; campaign_id: string; quarter: number; calls: number; connected: number; minutes: number },
    [string]
  >(
    `SELECT org_id, livemode, campaign_id, started - started % 900000 AS quarter, count(*) AS calls,
       sum(answered_by = 'person') AS connected, sum((max(coalesce(duration_seconds, 0), 0) + 59) / 60) AS minutes
     FROM calls INDEXED BY calls_uncounted WHERE status = 'ended' AND usage_counted = 0 AND id <= ?
     GROUP BY org_id, livemode, campaign_id, quarter`,
  )
  const nthUncounted = sqlite.query<{ id: string }, [number]>(
    "SELECT id FROM calls INDEXED BY calls_uncounted WHERE status = 'ended' AND usage_counted = 0 ORDER BY id LIMIT 1 OFFSET ?",
  )
  const markCalls = sqlite.query<unknown, [string]>("UPDATE calls SET usage_counted = 1 WHERE status = 'ended' AND usage_counted = 0 AND id <= ?")
  // Above every uuid: "no bound".
  const ALL = '~'

  return {
    add(delta: RollupDelta): void {
      add.run(
        delta.orgId, delta.livemode ? 1 : 0, delta.day, delta.dimension, delta.dimensionId,
        delta.requests ?? 0, delta.leadsAdded ?? 0, delta.calls ?? 0, delta.callsConnected ?? 0, delta.minutes ?? 0,
      )
    },
    /** The newest lead's rowid: rowids only grow, so the count's watermark needs no index. */
    lastLeadRowid(): number {
      return maxLeadRowid.get()?.m ?? 0
    },
    /** Leads with rowid in (after, upTo], counted by organization, mode, campaign, key and quarter hour. */
    leadsAdded(after: number, upTo: number) {
      return leadsAdded.all(after, upTo)
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
    uncountedCalls(upToId: string) {
      return uncountedCalls.all(upToId)
    },
    /** Marks those calls counted (in the same transaction as uncountedCalls). */
    markCallsCounted(upToId: string): void {
      markCalls.run(upToId)
    },
    /** Rollup rows of an organization and mode for days in [from, to] (YYYY-MM-DD). */
    rows(orgId: string, livemode: boolean, from: string, to: string): RollupSums[] {
      return sqlite.query<RollupSums, [string, number, string, string]>(
        `SELECT day, dimension, dimension_id, requests, leads_added, calls, calls_connected, minutes FROM usage_daily
         WHERE org_id = ? AND livemode = ? AND day >= ? AND day <= ?`,
      ).all(orgId, livemode ? 1 : 0, from, to)
    },
    /** Billed minutes of a campaign (live) for days in [from, to]. */
    campaignMinutes(orgId: string, campaignId: string, from: string, to: string): number {
      return sqlite.query<{ m: number | null }, [string, string, string, string]>(
        `SELECT sum(minutes) AS m FROM usage_daily WHERE org_id = ? AND livemode = 1 AND dimension = 'campaign'
         AND dimension_id = ? AND day >= ? AND day <= ?`,
      ).get(orgId, campaignId, from, to)?.m ?? 0
    },
  }
}

export type UsageStore = ReturnType<typeof usageStore>
