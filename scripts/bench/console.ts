/**
 * Console benchmark (issue 19): every console page with 1,000,000 leads and 1,000,000 calls
 * stored, measured in a real browser, beside the same pages of an empty organization of the same
 * service in the same run (the reference). Needs Chromium (`apt-get install -y chromium`).
 *
 *   bun run scripts/bench/console.ts [--rows 1000000] [--visits 5]
 *
 * - The service (`bun run src/main.ts serve`, as shipped, request log to a file) makes two
 *   organizations with a campaign and an owner each; it is stopped, `rows` leads (one ended call
 *   each, the simulator's outcomes) written straight into SQLite for the first, and started again.
 * - Chromium (playwright-core) signs in as each owner and opens each page `visits` times:
 *   first contentful paint (the Paint Timing API), the time until the page shows its data (no
 *   "Loading…" left), and every /console/api request's duration (Resource Timing).
 * - Targets: first paint under 1 s on every page; console API p99 under 100 ms; bundle under
 *   300 KB gzipped (printed by `bun run console:build`).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { launchChromium } from '../../test/browser/launch'
import { ADMIN_TOKEN, adminClient, bulkClose, bulkOpen, dropIndexes, finishBench, fmt, log, percentile, printTable, sortedCopy, startService, stop, verdict } from './lib'

const { values } = parseArgs({ options: { rows: { type: 'string', default: '1000000' }, visits: { type: 'string', default: '5' } } })
const rows = Number(values.rows)
const visits = Number(values.visits)
const work = mkdtempSync(join(tmpdir(), 'dialer-bench-console-'))
const dataDir = join(work, 'data')
const PASSWORD = 'bench password 123'
const OUTCOMES: [string, string, string | null, number][] = [
  ['no_answer', 'No answer', null, 0], ['busy', 'Busy', null, 0], ['voicemail', 'Voicemail', 'machine', 27],
  ['not_interested', 'Not interested', 'person', 40], ['interested', 'Interested', 'person', 89], ['hung_up', 'Hung up', 'person', 7],
]

/** `count` ended calls, one a lead, straight into SQLite (indexes dropped and rebuilt): about 23 days of calls 2 s apart. */
function seed(orgId: string, campaignId: string, count: number): void {
  const db = bulkOpen(join(dataDir, 'dialer.db'))
  const lead = db.prepare(
    `INSERT INTO leads (id, org_id, campaign_id, livemode, phone, name, email, fields, lead_source, status, call_now, queued_at, late, attempts, last_outcome, last_outcome_label, last_posted_at, created, updated)
     VALUES (?1, ?2, ?3, 1, ?4, ?5, ?6, '{}', 'import', 'done', 0, ?7, 0, 1, ?8, ?9, ?7, ?7, ?7)`,
  )
  const call = db.prepare(
    `INSERT INTO calls (id, org_id, campaign_id, lead_id, livemode, key_id, direction, status, outcome, outcome_label, note, duration_seconds,
       started, answered, ended, updated, answered_by, handled_by, owner, tth_seconds, callback_at, intent, recording_available, transcript_available,
       started_by, revision, outcome_due_at, carrier)
     VALUES (?1, ?2, ?3, ?4, 1, NULL, 'outbound', 'ended', ?5, ?6, NULL, ?7, ?8, ?9, ?10, ?10, ?11, '{"id":null,"name":"AI assistant","role":"ai"}', NULL, NULL, NULL, NULL, 0, 0,
       '{"type":"dialer","api_key_id":null}', 1, NULL, 'simulator')`,
  )
  const first = Date.now() - 3_600_000 - count * 2000
  db.transaction(() => {
    const rebuildLeads = dropIndexes(db, 'leads')
    const rebuildCalls = dropIndexes(db, 'calls')
    for (let i = 0; i < count; i++) {
      const at = first + i * 2000
      const leadId = Bun.randomUUIDv7('hex', at - 1000)
      const [outcome, label, answeredBy, seconds] = OUTCOMES[(i * 2654435761) % OUTCOMES.length]!
      // Exchanges 200-999, four digits each: unique New York numbers.
      lead.run(leadId, orgId, campaignId, `+1212${200 + Math.floor(i / 10_000)}${String(i % 10_000).padStart(4, '0')}`, `Lead ${i}`, `lead${i}@example.com`, at - 1000, outcome, label)
      call.run(Bun.randomUUIDv7('hex', at), orgId, campaignId, leadId, outcome, label, seconds, at, answeredBy ? at + 5000 : null, at + 5000 + seconds * 1000, answeredBy)
    }
    rebuildLeads()
    rebuildCalls()
  })()
  lead.finalize()
  call.finalize()
  db.run('ANALYZE')
  bulkClose(db)
}

interface PageFigure { page: string; paint: number[]; ready: number[] }

