import type { Person } from '../../db/schema'
import type { CampaignRow } from '../../db/stores/campaign-store'
import type { LeadRow } from '../../db/stores/lead-store'
import type { OrgRow } from '../../db/stores/org-store'
import type { ConsentNotice } from '../../telephony/call-values'
import type { DialRequest } from '../../telephony/carrier'
import { zonesForPhone } from '../calling-hours/lead-zones'
import { bridgeOf } from './carrier-choice'

/** What the carrier is asked to do for a lead's call (a pool's next carrier gets the same, with its own caller ID and detection). */
export function dialRequestOf(call: { id: string }, lead: LeadRow, campaign: CampaignRow, owner: Person, org: OrgRow, dial: {
  consent: ConsentNotice | null
  callerId: string | null
  machineDetection: boolean
}): DialRequest {
  return {
    callId: call.id,
    orgId: lead.orgId,
    to: lead.phone,
    livemode: lead.livemode,
    record: org.recordingEnabled,
    consent: dial.consent,
    leadName: lead.name,
    campaignName: campaign.name,
    campaignId: campaign.id,
    dialMode: campaign.dialMode,
    abandonMessage: campaign.abandonMessage ?? null,
    agentName: owner.name,
    leadZone: zonesForPhone(lead.phone, org.timezone)[0]!,
    callerId: dial.callerId,
    machineDetection: dial.machineDetection,
    onAnswer: { bridge: bridgeOf(campaign), voicemail: campaign.voicemail ?? null },
    aiAgent: campaign.aiAgent ?? null,
    leadId: lead.id,
    orgName: org.name,
  }
}
