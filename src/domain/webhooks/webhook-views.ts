import type { DeliveryRow, EndpointRow } from '../../db/stores/webhook-store'
import { iso, isoOrNull } from '../../jobs/clock'

/** The webhook_endpoint object of the API and the console (the secret only when just made or rolled). */
export function endpointView(row: EndpointRow, secret?: string) {
  return {
    id: row.id,
    object: 'webhook_endpoint' as const,
    url: row.url,
    description: row.description,
    events: row.events,
    campaign_ids: row.campaignIds,
    mode: row.livemode ? ('live' as const) : ('test' as const),
    livemode: row.livemode,
    status: row.status,
    failing_since: isoOrNull(row.failingSince),
    paused_at: isoOrNull(row.pausedAt),
    last_success_at: isoOrNull(row.lastSuccessAt),
    previous_secret_expires_at: isoOrNull(row.previousSecretExpiresAt),
    created: iso(row.created),
    updated: iso(row.updated),
    ...(secret ? { secret } : {}),
  }
}

/** The webhook_delivery object. */
export function deliveryView(row: DeliveryRow) {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    event_type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: isoOrNull(row.nextAttemptAt),
    last_attempt_at: isoOrNull(row.lastAttemptAt),
    response_status: row.responseStatus,
    response_body: row.responseBody,
    duration_ms: row.durationMs,
    resent_from: row.resentFrom,
    created: iso(row.created),
    livemode: row.livemode,
  }
}
