import { describeCache, type CacheRegistry } from '../../cache-registry'
import type { CallStore } from '../../db/stores/call-store'
import type { LeadRow } from '../../db/stores/lead-store'
import type { Clock } from '../../jobs/clock'
import type { LeadCallSummary } from '../leads/lead-shape'

/**
 * What other services read of calls, straight from the call store: the leads need it before the
 * call service (which needs the leads) exists, so it is not part of that service.
 */
export function callActivity(calls: CallStore) {
  return {
    /** Sample calls of a test key not yet ended. */
    runningTestCalls: (keyId: string): number => calls.runningForKey(keyId),
    /** A call to this lead is up (dialing or talking), whatever the lead's status says now. */
    callInProgress: (lead: LeadRow): boolean => calls.openForLead(lead.id),
    /** The lead's last 10 calls, newest first (the Lead's `calls`). */
    recentCalls: (leadId: string): LeadCallSummary[] =>
      calls.recentForLead(leadId).map((c) => ({
        id: c.id, started: new Date(c.started).toISOString(), outcome: c.outcome, outcome_label: c.outcomeLabel, duration_seconds: c.durationSeconds,
      })),
  }
}

// How long a campaign's average handle time is reused before it is read again.
const HANDLE_TIME_TTL_MS = 10_000

const HANDLE_TIMES = describeCache({
  name: 'handle-times',
  holds: "each campaign and mode's average handle time (last 50 answered calls), for wait estimates",
  bound: 'two per campaign',
  clearedBy: 'reread after 10 s; a call of the campaign ending forgets it',
  gain: '0.07–0.27 vs 21–31 µs an estimate (120 calls ended)',
  source: 'database',
})

const slot = (campaignId: string, livemode: boolean) => `${campaignId}:${livemode ? 'live' : 'test'}`

/**
 * Recent average duration of each campaign's answered calls (seconds), for wait estimates:
 * read from the call store, reused for 10 s, forgotten when one of the campaign's calls ends
 * (the dialer tells it).
 */
export class HandleTimes {
  private readonly cache = new Map<string, { seconds: number; at: number }>()

  constructor(private readonly deps: { calls: CallStore; clock: Clock; caches: CacheRegistry }) {
    deps.caches.register(HANDLE_TIMES, () => this.cache.clear())
  }

  averageHandleSeconds(campaignId: string, livemode: boolean, fallback: number): number {
    const name = slot(campaignId, livemode)
    const now = this.deps.clock.now()
    const cached = this.cache.get(name)
    if (cached && now - cached.at < HANDLE_TIME_TTL_MS) return cached.seconds
    const seconds = this.deps.calls.averageDuration(campaignId, livemode) ?? fallback
    this.cache.set(name, { seconds, at: now })
    return seconds
  }

  /** A call of the campaign ended: the next estimate reads the average again. */
  forget(campaignId: string, livemode: boolean): void {
    this.cache.delete(slot(campaignId, livemode))
  }
}
