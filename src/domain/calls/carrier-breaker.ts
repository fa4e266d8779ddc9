/**
 * A circuit breaker per (organization, carrier kind), in memory (docs/operations.md "Carrier
 * pools and failover"): after THRESHOLD calls in a row that the carrier refused for an outage
 * (unavailable, throttled) it opens, and dials skip that carrier for the cool-down; then one
 * trial call goes through it: placed, the breaker closes; refused, it opens for another cool-down.
 * A restart closes every breaker (the first calls find out again).
 */

export const BREAKER_THRESHOLD = 5
export const BREAKER_COOL_DOWN_MS = 60_000

export type BreakerState = 'closed' | 'open' | 'half_open'

interface Entry {
  /** Faults in a row since the last placed call. */
  faults: number
  /** When it opened (unix ms); null: closed. */
  openedAt: number | null
  /** When the half-open trial call was dialed; null: none in flight. */
  trialAt: number | null
}

export function carrierBreakers(deps: { now: () => number; threshold?: number; coolDownMs?: number; onOpen?: (orgId: string, kind: string) => void }) {
  const threshold = deps.threshold ?? BREAKER_THRESHOLD
  const coolDownMs = deps.coolDownMs ?? BREAKER_COOL_DOWN_MS
  // Only carriers with a fault since their last placed call have an entry (bounded by organizations × kinds).
  const entries = new Map<string, Entry>()
  const keyOf = (orgId: string, kind: string) => `${orgId}\u0000${kind}`

  function stateOf(entry: Entry | undefined, now: number): BreakerState {
    if (!entry || entry.openedAt === null) return 'closed'
    return now - entry.openedAt >= coolDownMs ? 'half_open' : 'open'
  }

  return {
    state(orgId: string, kind: string): BreakerState {
      return stateOf(entries.get(keyOf(orgId, kind)), deps.now())
    },

    /** Whether a dial may go through the carrier now: closed, or half-open with no trial in flight (a trial lost for a cool-down is replaced). */
    allows(orgId: string, kind: string): boolean {
      const entry = entries.get(keyOf(orgId, kind))
      const now = deps.now()
      const state = stateOf(entry, now)
      if (state !== 'half_open') return state === 'closed'
      return entry!.trialAt === null || now - entry!.trialAt >= coolDownMs
    },

    /** A dial goes through the carrier: when half-open, it is the trial. */
    dialing(orgId: string, kind: string): void {
      const entry = entries.get(keyOf(orgId, kind))
      const now = deps.now()
      if (entry && stateOf(entry, now) === 'half_open') entry.trialAt = now
    },

    /** The carrier refused a call for an outage (unavailable, throttled) before placing it. */
    fault(orgId: string, kind: string): void {
      const key = keyOf(orgId, kind)
      const now = deps.now()
      const entry = entries.get(key) ?? { faults: 0, openedAt: null, trialAt: null }
      entries.set(key, entry)
      entry.faults++
      const state = stateOf(entry, now)
      // A failed trial opens it again at once; a closed one after `threshold` in a row.
      if (state === 'half_open' || (state === 'closed' && entry.faults >= threshold)) {
        entry.openedAt = now
        entry.trialAt = null
        deps.onOpen?.(orgId, kind)
      }
    },

    /** The carrier placed a call (or turned down the number itself): the outage, if any, is over. */
    placed(orgId: string, kind: string): void {
      entries.delete(keyOf(orgId, kind))
    },

    /** The carriers not closed now, for /metrics. */
    notClosed(): { orgId: string; kind: string; state: BreakerState }[] {
      const now = deps.now()
      const out: { orgId: string; kind: string; state: BreakerState }[] = []
      for (const [key, entry] of entries) {
        const state = stateOf(entry, now)
        if (state === 'closed') continue
        const [orgId, kind] = key.split('\u0000') as [string, string]
        out.push({ orgId, kind, state })
      }
      return out
    },
  }
}

export type CarrierBreakers = ReturnType<typeof carrierBreakers>
