/**
 * Helpers for the HTTP benchmarks (scripts/bench/*.ts): the service and a bare Bun.serve as
 * child processes, the admin API, wrk with a generated Lua script, and /proc memory figures.
 * Same approach as scripts/bench/http.ts.
 */
import { Database } from 'bun:sqlite'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export const ROOT = join(import.meta.dir, '../..')
export const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef'

export type Child = ReturnType<typeof Bun.spawn>

export function requireWrk(): void {
  if (Bun.spawnSync(['which', 'wrk']).exitCode !== 0) {
    console.error('wrk is needed: apt-get install -y wrk')
    process.exit(1)
  }
}

/** A port nothing listens on right now (the kernel's pick). */
export function freePort(): number {
  const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
  const port = server.port!
  server.stop(true)
  return port
}

/** Polls until `url` answers 2xx; returns the milliseconds it took. */
export async function waitFor(url: string, options: { timeoutMs?: number; intervalMs?: number; child?: Child } = {}): Promise<number> {
  const start = performance.now()
  const timeout = options.timeoutMs ?? 10_000
  while (performance.now() - start < timeout) {
    if (options.child?.exitCode !== null && options.child?.exitCode !== undefined) {
      throw new Error(`${url}: the process exited with ${options.child.exitCode} before answering`)
    }
    try {
      if ((await fetch(url)).ok) return performance.now() - start
    } catch {
      // not up yet
    }
    await Bun.sleep(options.intervalMs ?? 50)
  }
  throw new Error(`${url} did not come up within ${timeout} ms`)
}

/** A bare Bun.serve answering a small JSON object: the ceiling the service is compared with. */
export async function startBare(port = freePort()): Promise<{ proc: Child; url: string }> {
  const proc = Bun.spawn([process.execPath, '-e',
    `Bun.serve({ port: ${port}, hostname: '127.0.0.1', fetch: () => Response.json({ data: { id: 'x', name: 'bare', livemode: true } }) })`,
  ], { stdout: 'ignore', stderr: 'inherit' })
  const url = `http://127.0.0.1:${port}`
  await waitFor(url, { child: proc })
  return { proc, url }
}

/**
 * `bun run src/main.ts serve --port P --data-dir DIR` with DIALER_ADMIN_TOKEN set, its request
 * log (on, as shipped) going to `logFile`. Resolves once /healthz answers; `bootMs` is the time
 * from spawning to that first answer.
 */
export async function startService(options: { dataDir: string; logFile: string; port?: number; timeoutMs?: number; intervalMs?: number }): Promise<{ proc: Child; base: string; bootMs: number }> {
  const port = options.port ?? freePort()
  const start = performance.now()
  // DIALER_BENCH_PROFILE=DIR writes a CPU profile (markdown) of the service into DIR on exit.
  const profile = process.env.DIALER_BENCH_PROFILE ? ['--cpu-prof-md', `--cpu-prof-dir=${process.env.DIALER_BENCH_PROFILE}`] : []
  const proc = Bun.spawn([process.execPath, ...profile, 'run', join(ROOT, 'src/main.ts'), 'serve', '--port', String(port), '--data-dir', options.dataDir], {
    env: { ...process.env, DIALER_ADMIN_TOKEN: ADMIN_TOKEN },
    stdout: Bun.file(options.logFile),
    stderr: 'inherit',
  })
  const base = `http://127.0.0.1:${port}`
  await waitFor(`${base}/healthz`, { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: options.intervalMs ?? 10, child: proc })
  return { proc, base, bootMs: performance.now() - start }
}

export async function stop(proc: Child): Promise<void> {
  if (proc.exitCode === null) proc.kill('SIGTERM')
  await proc.exited
}

/** A benchmark's end, whatever happened: the service stopped, its scratch folder removed, the process exits with `exitCode`. */
export async function finishBench(work: string, proc: Child, exitCode: number): Promise<never> {
  await stop(proc)
  rmSync(work, { recursive: true, force: true })
  process.exit(exitCode)
}

