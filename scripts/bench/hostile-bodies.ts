/**
 * Hostile bodies benchmark: every rejected body under 1 MB answers in under 50 ms and never
 * stalls the service's event loop for more than 50 ms; the lead import, Twilio callback and
 * console search cases (hostile-surfaces.ts) never stall it for 50 ms, never hold another
 * client's request for 50 ms, and keep the process's memory bounded.
 *
 *   bun run scripts/bench/hostile-bodies.ts [--rounds 7] [--only TEXT] [--all] [--search-leads 100000]
 *
 * How:
 *   - The service runs as a child process (this file with --server): the app as `serve` builds
 *     it, on Bun.serve, plus a 1 ms timer measuring the longest gap between its ticks (the
 *     event loop's longest stall) and GET /__bench/stall, which reports and resets it.
 *   - An organization, an active campaign and a live key are made through the admin API.
 *   - Each body kind is sent `--rounds` times, one at a time; for each request the time to
 *     the whole reply (client side, over loopback) and the stall measured in the server while
 *     it was served. Shown: status, median and worst of each, beside the references (the idle
 *     server's own timer jitter, a small valid request and a small invalid one).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { daytimeStart, setClock } from '../../test/process/daytime-clock'
import { surfaceKinds, type SurfaceKind } from './hostile-surfaces'

const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef'

/** The process's peak resident memory (MB) since the last reset, then reset (Linux: VmHWM, clear_refs 5). */
function peakRssMb(): number {
  try {
    const status = readFileSync('/proc/self/status', 'utf8')
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0)
    writeFileSync('/proc/self/clear_refs', '5')
    return kb / 1024
  } catch {
    return process.memoryUsage().rss / MB
  }
}
const MB = 1024 * 1024

/** The service with a stall meter: what the bench measures runs in this process. */
async function runServer(): Promise<void> {
  const { createHandler } = await import('../../src/app')
  const { loadConfig } = await import('../../src/config')
  const { createServices } = await import('../../src/services')
  const services = createServices(loadConfig(process.env))
  const { handle } = createHandler(services)
  let last = performance.now()
  let worst = 0
  setInterval(() => {
    const now = performance.now()
    worst = Math.max(worst, now - last)
    last = now
  }, 1)
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request, srv) {
      if (request.url.endsWith('/__bench/stall')) {
        // Read before resetting: the gap up to now counts too.
        const stall = Math.max(worst, performance.now() - last)
        worst = 0
        return Response.json({ stall, peak_rss_mb: peakRssMb() })
      }
      // The fake clock (set for the callback cases) keeps the search indexer's timer off: index on request.
      if (request.url.endsWith('/__bench/search-index')) return Response.json({ indexed: services.searchIndex.catchUp() })
      return handle(request, srv)
    },
  })
  process.stdout.write(`${JSON.stringify({ port: server.port })}\n`)
  process.on('SIGTERM', () => {
    void server.stop(true)
    services.close()
    process.exit(0)
  })
}

async function runBench(): Promise<void> {
  const { values } = parseArgs({
    options: { rounds: { type: 'string', default: '7' }, only: { type: 'string' }, all: { type: 'boolean', default: false }, 'search-leads': { type: 'string', default: '100000' } },
  })
  const rounds = Number(values.rounds)
  const dataDir = mkdtempSync(join(tmpdir(), 'dialer-hostile-'))
  const child = Bun.spawn([process.execPath, import.meta.path, '--server'], {
    // The fake clock, set to a New York morning below, so the callback cases' call is dialed whenever the bench runs.
    env: { ...process.env, DIALER_DATA_DIR: dataDir, DIALER_ADMIN_TOKEN: ADMIN_TOKEN, DIALER_LOG_REQUESTS: '0', DIALER_LOG_LEVEL: 'error', DIALER_FAKE_CLOCK: '1' },
    stdout: 'pipe',
    stderr: 'inherit',
  })
  try {
    const reader = child.stdout.getReader()
    const first = new TextDecoder().decode((await reader.read()).value)
    reader.releaseLock()
    const base = `http://127.0.0.1:${JSON.parse(first.split('\n')[0]!).port}`
    await setClock(base, ADMIN_TOKEN, daytimeStart(Date.now(), ['America/New_York']))
    const failures = await measureAll(base, rounds, values.only, values.all)
    failures.push(...(await measureSurfaces(base, rounds, values.only, Number(values['search-leads']))))
    console.log(failures.length ? `\nOver target:\n  ${failures.join('\n  ')}` : '\nEvery case within its targets.')
    if (failures.length) process.exitCode = 1
  } finally {
    child.kill('SIGTERM')
    await child.exited
    rmSync(dataDir, { recursive: true, force: true })
  }
}

