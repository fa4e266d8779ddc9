import type { DeliveryRow, EndpointRow, WebhookStore } from '../../db/stores/webhook-store'
import { iso, type Clock } from '../../jobs/clock'
import type { Scheduler } from '../../jobs/scheduler'
import { logger } from '../../log'
import type { DeliveryResult } from './delivery-results'
import { signatureHeader } from './signature'
import { resolveTarget, type Resolver } from './target-check'
import type { SendResult, WebhookTransport } from './transport'

/** DESIGN.md "Delivery": 7 tries, after the first at +5 s, +5 min, +30 min, +2 h, +5 h, +10 h. */
export const RETRY_GAPS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000]
export const MAX_TRIES = RETRY_GAPS_MS.length + 1
/** An endpoint failing without a break this long is paused at its next failure. */
export const AUTO_PAUSE_MS = 24 * 60 * 60 * 1000

/**
 * Sends deliveries. Each endpoint has its own line of due deliveries in event order with one
 * send at a time, so a slow or dead endpoint never holds up another; retries come back at their
 * time. SQLite is the truth: a delivery stays pending until its try is recorded, so one cut
 * off by a crash is sent again after restart (at least once).
 */
export class DeliveryWorker {
  private readonly lines = new Map<string, string[]>()
  /** Deliveries in a line or being sent: the sweep (webhook_retry) may offer one twice. */
  private readonly queued = new Set<string>()
  private readonly sending = new Set<string>()
  private readonly timers = new Map<string, () => void>()
  private inFlight = 0
  private stopped = false

  constructor(
    private readonly deps: {
      store: WebhookStore
      clock: Clock
      scheduler: Scheduler
      transport: WebhookTransport
      allowPrivate: boolean
      /** How names are resolved (default: the system's, with a 3 s limit). */
      resolve?: Resolver
      transaction: <T>(work: () => T) => T
      /** A stored event's body (undefined once purged). */
      eventBody: (eventId: string) => string | undefined
      /** The endpoint as it is now (a cached read: one per try). */
      endpoint: (id: string) => EndpointRow | undefined
      /** The endpoint's row changed here (success, failure, auto-pause). */
      endpointChanged: (endpoint: EndpointRow) => void
      /** Each try's result, once recorded (metrics). */
      onResult?: (result: DeliveryResult) => void
    },
  ) {}

  /** A delivery to try at its next_attempt_at (now for a new one). */
  enqueue(delivery: Pick<DeliveryRow, 'id' | 'endpointId' | 'status' | 'nextAttemptAt'>): void {
    if (this.stopped || (delivery.status !== 'pending' && delivery.status !== 'failed') || delivery.nextAttemptAt === null) return
    const when = delivery.nextAttemptAt
    if (when <= this.deps.clock.now()) return this.push(delivery.endpointId, delivery.id)
    this.timers.get(delivery.id)?.()
    this.timers.set(delivery.id, this.deps.scheduler.at(when, () => {
      this.timers.delete(delivery.id)
      this.push(delivery.endpointId, delivery.id)
    }))
  }

  /** Boot: every delivery still to be tried. */
  restore(rows: Iterable<DeliveryRow>): void {
    for (const row of rows) this.enqueue(row)
  }

  /** Sends being made right now (tests and shutdown wait on this). */
  get busy(): number {
    return this.inFlight
  }

  async drain(timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (this.inFlight > 0 && Date.now() < deadline) await Bun.sleep(5)
  }

  stop(): void {
    this.stopped = true
    for (const cancel of this.timers.values()) cancel()
    this.timers.clear()
  }

  private push(endpointId: string, deliveryId: string): void {
    if (this.queued.has(deliveryId)) return
    this.queued.add(deliveryId)
    let line = this.lines.get(endpointId)
    if (!line) {
      line = []
      this.lines.set(endpointId, line)
    }
    line.push(deliveryId)
    this.next(endpointId)
  }

  private next(endpointId: string): void {
    if (this.stopped || this.sending.has(endpointId)) return
    const line = this.lines.get(endpointId)
    const id = line?.shift()
    if (id === undefined) {
      this.lines.delete(endpointId)
      return
    }
    this.sending.add(endpointId)
    this.inFlight++
    void this.attempt(id)
      .catch((error) => logger.error('webhook_attempt_failed', { delivery_id: id, error: String(error) }))
      .finally(() => {
        this.queued.delete(id)
        this.inFlight--
        this.sending.delete(endpointId)
        this.next(endpointId)
      })
  }