/** POST to the admin API with the Bearer token; returns `data` of the reply. */
export function adminClient(base: string, token = ADMIN_TOKEN) {
  return async function admin(path: string, body: unknown): Promise<any> {
    const r = await fetch(`${base}/api/v1/admin${path}`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    })
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`)
    return ((await r.json()) as { data: any }).data
  }
}

export const basicAuth = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

/** A Lua string literal (ASCII input: JSON's escapes are Lua's). */
export const lua = (value: string) => JSON.stringify(value)

export interface WrkOptions {
  url: string
  /** Full Lua source; its done() must write one line `JSON{...}` (see wrkDone). */
  script: string
  scriptFile: string
  seconds: number
  connections: number
  threads?: number
  /** wrk's per-request timeout (its default is 2 s; a reply slower than this is a socket error, not a latency). */
  timeoutSeconds?: number
}

/** Runs wrk and returns the object its script printed after `JSON`. */
export function runWrk(options: WrkOptions): Record<string, any> {
  writeFileSync(options.scriptFile, options.script)
  const out = Bun.spawnSync(['wrk', `-t${options.threads ?? 2}`, `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', `${options.timeoutSeconds ?? 2}s`, '--latency', '-s', options.scriptFile, options.url])
  return resultLine('wrk', out)
}

/** The object a load tool printed after `JSON` on a line of its own. */
function resultLine(tool: string, out: { stdout: Buffer; stderr: Buffer }): Record<string, any> {
  const text = out.stdout.toString()
  const line = text.split('\n').find((l) => l.startsWith('JSON'))
  if (!line) throw new Error(`${tool} gave no result:\n${text}\n${out.stderr.toString()}`)
  return JSON.parse(line.slice(4))
}

/**
 * Runs latency-client.ts (GETs over keep-alive connections, timed with the monotonic clock) in
 * its own process and returns the object it printed after `JSON` (times in microseconds).
 */
export function runLatencyClient(options: { url: string; requests: { path: string; auth: string }[]; requestsFile: string; seconds: number; connections: number; expect?: string }): Record<string, any> {
  writeFileSync(options.requestsFile, JSON.stringify(options.requests))
  const args = ['--url', options.url, '--requests', options.requestsFile, '--seconds', String(options.seconds), '--connections', String(options.connections)]
  if (options.expect) args.push('--expect', options.expect)
  return resultLine('latency client', Bun.spawnSync([process.execPath, 'run', join(ROOT, 'scripts/bench/latency-client.ts'), ...args]))
}

/**
 * Lua shared by the generated scripts: thread bookkeeping (each thread gets `tid`, 0-based),
 * a `bad` counter and the first bad reply's status and body, and a done() printing requests,
 * seconds, p50/p99 (microseconds), bad replies, socket errors and `used` (the largest value
 * of the per-thread global `used`, 0 if the script keeps none).
 */
export const wrkCommon = `
local threads = {}
bad = 0
used = 0
first_status = 0
first_body = ""
function setup(thread)
  thread:set("tid", #threads)
  table.insert(threads, thread)
end
function note_bad(status, body)
  bad = bad + 1
  if first_status == 0 then
    first_status = status
    first_body = string.gsub(string.sub(body or "", 1, 300), '[%c"\\\\]', "'")
  end
end
function done(summary, latency, requests)
  local b, u, fs, fb = 0, 0, 0, ""
  for _, t in ipairs(threads) do
    b = b + t:get("bad")
    local tu = t:get("used")
    if tu > u then u = tu end
    if fs == 0 and t:get("first_status") ~= 0 then
      fs = t:get("first_status")
      fb = t:get("first_body")
    end
  end
  local e = summary.errors
  io.write(string.format('JSON{"requests":%d,"seconds":%f,"p50":%d,"p99":%d,"bad":%d,"socket_errors":%d,"used":%d,"first_status":%d,"first_body":"%s"}\\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99), b,
    e.connect + e.read + e.write + e.timeout, u, fs, fb))
end
`

