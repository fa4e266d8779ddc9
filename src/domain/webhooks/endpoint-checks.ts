import type { Stores } from '../../db/stores'
import { ApiError, invalid, notFound } from '../../errors'
import { requireCampaignScope, type Principal } from '../access/permissions'
import { EVENT_TYPES } from '../events/event-log'

/** An endpoint's event types: at least one, each a known type. */
export function checkEvents(events: string[]): void {
  if (events.length === 0) throw invalid('events must name at least one event type.', 'events')
  events.forEach((type, i) => {
    if (!(EVENT_TYPES as readonly string[]).includes(type)) {
      throw invalid(`Unknown event type "${type}". Types: ${EVENT_TYPES.join(', ')}.`, `events[${i}]`)
    }
  })
}

/** An endpoint's campaigns: each the organization's and within the key's scope; null is every campaign. */
export function checkCampaigns(stores: Stores, principal: Principal, ids: string[] | null | undefined): string[] | null {
  if (ids === undefined || ids === null) {
    // A key limited to some campaigns must not subscribe to the others' events.
    if (principal.campaignIds !== null) {
      throw new ApiError('permission_denied', 'A key limited to some campaigns must list them in campaign_ids.', {
        param: 'campaign_ids',
        extras: { missing_permission: 'webhooks:write', campaign_id: null },
      })
    }
    return null
  }
  ids.forEach((id, i) => {
    const campaign = stores.campaigns.get(id)
    if (!campaign || campaign.orgId !== principal.orgId) throw notFound('No such campaign.', `campaign_ids[${i}]`)
    requireCampaignScope(principal, id, 'webhooks:write', `campaign_ids[${i}]`)
  })
  return [...new Set(ids)]
}
