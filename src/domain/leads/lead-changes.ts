import type { NewLead, LeadRow } from '../../db/stores/lead-store'
import { ApiError, invalid, notFound } from '../../errors'
import { iso } from '../../jobs/clock'
import type { Principal } from '../access/permissions'
import type { DncScope } from '../../db/stores/dnc-store'
import type { DncSource } from '../dnc/dnc-service'
import { queueKey } from '../queue/queue-key'
import { emptyToNull, type LeadCore } from './lead-core'
import { checkConsent, checkFields, checkLeadInput, consentColumns, type LeadInput } from './lead-input'
import type { leadReads } from './lead-reads'
import type { Lead, OptedOutLead } from './lead-shape'

export interface LeadPatch {
  name?: string | null
  email?: string | null
  address?: string | null
  fields?: Record<string, string>
  consent?: LeadInput['consent']
  external_id?: string
  call_now?: boolean
  /** Present only to be refused (phone_cannot_change). */
  phone?: unknown
}

/** Changes people and clients make to a lead: PATCH, opt-out, taken out of the queue, a number put on Do Not Call. */
export function leadChanges(core: LeadCore, reads: ReturnType<typeof leadReads>) {
  const { stores, clock } = core.deps
  const leads = stores.leads
  const { save } = core

  return {
    /** PATCH /leads/{id} (spec table): clear, merge fields, replace consent, set external_id once, drop call_now. */
    patch(principal: Principal, id: string, patch: LeadPatch): Lead {
      const lead = reads.visibleLead(principal, id)
      if (patch.phone !== undefined) {
        throw new ApiError('phone_cannot_change', 'A lead\u2019s phone cannot change; add a new lead instead.', { param: 'phone' })
      }
      if (patch.call_now === true) throw invalid('call_now can only be set to false here; use POST /calls to call a lead now.', 'call_now')
      if (patch.consent) checkConsent(patch.consent)
      if (patch.email) checkLeadInput({ email: patch.email })
      const changes: Partial<NewLead> = {}
      for (const field of ['name', 'email', 'address'] as const) {
        if (patch[field] !== undefined) changes[field] = emptyToNull(patch[field])
      }
      if (patch.fields) {
        const merged = { ...lead.fields }
        for (const [key, value] of Object.entries(patch.fields)) {
          if (value === '') delete merged[key]
          else merged[key] = value
        }
        checkFields(merged)
        changes.fields = merged
      }
      if (patch.consent) Object.assign(changes, consentColumns(patch.consent, clock.now()))
      if (patch.external_id !== undefined) {
        if (lead.externalId !== null) throw invalid('This lead already has an external_id; it cannot change.', 'external_id')
        const clash = leads.findByExternalIdInCampaign({ id: lead.campaignId, orgId: lead.orgId }, lead.livemode, patch.external_id)
        if (clash) {
          throw new ApiError('duplicate_lead', 'Another lead of the campaign has this external_id.', {
            param: 'external_id',
            extras: { lead_id: clash.id },
          })
        }
        changes.externalId = patch.external_id
      }
      if (patch.call_now === false && lead.callNow) {
        changes.callNow = false
        if (lead.status === 'queued') changes.queueKey = queueKey(2, lead.queuedAt)
      }
      const row = stores.transaction(() => save(lead, changes))
      return reads.view(row, true)
    },

    /**
     * POST /leads/{id}/opt_out: the number goes on the Do Not Call list (source api), the
     * lead leaves the queue with the dnc outcome, open callbacks close; a call in progress
     * goes on. Asking twice answers the same and adds nothing.
     */
    optOut(principal: Principal, id: string, reason: string | null): OptedOutLead {
      const lead = reads.visibleLead(principal, id)
      const callInProgress = core.deps.calls.callInProgress(lead)
      const row = stores.transaction(() => {
        core.deps.dnc.ensureListed({ orgId: lead.orgId, livemode: lead.livemode }, lead.phone, 'api', reason)
        const current = leads.get(id)!
        if (current.status === 'out_of_queue' && current.optOutReason !== null) return current
        return save(current, {
          ...core.optedOutChanges(lead.orgId, 'opted_out'),
          optOutReason: reason ?? current.optOutReason ?? '',
          optedOutAt: current.optedOutAt ?? clock.now(),
        })
      })
      return { ...reads.view(row, true), call_in_progress: callInProgress }
    },

    /** Admin: a person takes the lead out of the dialing queue (POST /calls then refuses it). */
    takeOutOfQueue(leadId: string, reason: string | null): LeadRow {
      const lead = leads.get(leadId)
      if (!lead) throw notFound('No such lead')
      return stores.transaction(() =>
        save(lead, { status: 'out_of_queue', outReason: 'taken_out', optOutReason: reason, queueKey: null, dueAt: null, dueReason: null, callbackAt: null, heldReason: null }),
      )
    },

    /**
     * A number went on a Do Not Call list (inside that transaction): each lead of the
     * organization with it leaves the queue, with one lead.opted_out.
     */
    numberBlocked(scope: DncScope, e164: string, source: DncSource, at: number): void {
      for (const lead of leads.withPhone(scope.orgId, scope.livemode, e164)) {
        if (lead.status === 'out_of_queue' && lead.outReason !== 'taken_out') continue
        const row = save(lead, { ...core.optedOutChanges(scope.orgId, source === 'api' ? 'opted_out' : 'dnc'), optedOutAt: at })
        core.emit('lead.opted_out', row, { opt_out: { source, at: iso(at) } })
      }
    },
  }
}
