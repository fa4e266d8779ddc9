/**
 * The national Do Not Call registry benchmark (issue 17, "Speed"; docs/dnc-registry.md):
 * a 10,000,000-line file imported through the domain and the store, the boot load of the
 * stored list, lookups a second, and once through HTTP into a started service. Each phase is
 * a child process of its own, so its peak RSS (VmHWM) is its own. References measured in the
 * same run: reading the file alone, and a plain `Set<number>` of the same numbers.
 *
 *   bun run scripts/bench/registry.ts            (REGISTRY_LINES=10000000 by default)
 */
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { migrate, openDatabase } from '../../src/db/client'
import { createStores } from '../../src/db/stores'
import { nationalRegistry } from '../../src/domain/dnc/national-registry'
import { systemClock } from '../../src/jobs/clock'
import { ADMIN_TOKEN, fmt, log, memoryOf, printTable, startService, stop, verdict } from './lib'

const LINES = Number(process.env.REGISTRY_LINES ?? 10_000_000)
const WORK = '/tmp/dialer-registry-bench'
const FILE = join(WORK, `registry-${LINES}.txt`)
const PROBES = 5_000_000

type Figures = Record<string, number>

/** Peak and current RSS of this process, MB. */
const memory = () => memoryOf(process.pid) ?? { rss: NaN, hwm: NaN }

/** A random number generator with a seed (the same file every run). */
function rng(seed: number) {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** 300 area codes, numbers spread over exchanges 200-999: about 33,000 numbers an area code. */
const AREAS = Array.from({ length: 300 }, (_, i) => 201 + i * 2 + (i % 7 === 3 ? 1 : 0))

async function generate(): Promise<void> {
  if (existsSync(FILE)) return
  mkdirSync(WORK, { recursive: true })
  const random = rng(17)
  const writer = Bun.file(FILE).writer()
  const line = new Uint8Array(11 * 100_000)
  for (let done = 0; done < LINES; done += 100_000) {
    const n = Math.min(100_000, LINES - done)
    for (let i = 0; i < n; i++) {
      const area = AREAS[Math.floor(random() * AREAS.length)]!
      const sub = 2_000_000 + Math.floor(random() * 8_000_000)
      const digits = `${area}${sub}`
      for (let d = 0; d < 10; d++) line[i * 11 + d] = digits.charCodeAt(d)
      line[i * 11 + 10] = 10
    }
    writer.write(line.subarray(0, n * 11))
  }
  await writer.end()
}

/** Random probes: half numbers of the file's area codes (some listed), half anywhere. */
function probes(): string[] {
  const random = rng(99)
  return Array.from({ length: PROBES }, (_, i) => {
    const area = i % 2 === 0 ? AREAS[Math.floor(random() * AREAS.length)]! : 200 + Math.floor(random() * 800)
    return `+1${area}${2_000_000 + Math.floor(random() * 8_000_000)}`
  })
}

function lookupsPerSecond(has: (e164: string) => boolean): { perSecond: number; hits: number } {
  const list = probes()
  let hits = 0
  const started = performance.now()
  for (let i = 0; i < list.length; i++) if (has(list[i]!)) hits++
  return { perSecond: list.length / ((performance.now() - started) / 1000), hits }
}

// ---- phases (each in its own process) ----

async function phaseRead(): Promise<Figures> {
  const started = performance.now()
  let bytes = 0
  for await (const chunk of Bun.file(FILE).stream()) bytes += chunk.byteLength
  return { seconds: (performance.now() - started) / 1000, bytes, hwm: memory().hwm }
}

async function phaseSet(): Promise<Figures> {
  const started = performance.now()
  const set = new Set<number>()
  let value = 0
  for await (const chunk of Bun.file(FILE).stream()) {
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!
      if (b === 10) {
        set.add(value)
        value = 0
      } else value = value * 10 + (b - 48)
    }
  }
  const seconds = (performance.now() - started) / 1000
  const built = memory()
  const lookups = lookupsPerSecond((e164) => set.has(Number(e164.slice(2))))
  return { seconds, total: set.size, hwm: built.hwm, rss: built.rss, lookups: lookups.perSecond, hits: lookups.hits }
}

function openRegistry(dbFile: string) {
  const database = openDatabase(dbFile, { groupCommits: true })
  migrate(database)
  const stores = createStores(database)
  return { database, registry: nationalRegistry({ store: stores.registry, clock: systemClock }) }
}

async function phaseImport(): Promise<Figures> {
  const dbFile = join(WORK, 'import', 'dialer.db')
  rmSync(join(WORK, 'import'), { recursive: true, force: true })
  const { database, registry } = openRegistry(dbFile)
  const started = performance.now()
  // The longest the event loop waited during the import (a request's worst extra latency).
  let longestStall = 0
  let last = performance.now()
  const ticker = setInterval(() => {
    const now = performance.now()
    longestStall = Math.max(longestStall, now - last - 5)
    last = now
  }, 5)
  const report = await registry.import(Bun.file(FILE).stream())
  clearInterval(ticker)
  const seconds = (performance.now() - started) / 1000
  // Before the probes (5 million strings) are made.
  const imported = memory()
  const lookups = lookupsPerSecond(registry.isListed)
  database.close()
  return {
    seconds, total: report.total, duplicates: report.duplicates, rejected: report.rejectedCount, hwm: imported.hwm, rss: imported.rss,
    lookups: lookups.perSecond, hits: lookups.hits, stallMs: longestStall, dbMb: statSync(dbFile).size / 1024 / 1024,
  }
}

