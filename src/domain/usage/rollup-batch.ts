import type { RollupDelta } from '../../db/stores/usage-store'
import { localDateOf } from '../calling-hours/calling-window'

export const pad = (n: number) => String(n).padStart(2, '0')

/** One addition to a rollup, at a quarter hour (the day is found when the batch is written). */
export type Delta = Omit<RollupDelta, 'day'> & { at: number }
type Counts = Pick<RollupDelta, 'requests' | 'leadsAdded' | 'calls' | 'callsConnected' | 'minutes' | 'aiMinutes' | 'aiCostMicros' | 'aiUnpricedCalls'>

function addCounts(sum: Counts, delta: Counts): void {
  sum.requests = (sum.requests ?? 0) + (delta.requests ?? 0)
  sum.leadsAdded = (sum.leadsAdded ?? 0) + (delta.leadsAdded ?? 0)
  sum.calls = (sum.calls ?? 0) + (delta.calls ?? 0)
  sum.callsConnected = (sum.callsConnected ?? 0) + (delta.callsConnected ?? 0)
  sum.minutes = (sum.minutes ?? 0) + (delta.minutes ?? 0)
  sum.aiMinutes = (sum.aiMinutes ?? 0) + (delta.aiMinutes ?? 0)
  sum.aiCostMicros = (sum.aiCostMicros ?? 0) + (delta.aiCostMicros ?? 0)
  sum.aiUnpricedCalls = (sum.aiUnpricedCalls ?? 0) + (delta.aiUnpricedCalls ?? 0)
}

/**
 * One count's additions, summed per organization, mode, local day and dimension before they
 * are written, so a count that covers a month of calls writes one row per campaign a day.
 */
export class RollupBatch {
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