/**
 * A wrk script that sends `requests` in turn (each GET with its Authorization), each thread
 * starting at a random one; a reply counts as bad when the Lua condition `badIf` (over
 * `status` and `body`) holds.
 */
export function rotatingGets(requests: { path: string; auth: string }[], badIf: string): string {
  const rows = requests.map((r) => `{${lua(r.path)},${lua(r.auth)}}`).join(',\n')
  return `${wrkCommon}
local reqs = {${rows}}
local i = 0
function init(args) i = math.random(#reqs) end
function request()
  i = (i % #reqs) + 1
  return wrk.format("GET", reqs[i][1], {["Authorization"] = reqs[i][2]})
end
function response(status, headers, body)
  if ${badIf} then note_bad(status, body) end
end
`
}

/** VmRSS and VmHWM of a process, in MB (null once it is gone). */
export function memoryOf(pid: number): { rss: number; hwm: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN)
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 }
  } catch {
    return null
  }
}

/** The median of a list of rounds by one figure. */
export function medianBy<T>(list: T[], by: (item: T) => number): T {
  return [...list].sort((a, b) => by(a) - by(b))[Math.floor(list.length / 2)]!
}

/** The value at fraction `p` (0..1) of an ascending list. */
/** The machine's CPU time so far (/proc/stat, all CPUs, in ticks): the share `steal` took is what the hypervisor gave to other guests. */
export function cpuTicks(): { steal: number; total: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    return { steal: fields[7] ?? 0, total: fields.reduce((a, b) => a + b, 0) }
  } catch {
    return { steal: 0, total: 0 }
  }
}

/** Percent of the machine's CPU the hypervisor took between two readings (0 where /proc/stat is missing). */
export function stealPercent(before: { steal: number; total: number }, after: { steal: number; total: number }): number {
  const total = after.total - before.total
  return total > 0 ? (100 * (after.steal - before.steal)) / total : 0
}

export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}

/** Drops a table's indexes; returns a function that builds them again (a sort, faster than growing b-trees row by row). */
export function dropIndexes(db: Database, table: string): () => void {
  const indexes = db.query<{ name: string; sql: string }, [string]>(
    "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
  ).all(table)
  for (const index of indexes) db.run(`DROP INDEX "${index.name}"`)
  return () => {
    for (const index of indexes) db.run(index.sql)
  }
}

/** The service's database file opened for bulk seeding: journal in memory, no syncs. */
export function bulkOpen(path: string): Database {
  const db = new Database(path)
  db.run('PRAGMA busy_timeout = 10000')
  // A closed service's checkpointer thread may still hold its connection for a moment, and
  // leaving WAL mode needs every other connection gone (no busy wait applies): try for 10 s.
  for (let tries = 0; ; tries++) {
    try {
      db.run('PRAGMA journal_mode = MEMORY')
      break
    } catch (error) {
      if (tries >= 200) throw error
      Bun.sleepSync(50)
    }
  }
  db.run('PRAGMA synchronous = OFF')
  db.run('PRAGMA cache_size = -262144')
  return db
}

/** Back to WAL, as the service expects the file. */
export function bulkClose(db: Database): void {
  db.run('PRAGMA journal_mode = WAL')
  db.close()
}

// ---- report helpers shared by the benchmarks ----

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
export const log = (line: string) => console.log(line)
export const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met')
export const sortedCopy = (list: ArrayLike<number>) => Float64Array.from(list).sort()

/** Prints rows as a table: the first row is the header, underlined; `align` pads a column's cells on the left or right. */
export function printTable(rows: string[][], align: (column: number) => 'left' | 'right' = () => 'left'): void {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  for (const [i, row] of rows.entries()) {
    log(row.map((cell, c) => (align(c) === 'left' ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  ').trimEnd())
    if (i === 0) log(widths.map((w) => '-'.repeat(w)).join('  '))
  }
}