async function admin(base: string, path: string, body: unknown): Promise<any> {
  const r = await fetch(`${base}/api/v1/admin${path}`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  })
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`)
  return ((await r.json()) as { data: any }).data
}

interface Kind {
  name: string
  path: string
  body: string
  headers?: Record<string, string>
}

const repeat = (n: number, item: string) => Array(n).fill(item).join(',')
const nested = (depth: number, inner: string) => '['.repeat(depth) + inner + ']'.repeat(depth)

function kinds(campaignId: string): Kind[] {
  const lead = (extra: string) => `{"campaign_id":"${campaignId}","phone":"+14155552671","dry_run":true${extra}}`
  return [
    { name: 'reference: small valid (POST /leads dry_run)', path: '/leads', body: lead('') },
    { name: 'reference: small invalid (phone: 123)', path: '/dnc', body: '{"phone":123}' },
    { name: 'deep arrays, 499,999 levels', path: '/dnc', body: nested(499_999, '1') },
    { name: 'deep objects, 166,000 levels', path: '/dnc', body: '{"a":'.repeat(166_000) + '1' + '}'.repeat(166_000) },
    { name: '999,999 bytes of [ (unclosed)', path: '/dnc', body: '['.repeat(999_999) },
    { name: 'deep arrays with an Idempotency-Key (batch)', path: '/leads/batch', body: `{"campaign_id":"${campaignId}","leads":[${nested(400_000, '1')}]}`, headers: { 'idempotency-key': 'deep' } },
    { name: 'wide object, 90,000 keys at the top', path: '/dnc', body: `{${Array.from({ length: 90_000 }, (_, i) => `"k${i}":1`).join(',')}}` },
    { name: 'wide custom fields, 75,000 keys', path: '/leads', body: lead(`,"fields":{${Array.from({ length: 75_000 }, (_, i) => `"f${i}":"v"`).join(',')}}`) },
    { name: '1000 custom fields (the widest object parsed)', path: '/leads', body: lead(`,"fields":{${Array.from({ length: 1000 }, (_, i) => `"f${i}":"v"`).join(',')}}`) },
    { name: 'long string, 990 KB phone', path: '/dnc', body: JSON.stringify({ phone: 'x'.repeat(990_000) }) },
    { name: 'many small errors: 490,000 numbers for phones', path: '/dnc/batch', body: `{"phones":[${repeat(490_000, '1')}]}` },
    { name: 'many small errors: 99,000 objects in a batch', path: '/leads/batch', body: `{"campaign_id":"${campaignId}","leads":[${repeat(99_000, '{}')}]}` },
    { name: '19,990 objects in a batch (the most parsed)', path: '/leads/batch', body: `{"campaign_id":"${campaignId}","leads":[${repeat(19_990, '{}')}]}` },
    { name: '19,990 numbers for phones (the most parsed)', path: '/dnc/batch', body: `{"phones":[${repeat(19_990, '1')}]}` },
    { name: '19,990 strings of 45 bytes for phones', path: '/dnc/batch', body: `{"phones":[${repeat(19_990, `"${'9'.repeat(45)}"`)}]}` },
    { name: '60 leads of 50 fields, one bad (valid shape)', path: '/leads/batch', body: `{"campaign_id":"${campaignId}","dry_run":true,"leads":[${repeat(59, `{"phone":"+14155552671","fields":{${Array.from({ length: 50 }, (_, i) => `"f${i}":"v"`).join(',')}}}`)},{"phone":1}]}` },
    { name: '30 deep, 240,000 numbers where a string belongs', path: '/dnc', body: `{"phone":${nested(30, repeat(240_000, '1'))}}` },
    { name: '30 deep, 19,000 numbers where a string belongs', path: '/dnc', body: `{"phone":${nested(30, repeat(19_000, '1'))}}` },
    { name: '1000 objects of 19 members for a phone', path: '/dnc', body: `{"phone":[${repeat(1000, `{${Array.from({ length: 19 }, (_, i) => `"k${i}":"${'v'.repeat(30)}"`).join(',')}}`)}]}` },
    { name: 'toString key for a phone', path: '/dnc', body: '{"phone":{"toString":1}}' },
    { name: '19,000 toString objects for phones', path: '/dnc/batch', body: `{"phones":[${repeat(19_000, '{"toString":1}')}]}` },
    { name: '19,000 NUL strings for phones', path: '/dnc/batch', body: `{"phones":[${repeat(19_000, '"\\u0000"')}]}` },
    { name: '__proto__ and constructor keys', path: '/dnc', body: '{"__proto__":{"a":1},"constructor":{"prototype":1},"phone":"+14155552671"}' },
  ]
}

/** `only`: body kinds whose name contains it; `all`: print every round's figures too. */
async function measureAll(base: string, rounds: number, only: string | undefined, all: boolean): Promise<string[]> {
  const org = await admin(base, '/orgs', { name: 'Hostile bench', plan_requests_per_minute: 100_000 })
  const campaign = await admin(base, `/orgs/${org.id}/campaigns`, { name: 'Bench', status: 'active', sdrs: [{ name: 'Alex' }] })
  const key = await admin(base, `/orgs/${org.id}/keys`, { name: 'bench', mode: 'live', requests_per_minute: 100_000, burst: 100_000 })
  const authorization = `Basic ${Buffer.from(`${key.id}:${key.secret}`).toString('base64')}`
  const stall = async () => ((await (await fetch(`${base}/__bench/stall`)).json()) as { stall: number }).stall

  console.log(`${rounds} rounds each; ms: median / worst\n`)
  console.log(`${'body'.padEnd(52)} ${'KB'.padStart(5)} ${'status'.padStart(6)}  ${'answer ms'.padStart(13)}  ${'loop stall ms'.padStart(13)}`)
  // The machine's own noise: the longest gap the timer sees while the server has nothing to do.
  const idle: number[] = []
  for (let round = 0; round < rounds; round++) {
    await stall()
    await Bun.sleep(20)
    idle.push(await stall())
  }
  console.log(`${'reference: idle server, 20 ms'.padEnd(52)} ${'-'.padStart(5)} ${'-'.padStart(6)}  ${'-'.padStart(13)}  ${fmt(median(idle), Math.max(...idle))}`)
  const failures: string[] = []
  for (const kind of kinds(campaign.id).filter((k) => !only || k.name.includes(only) || k.name.startsWith('reference'))) {
    const times: number[] = []
    const stalls: number[] = []
    let status = 0
    let code = ''
    for (let round = 0; round < rounds + 1; round++) {
      await stall()
      const started = performance.now()
      const r = await fetch(`${base}/api/v1/external${kind.path}`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json', ...kind.headers, ...(kind.headers ? { 'idempotency-key': `${kind.headers['idempotency-key']}-${round}` } : {}) },
        body: kind.body,
      })
      const text = await r.text()
      const elapsed = performance.now() - started
      const stalled = await stall()
      status = r.status
      code = r.status >= 400 ? (JSON.parse(text) as { error: { code: string } }).error.code : ''
      // The first round warms up (JIT, compiled route): not counted.
      if (round === 0) continue
      times.push(elapsed)
      stalls.push(stalled)
    }
    const [t50, tMax, s50, sMax] = [median(times), Math.max(...times), median(stalls), Math.max(...stalls)]
    if (all) console.log(`  answers ${times.map((t) => t.toFixed(1)).join(' ')}\n  stalls  ${stalls.map((t) => t.toFixed(1)).join(' ')}`)
    console.log(`${kind.name.padEnd(52)} ${String(Math.round(kind.body.length / 1000)).padStart(5)} ${String(status).padStart(6)}  ${fmt(t50, tMax)}  ${fmt(s50, sMax)}  ${code}`)
    if (status >= 500) failures.push(`${kind.name}: ${status}`)
    if (status >= 400 && (tMax >= 50 || sMax >= 50)) failures.push(`${kind.name}: worst answer ${tMax.toFixed(1)} ms, stall ${sMax.toFixed(1)} ms`)
  }
  return failures
}

/**
 * The import, callback and search cases. Beside each: the worst wait of another client (GET
 * /healthz sent back to back while the case is served) and the service's peak memory.
 * Targets: no stall and no other client's wait of 50 ms or more; cases the service can refuse
 * early (`fast`) answered in under 50 ms; peak memory under 300 MB above the idle service.
 */
async function measureSurfaces(base: string, rounds: number, only: string | undefined, searchLeads: number): Promise<string[]> {
  const meter = async () => (await (await fetch(`${base}/__bench/stall`)).json()) as { stall: number; peak_rss_mb: number }
  const { kinds, stop } = await surfaceKinds(base, ADMIN_TOKEN, { searchLeads })
  const failures: string[] = []
  try {
    await meter()
    await Bun.sleep(20)
    const idleRss = (await meter()).peak_rss_mb
    console.log(`\nImports, callbacks, search: ${rounds} rounds each; ms: median / worst; idle service ${idleRss.toFixed(0)} MB\n`)
    console.log(`${'case'.padEnd(52)} ${'KB'.padStart(6)} ${'status'.padStart(6)}  ${'answer ms'.padStart(13)}  ${'loop stall ms'.padStart(13)}  ${'others wait ms'.padStart(14)}  peak MB`)
    for (const kind of kinds.filter((k) => !only || k.name.includes(only))) {
      const times: number[] = []
      const stalls: number[] = []
      const waits: number[] = []
      let peak = 0
      let status = 0
      let code = ''
      for (let round = 0; round < rounds + 1; round++) {
        await meter()
        const { reply, elapsed, worstWait } = await withProbe(base, () => send(base, kind))
        const m = await meter()
        status = reply.status
        code = reply.code
        if (round === 0) continue
        times.push(elapsed)
        stalls.push(m.stall)
        waits.push(worstWait)
        peak = Math.max(peak, m.peak_rss_mb)
      }
      const [t50, tMax, s50, sMax, w50, wMax] = [median(times), Math.max(...times), median(stalls), Math.max(...stalls), median(waits), Math.max(...waits)]
      console.log(`${kind.name.padEnd(52)} ${String(Math.round(kind.bytes / 1000)).padStart(6)} ${String(status).padStart(6)}  ${fmt(t50, tMax)}  ${fmt(s50, sMax)}  ${fmt(w50, wMax).padStart(14)}  ${peak.toFixed(0).padStart(7)}  ${code}`)
      if (status >= 500) failures.push(`${kind.name}: ${status}`)
      if (sMax >= 50) failures.push(`${kind.name}: event-loop stall ${sMax.toFixed(1)} ms`)
      if (wMax >= 50) failures.push(`${kind.name}: another client waited ${wMax.toFixed(1)} ms`)
      if (kind.fast && tMax >= 50) failures.push(`${kind.name}: answered in ${tMax.toFixed(1)} ms`)
      if (peak - idleRss >= 300) failures.push(`${kind.name}: peak memory ${peak.toFixed(0)} MB (idle ${idleRss.toFixed(0)} MB)`)
    }
  } finally {
    await stop()
  }
  return failures
}

async function send(base: string, kind: SurfaceKind): Promise<{ status: number; code: string }> {
  const r = await fetch(`${base}${kind.path}`, { method: kind.method, headers: kind.headers, body: kind.body() }).catch((error: Error) => ({ status: 0, text: async () => error.message }))
  const text = await r.text()
  let code = ''
  try {
    code = r.status >= 400 ? (JSON.parse(text) as { error: { code: string } }).error.code : ''
  } catch {
    code = text.slice(0, 40)
  }
  return { status: r.status, code }
}

/** Runs `work` while GET /healthz is sent back to back; returns its reply, its time, and the slowest health check. */
async function withProbe<T>(base: string, work: () => Promise<T>): Promise<{ reply: T; elapsed: number; worstWait: number }> {
  let done = false
  let worstWait = 0
  const probe = (async () => {
    while (!done) {
      const started = performance.now()
      await fetch(`${base}/healthz`).then((r) => r.arrayBuffer())
      worstWait = Math.max(worstWait, performance.now() - started)
    }
  })()
  const started = performance.now()
  const reply = await work()
  const elapsed = performance.now() - started
  done = true
  await probe
  return { reply, elapsed, worstWait }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const fmt = (a: number, b: number) => `${a.toFixed(1).padStart(6)} / ${b.toFixed(1).padStart(6)}`

// Last, so every constant above is set before either side runs.
if (process.argv.includes('--server')) await runServer()
else await runBench()