  private async attempt(id: string): Promise<void> {
    const { store, clock } = this.deps
    const delivery = store.delivery(id)
    if (!delivery || (delivery.status !== 'pending' && delivery.status !== 'failed')) return
    if (delivery.nextAttemptAt === null || delivery.nextAttemptAt > clock.now()) return
    const endpoint = this.deps.endpoint(delivery.endpointId)
    if (!endpoint) return
    if (endpoint.status === 'paused') {
      store.updateDelivery(id, { status: 'skipped_paused', nextAttemptAt: null })
      this.deps.onResult?.('skipped_paused')
      return
    }
    const body = delivery.payload ?? (delivery.eventId === null ? undefined : this.deps.eventBody(delivery.eventId))
    if (body === undefined) {
      // The event was purged (30 days) before this retry: nothing left to send.
      store.updateDelivery(id, { status: 'gave_up', nextAttemptAt: null, lastError: 'event_expired' })
      this.deps.onResult?.('expired')
      return
    }
    const messageId = delivery.eventId ?? (JSON.parse(body) as { id: string }).id
    const now = clock.now()
    const timestamp = Math.floor(now / 1000)
    const secrets = [endpoint.secret]
    if (endpoint.previousSecret && endpoint.previousSecretExpiresAt !== null && endpoint.previousSecretExpiresAt > now) {
      secrets.push(endpoint.previousSecret)
    }
    const result = await this.send(endpoint.url, {
      'content-type': 'application/json',
      'user-agent': 'Dialer-Webhooks/1',
      'webhook-id': messageId,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, messageId, timestamp, body),
    }, body)
    this.record(delivery, endpoint, result)
  }

  private async send(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    // Resolved and checked at each send (a name can move after creation), then the transport
    // connects to that address only: no second lookup for DNS rebinding to change.
    const started = performance.now()
    const target = await resolveTarget(new URL(url), { allowPrivate: this.deps.allowPrivate, resolve: this.deps.resolve })
    if (!target.ok) return { status: null, body: null, durationMs: Math.round(performance.now() - started), error: target.reason }
    return this.deps.transport.send(url, headers, body, target.address)
  }

  private record(delivery: DeliveryRow, endpoint: EndpointRow, result: SendResult): void {
    const { store, clock } = this.deps
    const now = clock.now()
    const attempts = delivery.attempts + 1
    const common = {
      attempts,
      lastAttemptAt: now,
      responseStatus: result.status,
      responseBody: result.body,
      durationMs: result.durationMs,
      lastError: result.error,
    }
    // Set inside the transaction (`as`: TypeScript does not follow assignments in a callback).
    let outcome = 'sent' as DeliveryResult
    let next = null as number | null
    let pausedAt = null as number | null
    this.deps.transaction(() => {
      if (result.error === null) {
        store.updateDelivery(delivery.id, { ...common, status: 'sent', nextAttemptAt: null })
        // The endpoint row is written when its state changes, and last_success_at at most once a
        // second: at thousands of deliveries a second these writes would cost more than the sends.
        const stale = endpoint.lastSuccessAt === null || now - endpoint.lastSuccessAt >= 1000
        if (endpoint.failingSince !== null || stale) {
          const updated = store.updateEndpoint(endpoint.id, { lastSuccessAt: now, failingSince: null, updated: now })
          if (updated) this.deps.endpointChanged(updated)
        }
        return
      }
      const gaveUp = attempts >= MAX_TRIES
      outcome = gaveUp ? 'gave_up' : 'failed'
      next = gaveUp ? null : now + RETRY_GAPS_MS[attempts - 1]!
      const row = store.updateDelivery(delivery.id, { ...common, status: gaveUp ? 'gave_up' : 'failed', nextAttemptAt: next })
      const failingSince = endpoint.failingSince ?? now
      const pause = now - failingSince >= AUTO_PAUSE_MS
      if (endpoint.failingSince === null || pause) {
        const updated = store.updateEndpoint(endpoint.id, {
          failingSince,
          ...(pause ? { status: 'paused' as const, pausedAt: now } : {}),
          updated: now,
        })
        if (updated) this.deps.endpointChanged(updated)
        if (updated && pause) pausedAt = now
      }
      if (row && !gaveUp) this.enqueue(row)
    })
    // Recorded: counted and, for a failure, logged (ids and numbers only: never the URL, which may carry a token).
    this.deps.onResult?.(outcome)
    if (outcome === 'sent') return
    logger.warn('webhook_delivery_failed', {
      endpoint_id: endpoint.id,
      delivery_id: delivery.id,
      event_type: delivery.eventType,
      attempt: attempts,
      reason: result.error,
      http_status: result.status,
      next_attempt_at: next === null ? null : iso(next),
      gave_up: outcome === 'gave_up',
    })
    if (pausedAt !== null) {
      logger.warn('webhook_endpoint_paused', {
        endpoint_id: endpoint.id,
        org_id: endpoint.orgId,
        failing_since: iso(endpoint.failingSince ?? pausedAt),
        paused_at: iso(pausedAt),
      })
    }
  }
}
