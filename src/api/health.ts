import { statSync } from 'node:fs'
import { Elysia } from 'elysia'
import type { Gauge } from '../http/metrics'
import { markAdminRoute, markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { VERSION } from '../version'

/** Unix seconds when the process started (performance.timeOrigin is its start, in ms). */
const START_SECONDS = Math.round(performance.timeOrigin) / 1000

const modeOf = (livemode: boolean) => (livemode ? 'live' : 'test')

/**
 * The gauges, read at scrape time. Series per campaign and per webhook endpoint are bounded by
 * the organizations' own data (campaigns that are active or have a call up; endpoints that
 * exist), never by request input.
 */
function scrapeGauges(s: Services): Gauge[] {
  const queues = s.queues.nonEmpty().map(({ campaignId, livemode }) => ({
    labels: { campaign_id: campaignId, mode: modeOf(livemode) },
    value: s.queues.size(campaignId, livemode),
  }))
  // Lines: every active campaign (each mode has the campaign's number of lines of its own),
  // and any other campaign while a call of it is still up.
  const active = s.stores.campaigns.activeLines()
  const inUse = new Map<string, number>()
  for (const slot of s.dialer.linesInUse()) inUse.set(`${slot.campaignId}:${modeOf(slot.livemode)}`, slot.inUse)
  const linesInUse: Gauge['samples'] = []
  for (const campaign of active) {
    for (const mode of ['live', 'test']) {
      const key = `${campaign.id}:${mode}`
      linesInUse.push({ labels: { campaign_id: campaign.id, mode }, value: inUse.get(key) ?? 0 })
      inUse.delete(key)
    }
  }
  for (const [key, value] of inUse) {
    if (value === 0) continue
    const at = key.lastIndexOf(':')
    linesInUse.push({ labels: { campaign_id: key.slice(0, at), mode: key.slice(at + 1) }, value })
  }
  // Every endpoint, 0 included: a series that vanished would read as "no data", not "no backlog".
  const backlog = s.stores.webhooks.backlogByEndpoint()
  let walBytes = 0
  if (s.config.databasePath !== ':memory:') {
    try {
      walBytes = statSync(`${s.config.databasePath}-wal`).size
    } catch {
      // no WAL file right now (just checkpointed away, or not yet written)
    }
  }
  return [
    { name: 'dialer_queue_depth', help: 'Leads in line per campaign and mode.', samples: queues },
    { name: 'dialer_campaign_lines', help: 'Lines of each active campaign (per mode: test calls have as many of their own).', samples: active.map((c) => ({ labels: { campaign_id: c.id }, value: c.lines })) },
    { name: 'dialer_campaign_lines_in_use', help: 'Lines taken by calls now, per campaign and mode.', samples: linesInUse },
    { name: 'dialer_calls_up', help: 'Calls ringing or in progress.', samples: [{ value: s.stores.calls.open().length }] },
    { name: 'dialer_webhook_backlog', help: 'Webhook deliveries still to be tried (pending, or failed with a retry due), per endpoint.', samples: backlog.map((r) => ({ labels: { endpoint_id: r.id }, value: r.n })) },
    { name: 'dialer_sqlite_wal_bytes', help: 'Size of the SQLite write-ahead log file.', samples: [{ value: walBytes }] },
    { name: 'dialer_build_info', help: 'The running build; always 1.', samples: [{ labels: { version: VERSION }, value: 1 }] },
    { name: 'process_start_time_seconds', help: 'Start time of the process since the unix epoch in seconds.', samples: [{ value: START_SECONDS }] },
    { name: 'process_resident_memory_bytes', help: 'Resident memory size in bytes.', samples: [{ value: process.memoryUsage().rss }] },
    { name: 'process_uptime_seconds', help: 'Seconds since the process started.', samples: [{ value: Math.round(process.uptime()) }] },
  ]
}

/** Liveness (process up), readiness (database writable) and Prometheus metrics (admin token). */
export const healthRoutes = (s: Services) =>
  new Elysia()
    .onTransform(markRoute)
    .get('/metrics', () => {
      const body = s.metrics.render(scrapeGauges(s))
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
