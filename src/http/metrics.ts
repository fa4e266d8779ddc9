import { OUTCOMES } from '../domain/outcomes'
import { DELIVERY_RESULTS } from '../domain/webhooks/delivery-results'
import { CALLBACK_STEPS } from '../telephony/twilio/call-plan'
import type { SeatControlEvent, SeatFailure, SeatMetrics } from '../telephony/media-stream/contract'

/** Seconds: the latency histogram's upper bounds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Seconds: SQLite commits take tens of microseconds to tens of milliseconds. */
const COMMIT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

interface RouteSeries {
  method: string
  route: string
  /** Requests by status. */
  statuses: Map<number, number>
  /** Non-cumulative bucket counts; rendered cumulative. */
  buckets: number[]
  sum: number
  count: number
}

const label = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

const header = (out: string[], name: string, type: 'counter' | 'gauge' | 'histogram', help: string) =>
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`)

/**
 * A counter with one label whose values come from a closed set (error codes, outcomes,
 * results). The known values are shown from the start at 0, so `rate()` sees the first one.
 */
export class LabeledCounter {
  private readonly values = new Map<string, number>()

  constructor(readonly name: string, readonly help: string, readonly labelName: string, known: readonly string[] = []) {
    for (const value of known) this.values.set(value, 0)
  }

  inc(value: string, by = 1): void {
    this.values.set(value, (this.values.get(value) ?? 0) + by)
  }

  get(value: string): number {
    return this.values.get(value) ?? 0
  }

  render(out: string[]): void {
    header(out, this.name, 'counter', this.help)
    for (const [value, n] of this.values) out.push(`${this.name}{${this.labelName}="${label(value)}"} ${n}`)
  }
}

/** A histogram without labels. */
export class Histogram {
  /** Non-cumulative bucket counts; rendered cumulative. */
  private readonly buckets: number[]
  private sum = 0
  private count = 0

  constructor(readonly name: string, readonly help: string, private readonly bounds: readonly number[]) {
    this.buckets = bounds.map(() => 0)
  }

  observe(value: number): void {
    let i = 0
    while (i < this.bounds.length && value > this.bounds[i]!) i++
    if (i < this.bounds.length) this.buckets[i]!++
    this.sum += value
    this.count++
  }

  render(out: string[]): void {
    header(out, this.name, 'histogram', this.help)
    let cumulative = 0
    this.bounds.forEach((le, i) => {
      cumulative += this.buckets[i]!
      out.push(`${this.name}_bucket{le="${le}"} ${cumulative}`)
    })
    out.push(`${this.name}_bucket{le="+Inf"} ${this.count}`, `${this.name}_sum ${this.sum}`, `${this.name}_count ${this.count}`)
  }
}

/** What a periodic job's last run left (scheduler.onJobRun). */
interface JobSeries {
  lastRunSeconds: number | null
  durationSeconds: number | null
  failures: number
}

/** 429 replies by why: the gateway's limits, then the lead and call limits of the routes. */
export const RATE_LIMIT_REASONS = [
  'rate_limited', 'too_many_concurrent_requests', 'authentication_failures', 'lead_rate_limited',
  'queue_full', 'test_flows_busy', 'call_limit_reached',
] as const

/** The codes lead intake refuses with (lead-service check()); others are added when first seen. */
const INTAKE_CODES = [
  'invalid_request', 'not_found', 'campaign_closed', 'invalid_phone', 'on_dnc_list', 'number_retired', 'duplicate_lead',
  'consent_required', 'number_not_allowed', 'queue_full', 'test_flows_busy', 'lead_rate_limited',
]

/** Twilio's final CallStatus values, and a call the carrier refused to place. */
const CARRIER_STATUSES = ['completed', 'busy', 'no-answer', 'failed', 'canceled', 'not_placed']
const CALLBACK_REFUSALS = ['signature', 'unknown_call', 'account', 'stale']

/** Why the AI seat's relay drops a frame or refuses a stream (docs/telephony.md "The AI seat: the relay"). */
const SEAT_DROP_REASONS = [
  'not_json', 'too_large', 'bad_media', 'unknown_event', 'malformed_control', 'unknown_outcome', 'malformed_frame', 'ahead_of_time',
  'refused_stream', 'no_start', 'agent_not_open', 'carrier_not_json', 'carrier_too_large',
  'carrier_unknown_event', 'carrier_other_track', 'carrier_media_format',
]
const SEAT_FAILURES: SeatFailure[] = ['unreachable', 'silent', 'dropped', 'restart']
const SEAT_CONTROLS: SeatControlEvent[] = ['dialer.interested', 'dialer.callback', 'dialer.opt_out', 'dialer.end', 'dialer.transcript']

export interface Gauge {
  name: string
  help: string
  samples: { labels?: Record<string, string>; value: number }[]
}

/**
 * The service's metrics, rendered in the Prometheus text format (0.0.4). Request counters and
 * latency by route are kept here; counters of domain happenings are fed by the services;
 * gauges are read at scrape time and passed to `render`.
 */
export class Metrics {
  // Route, then method: both strings come ready-made with each request, so finding the series
  // builds no new string (a joined "method route" key would cost a string and its hash each time).
  private readonly series = new Map<string, Map<string, RouteSeries>>()

  readonly calls = new LabeledCounter('dialer_calls_total', 'Calls completed, by outcome (corrections of a filed outcome are not counted again).', 'outcome', OUTCOMES)
  readonly intakeRefusals = new LabeledCounter('dialer_intake_refusals_total', 'Leads refused at intake (POST /leads, /leads/batch items; not dry runs), by error code.', 'code', INTAKE_CODES)
  readonly rateLimited = new LabeledCounter('dialer_rate_limited_total', 'Requests answered 429, by reason.', 'reason', RATE_LIMIT_REASONS)
  readonly webhookDeliveries = new LabeledCounter('dialer_webhook_deliveries_total', 'Webhook delivery tries, by result.', 'result', DELIVERY_RESULTS)
  readonly commits = new Histogram('dialer_sqlite_commit_seconds', 'Time SQLite takes to COMMIT a transaction or a commit group.', COMMIT_BUCKETS)
  readonly carrierCalls = new LabeledCounter('dialer_carrier_calls_total', 'Calls through a real carrier (Twilio), by final carrier status.', 'status', CARRIER_STATUSES)
  readonly carrierCallbacks = new LabeledCounter('dialer_carrier_callbacks_total', 'Signed carrier callbacks applied, by step.', 'step', CALLBACK_STEPS)
  readonly carrierRefused = new LabeledCounter('dialer_carrier_callbacks_refused_total', 'Carrier callbacks refused (403), by why: signature, unknown_call, account, stale (a Telnyx timestamp out of the window).', 'reason', CALLBACK_REFUSALS)
  readonly carrierCallbackSeconds = new Histogram('dialer_carrier_callback_seconds', 'Time the service takes to answer a carrier callback.', BUCKETS)
  readonly carrierFailovers = new LabeledCounter('dialer_carrier_failovers_total', 'Calls a pool carrier refused for an outage (unavailable, throttled) and the next one dialed, by the carrier that refused.', 'from')
  readonly carrierBreakerOpened = new LabeledCounter('dialer_carrier_breaker_opened_total', 'Times a carrier\u2019s breaker opened (an organization\u2019s carrier skipped for its cool-down), by carrier kind.', 'carrier')
  /** The carriers whose breaker is not closed now (set by the calling wiring; read at scrape time). */
  breakerStates: () => readonly { orgId: string; kind: string; state: string }[] = () => []
  /** The carrier's side of these counters (CarrierMetrics in src/telephony/ports.ts). */
  readonly carrier = {
    callEnded: (status: string) => this.carrierCalls.inc(status),
    callback: (step: string) => this.carrierCallbacks.inc(step),
    refused: (reason: string) => this.carrierRefused.inc(reason),
    callbackSeconds: (seconds: number) => this.carrierCallbackSeconds.observe(seconds),
  }
  readonly seatDropped = new LabeledCounter('dialer_seat_frames_dropped_total', 'AI seat frames dropped (and streams refused), by why.', 'reason', SEAT_DROP_REASONS)
  readonly seatFailures = new LabeledCounter('dialer_seat_failures_total', 'Calls taken back from their AI agent, by why.', 'reason', SEAT_FAILURES)
  /** Controls by event, then applied ("true") or not (a repeat, or too late). */
  private readonly seatControls = new Map<string, [number, number]>(SEAT_CONTROLS.map((event) => [event, [0, 0]]))
  private seatsOpen = 0
  /** The AI seat relay's side of these counters (SeatMetrics in src/telephony/media-stream/contract.ts). */
  readonly seat: SeatMetrics = {
    dropped: (reason) => this.seatDropped.inc(reason),
    control: (event, applied) => {
      let counts = this.seatControls.get(event)
      if (!counts) this.seatControls.set(event, (counts = [0, 0]))
      counts[applied ? 0 : 1]++
    },
    failed: (failure) => this.seatFailures.inc(failure),
    open: (delta) => void (this.seatsOpen += delta),
  }
  private readonly jobs = new Map<string, JobSeries>()

  observe(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.series.get(route)
    if (!byMethod) this.series.set(route, (byMethod = new Map()))
    let s = byMethod.get(method)
    if (!s) byMethod.set(method, (s = { method, route, statuses: new Map(), buckets: BUCKETS.map(() => 0), sum: 0, count: 0 }))
    s.statuses.set(status, (s.statuses.get(status) ?? 0) + 1)
    let i = 0
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++
    if (i < BUCKETS.length) s.buckets[i]!++
    s.sum += seconds
    s.count++
  }

  /** A job is known before its first run (its failures show 0). */
  job(name: string): void {
    if (!this.jobs.has(name)) this.jobs.set(name, { lastRunSeconds: null, durationSeconds: null, failures: 0 })
  }

  jobRan(name: string, endedAtMs: number, durationMs: number, ok: boolean): void {
    this.job(name)
    const s = this.jobs.get(name)!
    s.lastRunSeconds = endedAtMs / 1000
    s.durationSeconds = durationMs / 1000
    if (!ok) s.failures++
  }

  /** The whole exposition; `gauges` are read at scrape time (queues, lines, backlog, WAL). */
  render(gauges: Gauge[]): string {
    const out: string[] = []
    const all = [...this.series.values()].flatMap((m) => [...m.values()])
    header(out, 'dialer_http_requests_total', 'counter', 'HTTP requests by route and status.')
    for (const s of all) {
      for (const [status, n] of s.statuses) {
        out.push(`dialer_http_requests_total{method="${s.method}",route="${label(s.route)}",status="${status}"} ${n}`)
      }
    }
    header(out, 'dialer_http_request_duration_seconds', 'histogram', 'Request latency by route.')
    for (const s of all) {
      const base = `method="${s.method}",route="${label(s.route)}"`
      let cumulative = 0
      BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i]!
        out.push(`dialer_http_request_duration_seconds_bucket{${base},le="${le}"} ${cumulative}`)
      })
      out.push(`dialer_http_request_duration_seconds_bucket{${base},le="+Inf"} ${s.count}`)
      out.push(`dialer_http_request_duration_seconds_sum{${base}} ${s.sum}`, `dialer_http_request_duration_seconds_count{${base}} ${s.count}`)
    }
    this.rateLimited.render(out)
    this.intakeRefusals.render(out)
    this.calls.render(out)
    this.webhookDeliveries.render(out)
    this.commits.render(out)
    this.carrierCalls.render(out)
    this.carrierCallbacks.render(out)
    this.carrierRefused.render(out)
    this.carrierCallbackSeconds.render(out)
    this.carrierFailovers.render(out)
    this.carrierBreakerOpened.render(out)
    header(out, 'dialer_carrier_breaker_open', 'gauge', 'Carriers an organization\u2019s dials skip now (1: open, in its cool-down; 0.5: half-open, a trial call allowed); closed ones are not listed.')
    for (const b of this.breakerStates()) out.push(`dialer_carrier_breaker_open{org_id="${label(b.orgId)}",carrier="${label(b.kind)}",state="${b.state}"} ${b.state === 'open' ? 1 : 0.5}`)
    this.seatDropped.render(out)
    header(out, 'dialer_seat_controls_total', 'counter', 'AI agent control messages, by event and whether they were applied (false: a repeat, or too late).')
    for (const [event, [applied, ignored]] of this.seatControls) {
      out.push(`dialer_seat_controls_total{event="${label(event)}",applied="true"} ${applied}`, `dialer_seat_controls_total{event="${label(event)}",applied="false"} ${ignored}`)
    }
    this.seatFailures.render(out)
    header(out, 'dialer_seats_open', 'gauge', 'AI seats relaying now.')
    out.push(`dialer_seats_open ${this.seatsOpen}`)

    const jobs = [...this.jobs.entries()].sort(([a], [b]) => (a < b ? -1 : 1))
    header(out, 'dialer_job_last_run_timestamp_seconds', 'gauge', 'When each periodic job last finished (service clock), unix seconds; absent before its first run.')
    for (const [name, s] of jobs) if (s.lastRunSeconds !== null) out.push(`dialer_job_last_run_timestamp_seconds{job="${label(name)}"} ${s.lastRunSeconds}`)
    header(out, 'dialer_job_duration_seconds', 'gauge', 'How long the last run of each periodic job took.')
    for (const [name, s] of jobs) if (s.durationSeconds !== null) out.push(`dialer_job_duration_seconds{job="${label(name)}"} ${s.durationSeconds}`)
    header(out, 'dialer_job_failures_total', 'counter', 'Runs of each periodic job that failed.')
    for (const [name, s] of jobs) out.push(`dialer_job_failures_total{job="${label(name)}"} ${s.failures}`)

    for (const gauge of gauges) {
      header(out, gauge.name, 'gauge', gauge.help)
      for (const sample of gauge.samples) {
        const labels = sample.labels ? `{${Object.entries(sample.labels).map(([k, v]) => `${k}="${label(v)}"`).join(',')}}` : ''
        out.push(`${gauge.name}${labels} ${sample.value}`)
      }
    }
    return out.join('\n') + '\n'
  }
}
