import { aiMinutesOf } from '../usage/ai-cost'
import type { CallLead, CallRow, CallViewRow } from '../../db/stores/call-store'
import { iso, isoOrNull } from '../../jobs/clock'
import type { AdminCall, Call } from './call-shape'

/**
 * The Call presenter (row -> the Call object of call-shape.ts): GET /calls/{id}, the list,
 * every call event and the webhook test event's sample.
 */
export function callView(row: CallViewRow, lead: CallLead | undefined): Call {
  return {
    id: row.id,
    object: 'call' as const,
    livemode: row.livemode,
    lead: lead ? { id: lead.id, external_id: lead.externalId, name: lead.name, phone: lead.phone } : null,
    campaign_id: row.campaignId,
    direction: row.direction,
    status: row.status,
    outcome: row.outcome,
    outcome_label: row.outcomeLabel,
    note: row.note,
    duration_seconds: row.durationSeconds,
    started: iso(row.started),
    answered: isoOrNull(row.answered),
    ended: isoOrNull(row.ended),
    updated: iso(row.updated),
    handled_by: row.handledBy,
    owner: row.owner,
    tth_seconds: row.tthSeconds,
    callback_at: isoOrNull(row.callbackAt),
    recording_available: row.recordingAvailable,
    transcript_available: row.transcriptAvailable,
    started_by: row.startedBy,
  }
}

/** The operator's view: the Call object, its organization, carrier, recording consent (announced_at as an ISO time), ledger and AI seat. */
export function adminCallView(row: CallRow, lead: CallLead | undefined): AdminCall {
  return {
    ...callView(row, lead), org_id: row.orgId, carrier: row.carrier, recording_consent: consentView(row),
    answered_at: isoOrNull(row.answeredAt), connected_at: isoOrNull(row.connectedAt), abandoned: row.abandoned,
    ai_seated: row.aiSeated, ai_first_audio_ms: row.aiFirstAudioMs,
    ai_instructions: row.aiInstructions, ai_usage: row.aiUsage, ai_minutes: row.aiSeconds === null ? null : aiMinutesOf(row.aiSeconds),
  }
}

/** A call's recording consent as served (admin API, console): announced_at as an ISO time. */
export function consentView(row: Pick<CallRow, 'recordingConsent'>): AdminCall['recording_consent'] {
  const consent = row.recordingConsent
  return consent ? { required_by: consent.required_by, announced_at: isoOrNull(consent.announced_at), method: consent.method } : null
}

export const recordingPath = (callId: string) => `/api/v1/external/calls/${callId}/recording`
export const transcriptPath = (callId: string) => `/api/v1/external/calls/${callId}/transcript`
