/**
 * HTTP benchmark (issue #2): requests/s and p50/p99 latency at concurrency 64 for
 * GET /campaigns/{id} and GET /dnc/check, next to a bare Bun.serve JSON reply measured in
 * the same run. Needs wrk (`apt-get install -y wrk`).
 *
 *   bun run scripts/bench/http.ts [--seconds 5] [--rounds 3] [--connections 64] [--keys 300]
 *
 * Shared virtual machines swing by a quarter from one run to the next, so the three
 * scenarios run interleaved, round after round, and each figure is the median round.
 * Target on a 2-core machine: at least 50% of the bare server's throughput, p99 under 10 ms.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '64' },
    keys: { type: 'string', default: '300' },
  },
})
const seconds = Number(values.seconds)
const rounds = Number(values.rounds)
const connections = Number(values.connections)
const keyCount = Number(values.keys)
const root = join(import.meta.dir, '../..')
const work = mkdtempSync(join(tmpdir(), 'dialer-bench-'))
const ADMIN = 'bench-admin-token-0123456789abcdef'

if (Bun.spawnSync(['which', 'wrk']).exitCode !== 0) {
  console.error('wrk is needed: apt-get install -y wrk')
  process.exit(1)
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return
    } catch {
      // not up yet
    }
    await Bun.sleep(50)
  }
  throw new Error(`${url} did not come up`)
}

// wrk rotates Authorization headers and paths from a generated Lua file, and prints its
// own latency percentiles (microseconds) and non-2xx count as one JSON line.
function luaScript(requests: { path: string; auth?: string }[]): string {
  const rows = requests.map((r) => `{${JSON.stringify(r.path)},${JSON.stringify(r.auth ?? '')}}`).join(',\n')
  return `
local reqs = {${rows}}
local i = 0
errors = 0
local threads = {}
function setup(thread) table.insert(threads, thread) end
function init(args) i = math.random(#reqs) end
function request()
  i = (i % #reqs) + 1
  local r = reqs[i]
  local headers = {}
  if r[2] ~= "" then headers["Authorization"] = r[2] end
  return wrk.format("GET", r[1], headers)
end
function response(status, headers, body) if status ~= 200 then errors = errors + 1 end end
function done(summary, latency, requests)
  local errs = 0
  for _, t in ipairs(threads) do errs = errs + t:get("errors") end
  io.write(string.format('JSON{"requests":%d,"seconds":%f,"p50":%d,"p99":%d,"errors":%d}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99), errs + summary.errors.status))
end
`
}

interface Result {
  name: string
  rps: number
  p50: number
  p99: number
  errors: number
}

function runWrk(name: string, base: string, requests: { path: string; auth?: string }[], duration = seconds): Result {
  const script = join(work, `${name.replace(/\W+/g, '_')}.lua`)
  writeFileSync(script, luaScript(requests))
  const out = Bun.spawnSync(['wrk', '-t2', `-c${connections}`, `-d${duration}s`, '--latency', '-s', script, base]).stdout.toString()
  const line = out.split('\n').find((l) => l.startsWith('JSON'))
  if (!line) throw new Error(`wrk gave no result:\n${out}`)
  const r = JSON.parse(line.slice(4))
  return { name, rps: r.requests / r.seconds, p50: r.p50 / 1000, p99: r.p99 / 1000, errors: r.errors }
}

const procs: ReturnType<typeof Bun.spawn>[] = []
try {
  // 1. The bare server: Bun.serve answering a small JSON object.
  const barePort = 18900 + Math.floor(Math.random() * 50)
  procs.push(Bun.spawn([process.execPath, '-e',
    `Bun.serve({ port: ${barePort}, hostname: '127.0.0.1', fetch: () => Response.json({ data: { id: 'x', name: 'bare', livemode: true } }) })`,
  ], { stdout: 'ignore', stderr: 'inherit' }))
  const bare = `http://127.0.0.1:${barePort}`
  await waitFor(bare)

  // 2. The service, from source, with its request log on (as shipped) going to a file.
  const port = 18960 + Math.floor(Math.random() * 30)
  procs.push(Bun.spawn([process.execPath, 'run', join(root, 'src/main.ts'), 'serve', '--port', String(port), '--data-dir', join(work, 'data')], {
    env: { ...process.env, DIALER_ADMIN_TOKEN: ADMIN },
    stdout: Bun.file(join(work, 'service.log')),
    stderr: 'inherit',
  }))
  const base = `http://127.0.0.1:${port}`
  await waitFor(`${base}/healthz`)

  // 3. A few hundred keys over several organizations, so neither the per-key nor the plan
  //    limit is what gets measured.
  const admin = async (path: string, body: unknown) => {
    const r = await fetch(`${base}/api/v1/admin${path}`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    })
    if (!r.ok) throw new Error(`${path}: ${await r.text()}`)
    return ((await r.json()) as { data: any }).data
  }
  const orgs = Math.max(1, Math.ceil(keyCount / 10))
  const campaignReqs: { path: string; auth: string }[] = []
  const dncReqs: { path: string; auth: string }[] = []
  for (let o = 0; o < orgs; o++) {
    const org = await admin('/orgs', { name: `Bench org ${o}`, plan_requests_per_minute: 100000 })
    const campaign = await admin(`/orgs/${org.id}/campaigns`, { name: `Campaign ${o}`, status: 'active', sdrs: [{ name: 'SDR' }] })
    for (let k = 0; k < Math.ceil(keyCount / orgs); k++) {
      const key = await admin(`/orgs/${org.id}/keys`, { name: `k${k}`, mode: 'live', requests_per_minute: 100000, burst: 100000, max_concurrent: 50 })
      const auth = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`
      campaignReqs.push({ path: `/api/v1/external/campaigns/${campaign.id}`, auth })
      dncReqs.push({ path: `/api/v1/external/dnc/check?phone=%2B1415${String(5552000 + o * 100 + k).padStart(7, '0')}`, auth })
    }
  }
  console.log(
    `seeded ${campaignReqs.length} keys in ${orgs} organizations; ${rounds} rounds of ${seconds}s per scenario, ` +
      `${connections} connections; ${new Set(dncReqs.map((r) => r.path)).size} distinct numbers checked`,
  )

  // Warm-up: JIT and SQLite page cache.
  runWrk('warm-up', base, campaignReqs, 2)
  runWrk('warm-up', bare, [{ path: '/' }], 2)

  const scenarios: [string, string, { path: string; auth?: string }[]][] = [
    ['bare Bun.serve JSON', bare, [{ path: '/' }]],
    ['GET /campaigns/{id}', base, campaignReqs],
    ['GET /dnc/check', base, dncReqs],
  ]
  const runs: Result[][] = scenarios.map(() => [])
  for (let round = 0; round < rounds; round++) {
    scenarios.forEach(([name, url, reqs], i) => runs[i]!.push(runWrk(name, url, reqs)))
  }
  const median = (list: Result[]): Result => [...list].sort((a, b) => a.rps - b.rps)[Math.floor(list.length / 2)]!
  const results = runs.map(median)
  const bareRps = results[0]!.rps
  console.log('\nscenario (median round)  req/s     p50 ms   p99 ms   non-200   vs bare')
  for (const r of results) {
    console.log(
      `${r.name.padEnd(22)} ${r.rps.toFixed(0).padStart(8)} ${r.p50.toFixed(2).padStart(9)} ${r.p99.toFixed(2).padStart(8)} ${String(r.errors).padStart(9)} ${((r.rps / bareRps) * 100).toFixed(0).padStart(8)}%`,
    )
  }
  const service = results.slice(1)
  const ok = service.every((r) => r.rps >= bareRps * 0.5 && r.p99 < 10 && r.errors === 0)
  console.log(`\ntarget (>= 50% of bare, p99 < 10 ms, no errors): ${ok ? 'met' : 'NOT met'}`)
} finally {
  for (const p of procs) p.kill('SIGTERM')
  await Promise.all(procs.map((p) => p.exited))
  rmSync(work, { recursive: true, force: true })
}
