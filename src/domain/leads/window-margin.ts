import type { CampaignRow } from '../../db/stores/campaign-store'
import type { Block, Verdict } from '../calling-rules/contract'
import type { Outcome } from '../outcomes'
import type { LeadCore } from './lead-core'
import type { LeadRules, RulesLead } from './lead-rules'

/** DIALER_WINDOW_END_MARGIN_SECONDS' default, in ms. */
export const DEFAULT_WINDOW_END_MARGIN_MS = 60_000

/** The blocks of the hours-like rules (a window, a barred day or holiday, in any zone): caps aside. */
export function hoursBlocks(verdict: Pick<Verdict, 'blockedBy'>): Block[] {
  return verdict.blockedBy.filter((block) => block.reason === 'outside_calling_hours')
}

/**
 * The verdict a dial at `now` is decided with. A carrier may ring a call well after it was asked
 * for (Twilio queues calls past the account's calls per second), so the rules are asked at `now`
 * and, when they allow, again at `now + marginMs`: a lead whose window closes within the margin
 * is blocked by the rules that close it, its next allowed instant counted from there.
 */
export function dialVerdict(
  rules: Pick<LeadRules, 'verdict'>,
  lead: RulesLead,
  campaign: CampaignRow,
  now: number,
  marginMs: number,
): Verdict {
  const verdict = rules.verdict(lead, campaign, now)
  if (!verdict.allowed || marginMs <= 0) return verdict
  const later = rules.verdict(lead, campaign, now + marginMs)
  const closing = hoursBlocks(later)
  if (closing.length === 0) return verdict
  return { ...later, blockedBy: closing, reason: 'outside_calling_hours' }
}

/**
 * A lead's call rang (or was answered) at `at`, maybe long after the dial: when an hours-like
 * rule blocks the lead then, the call may not go on. The lead gets one deferral per closing rule
 * and, while still on this call, its next allowed time (outside_calling_hours), with the attempt
 * given back: the lead was not really tried. A cap does not count here (this call is one of
 * the calls it counts). Returns true while the window is open.
 */
export function lateRing(core: LeadCore) {
  const { stores } = core.deps
  return function callRinging(leadId: string, at: number, ended: { outcome: Outcome; label: string }): boolean {
    const lead = stores.leads.get(leadId)
    if (!lead) return true
    const campaign = core.campaignOf(lead.campaignId)
    const verdict = core.rules.verdict(lead, campaign, at)
    const closing = hoursBlocks(verdict)
    if (verdict.allowed || closing.length === 0) return true
    core.recordDeferrals(lead, lead.id, { blockedBy: closing }, at)
    // A lead that left the call meanwhile (opted out, taken out) stays where it is.
    if (lead.status !== 'dialing' && lead.status !== 'on_call') return false
    const placement = core.placementFor(lead, campaign, undefined, { verdict })
    core.save(lead, {
      ...core.placementChanges(placement, lead),
      attempts: Math.max(0, lead.attempts - 1),
      lastOutcome: ended.outcome,
      lastOutcomeLabel: ended.label,
      callNow: false,
      late: false,
    })
    return false
  }
}
