import type { HandledBy } from '../../db/schema'
import type { Stores } from '../../db/stores'
import type { Clock } from '../../jobs/clock'
import type { InboundOpened } from '../../telephony/ports'
import { newId } from '../ids'
import { bridgeOf, type CarrierDirectory } from './carrier-choice'
import type { CallSteps } from './call-steps'

const AI: HandledBy = { id: null, name: 'AI assistant', role: 'ai' }

/** What an unknown caller (or a number that is not the organization's) hears, with the organization's name. */
export const unknownCallerMessage = (orgName: string): string =>
  `Thank you for calling ${orgName.slice(0, 100)}. We could not find your number in our records, so nobody can take this call. Goodbye.`

/**
 * A lead calling back one of the organization's numbers (docs/telephony.md "Calls back"): the
 * caller is the organization's newest live lead with that number; the call is a row of that lead
 * (direction inbound, answered at once: the service picks up), with call.started and
 * call.answered. It is not a dial: no attempt is counted, the lead's status is not touched until
 * the call's outcome settles it, and it is kept out of the abandonment ledger. Runs inside the
 * carrier's transaction.
 */
export function inboundCalls(deps: { stores: Stores; clock: Clock; steps: Pick<CallSteps, 'emit' | 'org'>; carriers: Pick<CarrierDirectory, 'forNumber'> }) {
  const { stores, clock, steps } = deps
  return {
    open(orgId: string, call: { from: string; to: string }): InboundOpened {
      const org = stores.orgs.get(orgId)
      if (!org) return { kind: 'unknown', message: unknownCallerMessage('us') }
      const unknown: InboundOpened = { kind: 'unknown', message: unknownCallerMessage(org.name) }
      // Only the organization's own numbers take calls for it.
      const choice = deps.carriers.forNumber(orgId, call.to)
      if (!choice) return unknown
      const lead = stores.leads.withPhone(orgId, true, call.from).sort((a, b) => b.created - a.created || (a.id < b.id ? 1 : -1))[0]
      const campaign = lead ? stores.campaigns.get(lead.campaignId) : undefined
      if (!lead || !campaign) return unknown
      const now = clock.now()
      const owner = lead.owner ?? (campaign.sdrs[0] ? { id: campaign.sdrs[0].id, name: campaign.sdrs[0].name } : null)
      const row = stores.calls.insert({
        id: newId(),
        orgId,
        campaignId: campaign.id,
        leadId: lead.id,
        livemode: true,
        keyId: null,
        direction: 'inbound',
        status: 'in_progress',
        started: now,
        answered: now,
        answeredBy: 'person',
        updated: now,
        handledBy: AI,
        owner,
        // The lead started it: a person, with no key.
        startedBy: { type: 'person', api_key_id: null },
        carrier: choice.carrier.name,
        recordingConsent: null,
      })
      steps.emit('call.started', row)
      steps.emit('call.answered', row, { answered_by: 'person' })
      return {
        kind: 'lead',
        callId: row.id,
        campaignId: campaign.id,
        leadName: lead.name,
        campaignName: campaign.name,
        agentName: owner?.name ?? 'our team',
        bridge: bridgeOf(campaign),
      }
    },
  }
}

export type InboundCalls = ReturnType<typeof inboundCalls>
