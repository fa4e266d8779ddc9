/** Seconds: the latency histogram's upper bounds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

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

/** Request counters and latency histograms by route, rendered in the Prometheus text format. */
export class Metrics {
  // Route, then method: both strings come ready-made with each request, so finding the series
  // builds no new string (a joined "method route" key would cost a string and its hash each time).
  private readonly series = new Map<string, Map<string, RouteSeries>>()

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

  /** The whole exposition; `gauges` are read at scrape time (queues, calls up, backlog). */
  render(gauges: { name: string; help: string; samples: { labels?: Record<string, string>; value: number }[] }[]): string {
    const out: string[] = []
    const all = [...this.series.values()].flatMap((m) => [...m.values()])
    out.push('# HELP dialer_http_requests_total HTTP requests by route and status.', '# TYPE dialer_http_requests_total counter')
    for (const s of all) {
      for (const [status, n] of s.statuses) {
        out.push(`dialer_http_requests_total{method="${s.method}",route="${label(s.route)}",status="${status}"} ${n}`)
      }
    }
    out.push('# HELP dialer_http_request_duration_seconds Request latency by route.', '# TYPE dialer_http_request_duration_seconds histogram')
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
    for (const gauge of gauges) {
      out.push(`# HELP ${gauge.name} ${gauge.help}`, `# TYPE ${gauge.name} gauge`)
      for (const sample of gauge.samples) {
        const labels = sample.labels ? `{${Object.entries(sample.labels).map(([k, v]) => `${k}="${label(v)}"`).join(',')}}` : ''
        out.push(`${gauge.name}${labels} ${sample.value}`)
      }
    }
    return out.join('\n') + '\n'
  }
}
