/** Seconds: the latency histogram's upper bounds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

interface Histogram {
  counts: number[]
  sum: number
  count: number
}

const label = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')

/** Request counters and latency histograms by route, rendered in the Prometheus text format. */
export class Metrics {
  private readonly requests = new Map<string, number>()
  private readonly latency = new Map<string, Histogram>()

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${route}`
    const counter = `${key}|${status}`
    this.requests.set(counter, (this.requests.get(counter) ?? 0) + 1)
    let h = this.latency.get(key)
    if (!h) {
      h = { counts: BUCKETS.map(() => 0), sum: 0, count: 0 }
      this.latency.set(key, h)
    }
    for (let i = 0; i < BUCKETS.length; i++) if (seconds <= BUCKETS[i]!) h.counts[i]!++
    h.sum += seconds
    h.count++
  }

  /** The whole exposition; `gauges` are read at scrape time (queues, calls up, backlog). */
  render(gauges: { name: string; help: string; samples: { labels?: Record<string, string>; value: number }[] }[]): string {
    const out: string[] = []
    out.push('# HELP dialer_http_requests_total HTTP requests by route and status.', '# TYPE dialer_http_requests_total counter')
    for (const [name, n] of this.requests) {
      const [key, status] = name.split('|') as [string, string]
      const [method, route] = key.split(' ') as [string, string]
      out.push(`dialer_http_requests_total{method="${method}",route="${label(route)}",status="${status}"} ${n}`)
    }
    out.push('# HELP dialer_http_request_duration_seconds Request latency by route.', '# TYPE dialer_http_request_duration_seconds histogram')
    for (const [key, h] of this.latency) {
      const [method, route] = key.split(' ') as [string, string]
      const base = `method="${method}",route="${label(route)}"`
      BUCKETS.forEach((le, i) => out.push(`dialer_http_request_duration_seconds_bucket{${base},le="${le}"} ${h.counts[i]}`))
      out.push(`dialer_http_request_duration_seconds_bucket{${base},le="+Inf"} ${h.count}`)
      out.push(`dialer_http_request_duration_seconds_sum{${base}} ${h.sum}`, `dialer_http_request_duration_seconds_count{${base}} ${h.count}`)
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
