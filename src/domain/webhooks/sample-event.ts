import type { CallViewRow } from '../../db/stores/call-store'
import { callView } from '../calls/call-view'
import type { EventType } from '../events/event-log'
import { eventLead, type LeadViewRow } from '../leads/lead-view'

/** The sample's ids: a lead, its campaign and one call of it. */
const LEAD_ID = '00000000-0000-7000-8000-000000000002'
const CAMPAIGN_ID = '00000000-0000-7000-8000-000000000003'
const CALL_ID = '00000000-0000-7000-8000-000000000001'

/** Event types whose object is a call (the others carry a lead). */
const isCallEvent = (type: EventType) => type.startsWith('call.') || type === 'handover.accepted' || type === 'voicemail.left' || type === 'lead.interested'

/**
 * A believable lead or call for "Send test event": sample rows through the same presenters
 * as real events (lead-view.ts, call-view.ts), so the sample has exactly their shape.
 */
export function sampleObject(type: EventType, livemode: boolean, now: number): object {
  const lead: LeadViewRow = {
    id: LEAD_ID, externalId: 'sample-1', campaignId: CAMPAIGN_ID, name: 'Sample Lead', phone: '+14155550100', email: null,
    address: null, fields: {}, consent: null, leadSource: 'api', owner: null, created: now, updated: now, status: 'queued',
    callNow: false, dueAt: null, dueReason: null, heldReason: null, callbackAt: null, late: false, attempts: 0, lastOutcome: null,
    lastOutcomeLabel: null, nextDialAt: null, livemode,
  }
  if (!isCallEvent(type)) return eventLead(lead, { calls: [] })
  const call: CallViewRow = {
    id: CALL_ID, leadId: LEAD_ID, livemode, campaignId: CAMPAIGN_ID, direction: 'outbound', status: 'ended', outcome: 'interested',
    outcomeLabel: 'Interested', note: 'A sample call.', durationSeconds: 90, started: now, answered: now, ended: now, updated: now,
    handledBy: { id: null, name: 'AI assistant', role: 'ai' }, owner: { id: 'sample-sdr', name: 'Sample SDR' }, tthSeconds: null,
    callbackAt: null, recordingAvailable: false, transcriptAvailable: false, startedBy: { type: 'dialer', api_key_id: null }, carrier: 'simulator', aiSeated: false,
  }
  return callView(call, { id: lead.id, externalId: lead.externalId, name: lead.name, phone: lead.phone })
}
