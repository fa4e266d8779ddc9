import type { EventStore } from '../../db/stores/event-store'
import { notFound } from '../../errors'
import { requireCampaignScope, type Principal } from '../access/permissions'
import { EVENT_TYPES } from './event-log'
import { invalid } from '../../errors'

export interface EventQuery {
  types?: string[]
  createdGte?: number
  createdLte?: number
  campaignId?: string
  objectId?: string
  startingAfter?: string
}

/**
 * GET /events and GET /events/{id}: the stored envelopes, exactly as sent. A key sees its own
 * mode only; a key limited to some campaigns sees their events only.
 */
export function eventQueries(events: EventStore) {
  return {
    /** Envelopes (JSON text) newest first, `limit` of them; each is returned as stored. */
    list(principal: Principal, query: EventQuery, limit: number): { id: string; body: string }[] {
      query.types?.forEach((type, i) => {
        if (!(EVENT_TYPES as readonly string[]).includes(type)) throw invalid(`Unknown event type "${type}".`, query.types!.length > 1 ? `type[${i}]` : 'type')
      })
      if (query.campaignId) requireCampaignScope(principal, query.campaignId, 'events:read')
      return events
        .list({
          orgId: principal.orgId,
          livemode: principal.livemode,
          campaignIds: principal.campaignIds ? [...principal.campaignIds] : null,
          types: query.types,
          campaignId: query.campaignId,
          objectId: query.objectId,
          createdGte: query.createdGte,
          createdLte: query.createdLte,
          startingAfter: query.startingAfter,
        }, limit)
        .map((row) => ({ id: row.id, body: row.body }))
    },

    get(principal: Principal, id: string): string {
      const row = events.get(id)
      if (
        !row || row.orgId !== principal.orgId || row.livemode !== principal.livemode ||
        (principal.campaignIds !== null && (row.campaignId === null || !principal.campaignIds.has(row.campaignId)))
      ) {
        throw notFound('No such event')
      }
      return row.body
    },
  }
}

export type EventQueries = ReturnType<typeof eventQueries>
