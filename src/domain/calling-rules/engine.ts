/**
 * The calling-rules engine: which rules apply to a lead, whether a call may start now, and when
 * it next may. Pure: `now` and the call history come in; nothing reads a clock or the database.
 * A call is allowed only when every rule allows it in every zone of the lead.
 *
 * Each rule compiles to a profile (rule-profiles.ts); all hours-like rules of a lead intersect
 * into one profile per (rule set, campaign window), memoized (rule-sets.ts) because every lead
 * is evaluated at intake and again at dial time (figures: docs/architecture.md, "Where the time goes").
 * The verdict's rules list is shared per rule set and campaign window: callers must not mutate it.
 */
import type { Block, CallingRulesEngine, EvaluateInput, Verdict } from './contract'
import { reachOf } from './reach'
import { allowedIn, capAllowsFrom, capsAllowFrom, countSince, DAY, nextAllowed, type Cap } from './rule-profiles'
import { combined, ruleSetOf } from './rule-sets'
import { RULES_VERSION } from './state-rules'

// Frozen: shared by every allowed verdict.
const NO_BLOCKS = Object.freeze([]) as unknown as Block[]
const NO_CALLS: readonly number[] = []
const NO_CAPS: readonly Cap[] = []

export function createCallingRulesEngine(): CallingRulesEngine {
  return {
    rulesVersion: RULES_VERSION,
    reachOf,
    needsCallHistory: (reach) => ruleSetOf(reach).caps.length > 0,
    historyWindowMs: (reach) => ruleSetOf(reach).historyMs,
    evaluate(input: EvaluateInput): Verdict {
      const { reach, now } = input
      const set = ruleSetOf(reach)
      const { profile: all, campaign, rules } = combined(set, input.campaignWindow)
      const calls = set.caps.length > 0 ? input.callTimes : NO_CALLS
      const callsLast24h = countSince(input.callTimes, now - DAY)
      const hoursOk = allowedIn(all, reach.zones, now)
      if (hoursOk && capsAllowFrom(set.caps, calls, now) === now) {
        return { allowed: true, nextAllowedAt: now, rules, blockedBy: NO_BLOCKS, reason: null, callsLast24h }
      }
      const blockedBy: Block[] = []
      for (const rule of [campaign, ...set.compiled]) {
        if (rule.profile) {
          if (!hoursOk && !allowedIn(rule.profile, reach.zones, now)) {
            blockedBy.push({ rule_id: rule.view.id, reason: 'outside_calling_hours', until: nextAllowed(rule.profile, reach.zones, NO_CAPS, NO_CALLS, now) })
          }
        } else if (rule.cap) {
          const until = capAllowsFrom(rule.cap, calls, now)
          if (until > now) blockedBy.push({ rule_id: rule.view.id, reason: 'recent_contact_cooldown', until })
        }
      }
      const onlyCaps = blockedBy.every((b) => b.reason === 'recent_contact_cooldown')
      return {
        allowed: false,
        nextAllowedAt: nextAllowed(all, reach.zones, set.caps, calls, now),
        rules,
        blockedBy,
        reason: onlyCaps ? 'recent_contact_cooldown' : 'outside_calling_hours',
        callsLast24h,
      }
    },
  }
}
