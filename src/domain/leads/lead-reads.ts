import type { LeadListFilter, LeadRow } from '../../db/stores/lead-store'
import { ApiError, invalid, notFound } from '../../errors'
import { inScope, requireCampaignScope, type Principal } from '../access/permissions'
import type { LeadCore } from './lead-core'
import type { Lead } from './lead-shape'
import { apiLead, waitFor } from './lead-view'

/** Reading leads: the views, the key's visible leads, and how POST /calls names a lead. */
export function leadReads(core: LeadCore) {
  const { stores, campaigns } = core.deps
  const leads = stores.leads

  /** A lead for a reply; `single` adds its place in line (only single-lead reads have it). */
  function view(row: LeadRow, single = false): Lead {
    // place_in_line and estimated_wait_seconds only on a single-lead read (spec "Lead").
    const place = single ? core.placeOf(row) : null
    const wait = single ? waitFor(core, row, place) : null
    return apiLead(row, { placeInLine: place, estimatedWaitSeconds: wait, calls: core.recentCallsOf(row) })
  }

  function visibleLead(principal: Principal, id: string): LeadRow {
    const lead = leads.get(id)
    if (!lead || lead.orgId !== principal.orgId || lead.livemode !== principal.livemode || !inScope(principal, lead.campaignId)) {
      throw notFound('No such lead')
    }
    return lead
  }

  const keyScope = (principal: Principal) => ({
    orgId: principal.orgId,
    livemode: principal.livemode,
    campaignIds: principal.campaignIds ? [...principal.campaignIds] : null,
  })

  const ambiguous = (found: LeadRow[]) =>
    new ApiError('ambiguous_external_id', 'This external_id names leads in several campaigns; add campaign_id.', {
      param: 'external_id',
      extras: { candidates: found.map((l) => ({ id: l.id, campaign_id: l.campaignId })) },
    })

  /** POST /calls names a lead by lead_id or external_id (with campaign_id when it is in several). */
  function resolveLead(principal: Principal, body: { lead_id?: string; external_id?: string; campaign_id?: string }): LeadRow {
    if (body.campaign_id) requireCampaignScope(principal, body.campaign_id, 'calls:write')
    let lead: LeadRow | undefined
    if (body.lead_id) {
      try {
        lead = visibleLead(principal, body.lead_id)
      } catch {
        throw notFound('No such lead', 'lead_id')
      }
      if (body.external_id !== undefined && lead.externalId !== body.external_id) {
        throw invalid('lead_id and external_id name different leads.', 'external_id')
      }
    } else if (body.external_id !== undefined) {
      const found = leads.findByExternalId(keyScope(principal), body.external_id, body.campaign_id)
      if (found.length > 1) throw ambiguous(found)
      lead = found[0]
    } else {
      throw invalid('Send lead_id or external_id.', 'lead_id')
    }
    if (!lead || (body.campaign_id && lead.campaignId !== body.campaign_id)) throw notFound('No such lead', body.lead_id ? 'lead_id' : 'external_id')
    return lead
  }

  return {
    view,
    visibleLead,
    resolveLead,

    get(principal: Principal, id: string): Lead {
      return view(visibleLead(principal, id), true)
    },

    /** GET /leads?external_id=: the one lead, or 409 when it is in several of the key's campaigns. */
    findByExternalId(principal: Principal, externalId: string, campaignId?: string): Lead {
      if (campaignId) requireCampaignScope(principal, campaignId, 'leads:read')
      const found = leads.findByExternalId(keyScope(principal), externalId, campaignId)
      if (found.length === 0) throw notFound('No lead with this external_id', 'external_id')
      if (found.length > 1) throw ambiguous(found)
      return view(found[0]!, true)
    },

    list(principal: Principal, filter: LeadListFilter, limit: number): LeadRow[] {
      if (filter.campaignId) requireCampaignScope(principal, filter.campaignId, 'leads:read')
      return leads.list(keyScope(principal), filter, limit)
    },

    listForCampaign(principal: Principal, campaignId: string, limit: number, options: { cursor?: string; search?: string }): LeadRow[] {
      campaigns.visible(principal, campaignId)
      return leads.listForCampaign(campaignId, principal.livemode, limit, options)
    },
  }
}
