import type { LeadRow } from '../../db/stores/lead-store'
import { iso, isoOrNull } from '../../jobs/clock'
import { estimatedWaitSeconds } from '../queue/dial-queues'
import type { EventLead, Lead, LeadCallSummary, QueuePosition } from './lead-shape'

/**
 * The Lead presenter (row -> the Lead object of lead-shape.ts): GET /leads/{id}, the lists,
 * opt-out, every lead event and the webhook test event's sample. The intake and call-now
 * replies share its queue-position fields (queuePosition).
 */

/** The columns the Lead object shows. */
export type LeadViewRow = Pick<
  LeadRow,
  | 'id' | 'externalId' | 'campaignId' | 'name' | 'phone' | 'email' | 'address' | 'fields' | 'consent' | 'leadSource' | 'owner'
  | 'created' | 'updated' | 'status' | 'callNow' | 'dueAt' | 'dueReason' | 'heldReason' | 'callbackAt' | 'late' | 'attempts'
  | 'lastOutcome' | 'lastOutcomeLabel' | 'nextDialAt' | 'livemode'
>

export interface LeadViewOptions {
  placeInLine?: number | null
  estimatedWaitSeconds?: number | null
  calls?: LeadCallSummary[]
}

/**
 * The queue-position fields: a wait or a hold shows only while the lead is scheduled or held,
 * and for a callback the calling rules moved past its booked time (due then, and why).
 */
export function queuePosition(row: Pick<LeadRow, 'status' | 'dueAt' | 'dueReason' | 'heldReason'>, place: number | null, wait: number | null): QueuePosition {
  const waits = row.status === 'scheduled' || (row.status === 'callback_scheduled' && row.dueReason !== null)
  return {
    place_in_line: place,
    estimated_wait_seconds: wait,
    scheduled_for: waits ? isoOrNull(row.dueAt) : null,
    scheduled_reason: waits ? row.dueReason : null,
    held_reason: row.status === 'held' ? row.heldReason : null,
  }
}

/** What a wait estimate reads (lead-core.ts provides it): the campaign's lines and its calls' handle time. */
export interface WaitSource {
  campaignOf(id: string): { lines: number }
  averageHandleSeconds(campaignId: string, livemode: boolean): number
}

/** The estimated wait for a lead `place` in line (0 while it is being dialed or on a call). */
export function waitFor(core: WaitSource, row: LeadRow, place: number | null): number | null {
  if (place !== null && row.status === 'queued') {
    return estimatedWaitSeconds(place, core.campaignOf(row.campaignId).lines, core.averageHandleSeconds(row.campaignId, row.livemode))
  }
  return place === 0 ? 0 : null
}

/** The Lead object without livemode (see apiLead and eventLead). */
function leadView(row: LeadViewRow, options: LeadViewOptions): Omit<Lead, 'livemode'> {
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
    ...queuePosition(row, options.placeInLine ?? null, options.estimatedWaitSeconds ?? null),
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
export const apiLead = (row: LeadViewRow, options: LeadViewOptions = {}): Lead => ({ ...leadView(row, options), livemode: row.livemode })

/** Inside an event: a live lead leaves livemode out, a test lead keeps it (spec "Events"). */
export const eventLead = (row: LeadViewRow, options: LeadViewOptions = {}): EventLead =>
  row.livemode ? leadView(row, options) : { ...leadView(row, options), livemode: false }
