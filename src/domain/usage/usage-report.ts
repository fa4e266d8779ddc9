import type { RollupSums } from '../../db/stores/usage-store'
import { invalid } from '../../errors'
import type { Principal } from '../access/permissions'
import { localDateOf } from '../calling-hours/calling-window'
import { pad } from './rollup-batch'

export type GroupBy = 'key' | 'campaign' | 'day'

export interface UsageCounts {
  requests: number
  leads_added: number
  calls: number
  calls_connected: number
  minutes: number
  cost_usd: number
  /** AI seats' time, each call rounded up to the minute. */
  ai_minutes: number
  /** What the built-in agent's tokens cost at the organization's prices; null when it has none. */
  ai_cost_usd: number | null
  /** AI calls whose model has no price (not in ai_cost_usd). */
  ai_unpriced_calls: number
}

export type Sums = Omit<UsageCounts, 'cost_usd' | 'ai_cost_usd'> & { ai_cost_micros: number }

export const zero = (): Sums => ({ requests: 0, leads_added: 0, calls: 0, calls_connected: 0, minutes: 0, ai_minutes: 0, ai_cost_micros: 0, ai_unpriced_calls: 0 })

/** The month [first, last] day strings of `period` in the zone (`now` for "current"); throws 400 for a bad period. */
export function monthOf(period: string, zone: string, now: number): { period: string; from: string; to: string } {
  let year: number
  let month: number
  if (period === 'current') {
    const today = localDateOf(zone, now)
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

/** `priced`: the organization has AI prices (else AI cost is unknown: null). */
export function withCost(counts: Sums, rate: number, billed: boolean, priced = false): UsageCounts {
  const { ai_cost_micros, ...rest } = counts
  // A test key's usage is never billed.
  return {
    ...rest,
    cost_usd: billed ? Math.round(counts.minutes * rate * 1e6) / 1e6 : 0,
    ai_cost_usd: !priced ? null : billed ? ai_cost_micros / 1e6 : 0,
  }
}

function addInto(target: Sums, row: RollupSums, part: 'requests' | 'activity'): void {
  if (part === 'requests') target.requests += row.requests
  else {
    target.leads_added += row.leadsAdded
    target.calls += row.calls
    target.calls_connected += row.callsConnected
    target.minutes += row.minutes
    target.ai_minutes += row.aiMinutes
    target.ai_cost_micros += row.aiCostMicros
    target.ai_unpriced_calls += row.aiUnpricedCalls
  }
}

/** A month's rollup rows summed as the key may see them: the totals, and per group when asked. */
export function sumRows(rows: readonly RollupSums[], principal: Principal, groupBy: GroupBy | undefined): { totals: Sums; groups: Map<string, Sums> } {
  const scoped = principal.campaignIds
  const totals = zero()
  const groups = new Map<string, Sums>()
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
  return { totals, groups }
}
