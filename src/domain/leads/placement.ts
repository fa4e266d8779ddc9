import type { CampaignRow } from '../../db/stores/campaign-store'
import type { BlockReason, Verdict } from '../calling-rules/contract'

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
   * The calling rules at `at` (campaign window clamped to the federal floor, state hours,
   * days, holidays, caps, in every zone of the lead): asked once, at the instant the lead's
   * wait ends (`now` when it has none), unless the lead is held.
   */
  rules: (at: number) => RulesAnswer
}

/** A wait and why; reason null: no wait of its own (due now, or a callback at its booked time). */
export interface Wait {
  at: number
  reason: ScheduledReason | null
}

// When no moment in the next two weeks suits every rule, look again a day later.
const NO_WINDOW_RETRY_MS = 24 * 60 * 60 * 1000

/**
 * When a lead can really be called: the end of its wait (`notBefore`, or the campaign's
 * recent-contact cooldown when that ends later), then the calling rules asked at that instant
 * (never before `now`). A wait the rules allow keeps its time and reason; else their next
 * allowed instant and reason win (a day later when none is within the horizon).
 */
export function firstCallable(input: Omit<PlacementInput, 'spendCapReached' | 'notBefore'> & { notBefore: Wait | null }): Wait {
  const { campaign, now } = input
  let wait: Wait = input.notBefore ?? { at: now, reason: null }
  if (campaign.cooldownHours > 0 && input.lastContactAt !== null) {
    const until = input.lastContactAt + campaign.cooldownHours * 3_600_000
    if (until > Math.max(wait.at, now)) wait = { at: until, reason: 'recent_contact_cooldown' }
  }
  const asked = Math.max(wait.at, now)
  const verdict = input.rules(asked)
  if (verdict.allowed) return wait
  const at = verdict.nextAllowedAt !== null && verdict.nextAllowedAt > asked ? verdict.nextAllowedAt : asked + NO_WINDOW_RETRY_MS
  return { at, reason: blockReason(verdict.reason) }
}

const blockReason = (reason: BlockReason | null): BlockReason => reason ?? 'outside_calling_hours'

/**
 * Where a lead goes now: held while its campaign cannot dial, scheduled while it must wait
 * (an earlier wait, the campaign's recent-contact cooldown, then the calling rules at the
 * instant that wait ends: firstCallable), else queued. A scheduled lead is placed again when
 * its time comes.
 */
export function placeLead(input: PlacementInput): Placement {
  const { campaign, now } = input
  if (campaign.status === 'paused') return { status: 'held', reason: 'campaign_paused' }
  if (campaign.status === 'draft') return { status: 'held', reason: 'campaign_not_started' }
  if (input.spendCapReached) return { status: 'held', reason: 'spend_cap_reached' }
  const due = firstCallable({ ...input, notBefore: input.notBefore ?? null })
  // A wait already over (or none) that the rules allow now: due.
  if (due.at <= now || due.reason === null) return { status: 'queued' }
  return { status: 'scheduled', dueAt: due.at, reason: due.reason }
}
