import { describeCache } from '../../cache-registry'
import type { EndpointRow } from '../../db/stores/webhook-store'
import type { Stores } from '../../db/stores'

const WEBHOOK_ENDPOINTS = describeCache({
  name: 'webhook-endpoints',
  holds: "each organization's webhook endpoints, and each endpoint by id (the sender's reads)",
  bound: 'one list per organization with events, one row per endpoint',
  clearedBy: 'every endpoint change made here or by the worker replaces or forgets it',
  gain: 'an event with no subscriber 0.2–0.4 vs 64–77 µs; the sender read 0.02 vs 101–142 µs',
  source: 'database',
})

/**
 * Events are frequent and endpoints change rarely: endpoints cached per organization, and by
 * id for the sender, kept in step with every change made by the webhook service or the worker.
 */
export function endpointCache(stores: Stores) {
  const store = stores.webhooks
  const cache = new Map<string, EndpointRow[]>()
  const byId = new Map<string, EndpointRow>()
  const endpointsOf = (orgId: string) => {
    let list = cache.get(orgId)
    if (!list) {
      list = store.endpointsOf(orgId)
      cache.set(orgId, list)
      for (const row of list) byId.set(row.id, row)
    }
    return list
  }
  const forget = (orgId: string) => {
    for (const row of cache.get(orgId) ?? []) byId.delete(row.id)
    cache.delete(orgId)
  }
  stores.caches.register(WEBHOOK_ENDPOINTS, () => {
    cache.clear()
    byId.clear()
  })
  return {
    /** The organization's endpoints (cached). */
    endpointsOf,
    forget,
    /** A changed endpoint replaces its cached row (a delete or a new endpoint reloads the list). */
    changed(row: EndpointRow): void {
      const list = cache.get(row.orgId)
      const at = list?.findIndex((r) => r.id === row.id) ?? -1
      if (list && at >= 0) {
        list[at] = row
        byId.set(row.id, row)
      } else forget(row.orgId)
    },
    /** The endpoint as the sender needs it (cached). */
    endpoint(id: string): EndpointRow | undefined {
      const cached = byId.get(id)
      if (cached) return cached
      const row = store.endpoint(id)
      if (row) endpointsOf(row.orgId)
      return row
    },
  }
}
