import type { CampaignRow } from '../../db/stores/campaign-store'
import type { Verdict } from '../calling-rules/contract'

export type ScheduledReason = 'outside_calling_hours' | 'recent_contact_cooldown' | 'retry_after_outcome' | 'next_dial_time'
export type HeldReason = 'campaign_paused' | 'campaign_not_started' | 'spend_cap_reached'

export type Placement =
  | { status: 'queued' }
  | { status: 'scheduled'; dueAt: number; reason: ScheduledReason }
  | { status: 'held'; reason: HeldReason }

/** What placement needs of the calling rules' verdict (src/domain/calling-rules). */
export type RulesAnswer = Pick<Verdict, 'allowed' | 'nextAllowedAt' | 'reason'>

export interface PlacementInput {
  campaign: Pick<CampaignRow, 'status' | 'cooldownHours'>
  now: number
  /** Last time any call reached this number in the organization (the campaign's cooldown). */
  lastContactAt: number | null
  /** A wait the lead already has (retry after an outcome, a next dial time). */
  notBefore?: { at: number; reason: ScheduledReason } | null
  spendCapReached: boolean
  /**
   * The calling rules at `now` (campaign window clamped to the federal floor, state hours,
   * days, holidays, caps, in every zone of the lead). Asked only when nothing before decides.
   */
  rules: () => RulesAnswer
}

// When no moment in the next two weeks suits every rule, look again a day later.
const NO_WINDOW_RETRY_MS = 24 * 60 * 60 * 1000

/**
 * Where a lead goes now: held while its campaign cannot dial, scheduled while it must wait
 * (an earlier wait, the campaign's recent-contact cooldown, then the calling rules), else
 * queued. A scheduled lead is placed again when its time comes.
 */
export function placeLead(input: PlacementInput): Placement {
  const { campaign, now } = input
  if (campaign.status === 'paused') return { status: 'held', reason: 'campaign_paused' }
  if (campaign.status === 'draft') return { status: 'held', reason: 'campaign_not_started' }
  if (input.spendCapReached) return { status: 'held', reason: 'spend_cap_reached' }
  if (input.notBefore && input.notBefore.at > now) {
    return { status: 'scheduled', dueAt: input.notBefore.at, reason: input.notBefore.reason }
  }
  if (campaign.cooldownHours > 0 && input.lastContactAt !== null) {
    const until = input.lastContactAt + campaign.cooldownHours * 3_600_000
    if (until > now) return { status: 'scheduled', dueAt: until, reason: 'recent_contact_cooldown' }
  }
  const verdict = input.rules()
  if (verdict.allowed) return { status: 'queued' }
  const dueAt = verdict.nextAllowedAt !== null && verdict.nextAllowedAt > now ? verdict.nextAllowedAt : now + NO_WINDOW_RETRY_MS
  return { status: 'scheduled', dueAt, reason: verdict.reason ?? 'outside_calling_hours' }
}
