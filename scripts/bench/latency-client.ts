/**
 * A keep-alive HTTP/1.1 GET client for latency at low concurrency: each connection sends its
 * next request as soon as the last reply is complete, and times each one with the monotonic
 * clock. Run as its own process by the benchmarks (lib.ts `runLatencyClient`).
 *
 *   bun run scripts/bench/latency-client.ts --url http://127.0.0.1:8080 --requests FILE
 *     [--seconds 5] [--connections 2] [--expect REGEX]
 *
 * FILE is JSON: [{ "path": "/api/...", "auth": "Basic ..." }, ...], sent in turn (each
 * connection starting at a random one). A reply is bad when its status is not 200 or its body
 * does not match --expect. Prints one line: `JSON{requests, seconds, p50, p90, p99, p999,
 * max (microseconds), bad, socket_errors, first_status, first_body}`.
 *
 * Why not wrk here: on the development VM, wrk's own figure for GET /leads/{id} at 1-2
 * connections is about 2 ms at p99 while the packets on the loopback (tcpdump) put the same
 * replies at about 0.25 ms; this client and a minimal C client agree with the packets
 * (docs/architecture.md, "Measuring latency").
 */
import { parseArgs } from 'node:util'
import { percentile } from './lib'

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    requests: { type: 'string' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '2' },
    expect: { type: 'string' },
  },
})
if (!values.url || !values.requests) throw new Error('--url and --requests are required')
const target = new URL(values.url)
const seconds = Number(values.seconds)
const connections = Number(values.connections)
const expectBody = values.expect ? new RegExp(values.expect) : null
const list = (await Bun.file(values.requests).json()) as { path: string; auth: string }[]
if (list.length === 0) throw new Error('no requests')
const host = target.hostname
const port = Number(target.port || 80)
const encoded = list.map((r) => Buffer.from(`GET ${r.path} HTTP/1.1\r\nHost: ${target.host}\r\nAuthorization: ${r.auth}\r\n\r\n`))

const HEADER_END = Buffer.from('\r\n\r\n')
const latencies: number[] = []
let bad = 0
let socketErrors = 0
let firstStatus = 0
let firstBody = ''
const startedAt = performance.now()
const endAt = startedAt + seconds * 1000

function noteBad(status: number, body: string): void {
  bad++
  if (firstStatus === 0) {
    firstStatus = status
    firstBody = body.slice(0, 300).replace(/[\u0000-\u001f"\\]/g, "'")
  }
}

/** One connection's loop; resolves when the time is up or the socket fails. */
function connection(): Promise<void> {
  let next = Math.floor(Math.random() * encoded.length)
  let buffered = Buffer.alloc(0)
  let sentAt = 0
  return new Promise((resolve) => {
    const send = (socket: { write(data: Uint8Array): number }) => {
      const request = encoded[next]!
      next = (next + 1) % encoded.length
      sentAt = performance.now()
      socket.write(request)
    }
    void Bun.connect({
      hostname: host,
      port,
      socket: {
        open: send,
        data(socket, chunk) {
          buffered = buffered.length === 0 ? Buffer.from(chunk) : Buffer.concat([buffered, chunk])
          const headerEnd = buffered.indexOf(HEADER_END)
          if (headerEnd < 0) return
          const head = buffered.subarray(0, headerEnd).toString('latin1')
          const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
          if (!length) {
            // Every reply measured here has a Content-Length; anything else is a failure.
            noteBad(Number(head.slice(9, 12)), head)
            socketErrors++
            socket.end()
            return
          }
          const total = headerEnd + 4 + Number(length[1])
          if (buffered.length < total) return
          const now = performance.now()
          latencies.push(now - sentAt)
          const status = Number(head.slice(9, 12))
          const body = buffered.subarray(headerEnd + 4, total).toString('utf8')
          if (status !== 200 || (expectBody && !expectBody.test(body))) noteBad(status, body)
          buffered = buffered.subarray(total)
          if (now < endAt) send(socket)
          else socket.end()
        },
        close: () => resolve(),
        error: () => {
          socketErrors++
          resolve()
        },
        connectError: () => {
          socketErrors++
          resolve()
        },
      },
    })
  })
}

await Promise.all(Array.from({ length: connections }, () => connection()))
const elapsed = (performance.now() - startedAt) / 1000
latencies.sort((a, b) => a - b)
const at = (p: number) => (latencies.length === 0 ? 0 : Math.round(percentile(latencies, p) * 1000))
console.log(
  `JSON${JSON.stringify({
    requests: latencies.length, seconds: elapsed, p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: at(1),
    bad, socket_errors: socketErrors, first_status: firstStatus, first_body: firstBody,
  })}`,
)
