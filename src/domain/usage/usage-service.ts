import { describeCache } from '../../cache-registry'
import type { CampaignRow } from '../../db/stores/campaign-store'
import type { RollupDelta, RollupSums } from '../../db/stores/usage-store'
import type { Stores } from '../../db/stores'
import { invalid } from '../../errors'
import { iso, type Clock } from '../../jobs/clock'
import type { Principal } from '../access/permissions'
import { localDateOf } from '../calling-hours/calling-window'
import type { RequestTally, TallyEntry } from './request-tally'

export type GroupBy = 'key' | 'campaign' | 'day'

export interface UsageCounts {
  requests: number
  leads_added: number
  calls: number
  calls_connected: number
  minutes: number
  cost_usd: number
}

const WATERMARK_LEADS = 'usage_leads_rowid'
// Leads and calls per count transaction: about 0.1-0.2 s of work, so requests wait no longer.
const COUNT_CHUNK = 20_000

export interface CountResult {
  requests: number
  leads: number
  calls: number
}
const COUNTED_AT = 'usage_counted_at'

const pad = (n: number) => String(n).padStart(2, '0')

type Delta = Omit<RollupDelta, 'day'> & { at: number }
type Counts = Pick<RollupDelta, 'requests' | 'leadsAdded' | 'calls' | 'callsConnected' | 'minutes'>

function addCounts(sum: Counts, delta: Counts): void {
  sum.requests = (sum.requests ?? 0) + (delta.requests ?? 0)
  sum.leadsAdded = (sum.leadsAdded ?? 0) + (delta.leadsAdded ?? 0)
  sum.calls = (sum.calls ?? 0) + (delta.calls ?? 0)
  sum.callsConnected = (sum.callsConnected ?? 0) + (delta.callsConnected ?? 0)
  sum.minutes = (sum.minutes ?? 0) + (delta.minutes ?? 0)
}

/**
 * One count's additions, summed per organization, mode, local day and dimension before they
 * are written, so a count that covers a month of calls writes one row per campaign a day.
 */
class RollupBatch {
  private readonly sums = new Map<string, Delta>()

  add(delta: Delta): void {
    // Grouped by quarter hour here; the day is found once per (organization, quarter hour) in write().
    const name = `${delta.orgId}|${delta.livemode ? 1 : 0}|${delta.at}|${delta.dimension}|${delta.dimensionId}`
    const sum = this.sums.get(name)
    if (!sum) {
      this.sums.set(name, { ...delta })
      return
    }
    addCounts(sum, delta)
  }

  write(zoneOf: (orgId: string) => string, put: (delta: RollupDelta) => void): void {
    const zones = new Map<string, string>()
    const days = new Map<string, string>()
    const byDay = new Map<string, RollupDelta>()
    for (const { at, ...delta } of this.sums.values()) {
      let zone = zones.get(delta.orgId)
      if (zone === undefined) zones.set(delta.orgId, (zone = zoneOf(delta.orgId)))
      const dayName = `${zone}|${at}`
      let day = days.get(dayName)
      if (day === undefined) {
        const d = localDateOf(zone, at)
        days.set(dayName, (day = `${d.y}-${pad(d.m)}-${pad(d.d)}`))
      }
      const name = `${delta.orgId}|${delta.livemode ? 1 : 0}|${day}|${delta.dimension}|${delta.dimensionId}`
      const sum = byDay.get(name)
      if (!sum) {
        byDay.set(name, { ...delta, day })
        continue
      }
      addCounts(sum, delta)
    }
    for (const delta of byDay.values()) put(delta)
  }
}

const zero = (): Omit<UsageCounts, 'cost_usd'> => ({ requests: 0, leads_added: 0, calls: 0, calls_connected: 0, minutes: 0 })

/**
 * Usage: counted every 5 minutes into daily rollups (usage_daily) in each organization's zone,
 * read by GET /usage. Minutes are billed per call (rounded up) and cost is minutes at the
 * organization's rate, so a month's total is the sum of its calls' billed minutes times the rate.
 */
