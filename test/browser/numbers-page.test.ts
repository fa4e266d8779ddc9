import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { basic, scratchDir } from '../harness'
import { serviceCommand, spawnService, type ServiceProcess } from '../process/spawn-service'
import { adminCli, axeFindings, signInAt } from './console-session'
import { launchChromium } from './launch'

setDefaultTimeout(60_000)

/**
 * The console's Numbers page in the shipped service (the compiled binary when
 * DIALER_TEST_BINARY is set): an owner sees the carrier (no secret), each caller ID's figures,
 * a number the hourly job rested with its evidence, and puts it back in use; axe finds nothing
 * serious. The calls are written into the service's database (the figures need 30 on each
 * side); the job itself runs in the service (POST /admin/jobs/caller_id_health/run).
 */

const ADMIN = 'browser-numbers-admin-token-0123456789'
const TOKEN = 'd'.repeat(32)
const [A, B, C] = ['+12125550101', '+12125550102', '+12125550103']
const work = scratchDir('dialer-console-numbers-')
const command = serviceCommand(work.path)
const dataDir = join(work.path, 'data')
let server: ServiceProcess | null = null
let browser: Browser | null = null
let base = ''
const seeded = { org: '', email: 'owner@numbers.example', password: '' }
const cli = adminCli(command, work.path, ADMIN, () => base)

/** n ended live calls from `callerId`, `answered` answered by a person, written as the dialer writes them. */
function writeCalls(db: Database, ids: { org: string; campaign: string; lead: string }, callerId: string, n: number, answered: number, now: number) {
  const insert = db.query(`INSERT INTO calls (id, org_id, campaign_id, lead_id, livemode, direction, status, outcome, duration_seconds, started, answered, ended, updated,
    answered_by, handled_by, started_by, carrier, caller_id, rang_at) VALUES (?, ?, ?, ?, 1, 'outbound', 'ended', ?, ?, ?, ?, ?, ?, ?, '{"id":null,"name":"AI","role":"ai"}', '{"type":"dialer","api_key_id":null}', 'twilio', ?, ?)`)
  for (let i = 0; i < n; i++) {
    const started = now - 60_000 - i * 1000
    const took = i < answered
    insert.run(crypto.randomUUID(), ids.org, ids.campaign, ids.lead, took ? 'not_interested' : 'no_answer', took ? 40 : 0,
      started, took ? started + 5000 : null, started + 30_000, started + 30_000, took ? 'person' : null, callerId, started + 1000)
  }
}

beforeAll(async () => {
  mkdirSync(join(work.path, 'run'))
  const started = await spawnService({
    command, dataDir, cwd: join(work.path, 'run'),
    env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_LOG_REQUESTS: '0', DIALER_CHECK_REPLIES: '1' },
  })
  server = started.proc
  base = started.base
  seeded.org = cli(['org', 'create', '--name', 'Numbers Roofing', '--timezone', 'America/New_York']).id
  const tokenFile = join(work.path, 'token')
  await Bun.write(tokenFile, `${TOKEN}\n`)
  cli(['org', 'carrier', seeded.org, '--twilio', '--account-sid', `AC${'ef'.repeat(16)}`, '--auth-token-file', tokenFile, '--caller-id', A, '--caller-id', B, '--caller-id', C])
  const campaign = cli(['campaign', 'create', '--org', seeded.org, '--name', 'Autumn roofs', '--status', 'paused', '--sdrs', 'Alex Rivera']).id
  seeded.password = cli(['user', 'create', '--org', seeded.org, '--email', seeded.email, '--role', 'owner', '--name', 'Olive Owner']).password
  const key = cli(['key', 'create', '--org', seeded.org, '--name', 'crm', '--mode', 'live'])
  const reply = await fetch(`${base}/api/v1/external/leads`, {
    method: 'POST', headers: { authorization: basic(key.id, key.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ campaign_id: campaign, phone: '(212) 555-3010', name: 'Bea Park' }),
  })
  const lead = ((await reply.json()) as { data: { id: string } }).data.id
  const db = new Database(join(dataDir, 'dialer.db'))
  db.run('PRAGMA busy_timeout = 5000')
  const ids = { org: seeded.org, campaign, lead }
  writeCalls(db, ids, A, 40, 2, Date.now())
  writeCalls(db, ids, B, 40, 20, Date.now())
  writeCalls(db, ids, C, 40, 18, Date.now())
  db.close()
  const ran = await fetch(`${base}/api/v1/admin/jobs/caller_id_health/run`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}` } })
  expect(ran.status).toBe(200)
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.kill('SIGTERM')
  await server?.exited
  work.remove()
})

describe('console: Numbers', () => {
  test('an owner sees the carrier, the figures and the rested number with its evidence, and puts it back in use; axe clean', async () => {
    const page = await browser!.newPage()
    await signInAt(page, base, { email: seeded.email, password: seeded.password }, true)
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Numbers', exact: true }).click()
    await page.getByRole('heading', { name: 'Numbers', level: 1 }).waitFor()
    await page.waitForFunction(`document.title === 'Numbers · Numbers Roofing · Dialer console'`)
    await page.getByText('not rotation to get past carrier spam labels').waitFor()
    const carrier = page.locator('tr[data-carrier="twilio"]')
    expect(await carrier.textContent()).toContain(`${A}, ${B}, ${C}`)
    expect(await carrier.textContent()).toContain('auth_token')
    expect(await page.content()).not.toContain(TOKEN)
    const rested = page.locator(`tr[data-number="${A}"]`)
    expect(await rested.textContent()).toContain('rested until')
    expect(await rested.textContent()).toContain('5%')
    expect(await rested.textContent()).toContain("answer rate 5% is under half of the campaign's other numbers' 47.5%")
    expect(await page.locator(`tr[data-number="${B}"]`).textContent()).toContain('in use')
    expect(await axeFindings(page)).toEqual([])

    page.on('dialog', (dialog) => void dialog.accept())
    await page.getByRole('button', { name: `Put back in use: ${A}` }).click()
    await page.getByRole('button', { name: `Put back in use: ${A}` }).waitFor({ state: 'detached', timeout: 5_000 })
    expect(await rested.textContent()).not.toContain('rested until')
    expect(await rested.textContent()).toContain('in use')
    expect(await axeFindings(page)).toEqual([])
    await page.close()
  })
})
