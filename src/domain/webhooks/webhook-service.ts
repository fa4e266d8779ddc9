import type { EventRow } from '../../db/stores/event-store'
import type { DeliveryRow, DeliveryStatus, EndpointRow, NewEndpoint } from '../../db/stores/webhook-store'
import type { Stores } from '../../db/stores'
import { ApiError, notFound } from '../../errors'
import { iso, type Clock } from '../../jobs/clock'
import type { Principal } from '../access/permissions'
import { newEventId, type EventType } from '../events/event-log'
import { newId } from '../ids'
import { endpointCache } from './endpoint-cache'
import { checkCampaigns, checkEvents } from './endpoint-checks'
import { sampleObject } from './sample-event'
import { newSecret } from './signature'
import { checkTarget, type Resolver } from './target-check'

export { deliveryView, endpointView } from './webhook-views'

export interface EndpointInput {
  url: string
  events: string[]
  campaign_ids?: string[] | null
  description?: string | null
}

export interface EndpointPatch extends Partial<EndpointInput> {
  status?: 'active' | 'paused'
}

/** `wd_` and the 32 hex digits of a uuid v7. */
const newDeliveryId = () => `wd_${newId().replace(/-/g, '')}`

/**
 * Webhook endpoints and their deliveries. Every stored event becomes a delivery for each
 * endpoint of the organization and mode that subscribes to its type and campaign, in the
 * event's own transaction (the outbox); the worker sends them.
 */
