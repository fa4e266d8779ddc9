/**
 * HTTP benchmark (issue #2): requests/s and p50/p99 latency at concurrency 64 for
 * GET /campaigns/{id} and GET /dnc/check, next to a bare Bun.serve JSON reply measured in
 * the same run. Needs wrk (`apt-get install -y wrk`).
 *
 *   bun run scripts/bench/http.ts [--seconds 5] [--rounds 5] [--connections 64] [--keys 300]
 *
 * Shared virtual machines swing by a quarter from one run to the next, so the three
 * scenarios run interleaved, round after round, and each figure is the median round (five
 * rounds, so two rounds caught in a slow spell do not decide it). About 100 seconds.
 * Target on a 2-core machine: at least 50% of the bare server's throughput, p99 under 10 ms.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { adminClient, basicAuth, medianBy, requireWrk, rotatingGets, runWrk, startBare, startService, stop, type Child } from './lib'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '64' },
    keys: { type: 'string', default: '300' },
  },
})
const seconds = Number(values.seconds)
const rounds = Number(values.rounds)
const connections = Number(values.connections)
const keyCount = Number(values.keys)
const work = mkdtempSync(join(tmpdir(), 'dialer-bench-'))
requireWrk()

interface Result {
  name: string
  rps: number
  p50: number
  p99: number
  errors: number
}

function measure(name: string, url: string, requests: { path: string; auth: string }[], duration = seconds): Result {
  const r = runWrk({
    url,
    script: rotatingGets(requests, 'status ~= 200'),
    scriptFile: join(work, `${name.replace(/\W+/g, '_')}.lua`),
    seconds: duration,
    connections,
  })
  return { name, rps: r.requests / r.seconds, p50: r.p50 / 1000, p99: r.p99 / 1000, errors: r.bad + r.socket_errors }
}

const procs: Child[] = []
try {
  // 1. The bare server: Bun.serve answering a small JSON object.
  const bare = await startBare()
  procs.push(bare.proc)

  // 2. The service, from source, with its request log on (as shipped) going to a file.
  const service = await startService({ dataDir: join(work, 'data'), logFile: join(work, 'service.log') })
  procs.push(service.proc)
  const base = service.base
  const admin = adminClient(base)

  // 3. A few hundred keys over several organizations, so neither the per-key nor the plan
  //    limit is what gets measured.
  const orgs = Math.max(1, Math.ceil(keyCount / 10))
  const campaignReqs: { path: string; auth: string }[] = []
  const dncReqs: { path: string; auth: string }[] = []
  for (let o = 0; o < orgs; o++) {
    const org = await admin('/orgs', { name: `Bench org ${o}`, plan_requests_per_minute: 100000 })
    const campaign = await admin(`/orgs/${org.id}/campaigns`, { name: `Campaign ${o}`, status: 'active', sdrs: [{ name: 'SDR' }] })
    for (let k = 0; k < Math.ceil(keyCount / orgs); k++) {
      const key = await admin(`/orgs/${org.id}/keys`, { name: `k${k}`, mode: 'live', requests_per_minute: 100000, burst: 100000, max_concurrent: 50 })
      const auth = basicAuth(key.id, key.secret)
      campaignReqs.push({ path: `/api/v1/external/campaigns/${campaign.id}`, auth })
      dncReqs.push({ path: `/api/v1/external/dnc/check?phone=%2B1415${String(5552000 + o * 100 + k).padStart(7, '0')}`, auth })
    }
  }
  console.log(
    `seeded ${campaignReqs.length} keys in ${orgs} organizations; ${rounds} rounds of ${seconds}s per scenario, ` +
      `${connections} connections; ${new Set(dncReqs.map((r) => r.path)).size} distinct numbers checked`,
  )

  // Warm-up: JIT and SQLite page cache.
  measure('warm-up', base, campaignReqs, 2)
  measure('warm-up', bare.url, [{ path: '/', auth: '' }], 2)

  const scenarios: [string, string, { path: string; auth: string }[]][] = [
    ['bare Bun.serve JSON', bare.url, [{ path: '/', auth: '' }]],
    ['GET /campaigns/{id}', base, campaignReqs],
    ['GET /dnc/check', base, dncReqs],
  ]
  const runs: Result[][] = scenarios.map(() => [])
  for (let round = 0; round < rounds; round++) {
    scenarios.forEach(([name, url, reqs], i) => runs[i]!.push(measure(name, url, reqs)))
  }
  const results = runs.map((list) => medianBy(list, (r) => r.rps))
  const bareRps = results[0]!.rps
  console.log('\nscenario (median round)  req/s     p50 ms   p99 ms   non-200   vs bare')
  for (const r of results) {
    console.log(
      `${r.name.padEnd(22)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(2).padStart(9)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(9)} ${((r.rps / bareRps) * 100).toFixed(0).padStart(8)}%`,
    )
  }
  const measured = results.slice(1)
  const ok = measured.every((r) => r.rps >= bareRps * 0.5 && r.p99 < 10 && r.errors === 0)
  console.log(`\ntarget (>= 50% of bare, p99 < 10 ms, no errors): ${ok ? 'met' : 'NOT met'}`)
} finally {
  await Promise.all(procs.map(stop))
  rmSync(work, { recursive: true, force: true })
}
