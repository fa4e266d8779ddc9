import type { CampaignRow } from '../../db/stores/campaign-store'
import type { Block, Verdict } from '../calling-rules/contract'
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
  rules: Pick<LeadRules, 'verdict' | 'reachOf'>,
  lead: RulesLead,
  campaign: CampaignRow,
  now: number,
  marginMs: number,
): Verdict {
  // One reach for both looks (an address is parsed once); the second needs no call history.
  const reach = rules.reachOf(lead)
  const verdict = rules.verdict(lead, campaign, now, { reach })
  if (!verdict.allowed || marginMs <= 0) return verdict
  const later = rules.verdict(lead, campaign, now + marginMs, { reach, hoursOnly: true })
  const closing = hoursBlocks(later)
  if (closing.length === 0) return verdict
  return { ...later, blockedBy: closing, reason: 'outside_calling_hours' }
}
