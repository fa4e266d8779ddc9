import type { LeadRow } from '../../db/stores/lead-store'
import { iso, isoOrNull } from '../../jobs/clock'

export interface LeadCallSummary {
  id: string
  started: string
  outcome: string | null
  outcome_label: string | null
  duration_seconds: number | null
}

/** Where a lead stands in line, as the Lead object and the intake reply both say it. */
export interface QueuePosition {
  place_in_line: number | null
  estimated_wait_seconds: number | null
  scheduled_for: string | null
  scheduled_reason: string | null
  held_reason: string | null
}

export interface LeadView extends QueuePosition {
  id: string
  external_id: string | null
  campaign_id: string
  name: string | null
  phone: string
  email: string | null
  address: string | null
  fields: Record<string, string>
  consent: LeadRow['consent']
  lead_source: string | null
  owner: { id: string; name: string } | null
  created: string
  updated: string
  status: LeadRow['status']
  call_now: boolean
  callback_at: string | null
  late: boolean
  attempts: number
  last_outcome: string | null
  last_outcome_label: string | null
  next_dial_at: string | null
  calls: LeadCallSummary[]
}

/** The lead in an API reply: always with livemode. */
export type ApiLead = LeadView & { livemode: boolean }

export interface LeadViewOptions {
  placeInLine?: number | null
  estimatedWaitSeconds?: number | null
  calls?: LeadCallSummary[]
}

/** The Lead object of the spec without livemode (see apiLead and eventLead). */
export function leadView(row: LeadRow, options: LeadViewOptions = {}): LeadView {
  return {
    id: row.id,
    external_id: row.externalId,
    campaign_id: row.campaignId,
    name: row.name,
    phone: row.phone,
    email: row.email,
    address: row.address,
    fields: row.fields,
    consent: row.consent,
    lead_source: row.leadSource,
    owner: row.owner,
    created: iso(row.created),
    updated: iso(row.updated),
    status: row.status,
    call_now: row.callNow,
    place_in_line: options.placeInLine ?? null,
    estimated_wait_seconds: options.estimatedWaitSeconds ?? null,
    scheduled_for: row.status === 'scheduled' ? isoOrNull(row.dueAt) : null,
    scheduled_reason: row.status === 'scheduled' ? row.dueReason : null,
    held_reason: row.status === 'held' ? row.heldReason : null,
    callback_at: row.status === 'callback_scheduled' ? isoOrNull(row.callbackAt) : null,
    late: row.late,
    attempts: row.attempts,
    last_outcome: row.lastOutcome,
    last_outcome_label: row.lastOutcomeLabel,
    next_dial_at: isoOrNull(row.nextDialAt),
    calls: options.calls ?? [],
  }
}

/** As GET /leads/{id} returns it. */
export const apiLead = (row: LeadRow, options: LeadViewOptions = {}): ApiLead => ({ ...leadView(row, options), livemode: row.livemode })

/** Inside an event: a live lead leaves livemode out, a test lead keeps it (spec "Events"). */
export const eventLead = (row: LeadRow, options: LeadViewOptions = {}): LeadView | ApiLead =>
  row.livemode ? leadView(row, options) : apiLead(row, options)
