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
  // The current quarter's entry per key (keyed by the key id alone: a string the auth cache
  // hands over each time, so the lookup needs no new string), and entries of past quarters.
  private current = new Map<string, TallyEntry>()
  private past: TallyEntry[] = []

  count(orgId: string, livemode: boolean, keyId: string, now: number): void {
    const quarter = now - (now % 900_000)
    const entry = this.current.get(keyId)
    if (entry && entry.quarter === quarter) {
      entry.n++
      return
    }
    if (entry) this.past.push(entry)
    this.current.set(keyId, { orgId, livemode, keyId, quarter, n: 1 })
  }

  /** The counts so far, and a fresh start. */
  drain(): TallyEntry[] {
    const all = [...this.past, ...this.current.values()]
    this.current = new Map()
    this.past = []
    return all
  }

  /** Put counts back (the write that drained them did not commit). */
  restore(entries: TallyEntry[]): void {
    // The rollup write adds entries of the same key and quarter together, so duplicates are fine.
    this.past.push(...entries)
  }
}
