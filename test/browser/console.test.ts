import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { basic, scratchDir } from '../harness'
import { daytimeStart, startClock, type RunningClock } from '../process/daytime-clock'
import { serviceCommand, spawnService, type ServiceProcess } from '../process/spawn-service'
import { adminCli, axeFindings, signInAt } from './console-session'
import { launchChromium } from './launch'

setDefaultTimeout(60_000)

/**
 * Issue 19 (the first pages): the console served by the service as shipped (the compiled binary
 * when DIALER_TEST_BINARY is set, else the source), from an empty folder, in a headless
 * Chromium: the operator signs in with the admin token; an owner made with the CLI signs in
 * with the password it was given; a wrong password and an ended session go back to sign-in
 * with a message; the campaigns page shows the campaign live and the owner pauses it; an SDR
 * sees no pause button and is refused by the API too; a change without the CSRF token is 403;
 * axe-core finds nothing serious or critical. DIALER_SCREENSHOTS=1 writes docs/console/*.png.
 */

const ADMIN = 'browser-console-admin-token-0123456789'
const root = join(import.meta.dir, '../..')
const work = scratchDir('dialer-console-')
const screenshots = process.env.DIALER_SCREENSHOTS === '1' ? join(root, 'docs/console') : null
const command = serviceCommand(work.path)
let server: ServiceProcess | null = null
let browser: Browser | null = null
let base = ''
let clock: RunningClock | null = null
/** A webhook receiver: answers 200 with a short body, counting what it got. */
const received: string[] = []
const receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: async (request) => {
  received.push(await request.text())
  return new Response('thanks from the receiver', { status: 200 })
} })
const seeded = { org: '', campaign: '', call: '', auth: '', owner: { email: 'owner@acme.example', password: '' }, sdr: { email: 'sdr@acme.example', password: 'correct horse battery' } }

const cli = adminCli(command, work.path, ADMIN, () => base)

// Not waiting: a wrong password is tried too.
const signIn = (page: Page, email: string, password: string) => signInAt(page, base, { email, password }, false)

