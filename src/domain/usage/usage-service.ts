import { describeCache } from '../../cache-registry'
import type { CampaignRow } from '../../db/stores/campaign-store'
import type { RollupSums } from '../../db/stores/usage-store'
import type { Stores } from '../../db/stores'
import { iso, type Clock } from '../../jobs/clock'
import type { Principal } from '../access/permissions'
import type { RequestTally, TallyEntry } from './request-tally'
import { RollupBatch } from './rollup-batch'
import { monthOf, sumRows, withCost, type GroupBy } from './usage-report'
import { aiCostMicros, aiMinutesOf } from './ai-cost'

export type { GroupBy, UsageCounts } from './usage-report'

const WATERMARK_LEADS = 'usage_leads_rowid'
// Leads and calls per count transaction: about 0.1-0.2 s of work, so requests wait no longer.
const COUNT_CHUNK = 20_000

export interface CountResult {
  requests: number
  leads: number
  calls: number
}
const COUNTED_AT = 'usage_counted_at'

const USAGE_ROLLUPS = describeCache({
  name: 'usage-rollups',
  holds: "an organization and mode's daily rollup rows of a month (GET /usage)",
  bound: '500 months; full, it is emptied',
  clearedBy: 'every usage count chunk empties it',
  gain: '16–30 vs 26–45 µs a GET /usage read (a month of small rollups; grows with rows)',
  source: 'database',
})

/**
 * Usage: counted every 5 minutes into daily rollups (usage_daily) in each organization's zone,
 * read by GET /usage. Minutes are billed per call (rounded up) and cost is minutes at the
 * organization's rate, so a month's total is the sum of its calls' billed minutes times the rate.
 */