const USAGE_ROLLUPS = describeCache({
  name: 'usage-rollups',
  holds: "an organization and mode's daily rollup rows of a month (GET /usage)",
  bound: '500 months; full, it is emptied',
  clearedBy: 'every usage count chunk empties it',
  gain: '16–30 vs 26–45 µs a GET /usage read (a month of small rollups; grows with rows)',
  source: 'database',
})

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

  /** The month [first, last] day strings of `period` in the zone; throws 400 for a bad period. */
  function monthOf(period: string, zone: string): { period: string; from: string; to: string } {
    let year: number
    let month: number
    if (period === 'current') {
      const today = localDateOf(zone, clock.now())
      year = today.y
      month = today.m
    } else {
      const match = /^(\d{4})-(\d{2})$/.exec(period)
      if (!match || Number(match[2]) < 1 || Number(match[2]) > 12) {
        throw invalid('period must be "current" or a month, YYYY-MM.', 'period')
      }
      year = Number(match[1])
      month = Number(match[2])
    }
    const p = `${year}-${pad(month)}`
    return { period: p, from: `${p}-01`, to: `${p}-31` }
  }

  function withCost(counts: Omit<UsageCounts, 'cost_usd'>, rate: number, billed: boolean): UsageCounts {
    // A test key's usage is never billed.
    return { ...counts, cost_usd: billed ? Math.round(counts.minutes * rate * 1e6) / 1e6 : 0 }
  }

  function addInto(target: Omit<UsageCounts, 'cost_usd'>, row: RollupSums, part: 'requests' | 'activity'): void {
    if (part === 'requests') target.requests += row.requests
    else {
      target.leads_added += row.leadsAdded
      target.calls += row.calls
      target.calls_connected += row.callsConnected
      target.minutes += row.minutes
    }
  }

  /** Spend caps: a campaign whose month (its organization's zone) costs its cap or more is capped. */
  function evaluateCaps(): void {
    for (const campaign of stores.campaigns.withSpendCap()) {
      const org = stores.orgs.get(campaign.orgId)
      if (!org) continue
      const month = monthOf('current', org.timezone)
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
      const month = monthOf(period, org.timezone)
      const rows = rollupRows(org.id, principal.livemode, month.from, month.to)
      const scoped = principal.campaignIds
      const billed = principal.livemode
      const totals = zero()
      const groups = new Map<string, Omit<UsageCounts, 'cost_usd'>>()
      const groupFor = (name: string) => {
        let g = groups.get(name)
        if (!g) {
          g = zero()
          groups.set(name, g)
        }
        return g
      }
      for (const row of rows) {
        // A key limited to some campaigns sees their activity and its own requests.
        if (row.dimension === 'campaign' && scoped && !scoped.has(row.dimensionId)) continue
        if (row.dimension === 'key' && scoped && row.dimensionId !== principal.keyId) continue
        const part = row.dimension === 'key' ? 'requests' : 'activity'
        addInto(totals, row, part)
        if (groupBy === 'day') addInto(groupFor(row.day), row, part)
        else if (groupBy === 'campaign' && row.dimension === 'campaign') addInto(groupFor(row.dimensionId), row, part)
        else if (groupBy === 'key' && row.dimension === 'key') {
          const g = groupFor(row.dimensionId)
          g.requests += row.requests
          g.leads_added += row.leadsAdded
        }
      }
      const rate = org.rateUsdPerMinute
      const counted = stores.settings.get(COUNTED_AT)
      let keyNames: Map<string, string> | undefined
      const groupList = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, counts]) => {
        const withMoney = withCost(counts, rate, billed)
        if (groupBy === 'day') return { day: name, ...withMoney }
        if (groupBy === 'campaign') return { campaign_id: name, campaign_name: stores.campaigns.get(name)?.name ?? null, ...withMoney }
        keyNames ??= new Map(stores.keys.namesOfOrg(org.id).map((k) => [k.id, k.name]))
        return { key_id: name, key_name: keyNames.get(name) ?? null, ...withMoney }
      })
      return {
        object: 'usage' as const,
        period: month.period,
        timezone: org.timezone,
        livemode: principal.livemode,
        totals: withCost(totals, rate, billed),
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