let exitCode = 0
let service = await startService({ dataDir, logFile: join(work, 'service-1.log') })
try {
  const admin = adminClient(service.base)
  const orgs: { name: string; id: string; campaign: string; email: string }[] = []
  for (const name of ['Big', 'Empty']) {
    const org = await admin('/orgs', { name, timezone: 'America/New_York' })
    const campaign = await admin(`/orgs/${org.id}/campaigns`, { name: `${name} campaign`, status: 'paused', sdrs: [{ name: 'Alex' }] })
    const email = `${name.toLowerCase()}@bench.example`
    await admin(`/orgs/${org.id}/users`, { email, role: 'owner', password: PASSWORD })
    orgs.push({ name, id: org.id, campaign: campaign.id, email })
  }
  await stop(service.proc)
  const seedStart = performance.now()
  seed(orgs[0]!.id, orgs[0]!.campaign, rows)
  log(`Console benchmark, Bun ${Bun.version}: ${fmt(rows)} leads and ${fmt(rows)} calls written in ${fmt((performance.now() - seedStart) / 1000, 1)} s`)
  service = await startService({ dataDir, logFile: join(work, 'service-2.log') })

  const browser = await launchChromium()
  const results = new Map<string, { pages: PageFigure[]; api: number[] }>()
  try {
    for (const org of orgs) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
      const page = await context.newPage()
      await page.goto(`${service.base}/console`)
      await page.getByLabel('Email').fill(org.email)
      await page.getByLabel('Password').fill(PASSWORD)
      await page.getByRole('button', { name: 'Sign in', exact: true }).click()
      await page.getByRole('button', { name: 'Sign out' }).waitFor()
      // Ids to open: a lead and a call from the middle of the data, if there is any.
      const ids = await page.evaluate(async (orgId) => {
        const calls = (await (await fetch(`/console/api/orgs/${orgId}/calls?limit=1`)).json()) as { data: { id: string }[] }
        const leads = (await (await fetch(`/console/api/orgs/${orgId}/leads?limit=1`)).json()) as { data: { id: string }[] }
        return { call: calls.data[0]?.id ?? null, lead: leads.data[0]?.id ?? null }
      }, org.id)
      const paths = [
        'campaigns', 'leads', 'leads&q=(212) 555-0001', 'leads&q=Lead 999999', 'calls', 'calls&outcome=busy', 'dnc', 'webhooks', 'events', 'usage', 'keys', 'import',
        ...(ids.lead ? [`leads/${ids.lead}`] : []), ...(ids.call ? [`calls/${ids.call}`] : []),
      ]
      const figures: PageFigure[] = []
      const api: number[] = []
      for (const path of paths) {
        const figure: PageFigure = { page: path.replace(/[0-9a-f-]{36}/, 'ID'), paint: [], ready: [] }
        const [route, query] = path.split('&')
        for (let v = 0; v < visits; v++) {
          const started = performance.now()
          await page.goto(`${service.base}/console/${route}?org=${org.id}${query ? `&${encodeURI(query)}` : ''}`)
          await page.locator('main h1').first().waitFor()
          // In the page (DOM types are not this file's): no "Loading…" left.
          await page.waitForFunction(() => !(globalThis as any).document.body.textContent.includes('Loading…'), undefined, { timeout: 30_000 })
          figure.ready.push(performance.now() - started)
          const timings = await page.evaluate(() => ({
            paint: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
            api: performance.getEntriesByType('resource').filter((e) => e.name.includes('/console/api/') && !e.name.includes('/stream')).map((e) => e.duration),
          }))
          figure.paint.push(timings.paint)
          api.push(...timings.api)
        }
        figures.push(figure)
      }
      results.set(org.name, { pages: figures, api })
      await context.close()
    }
  } finally {
    await browser.close()
  }

  const big = results.get('Big')!
  const empty = results.get('Empty')!
  const worst = (list: number[]) => Math.max(...list)
  const table: string[][] = [['page', `${fmt(rows)} leads + calls: first paint / data shown (worst of ${visits})`, 'empty organization (reference)', '']]
  for (const figure of big.pages) {
    const reference = empty.pages.find((p) => p.page === figure.page)
    const ok = worst(figure.paint) < 1000
    if (!ok) exitCode = 1
    table.push([
      figure.page, `${fmt(worst(figure.paint))} ms / ${fmt(worst(figure.ready))} ms`,
      reference ? `${fmt(worst(reference.paint))} ms / ${fmt(worst(reference.ready))} ms` : '—', verdict(ok),
    ])
  }
  const apiBig = sortedCopy(big.api)
  const apiEmpty = sortedCopy(empty.api)
  const apiOk = percentile(apiBig, 0.99) < 100
  if (!apiOk) exitCode = 1
  table.push([
    `console API requests (${fmt(apiBig.length)})`, `p50 ${fmt(percentile(apiBig, 0.5), 1)} ms, p99 ${fmt(percentile(apiBig, 0.99), 1)} ms, max ${fmt(percentile(apiBig, 1), 1)} ms`,
    `p50 ${fmt(percentile(apiEmpty, 0.5), 1)} ms, p99 ${fmt(percentile(apiEmpty, 0.99), 1)} ms`, verdict(apiOk),
  ])
  log('')
  printTable(table)
  log('\ntargets: first paint < 1 s on every page; console API p99 < 100 ms. "data shown" is from navigation to no "Loading…" left on the page.')
} catch (error) {
  console.error(error)
  exitCode = 1
}
await finishBench(work, service.proc, exitCode)
