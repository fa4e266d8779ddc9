import type { CampaignRow } from '../../db/stores/campaign-store'
import { nextCallableAt } from '../calling-hours/calling-window'

export type ScheduledReason = 'outside_calling_hours' | 'recent_contact_cooldown' | 'retry_after_outcome' | 'next_dial_time'
export type HeldReason = 'campaign_paused' | 'campaign_not_started' | 'spend_cap_reached'

export type Placement =
  | { status: 'queued' }
  | { status: 'scheduled'; dueAt: number; reason: ScheduledReason }
  | { status: 'held'; reason: HeldReason }

export interface PlacementInput {
  campaign: Pick<CampaignRow, 'status' | 'callingHoursStart' | 'callingHoursEnd' | 'cooldownHours'>
  /** The lead's time zones (from its area code). */
  zones: readonly string[]
  now: number
  /** Last time any call reached this number in the organization (cooldown). */
  lastContactAt: number | null
  /** A wait the lead already has (retry after an outcome, a next dial time). */
  notBefore?: { at: number; reason: ScheduledReason } | null
  spendCapReached: boolean
}

// When no moment in the next two weeks suits every zone of a lead, look again a day later.
const NO_WINDOW_RETRY_MS = 24 * 60 * 60 * 1000

/**
 * Where a lead goes now: held while its campaign cannot dial, scheduled while it must wait
 * (an earlier wait, the recent-contact cooldown, then calling hours in every one of its
 * zones), else queued. A scheduled lead is placed again when its time comes.
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
  const opens = nextCallableAt(input.zones, { start: campaign.callingHoursStart, end: campaign.callingHoursEnd }, now)
  if (opens === null) return { status: 'scheduled', dueAt: now + NO_WINDOW_RETRY_MS, reason: 'outside_calling_hours' }
  if (opens > now) return { status: 'scheduled', dueAt: opens, reason: 'outside_calling_hours' }
  return { status: 'queued' }
}