beforeAll(async () => {
  mkdirSync(join(work.path, 'run'))
  const started = await spawnService({
    command, dataDir: join(work.path, 'data'), cwd: join(work.path, 'run'),
    env: {
      PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_LOG_REQUESTS: '0', DIALER_CHECK_REPLIES: '1',
      // A seeded call ends within seconds (sim speed 10), in New York daytime (the fake clock at real speed).
      DIALER_SIM_SPEED: '10', DIALER_FAKE_CLOCK: '1',
      // The webhook receiver below is on loopback.
      DIALER_WEBHOOK_ALLOW_PRIVATE: '1',
    },
  })
  server = started.proc
  base = started.base
  clock = await startClock(base, ADMIN, daytimeStart(Date.now(), ['America/New_York']))
  seeded.org = cli(['org', 'create', '--name', 'Acme Roofing', '--timezone', 'America/Chicago']).id
  seeded.campaign = cli(['campaign', 'create', '--org', seeded.org, '--name', 'Spring roofs', '--status', 'active', '--sdrs', 'Alex Rivera', '--lines', '4']).id
  seeded.owner.password = cli(['user', 'create', '--org', seeded.org, '--email', seeded.owner.email, '--role', 'owner', '--name', 'Olive Owner']).password
  cli(['user', 'create', '--org', seeded.org, '--email', seeded.sdr.email, '--role', 'sdr', '--password-stdin'], `${seeded.sdr.password}\n`)
  // A call that has ended, with its recording and transcript (scenario 09: answered, hung up at 12 s).
  const key = cli(['key', 'create', '--org', seeded.org, '--name', 'crm', '--mode', 'live'])
  const auth = basic(key.id, key.secret)
  seeded.auth = auth
  const external = async (method: string, path: string, body?: unknown) =>
    (await (await fetch(`${base}/api/v1/external${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })).json()) as any
  const lead = (await external('POST', '/leads', { campaign_id: seeded.campaign, phone: '(212) 555-2009', name: 'Ann Lee', call_now: true })).data.id
  const deadline = Date.now() + 30_000
  for (;;) {
    const call = (await external('GET', `/calls?lead_id=${lead}`)).data[0]
    if (call?.status === 'ended' && call.recording_available) {
      seeded.call = call.id
      break
    }
    if (Date.now() > deadline) throw new Error('the seeded call did not end within 30 s')
    await Bun.sleep(200)
  }
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  void receiver.stop(true)
  await browser?.close()
  await clock?.stop()
  server?.kill('SIGTERM')
  await server?.exited
  work.remove()
})

describe('console: sign-in and campaigns', () => {
  test('a wrong password stays on sign-in with the API’s message; nothing is signed in', async () => {
    const page = await browser!.newPage()
    await signIn(page, seeded.owner.email, 'not the password at all')
    await expect(page.getByRole('alert').textContent()).resolves.toContain('The email or password is wrong.')
    expect((await page.context().cookies()).filter((c) => c.name === 'dialer_session')).toEqual([])
    await page.close()
  })

  test('an owner signs in, sees the campaign live and pauses it; the cookie is HttpOnly and SameSite=Strict', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 800 } })
    await signIn(page, seeded.owner.email, seeded.owner.password)
    const row = page.locator(`tr[data-campaign="${seeded.campaign}"]`)
    await expect(row.locator('th').textContent()).resolves.toBe('Spring roofs')
    await page.getByText('Live: updates every 2 seconds').waitFor()
    expect(await row.locator('td').nth(1).textContent()).toBe('0 / 4')
    const cookie = (await page.context().cookies()).find((c) => c.name === 'dialer_session')!
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/console' })
    if (screenshots) await page.screenshot({ path: join(screenshots, 'campaigns.png') })
    expect(await axeFindings(page)).toEqual([])

    await page.getByRole('button', { name: 'Pause Spring roofs' }).click()
    await row.locator('.status-paused').waitFor()
    expect(cli(['campaign', 'get', seeded.campaign]).status).toBe('paused')
    // A linkable URL: reloading keeps the session and the page.
    await page.reload()
    await row.locator('.status-paused').waitFor()
    await page.getByRole('button', { name: 'Activate Spring roofs' }).click()
    await row.locator('.status-active').waitFor()

    // A forged change (no CSRF token), made with the page's own cookie: 403, nothing changed.
    const forged = await page.evaluate(async (path) => {
      const r = await fetch(path, { method: 'POST' })
      return { status: r.status, body: (await r.json()) as { error: { reason: string } } }
    }, `/console/api/orgs/${seeded.org}/campaigns/${seeded.campaign}/pause`)
    expect(forged.status).toBe(403)
    expect(forged.body.error.reason).toBe('csrf')
    expect(cli(['campaign', 'get', seeded.campaign]).status).toBe('active')

    // Signing out ends the session: the page goes back to sign-in.
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByText('You are signed out.').waitFor()
    await page.close()
  })

  test('an SDR finds the call, plays its recording, reads the transcript and files the outcome', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } })
    await signIn(page, seeded.sdr.email, seeded.sdr.password)
    await page.getByRole('link', { name: 'Calls' }).click()
    const row = page.locator(`tr[data-call="${seeded.call}"]`)
    await row.waitFor()
    expect(await row.textContent()).toContain('(212) 555-2009')
    // Times in the organization's zone (Chicago), the UTC instant on hover.
    expect(await row.locator('time').getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2}T.*Z \(UTC\)$/)
    if (screenshots) await page.screenshot({ path: join(screenshots, 'calls.png') })
    expect(await axeFindings(page)).toEqual([])
    // Filtered by an outcome it does not have: gone; the filter is in the URL.
    await page.getByLabel('Outcome').selectOption('busy')
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/outcome=busy/)
    await page.getByText('No calls match.').waitFor()
    await page.goBack()
    await row.locator('a').click()
    await page.getByRole('heading', { name: 'Call with Ann Lee' }).waitFor()
    expect(await page.locator('.transcript li').count()).toBeGreaterThan(0)
    const audio = page.getByLabel('Call recording')
    const played = await audio.evaluate(async (element) => {
      const media = element as unknown as { muted: boolean; paused: boolean; currentTime: number; duration: number; error: { code: number } | null; play(): Promise<void> }
      media.muted = true
      await media.play()
      await new Promise((resolve) => setTimeout(resolve, 300))
      return { paused: media.paused, time: media.currentTime, duration: media.duration, error: media.error?.code ?? null }
    })
    expect(played.error).toBeNull()
    expect(played.duration).toBeGreaterThan(0)
    if (screenshots) await page.screenshot({ path: join(screenshots, 'call.png'), fullPage: true })
    expect(await axeFindings(page)).toEqual([])
    await page.getByRole('combobox', { name: 'Outcome' }).selectOption('not_interested')
    await page.getByLabel('Note').fill('Has a roofer already.')
    await page.getByRole('button', { name: 'Save outcome' }).click()
    await page.getByText('Outcome filed: Not interested.').waitFor()
    const filed = (await (await fetch(`${base}/api/v1/external/calls/${seeded.call}`, { headers: { authorization: seeded.auth } })).json()) as any
    expect(filed.data).toMatchObject({ outcome: 'not_interested', note: 'Has a roofer already.' })
    await page.close()
  })

  test('an owner adds numbers to Do Not Call (one, and a pasted list with a bad line), checks, searches and removes one', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } })
    await signIn(page, seeded.owner.email, seeded.owner.password)
    await page.getByRole('link', { name: 'Do Not Call' }).click()
    await page.getByText('The list is empty.').waitFor()
    await page.getByLabel('Numbers to add, one a line').fill('(415) 555-2671\n+1 212 555 2672\nnot a number')
    await page.getByRole('button', { name: 'Add to the list' }).click()
    await page.getByText('Added 2. Not added (not a valid number, or listed already): not a number.').waitFor()
    await page.locator('tr[data-dnc="+14155552671"]').waitFor()
    await page.getByLabel('Phone number to check').fill('415-555-2671')
    await page.getByRole('button', { name: 'Check', exact: true }).click()
    await page.getByText('(415) 555-2671 is on the Do Not Call list.').waitFor()
    await page.getByLabel('Search by number').fill('2672')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.locator('tr[data-dnc="+14155552671"]').waitFor({ state: 'detached' })
    if (screenshots) await page.screenshot({ path: join(screenshots, 'dnc.png') })
    expect(await axeFindings(page)).toEqual([])
    await page.getByRole('button', { name: 'Remove (212) 555-2672' }).click()
    await page.getByText('Removed (212) 555-2672.').waitFor()
    const check = (await (await fetch(`${base}/api/v1/external/dnc/check?phone=%2B12125552672`, { headers: { authorization: seeded.auth } })).json()) as any
    expect(check.data.onDncList).toBe(false)
    await page.close()
  })

  test('an owner reads an endpoint’s deliveries, sends a test, resends it, pauses, resumes and rolls the secret', async () => {
    const created = (await (await fetch(`${base}/api/v1/external/webhook_endpoints`, {
      method: 'POST', headers: { authorization: seeded.auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}/hook`, events: ['call.completed'], description: 'CRM sync' }),
    })).json()) as any
    const url = created.data.url as string
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } })
    await signIn(page, seeded.owner.email, seeded.owner.password)
    await page.getByRole('link', { name: 'Webhooks' }).click()
    const row = page.locator(`tr[data-endpoint="${created.data.id}"]`)
    await row.waitFor()
    await page.getByRole('button', { name: url, exact: true }).click()
    await page.getByText('Nothing delivered yet.').waitFor()
    await page.getByRole('button', { name: `Send test to ${url}` }).click()
    await page.getByText('A test event was queued.').waitFor()
    // Reopen the log until the receiver's answer shows.
    const deadline = Date.now() + 15_000
    while ((await page.getByText('thanks from the receiver').count()) === 0) {
      if (Date.now() > deadline) throw new Error('the test delivery did not show as sent')
      await page.getByRole('button', { name: url, exact: true }).click()
      await page.getByRole('button', { name: url, exact: true }).click()
      await Bun.sleep(200)
    }
    expect(received.length).toBeGreaterThan(0)
    const before = received.length
    await page.getByRole('button', { name: /^Resend .* delivery$/ }).first().click()
    await page.getByText('Resent: a new delivery was queued.').waitFor()
    await page.getByText('(resent)').first().waitFor()
    for (let i = 0; received.length === before && i < 100; i++) await Bun.sleep(100)
    expect(received.length).toBe(before + 1)
    if (screenshots) await page.screenshot({ path: join(screenshots, 'webhooks.png') })
    expect(await axeFindings(page)).toEqual([])
    await page.getByRole('button', { name: `Pause ${url}` }).click()
    await row.locator('.status-paused').waitFor()
    await page.getByRole('button', { name: `Resume ${url}` }).click()
    await row.locator('.status-active').waitFor()
    await page.getByRole('button', { name: `Roll secret of ${url}` }).click()
    await expect(page.getByText(/^New signing secret \(shown once/).textContent()).resolves.toMatch(/whsec_\S+$/)
    await page.close()
  })

  test('an owner imports a CSV: maps a column, sees which rows pass and why the others do not, imports the good ones', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } })
    await signIn(page, seeded.owner.email, seeded.owner.password)
    await page.getByRole('link', { name: 'Import' }).click()
    const csv = 'Cell,Name,Email,Roof\n(212) 555-3001,Ann Import,ann@example.com,shingle\n2125553002,Bob Import,not-an-email,tile\nnot a phone,Cid,,\n(415) 555-2671,Dee,,metal\n'
    // (415) 555-2671 is on the Do Not Call list from the earlier test.
    await page.getByLabel('CSV file').setInputFiles({ name: 'leads.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
    await page.getByText('No column holds the phone number').waitFor()
    await page.getByLabel('Lead field for column Cell').selectOption('phone')
    await page.getByText('1 of 4 rows pass the checks; 3 do not.').waitFor()
    const rows = page.locator('tr[data-row]')
    expect(await rows.allTextContents()).toEqual([
      expect.stringMatching(/^3invalid_request/),
      expect.stringMatching(/^4invalid_phone/),
      expect.stringMatching(/^5on_dnc_list/),
    ])
    await page.getByLabel('Lead field for column Roof').selectOption('fields.Roof')
    await page.getByText('1 of 4 rows pass the checks; 3 do not.').waitFor()
    if (screenshots) await page.screenshot({ path: join(screenshots, 'import.png'), fullPage: true })
    expect(await axeFindings(page)).toEqual([])
    await page.getByRole('button', { name: 'Import 1 leads' }).click()
    await page.getByText('Imported 1 of 4 rows; 3 were not imported.').waitFor()
    const leads = (await (await fetch(`${base}/api/v1/external/leads?limit=100`, { headers: { authorization: seeded.auth } })).json()) as any
    const ann = leads.data.find((l: any) => l.name === 'Ann Import')
    expect(ann).toMatchObject({ phone: '+12125553001', fields: { Roof: 'shingle' } })
    // No lead.created for an import.
    const events = (await (await fetch(`${base}/api/v1/external/events?type=lead.created&limit=100`, { headers: { authorization: seeded.auth } })).json()) as any
    expect(events.data.filter((e: any) => e.data.object.id === ann.id)).toEqual([])
    await page.close()
  })

  test('the CLI imports the same way, and a file that is not CSV gets a clear message', async () => {
    const file = join(work.path, 'more.csv')
    await Bun.write(file, 'phone,name,fields.source\n(212) 555-3101,Eve,cli\n(212) 555-3101,Eve again,cli\n')
    const result = cli(['lead', 'import', file, '--org', seeded.org, '--campaign-id', seeded.campaign])
    expect(result).toMatchObject({ rows: 2, imported: 1, failed: 1, errors: [{ row: 3, code: 'duplicate_lead' }] })
    const page = await browser!.newPage()
    await signIn(page, seeded.owner.email, seeded.owner.password)
    await page.getByRole('link', { name: 'Import' }).click()
    await page.getByLabel('CSV file').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47]) })
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Choose a CSV file')
    await page.close()
  })

  test('an SDR searches leads by phone and by name, reads why a lead waits, and asks for a call now', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } })
    await signIn(page, seeded.sdr.email, seeded.sdr.password)
    await page.getByRole('link', { name: 'Leads' }).click()
    await page.getByLabel('Name, phone, email or external id').fill('212-555-2009')
    await page.getByRole('button', { name: 'Search' }).click()
    // The search is in the URL (a page you can link to); the list is read again from it.
    await page.waitForURL(/q=212-555-2009/)
    await page.getByRole('link', { name: 'Ann Lee' }).waitFor()
    await page.getByLabel('Name, phone, email or external id').fill('nobody by this name')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByText('No lead matches "nobody by this name".').waitFor()
    await page.getByLabel('Name, phone, email or external id').fill('ann l')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByRole('link', { name: 'Ann Lee' }).click()
    await page.getByRole('heading', { name: 'Ann Lee' }).waitFor()
    await page.getByText(/^(Yes: every calling rule allows a call now\.|Not now\.)/).waitFor()
    expect(await page.getByRole('heading', { name: 'Calls' }).count()).toBe(1)
    expect(await page.locator('li code', { hasText: 'lead.created' }).count()).toBe(1)
    if (screenshots) await page.screenshot({ path: join(screenshots, 'lead.png'), fullPage: true })
    expect(await axeFindings(page)).toEqual([])
    await page.getByRole('button', { name: 'Call now' }).click()
    await page.getByText(/^Call requested: the lead is /).waitFor()
    await page.close()
  })

  test('events: filtered by type, each one’s JSON as sent', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } })
    await signIn(page, seeded.sdr.email, seeded.sdr.password)
    await page.getByRole('link', { name: 'Events' }).click()
    await page.getByRole('combobox', { name: 'Type' }).selectOption('call.completed')
    await page.getByRole('button', { name: 'Filter' }).click()
    await page.waitForURL(/type=call.completed/)
    // The list before the filter may still be on screen for a moment: wait for the filtered one.
    for (let i = 0; ; i++) {
      const types = new Set(await page.locator('tr[data-event] td:first-child').allTextContents())
      if (types.size === 1 && types.has('call.completed')) break
      if (i > 100) throw new Error(`events not filtered: ${[...types].join(', ')}`)
      await Bun.sleep(50)
    }
    await page.getByRole('button', { name: /^Show JSON/ }).first().click()
    const json = JSON.parse((await page.locator('pre.json').textContent())!)
    expect(json).toMatchObject({ type: 'call.completed', data: { object: { object: 'call' } } })
    if (screenshots) await page.screenshot({ path: join(screenshots, 'events.png') })
    expect(await axeFindings(page)).toEqual([])
    // Keys are the owners': no link for an SDR, and the API refuses.
    expect(await page.getByRole('link', { name: 'Keys' }).count()).toBe(0)
    const refused = await page.evaluate(async (path) => (await fetch(path)).status, `/console/api/orgs/${seeded.org}/keys`)
    expect(refused).toBe(403)
    await page.close()
  })

  test('an owner creates a key scoped to a campaign (the secret shown once) and revokes it', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } })
    page.on('dialog', (dialog) => void dialog.accept())
    await signIn(page, seeded.owner.email, seeded.owner.password)
    await page.getByRole('link', { name: 'Keys' }).click()
    await page.getByLabel('Name').fill('web forms')
    await page.getByLabel('leads:read').uncheck()
    await page.getByLabel('Spring roofs').check()
    await page.getByLabel('Requests a minute').fill('300')
    await page.getByLabel('Burst').fill('15')
    await page.getByRole('button', { name: 'Create key' }).click()
    const secret = (await page.locator('.notice-box code').textContent())!
    expect(secret.length).toBeGreaterThan(20)
    const row = page.locator('tr', { hasText: 'web forms' })
    await row.waitFor()
    expect(await row.textContent()).not.toContain(secret)
    expect(await row.textContent()).toContain('300/min, burst 15, 60 leads/min, 20 at once')
    const id = (await row.locator('code').textContent())!
    // The new key works, with its scope, until it is revoked.
    const auth = `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`
    expect((await fetch(`${base}/api/v1/external/campaigns/${seeded.campaign}`, { headers: { authorization: auth } })).status).toBe(200)
    if (screenshots) await page.screenshot({ path: join(screenshots, 'keys.png'), fullPage: true })
    expect(await axeFindings(page)).toEqual([])
    await page.getByRole('button', { name: 'Revoke web forms' }).click()
    await row.getByText('revoked').waitFor()
    expect((await fetch(`${base}/api/v1/external/campaigns/${seeded.campaign}`, { headers: { authorization: auth } })).status).toBe(401)
    await page.close()
  })

  test('usage: this month by day (a uPlot chart), by campaign with its spend cap, and by key', async () => {
    cli(['campaign', 'update', seeded.campaign, '--spend-cap-usd', '250'])
    cli(['job', 'run', 'usage_count'])
    const page = await browser!.newPage({ viewport: { width: 1280, height: 1000 } })
    await signIn(page, seeded.owner.email, seeded.owner.password)
    await page.getByRole('link', { name: 'Usage' }).click()
    await page.getByRole('img', { name: /^Calls and connected calls a day/ }).locator('canvas').first().waitFor()
    const campaignRow = page.locator('table', { hasText: 'By campaign' }).locator('tr', { hasText: 'Spring roofs' })
    expect(await campaignRow.textContent()).toContain('$250.00')
    expect(Number(await page.locator('.totals dt:text-is("Calls") + dd').textContent().then((t) => t!.split(' ')[0]))).toBeGreaterThan(0)
    if (screenshots) await page.screenshot({ path: join(screenshots, 'usage.png'), fullPage: true })
    expect(await axeFindings(page)).toEqual([])
    await page.getByLabel('Month').selectOption({ index: 1 })
    await page.getByText('No calls this month yet.').waitFor()
    await page.close()
  })

  test('an SDR sees no pause button, and the API refuses the SDR a pause too', async () => {
    const page = await browser!.newPage()
    await signIn(page, seeded.sdr.email, seeded.sdr.password)
    await page.locator(`tr[data-campaign="${seeded.campaign}"]`).waitFor()
    expect(await page.getByRole('button', { name: 'Pause Spring roofs' }).count()).toBe(0)
    const refused = await page.evaluate(async (path) => {
      const me = (await (await fetch('/console/api/session')).json()) as { data: { csrf_token: string } }
      const r = await fetch(path, { method: 'POST', headers: { 'x-csrf-token': me.data.csrf_token } })
      return { status: r.status, code: ((await r.json()) as { error: { code: string } }).error.code }
    }, `/console/api/orgs/${seeded.org}/campaigns/${seeded.campaign}/pause`)
    expect(refused).toEqual({ status: 403, code: 'permission_denied' })
    await page.close()
  })

  test('the operator signs in with the admin token and picks the organization', async () => {
    const page = await browser!.newPage()
    await page.goto(`${base}/console/campaigns`)
    await page.getByRole('button', { name: 'Operator? Sign in with the admin token' }).click()
    await page.getByLabel('Admin token').fill(ADMIN)
    await page.getByRole('button', { name: 'Sign in', exact: true }).click()
    await page.getByText('Operator').first().waitFor()
    await expect(page.getByLabel('Organization').inputValue()).resolves.toBe(seeded.org)
    await page.locator(`tr[data-campaign="${seeded.campaign}"]`).waitFor()
    // The operator makes an account in the console; its password is shown once.
    await page.getByRole('link', { name: 'People' }).click()
    await page.getByLabel('Email').fill('new.sdr@acme.example')
    await page.getByRole('button', { name: 'Create account' }).click()
    const password = (await page.locator('.notice-box code').textContent())!
    await page.locator('tr[data-user="new.sdr@acme.example"]').waitFor()
    if (screenshots) await page.screenshot({ path: join(screenshots, 'people.png') })
    expect(await axeFindings(page)).toEqual([])
    await page.close()
    // The new person signs in with the keyboard alone.
    const person = await browser!.newPage()
    await person.goto(`${base}/console`)
    await person.getByLabel('Email').focus()
    await person.keyboard.type('new.sdr@acme.example')
    await person.keyboard.press('Tab')
    await person.keyboard.type(password)
    await person.keyboard.press('Enter')
    await person.getByText('new.sdr (sdr)').waitFor()
    await person.close()
  })

  test('a disabled account’s open page goes back to sign-in with a message', async () => {
    const page = await browser!.newPage()
    await signIn(page, seeded.sdr.email, seeded.sdr.password)
    await page.locator(`tr[data-campaign="${seeded.campaign}"]`).waitFor()
    const users = cli(['user', 'list', '--org', seeded.org]) as { id: string; email: string }[]
    cli(['user', 'update', users.find((u) => u.email === seeded.sdr.email)!.id, '--disabled', 'true'])
    // The next request the page makes (reload) finds the session gone.
    await page.reload()
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor()
    // Its right password answers as a wrong one: nothing tells a disabled account apart.
    await signIn(page, seeded.sdr.email, seeded.sdr.password)
    await expect(page.getByRole('alert').textContent()).resolves.toContain('The email or password is wrong.')
    await page.close()
  })

  test('the page and its assets come from the service alone: nothing else is fetched', async () => {
    const page = await browser!.newPage()
    const outside: string[] = []
    page.on('request', (request) => {
      if (!request.url().startsWith(base)) outside.push(request.url())
    })
    await page.goto(`${base}/console`)
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor()
    expect(outside).toEqual([])
    if (screenshots) await page.screenshot({ path: join(screenshots, 'sign-in.png') })
    expect(await axeFindings(page)).toEqual([])
    await page.close()
  })
})
