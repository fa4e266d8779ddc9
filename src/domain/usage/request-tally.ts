export interface TallyEntry {
  orgId: string
  livemode: boolean
  keyId: string
  /** Start of the quarter hour, unix ms. */
  quarter: number
  n: number
}

/**
 * API requests counted in memory per key and quarter hour (so a day boundary in any zone,
 * including +05:45 or -03:30, falls between buckets); the usage count (every 5 minutes)
 * writes them into the rollups. Counting needs no write per request; a crash loses at most the
 * requests since the last count (usage, not billing: minutes come from calls).
 */
export class RequestTally {
  private counts = new Map<string, TallyEntry>()

  count(orgId: string, livemode: boolean, keyId: string, now: number): void {
    const quarter = now - (now % 900_000)
    const name = `${keyId}|${quarter}`
    const entry = this.counts.get(name)
    if (entry) entry.n++
    else this.counts.set(name, { orgId, livemode, keyId, quarter, n: 1 })
  }

  /** The counts so far, and a fresh start. */
  drain(): TallyEntry[] {
    const all = [...this.counts.values()]
    this.counts = new Map()
    return all
  }

  /** Put counts back (the write that drained them did not commit). */
  restore(entries: TallyEntry[]): void {
    for (const e of entries) {
      const name = `${e.keyId}|${e.quarter}`
      const entry = this.counts.get(name)
      if (entry) entry.n += e.n
      else this.counts.set(name, { ...e })
    }
  }
}
