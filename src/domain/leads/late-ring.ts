import type { Outcome } from '../outcomes'
import type { LeadCore } from './lead-core'
import { hoursBlocks } from './window-margin'

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
