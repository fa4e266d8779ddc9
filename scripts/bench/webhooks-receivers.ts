/** The receivers of the webhook benchmark (scripts/bench/webhooks.ts), run in their own process. */

export const FAILING = 0
export const SLOW = 1

export interface Summary {
  count: number
  p50: number
  p90: number
  p99: number
  p999: number
  max: number
}

export function summarize(values: Int32Array): Summary {
  const sorted = Int32Array.from(values).sort()
  const at = (p: number) => (sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!)
  return { count: sorted.length, p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: sorted.length ? sorted[sorted.length - 1]! : NaN }
}

export interface EndpointStats {
  kind: 'failing' | 'slow' | 'healthy'
  /** Requests received (every try). */
  requests: number
  /** Distinct events received. */
  unique: number
  /** Requests for an event already received. */
  duplicates: number
  /** First receipts of an event older than one already received (order broken). */
  outOfOrder: number
  /** Distinct client ports the requests came from: TCP connections opened by the sender. */
  connections: number
  firstAt: number
  lastAt: number
}

export interface ReceiverStats {
  endpoints: EndpointStats[]
  /** Lag (ms) of each healthy first receipt. */
  healthy: Summary & { firstAt: number; lastAt: number }
  /** Lag of the failing endpoint's first try of each event. */
  failingFirstTry: Summary
  /** Lag of the slow endpoint's first receipts. */
  slowFirst: Summary
  /** CPU time of the receivers process (user + system), microseconds. */
  cpuMicros: number
}

export async function runReceivers(count: number, events: number, slowMs: number): Promise<void> {
  const healthyCount = count - 2
  const requests = new Int32Array(count)
  const unique = new Int32Array(count)
  const duplicates = new Int32Array(count)
  const outOfOrder = new Int32Array(count)
  const lastSeq = new Int32Array(count).fill(-1)
  const firstAt = new Float64Array(count)
  const lastAt = new Float64Array(count)
  const seen = Array.from({ length: count }, () => new Uint8Array(events))
  const clientPorts = Array.from({ length: count }, () => new Set<number>())
  // Healthy lags in receipt order: a time window is a contiguous range of this array.
  const healthyLags = new Int32Array(events * healthyCount)
  let healthyN = 0
  const failingLags = new Int32Array(events)
  let failingN = 0
  const slowLags = new Int32Array(events)
  let slowN = 0

  function note(i: number, seq: number, created: number, at: number): void {
    requests[i]!++
    if (firstAt[i] === 0) firstAt[i] = at
    lastAt[i] = at
    if (!(seq >= 0 && seq < events)) return
    if (seen[i]![seq]) {
      duplicates[i]!++
      return
    }
    seen[i]![seq] = 1
    unique[i]!++
    if (seq < lastSeq[i]!) outOfOrder[i]!++
    else lastSeq[i] = seq
    const lag = at - created
    if (i === FAILING) failingLags[failingN++] = lag
    else if (i === SLOW) slowLags[slowN++] = lag
    else healthyLags[healthyN++] = lag
  }

  const ports: number[] = []
  for (let i = 0; i < count; i++) {
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      idleTimeout: 60,
      async fetch(request, srv) {
        const peer = srv.requestIP(request)
        if (peer) clientPorts[i]!.add(peer.port)
        const text = await request.text()
        const at = Date.now()
        try {
          const body = JSON.parse(text) as { created: string; data: { object: { bench_seq: number } } }
          note(i, body.data.object.bench_seq, Date.parse(body.created), at)
        } catch {
          requests[i]!++
        }
        if (i === FAILING) return new Response('receiver down', { status: 500 })
        if (i === SLOW) await Bun.sleep(slowMs)
        return new Response('ok')
      },
    })
    ports.push(server.port!)
  }

  const control = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const url = new URL(request.url)
      if (url.pathname === '/progress') {
        // Healthy receipts since index `from`: their count and lags.
        const from = Number(url.searchParams.get('from') ?? 0)
        const window = summarize(healthyLags.subarray(from, healthyN))
        return Response.json({ healthyN, window, failingRequests: requests[FAILING], failingUnique: unique[FAILING], slowRequests: requests[SLOW] })
      }
      const endpoints: EndpointStats[] = Array.from({ length: count }, (_, i) => ({
        kind: i === FAILING ? 'failing' : i === SLOW ? 'slow' : 'healthy',
        requests: requests[i]!, unique: unique[i]!, duplicates: duplicates[i]!, outOfOrder: outOfOrder[i]!, connections: clientPorts[i]!.size, firstAt: firstAt[i]!, lastAt: lastAt[i]!,
      }))
      const healthy = endpoints.filter((e) => e.kind === 'healthy' && e.requests > 0)
      const stats: ReceiverStats = {
        endpoints,
        healthy: {
          ...summarize(healthyLags.subarray(0, healthyN)),
          firstAt: Math.min(...healthy.map((e) => e.firstAt)),
          lastAt: Math.max(...healthy.map((e) => e.lastAt)),
        },
        failingFirstTry: summarize(failingLags.subarray(0, failingN)),
        slowFirst: summarize(slowLags.subarray(0, slowN)),
        cpuMicros: (({ user, system }) => user + system)(process.cpuUsage()),
      }
      return Response.json(stats)
    },
  })
  process.stdout.write(JSON.stringify({ ports, control: control.port }) + '\n')
}