export function usageService(deps: { stores: Stores; clock: Clock; tally: RequestTally; chunk?: number }) {
  const { stores, clock } = deps
  const chunkSize = deps.chunk ?? COUNT_CHUNK
  const usage = stores.usage
  /**
   * Rollup rows of an organization's month, kept until the next count changes them: GET /usage
   * then sums a few thousand small objects instead of reading them from SQLite each time.
   */
  const rowCache = new Map<string, RollupSums[]>()
  const ROW_CACHE_ENTRIES = 500
  stores.caches.register(USAGE_ROLLUPS, () => rowCache.clear())
  function rollupRows(orgId: string, livemode: boolean, from: string, to: string): RollupSums[] {
    const name = `${orgId}|${livemode ? 1 : 0}|${from}`
    let rows = rowCache.get(name)
    if (!rows) {
      if (rowCache.size >= ROW_CACHE_ENTRIES) rowCache.clear()
      rows = usage.rows(orgId, livemode, from, to)
      rowCache.set(name, rows)
    }
    return rows
  }

  /** Counts chunk by chunk into `total`, yielding after each chunk whether more is left. */
  function* countInChunks(total: CountResult): Generator<{ more: boolean }> {
    const requests = deps.tally.drain()
    total.requests = requests.reduce((n, r) => n + r.n, 0)
    let first = true
    try {
      for (;;) {
        const chunk = countChunk(first ? requests : [])
        first = false
        rowCache.clear()
        total.leads += chunk.leads
        total.calls += chunk.calls
        if (!chunk.more) break
        yield { more: true }
      }
    } catch (error) {
      // The requests go back only if their chunk did not commit.
      if (first) deps.tally.restore(requests)
      throw error
    }
    evaluateCaps()
    yield { more: false }
  }

  function countChunk(requests: TallyEntry[]): { leads: number; calls: number; more: boolean } {
    const rollup = new RollupBatch()
    let leads = 0
    let calls = 0
    let more = false
    stores.transaction(() => {
      for (const r of requests) {
        rollup.add({ orgId: r.orgId, livemode: r.livemode, at: r.quarter, dimension: 'key', dimensionId: r.keyId, requests: r.n })
      }
      const after = Number(stores.settings.get(WATERMARK_LEADS) ?? 0)
      const last = usage.lastLeadRowid()
      const upTo = Math.min(last, after + chunkSize)
      for (const group of usage.leadsAdded(after, upTo)) {
        const base = { orgId: group.orgId, livemode: group.livemode, at: group.quarter, leadsAdded: group.n }
        rollup.add({ ...base, dimension: 'campaign', dimensionId: group.campaignId })
        if (group.addedByKeyId) rollup.add({ ...base, dimension: 'key', dimensionId: group.addedByKeyId })
        leads += group.n
      }
      const bound = usage.uncountedBound(chunkSize)
      for (const group of usage.uncountedCalls(bound.upToId)) {
        rollup.add({
          orgId: group.orgId, livemode: group.livemode, at: group.quarter, dimension: 'campaign', dimensionId: group.campaignId,
          calls: group.calls, callsConnected: group.connected, minutes: group.minutes,
        })
        calls += group.calls
      }
      for (const call of usage.uncountedAiCalls(bound.upToId)) {
        // Priced at the organization's price for the model now (E3); no price: counted unpriced.
        const price = call.model === null ? undefined : stores.orgs.get(call.orgId)?.aiPrices?.[call.model]
        rollup.add({
          orgId: call.orgId, livemode: call.livemode, at: call.quarter, dimension: 'campaign', dimensionId: call.campaignId,
          aiMinutes: aiMinutesOf(call.aiSeconds),
          aiCostMicros: call.aiUsage && price ? aiCostMicros(call.aiUsage, price) : 0,
          aiUnpricedCalls: call.aiUsage && !price ? 1 : 0,
        })
      }
      usage.markCallsCounted(bound.upToId)
      rollup.write((orgId) => stores.orgs.get(orgId)?.timezone ?? 'UTC', (delta) => usage.add(delta))
      stores.settings.set(WATERMARK_LEADS, String(Math.max(after, upTo)))
      stores.settings.set(COUNTED_AT, String(clock.now()))
      more = upTo < last || bound.more
    })
    return { leads, calls, more }
  }

  const capped = new Set<string>()
  const capListeners: ((campaign: CampaignRow, reached: boolean) => void)[] = []

  /** Spend caps: a campaign whose month (its organization's zone) costs its cap or more is capped. */
  function evaluateCaps(): void {
    for (const campaign of stores.campaigns.withSpendCap()) {
      const org = stores.orgs.get(campaign.orgId)
      if (!org) continue
      const month = monthOf('current', org.timezone, clock.now())
      const cost = usage.campaignMinutes(org.id, campaign.id, month.from, month.to) * org.rateUsdPerMinute
      const reached = campaign.spendCapUsd !== null && cost >= campaign.spendCapUsd
      if (reached === capped.has(campaign.id)) continue
      if (reached) capped.add(campaign.id)
      else capped.delete(campaign.id)
      for (const listener of capListeners) listener(campaign, reached)
    }
    // A cap removed altogether releases its campaign too.
    for (const id of [...capped]) {
      const campaign = stores.campaigns.get(id)
      if (!campaign || campaign.spendCapUsd === null) {
        capped.delete(id)
        if (campaign) for (const listener of capListeners) listener(campaign, false)
      }
    }
  }

  return {
    /**
     * The usage_count job: new requests, leads and ended calls into the rollups, then the caps.
     * Each chunk is one transaction; between chunks requests are served (a first count after an
     * upgrade or a bulk load may cover millions of rows).
     */
    async count(): Promise<CountResult> {
      const total = { requests: 0, leads: 0, calls: 0 }
      for (const step of countInChunks(total)) {
        if (step.more) await new Promise((resolve) => setTimeout(resolve, 0))
      }
      return total
    },

    /** The same, without pausing between chunks (at shutdown, before the database closes). */
    countNow(): CountResult {
      const total = { requests: 0, leads: 0, calls: 0 }
      for (const _step of countInChunks(total));
      return total
    },

    /** GET /usage. */
    read(principal: Principal, period: string, groupBy: GroupBy | undefined) {
      const org = stores.orgs.get(principal.orgId)!
      const month = monthOf(period, org.timezone, clock.now())
      const rows = rollupRows(org.id, principal.livemode, month.from, month.to)
      const billed = principal.livemode
      const { totals, groups } = sumRows(rows, principal, groupBy)
      const rate = org.rateUsdPerMinute
      const priced = org.aiPrices !== null && Object.keys(org.aiPrices).length > 0
      const withMoney = (counts: Parameters<typeof withCost>[0]) => withCost(counts, rate, billed, priced)
      const counted = stores.settings.get(COUNTED_AT)
      let keyNames: Map<string, string> | undefined
      const groupList = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, counts]) => {
        const money = withMoney(counts)
        if (groupBy === 'day') return { day: name, ...money }
        if (groupBy === 'campaign') return { campaign_id: name, campaign_name: stores.campaigns.get(name)?.name ?? null, ...money }
        keyNames ??= new Map(stores.keys.namesOfOrg(org.id).map((k) => [k.id, k.name]))
        return { key_id: name, key_name: keyNames.get(name) ?? null, ...money }
      })
      return {
        object: 'usage' as const,
        period: month.period,
        timezone: org.timezone,
        livemode: principal.livemode,
        totals: withMoney(totals),
        group_by: groupBy ?? null,
        groups: groupBy ? groupList : [],
        updated: counted ? iso(Number(counted)) : null,
      }
    },

    /** Whether new and waiting leads of the campaign are held for its spend cap (live only). */
    capReached(campaign: CampaignRow, livemode: boolean): boolean {
      return livemode && capped.has(campaign.id)
    },

    onCapChange(listener: (campaign: CampaignRow, reached: boolean) => void): void {
      capListeners.push(listener)
    },

    evaluateCaps,
  }
}

export type UsageService = ReturnType<typeof usageService>