export function webhookService(deps: {
  stores: Stores
  clock: Clock
  allowPrivate: boolean
  /** How names are resolved (default: the system's, with a 3 s limit). */
  resolve?: Resolver
  apiVersion: string
  /** A delivery made for a paused endpoint is skipped at once (metrics; the worker counts the rest). */
  onResult?: (result: 'skipped_paused') => void
}) {
  const { stores, clock } = deps
  const store = stores.webhooks
  const cached = endpointCache(stores)
  const { endpointsOf, forget, changed } = cached
  /** A delivery to send, durable now (the worker takes it). */
  type ReadyListener = (delivery: DeliveryRow) => void
  const readyListeners: ReadyListener[] = []
  const ready = (delivery: DeliveryRow) => {
    for (const listener of readyListeners) listener(delivery)
  }

  /** An endpoint the key may see: its organization and mode, and for a key limited to some
   * campaigns only endpoints whose campaigns are all within them (else 404). */
  function owned(principal: Principal, id: string): EndpointRow {
    const row = store.endpoint(id)
    const scopes = principal.campaignIds
    const inScope = scopes === null || (row?.campaignIds != null && row.campaignIds.every((c) => scopes.has(c)))
    if (!row || row.orgId !== principal.orgId || row.livemode !== principal.livemode || !inScope) throw notFound('No such webhook endpoint')
    return row
  }

  function addDelivery(endpoint: EndpointRow, fields: { eventId: string | null; eventType: string; payload: string | null; resentFrom?: string | null }): DeliveryRow {
    const now = clock.now()
    const paused = endpoint.status === 'paused'
    const delivery = store.insertDelivery({
      id: newDeliveryId(),
      endpointId: endpoint.id,
      eventId: fields.eventId,
      eventType: fields.eventType,
      livemode: endpoint.livemode,
      status: paused ? 'skipped_paused' : 'pending',
      nextAttemptAt: paused ? null : now,
      payload: fields.payload,
      resentFrom: fields.resentFrom ?? null,
      created: now,
    })
    // A send cannot be taken back: it starts only once the delivery and its event are durable.
    stores.afterDurable(() => ready(delivery))
    const counted = deps.onResult
    if (paused && counted) stores.afterCommit(() => counted('skipped_paused'))
    return delivery
  }

  return {
    /** Told of each delivery once it is durable and due to be sent (the delivery worker sends it). */
    onDeliveryReady(listener: ReadyListener): void {
      readyListeners.push(listener)
    },

    /** The outbox: called for every stored event, inside its transaction. */
    fanOut(event: EventRow): void {
      for (const endpoint of endpointsOf(event.orgId)) {
        if (endpoint.livemode !== event.livemode || !endpoint.events.includes(event.type)) continue
        if (endpoint.campaignIds !== null && (event.campaignId === null || !endpoint.campaignIds.includes(event.campaignId))) continue
        addDelivery(endpoint, { eventId: event.id, eventType: event.type, payload: null })
      }
    },

    changed,

    /** The endpoint as the sender needs it (cached). */
    endpoint: cached.endpoint,

    async create(principal: Principal, input: EndpointInput): Promise<{ row: EndpointRow; secret: string }> {
      checkEvents(input.events)
      const campaignIds = checkCampaigns(stores, principal, input.campaign_ids)
      await checkTarget(input.url, deps.allowPrivate, 'url', { resolve: deps.resolve })
      const org = stores.orgs.get(principal.orgId)!
      const secret = newSecret()
      const now = clock.now()
      const row = stores.transaction(() => {
        if (store.countEndpoints(principal.orgId) >= org.webhookEndpointLimit) {
          throw new ApiError('limit_reached', `This organization may have ${org.webhookEndpointLimit} webhook endpoints.`)
        }
        return store.insertEndpoint({
          id: newId(), orgId: principal.orgId, livemode: principal.livemode, url: input.url, description: input.description ?? null,
          events: [...new Set(input.events)], campaignIds, status: 'active', secret, created: now, updated: now,
        })
      })
      changed(row)
      return { row, secret }
    },

    list(principal: Principal, limit: number, startingAfter?: string): EndpointRow[] {
      const scopes = principal.campaignIds
      const rows = store.listEndpoints(principal.orgId, principal.livemode, limit, startingAfter)
      return scopes === null ? rows : rows.filter((r) => r.campaignIds !== null && r.campaignIds.every((c) => scopes.has(c)))
    },

    get: owned,

    async update(principal: Principal, id: string, patch: EndpointPatch): Promise<EndpointRow> {
      const current = owned(principal, id)
      if (patch.events) checkEvents(patch.events)
      const changes: Partial<NewEndpoint> = { updated: clock.now() }
      if (patch.url !== undefined) {
        await checkTarget(patch.url, deps.allowPrivate, 'url', { resolve: deps.resolve })
        changes.url = patch.url
      }
      if (patch.events) changes.events = [...new Set(patch.events)]
      if (patch.campaign_ids !== undefined) changes.campaignIds = checkCampaigns(stores, principal, patch.campaign_ids)
      if (patch.description !== undefined) changes.description = patch.description
      if (patch.status === 'paused' && current.status !== 'paused') Object.assign(changes, { status: 'paused', pausedAt: clock.now() })
      if (patch.status === 'active' && current.status !== 'active') Object.assign(changes, { status: 'active', pausedAt: null, failingSince: null })
      const row = store.updateEndpoint(id, changes)!
      changed(row)
      return row
    },

    remove(principal: Principal, id: string): EndpointRow {
      const row = owned(principal, id)
      stores.transaction(() => store.deleteEndpoint(id))
      forget(row.orgId)
      return row
    },

    /** Active again; the failure streak is forgotten. Deliveries skipped meanwhile stay skipped (resend them). */
    resume(principal: Principal, id: string): EndpointRow {
      owned(principal, id)
      const row = store.updateEndpoint(id, { status: 'active', pausedAt: null, failingSince: null, updated: clock.now() })!
      changed(row)
      // Read once the open group commits: it may hold deliveries that are not durable yet.
      stores.afterDurable(() => {
        for (const waiting of store.waitingFor(id)) ready(waiting)
      })
      return row
    },

    /** Sends a sample event (`sample: true`) of the first subscribed type. */
    sendTest(principal: Principal, id: string): DeliveryRow {
      const endpoint = owned(principal, id)
      if (endpoint.status === 'paused') throw new ApiError('endpoint_paused', 'The endpoint is paused; resume it first.')
      const type = (endpoint.events[0] ?? 'lead.created') as EventType
      const sample = {
        id: newEventId(),
        type,
        created: iso(clock.now()),
        livemode: endpoint.livemode,
        api_version: deps.apiVersion,
        data: { object: sampleObject(type, endpoint.livemode, clock.now()) },
        sample: true,
      }
      return stores.transaction(() => addDelivery(endpoint, { eventId: null, eventType: type, payload: JSON.stringify(sample) }))
    },

    /** A new secret; the old one also signs until `previous_secret_expires_at`. */
    rollSecret(principal: Principal, id: string, expireOldAfterHours: number): { row: EndpointRow; secret: string } {
      const endpoint = owned(principal, id)
      const secret = newSecret()
      const now = clock.now()
      const row = store.updateEndpoint(id, {
        secret,
        previousSecret: expireOldAfterHours > 0 ? endpoint.secret : null,
        previousSecretExpiresAt: expireOldAfterHours > 0 ? now + expireOldAfterHours * 3_600_000 : null,
        updated: now,
      })!
      changed(row)
      return { row, secret }
    },

    deliveries(principal: Principal, id: string, limit: number, options: { status?: DeliveryStatus; startingAfter?: string }): DeliveryRow[] {
      owned(principal, id)
      return store.listDeliveries(id, limit, options)
    },

    /** A new delivery of the same event (same webhook-id), marked `resent_from`. */
    resend(principal: Principal, endpointId: string, deliveryId: string): DeliveryRow {
      const endpoint = owned(principal, endpointId)
      const original = store.delivery(deliveryId)
      if (!original || original.endpointId !== endpoint.id) throw notFound('No such delivery for this endpoint')
      if (endpoint.status === 'paused') throw new ApiError('endpoint_paused', 'The endpoint is paused; resume it first.')
      return stores.transaction(() =>
        addDelivery(endpoint, { eventId: original.eventId, eventType: original.eventType, payload: original.payload, resentFrom: original.id }),
      )
    },
  }
}

export type WebhookService = ReturnType<typeof webhookService>
