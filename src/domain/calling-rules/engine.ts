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
import { recordingConsent } from './recording-rules'
import { allowedIn, capAllowsFrom, capsAllowFrom, countSince, DAY, nextAllowed, type Cap, type Compiled, type Part } from './rule-profiles'
import { combined, ruleSetOf } from './rule-sets'
import { RULES_VERSION } from './state-rules'

// Frozen: shared by every allowed verdict.
const NO_BLOCKS = Object.freeze([]) as unknown as Block[]
const NO_CALLS: readonly number[] = []
const NO_CAPS: readonly Cap[] = []

/** The zones a rule is read in: its own fixed zone, else the lead's. */
const zonesOf = (rule: Compiled, zones: readonly string[]): readonly string[] => (rule.zone ? [rule.zone] : zones)

export function createCallingRulesEngine(): CallingRulesEngine {
  return {
    rulesVersion: RULES_VERSION,
    reachOf,
    recordingConsent,
    needsCallHistory: (reach, automated) => ruleSetOf(reach, automated).caps.length > 0,
    historyWindowMs: (reach, automated) => ruleSetOf(reach, automated).historyMs,
    evaluate(input: EvaluateInput): Verdict {
      const { reach, now } = input
      const set = ruleSetOf(reach, input.automated)
      const { profile: all, campaign, rules } = combined(set, input.campaignWindow)
      const calls = set.caps.length > 0 ? input.callTimes : NO_CALLS
      const callsLast24h = countSince(input.callTimes, now - DAY)
      let hoursOk = allowedIn(all, reach.zones, now)
      // Rules that cannot be merged into the local profile (a fixed zone, holiday hours) are checked beside it.
      for (let i = 0; hoursOk && i < set.beside.length; i++) {
        const rule = set.beside[i]!
        hoursOk = allowedIn(rule.profile!, zonesOf(rule, reach.zones), now)
      }
      if (hoursOk && capsAllowFrom(set.caps, calls, now) === now) {
        return { allowed: true, nextAllowedAt: now, rules, blockedBy: NO_BLOCKS, reason: null, callsLast24h }
      }
      const blockedBy: Block[] = []
      for (const rule of [campaign, ...set.compiled]) {
        const zones = zonesOf(rule, reach.zones)
        const hoursBlock = rule.profile !== null && !hoursOk && !allowedIn(rule.profile, zones, now)
        const capUntil = rule.cap ? capAllowsFrom(rule.cap, calls, now) : now
        if (!hoursBlock && capUntil === now) continue
        // A rule with hours and a cap (automated) stops blocking when both allow at once.
        const until = rule.profile === null ? capUntil
          : nextAllowed([{ profile: rule.profile, zones }], rule.cap ? [rule.cap] : NO_CAPS, rule.cap ? calls : NO_CALLS, now)
        blockedBy.push({ rule_id: rule.view.id, reason: hoursBlock ? 'outside_calling_hours' : 'recent_contact_cooldown', until })
      }
      const onlyCaps = blockedBy.every((b) => b.reason === 'recent_contact_cooldown')
      const parts: Part[] = [{ profile: all, zones: reach.zones }]
      for (const rule of set.beside) parts.push({ profile: rule.profile!, zones: zonesOf(rule, reach.zones) })
      return {
        allowed: false,
        nextAllowedAt: nextAllowed(parts, set.caps, calls, now),
        rules,
        blockedBy,
        reason: onlyCaps ? 'recent_contact_cooldown' : 'outside_calling_hours',
        callsLast24h,
      }
    },
  }
}