async function phaseBoot(): Promise<Figures> {
  const { database, registry } = openRegistry(join(WORK, 'import', 'dialer.db'))
  const ms = registry.load()
  const figures = { loadMs: ms, total: registry.total, hwm: memory().hwm, rss: memory().rss }
  database.close()
  return figures
}

async function phaseHttp(): Promise<Figures> {
  const dataDir = join(WORK, 'http')
  rmSync(dataDir, { recursive: true, force: true })
  const service = await startService({ dataDir, logFile: join(WORK, 'http-service.log') })
  try {
    const before = memoryOf(service.proc.pid)
    const started = performance.now()
    const r = await fetch(`${service.base}/api/v1/admin/dnc_registry`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' }, body: Bun.file(FILE),
    })
    const body = (await r.json()) as { data?: { total: number } }
    const seconds = (performance.now() - started) / 1000
    const after = memoryOf(service.proc.pid)
    await stop(service.proc)
    // A second boot of the same data directory loads the stored list.
    const again = await startService({ dataDir, logFile: join(WORK, 'http-service-2.log') })
    const boot = memoryOf(again.proc.pid)
    await stop(again.proc)
    return {
      status: r.status, seconds, total: body.data?.total ?? NaN, rssBefore: before?.rss ?? NaN, hwm: after?.hwm ?? NaN,
      bootMs: again.bootMs, bootRss: boot?.rss ?? NaN, firstBootMs: service.bootMs,
    }
  } finally {
    if (service.proc.exitCode === null) await stop(service.proc)
  }
}

const PHASES: Record<string, () => Promise<Figures>> = { read: phaseRead, set: phaseSet, import: phaseImport, boot: phaseBoot, http: phaseHttp }

async function child(name: string): Promise<Figures> {
  const proc = Bun.spawn([process.execPath, 'run', import.meta.path, '--phase', name], { env: process.env, stdout: 'pipe', stderr: 'inherit' })
  const [code, out] = await Promise.all([proc.exited, new Response(proc.stdout).text()])
  if (code !== 0) throw new Error(`phase ${name} exited with ${code}`)
  return JSON.parse(out.trim().split('\n').at(-1)!) as Figures
}

async function main(): Promise<void> {
  const phase = process.argv.indexOf('--phase')
  if (phase > 0) {
    console.log(JSON.stringify(await PHASES[process.argv[phase + 1]!]!()))
    return
  }
  log(`generating ${fmt(LINES)} lines in ${FILE} (kept for later runs)`)
  await generate()
  log(`file: ${fmt(statSync(FILE).size / 1024 / 1024)} MB`)
  const read = await child('read')
  const set = await child('set')
  const imported = await child('import')
  const boot = await child('boot')
  const http = process.env.REGISTRY_HTTP === '0' ? null : await child('http')
  const s = (n: number) => `${fmt(n, 2)} s`
  const mb = (n: number) => `${fmt(n)} MB`
  printTable([
    ['figure', 'registry', 'reference', 'target'],
    ['import through domain + store', s(imported.seconds!), `read only ${s(read.seconds!)}; Set<number> ${s(set.seconds!)}`, `< 20 s: ${verdict(imported.seconds! < 20)}`],
    ['peak RSS of the import process', mb(imported.hwm!), `read only ${mb(read.hwm!)}; Set<number> ${mb(set.hwm!)}`, `< 200 MB: ${verdict(imported.hwm! < 200)}`],
    ['numbers (distinct)', fmt(imported.total!), fmt(set.total!), ''],
    ['duplicates / rejected lines', `${fmt(imported.duplicates!)} / ${fmt(imported.rejected!)}`, '', ''],
    ['lookups a second (isListed)', fmt(imported.lookups!), `Set<number> ${fmt(set.lookups!)}`, ''],
    ['hits in the probes', fmt(imported.hits!), fmt(set.hits!), 'equal'],
    ['longest event-loop stall during the import', `${fmt(imported.stallMs!)} ms`, '', ''],
    ['database file', mb(imported.dbMb!), '', ''],
    ['boot load of the stored list', `${fmt(boot.loadMs!)} ms`, '', ''],
    ['RSS after the boot load', `${mb(boot.rss!)} (peak ${mb(boot.hwm!)})`, '', ''],
    ...(http ? [
      ['HTTP import into a started service', `${s(http.seconds!)} (HTTP ${http.status}, ${fmt(http.total!)})`, '', `< 20 s: ${verdict(http.seconds! < 20)}`],
      ['service peak RSS (VmHWM) after it', `${mb(http.hwm!)} (${mb(http.rssBefore!)} before)`, '', `< 200 MB: ${verdict(http.hwm! < 200)}`],
      ['service boot with the list stored', `${fmt(http.bootMs!)} ms, RSS ${mb(http.bootRss!)}`, `empty: ${fmt(http.firstBootMs!)} ms`, ''],
    ] : []),
  ])
}

await main()
