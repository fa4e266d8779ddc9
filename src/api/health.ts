import { Elysia } from 'elysia'
import { markAdminRoute, markRoute } from '../http/pipeline'
import type { Services } from '../services'

/** Liveness (process up), readiness (database writable) and Prometheus metrics (admin token). */
export const healthRoutes = (s: Services) =>
  new Elysia()
    .onTransform(markRoute)
    .get('/metrics', () => {
      const queues = s.queues.nonEmpty().map(({ campaignId, livemode }) => ({
        labels: { campaign_id: campaignId, mode: livemode ? 'live' : 'test' },
        value: s.queues.size(campaignId, livemode),
      }))
      const body = s.metrics.render([
        { name: 'dialer_queue_depth', help: 'Leads in line per campaign and mode.', samples: queues },
        { name: 'dialer_calls_up', help: 'Calls ringing or in progress.', samples: [{ value: s.stores.calls.open().length }] },
        { name: 'dialer_webhook_backlog', help: 'Webhook deliveries still to be tried.', samples: [{ value: s.stores.webhooks.backlog() }] },
        { name: 'process_resident_memory_bytes', help: 'Resident memory of the process.', samples: [{ value: process.memoryUsage().rss }] },
        { name: 'process_uptime_seconds', help: 'Seconds since the process started.', samples: [{ value: Math.round(process.uptime()) }] },
      ])
      return new Response(body, { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } })
    }, { detail: { hide: true }, transform: markAdminRoute })
    .get('/healthz', () => ({ status: 'ok' }), { detail: { hide: true } })
    .get('/readyz', ({ set }) => {
      try {
        s.database.transaction(() => s.stores.settings.set('ready_probe', String(s.clock.now())))
        return { status: 'ready' }
      } catch (error) {
        set.status = 503
        return { status: 'unavailable', reason: String((error as Error).message) }
      }
    }, { detail: { hide: true } })
