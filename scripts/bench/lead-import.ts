/**
 * Lead CSV import benchmark (issue 19: "a 100,000-row CSV imports in under 30 s"): the service
 * as a child process (`bun run src/main.ts serve`, as other benches), one organization and a
 * paused campaign (imported leads are held, not dialed), a CSV of `rows` unique New York numbers
 * with name, email and a custom field, sent to POST /api/v1/admin/orgs/{id}/leads/import.
 * Reference in the same run: the same file as a dry run (every check, nothing written), so the
 * write cost is what remains.
 *
 *   bun run scripts/bench/lead-import.ts [--rows 100000]
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { ADMIN_TOKEN, adminClient, finishBench, fmt, log, memoryOf, printTable, startService, verdict } from './lib'

const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' } } })
const rows = Number(values.rows)
const work = mkdtempSync(join(tmpdir(), 'dialer-bench-import-'))
let exitCode = 0
const service = await startService({ dataDir: join(work, 'data'), logFile: join(work, 'service.log') })
try {
  const admin = adminClient(service.base)
  const org = await admin('/orgs', { name: 'Import bench', plan_requests_per_minute: 100_000 })
  const campaign = await admin(`/orgs/${org.id}/campaigns`, { name: 'Import bench', status: 'paused', sdrs: [{ name: 'Alex' }] })
  // Exchanges 200-999 (valid), four digits each: up to 8,000,000 unique numbers.
  const lines = ['phone,name,email,fields.source']
  for (let i = 0; i < rows; i++) lines.push(`+1212${200 + Math.floor(i / 10_000)}${String(i % 10_000).padStart(4, '0')},Lead ${i},lead${i}@example.com,bench`)
  const csv = `${lines.join('\n')}\n`
  log(`Lead import benchmark, Bun ${Bun.version}; ${fmt(rows)} rows, ${fmt(csv.length / 1024 / 1024, 1)} MB of CSV`)
  const send = async (dryRun: boolean) => {
    const started = performance.now()
    const r = await fetch(`${service.base}/api/v1/admin/orgs/${org.id}/leads/import?campaign_id=${campaign.id}&dry_run=${dryRun}`, {
      method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' }, body: csv, signal: AbortSignal.timeout(300_000),
    })
    const body = (await r.json()) as { data: { imported: number; failed: number } }
    if (!r.ok) throw new Error(`import answered ${r.status}: ${JSON.stringify(body)}`)
    return { seconds: (performance.now() - started) / 1000, ...body.data }
  }
  const dry = await send(true)
  const real = await send(false)
  const memory = memoryOf(service.proc.pid)
  const ok = real.imported === rows && real.failed === 0
  if (!ok) exitCode = 1
  log('')
  printTable([
    ['measure', 'figure', 'target', ''],
    [`import ${fmt(rows)} rows (checked and written)`, `${fmt(real.seconds, 1)} s (${fmt(rows / real.seconds)} rows/s), imported ${fmt(real.imported)}, failed ${fmt(real.failed)}`, '< 30 s', verdict(real.seconds < 30 && ok)],
    ['  same file as a dry run (checks only)', `${fmt(dry.seconds, 1)} s (${fmt(rows / dry.seconds)} rows/s)`, '(reference)', ''],
    ['  service RSS after / peak', memory ? `${fmt(memory.rss)} MB / ${fmt(memory.hwm)} MB` : '?', '(reference)', ''],
  ])
} catch (error) {
  console.error(error)
  exitCode = 1
}
await finishBench(work, service.proc, exitCode)
