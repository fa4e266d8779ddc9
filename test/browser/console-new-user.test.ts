import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { basic, scratchDir } from '../harness'
import { daytimeStart, startClock, type RunningClock } from '../process/daytime-clock'
import { serviceCommand, spawnService, type ServiceProcess } from '../process/spawn-service'
import { adminCli, axeFindings, signInAt } from './console-session'
import { launchChromium } from './launch'

setDefaultTimeout(60_000)

/**
 * The console as a new user meets it, in the service as shipped (the compiled binary when
 * DIALER_TEST_BINARY is set) in a headless Chromium: every page fits a 390 px wide phone; an
 * owner changes a campaign's lines, people, hours and voicemail, and a refused field is named
 * beside it; a wrong admin token says so; a Twilio call nobody took names nobody, not the AI
 * assistant; the outcome form offers the labels the list shows; an expired recording link is
 * fetched again (and a link that keeps failing is explained, with a button); times carry their
 * zone. DIALER_SCREENSHOTS=1 writes docs/console/campaigns-390.png and call-390.png.
 */

const ADMIN = 'browser-new-user-admin-token-0123456789'
const SID = `AC${'d4'.repeat(16)}`
const TOKEN = 'f'.repeat(32)
const CALLER = '+12125550100'
const root = join(import.meta.dir, '../..')
const work = scratchDir('dialer-console-new-')
const screenshots = process.env.DIALER_SCREENSHOTS === '1' ? join(root, 'docs/console') : null
const command = serviceCommand(work.path)
const emulator = TwilioEmulator.start({ accounts: [{ sid: SID, authToken: TOKEN, callerIds: [CALLER] }], speed: 50 })
let server: ServiceProcess | null = null
let browser: Browser | null = null
let clock: RunningClock | null = null
let base = ''
const seeded = {
  org: '', campaign: '', call: '', lead: '', twilioOrg: '', twilioCall: '',
  owner: { email: 'owner@new.example', password: 'owner password 12345' },
  sdr: { email: 'sdr@new.example', password: 'sdr password 1234567' },
}

const cli = adminCli(command, work.path, ADMIN, () => base)

const signIn = (page: Page, who: { email: string; password: string } | 'operator', token = ADMIN, wait = true) =>
  signInAt(page, base, who === 'operator' ? { token } : who, wait)

/** The latest call of a lead once `until` holds (polled through the API). */
async function callOf(auth: string, leadId: string, until: (call: any) => boolean): Promise<any> {
  const deadline = Date.now() + 40_000
  for (;;) {
    const r = await fetch(`${base}/api/v1/external/calls?lead_id=${leadId}&limit=1`, { headers: { authorization: auth } })
    const call = ((await r.json()) as any).data?.[0]
    if (call && until(call)) return call
    if (Date.now() > deadline) throw new Error(`the call of lead ${leadId} did not get there: ${JSON.stringify(call)}`)
    await Bun.sleep(200)
  }
}

async function addLead(auth: string, campaign: string, phone: string, name: string): Promise<string> {
  const r = await fetch(`${base}/api/v1/external/leads`, {
    method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ campaign_id: campaign, phone, name, call_now: true }),
  })
  const body = (await r.json()) as any
  if (r.status !== 201) throw new Error(`lead: ${r.status} ${JSON.stringify(body)}`)
  return body.data.id
}

beforeAll(async () => {
  mkdirSync(join(work.path, 'run'))
  const started = await spawnService({
    command, dataDir: join(work.path, 'data'), cwd: join(work.path, 'run'),
    env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_LOG_REQUESTS: '0', DIALER_CHECK_REPLIES: '1', DIALER_SIM_SPEED: '10', DIALER_FAKE_CLOCK: '1' },
  })
  server = started.proc
  base = started.base
  clock = await startClock(base, ADMIN, daytimeStart(Date.now(), ['America/New_York', 'America/Chicago']))
  seeded.org = cli(['org', 'create', '--name', 'Acme Roofing', '--timezone', 'America/Chicago', '--outcome-labels', '{"Hot lead":"interested"}']).id
  seeded.campaign = cli(['campaign', 'create', '--org', seeded.org, '--name', 'Spring roofs', '--status', 'active', '--sdrs', 'Alex Rivera', '--lines', '4']).id
  cli(['user', 'create', '--org', seeded.org, '--email', seeded.owner.email, '--role', 'owner', '--name', 'Olive Owner', '--password-stdin'], `${seeded.owner.password}\n`)
  cli(['user', 'create', '--org', seeded.org, '--email', seeded.sdr.email, '--role', 'sdr', '--name', 'Sam Sdr', '--password-stdin'], `${seeded.sdr.password}\n`)
  const key = cli(['key', 'create', '--org', seeded.org, '--name', 'crm', '--mode', 'live'])
  const auth = basic(key.id, key.secret)
  // A simulated call answered and hung up at 12 s, with its recording.
  seeded.lead = await addLead(auth, seeded.campaign, '(212) 555-2009', 'Ann Lee')
  seeded.call = (await callOf(auth, seeded.lead, (c) => c.status === 'ended' && c.recording_available)).id

  // A second organization on Twilio (the emulator): a lead who never answers.
  seeded.twilioOrg = cli(['org', 'create', '--name', 'Northwind Solar', '--timezone', 'America/New_York', '--plan-requests-per-minute', '100000']).id
  const tokenFile = join(work.path, 'twilio-token')
  await Bun.write(tokenFile, `${TOKEN}\n`)
  cli(['org', 'carrier', seeded.twilioOrg, '--twilio', '--account-sid', SID, '--auth-token-file', tokenFile, '--caller-id', CALLER, '--api-base-url', emulator.url])
  const twilioCampaign = (await (await fetch(`${base}/api/v1/admin/orgs/${seeded.twilioOrg}/campaigns`, {
    method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Solar leads', status: 'active', sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }] }),
  })).json() as any).data.id
  const twilioKey = cli(['key', 'create', '--org', seeded.twilioOrg, '--name', 'live', '--mode', 'live', '--requests-per-minute', '100000', '--burst', '100000'])
  const twilioAuth = basic(twilioKey.id, twilioKey.secret)
  const silent = await addLead(twilioAuth, twilioCampaign, '+12125553102', 'Nora Quiet')
  const unanswered = await callOf(twilioAuth, silent, (c) => c.status === 'ended')
  // The external API's Call is unchanged: its handled_by still names the AI assistant.
  expect(unanswered.handled_by).toEqual({ id: null, name: 'AI assistant', role: 'ai' })
  seeded.twilioCall = unanswered.id
  browser = await launchChromium()
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await clock?.stop()
  server?.kill('SIGTERM')
  await server?.exited
  await emulator.stop()
  work.remove()
})

/** The audio element has read the recording's header (a link that works). */
const PLAYABLE = () => {
  const audio = (globalThis as any).document.querySelector('audio')
  return audio.readyState >= 1 && audio.error === null
}

/** The seeded call's page on a desktop-wide screen, signed in as `who`. */
async function seededCallPage(who: { email: string; password: string }): Promise<Page> {
  const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } })
  await signIn(page, who)
  await page.goto(`${base}/console/calls/${seeded.call}?org=${seeded.org}`)
  return page
}

/** Waits for a page's heading and its first reads. */
async function settled(page: Page): Promise<void> {
  await page.locator('main h1, main .empty').first().waitFor()
  await page.waitForFunction(() => !(globalThis as any).document.body.textContent.includes('Loading…'))
  await Bun.sleep(150)
}

describe('console: what a new user meets', () => {
  test('every page fits a 390 px wide screen: the page never scrolls sideways, the nav wraps', async () => {
    const page = await browser!.newPage({ viewport: { width: 390, height: 844 } })
    const width = () => page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number)
    await page.goto(`${base}/console`)
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor()
    const widths: Record<string, number> = { 'sign-in': await width() }
    await signIn(page, 'operator')
    const pages = ['campaigns', `campaigns/${seeded.campaign}`, 'leads', `leads/${seeded.lead}`, 'calls', `calls/${seeded.call}`, 'dnc', 'webhooks', 'events', 'usage', 'keys', 'people', 'import']
    for (const path of pages) {
      await page.goto(`${base}/console/${path}?org=${seeded.org}`)
      await settled(page)
      widths[path.replace(/\/.*/, '/:id')] = await width()
      if (screenshots && path === 'campaigns') await page.screenshot({ path: join(screenshots, 'campaigns-390.png'), fullPage: true })
      if (screenshots && path.startsWith('calls/')) await page.screenshot({ path: join(screenshots, 'call-390.png'), fullPage: true })
    }
    expect(Object.entries(widths).filter(([, w]) => w > 390)).toEqual([])
    // Every nav link is on the screen (wrapped, not cut off).
    const boxes = await page.getByRole('navigation', { name: 'Console' }).getByRole('link').evaluateAll((links) => links.map((a) => a.getBoundingClientRect().right))
    expect(boxes.length).toBeGreaterThan(8)
    expect(Math.max(...boxes)).toBeLessThanOrEqual(390)
    await page.goto(`${base}/console/campaigns?org=${seeded.org}`)
    await settled(page)
    expect(await axeFindings(page)).toEqual([])
    await page.close()
  })

  test('an owner changes a campaign’s settings; a refused field is named beside it; an SDR cannot open the page', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } })
    await signIn(page, seeded.owner)
    await page.getByRole('link', { name: 'Spring roofs settings' }).click()
    await page.getByRole('heading', { name: 'Spring roofs: settings' }).waitFor()
    expect(await page.title()).toBe('Campaign settings · Acme Roofing · Dialer console')
    expect(await axeFindings(page)).toEqual([])
    const lines = page.getByLabel('Lines (calls at once)')
    expect(await lines.inputValue()).toBe('4')

    // Bad input: the API's message beside the field it names.
    await lines.fill('0')
    await page.getByRole('button', { name: 'Save settings' }).click()
    const linesError = page.locator('#field-lines-error')
    await linesError.waitFor()
    expect(await linesError.textContent()).toContain('lines')
    expect(await lines.getAttribute('aria-describedby')).toBe('field-lines-error')
    await lines.fill('6')
    const sdrPhone = page.locator('#field-sdrs-0-phone')
    await sdrPhone.fill('555')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.locator('#field-sdrs-0-phone-error').waitFor()
    expect(await page.locator('#field-sdrs-0-phone-error').textContent()).toContain('E.164')
    expect(await page.locator('#field-lines-error').count()).toBe(0)

    // Right input: saved, as the CLI sees it.
    await sdrPhone.fill('+13125550150')
    await page.getByRole('button', { name: 'Add a closer' }).click()
    await page.locator('#field-closers-0-name').fill('Sam Chen')
    await page.locator('#field-closers-0-phone').fill('+13125550151')
    await page.locator('#field-calling-hours-start').fill('09:00')
    await page.locator('#field-calling-hours-end').fill('17:30')
    await page.getByLabel('Leave').selectOption('say')
    await page.getByRole('textbox', { name: 'Message' }).fill('Hi, this is Acme Roofing returning your call.')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Settings saved.').waitFor()
    const stored = cli(['campaign', 'get', seeded.campaign])
    expect(stored).toMatchObject({
      lines: 6, calling_hours: { start: '09:00', end: '17:30' }, voicemail: { say: 'Hi, this is Acme Roofing returning your call.' },
      sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }], closers: [{ name: 'Sam Chen', phone: '+13125550151' }],
    })
    await page.close()

    const sdr = await browser!.newPage()
    await signIn(sdr, seeded.sdr)
    await sdr.locator(`tr[data-campaign="${seeded.campaign}"]`).waitFor()
    expect(await sdr.getByRole('link', { name: 'Spring roofs settings' }).count()).toBe(0)
    await sdr.goto(`${base}/console/campaigns/${seeded.campaign}?org=${seeded.org}`)
    await sdr.getByText('Your role cannot open this page').waitFor()
    await sdr.close()
  })

  test('an owner sets the dial mode: power without a message is refused beside its field, with one it is saved', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } })
    await signIn(page, seeded.owner)
    await page.getByRole('link', { name: 'Spring roofs settings' }).click()
    await page.getByRole('heading', { name: 'Spring roofs: settings' }).waitFor()
    await page.locator('#field-dial-mode').selectOption('power')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.locator('#field-abandon-message-error').waitFor()
    expect(await page.locator('#field-abandon-message-error').textContent()).toContain('abandon_message')
    expect(cli(['campaign', 'get', seeded.campaign])).toMatchObject({ dial_mode: 'bridge', abandon_message: null })
    await page.locator('#field-abandon-message').selectOption('say')
    await page.locator('#field-abandon-message-say').fill('This is Acme Roofing. Call us back at 212 555 0100.')
    await page.locator('#field-max-abandon-rate').fill('2')
    expect(await axeFindings(page)).toEqual([])
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Settings saved.').waitFor()
    expect(cli(['campaign', 'get', seeded.campaign])).toMatchObject({
      dial_mode: 'power', max_abandon_rate: 0.02, abandon_message: { say: 'This is Acme Roofing. Call us back at 212 555 0100.' },
    })
    // Back to bridge for the tests after this one (the simulator answers this organization's calls either way).
    expect(cli(['campaign', 'update', seeded.campaign, '--dial-mode', 'bridge'])).toMatchObject({ dial_mode: 'bridge' })
    await page.close()
  })

  test('a wrong admin token says so', async () => {
    const page = await browser!.newPage()
    await signIn(page, 'operator', `${ADMIN}-wrong`, false)
    await expect(page.getByRole('alert').textContent()).resolves.toBe('The admin token is wrong.')
    await page.close()
  })

  test('a Twilio call nobody took names nobody, not the AI assistant', async () => {
    const page = await browser!.newPage({ viewport: { width: 1280, height: 900 } })
    await signIn(page, 'operator')
    await page.goto(`${base}/console/calls?org=${seeded.twilioOrg}`)
    const row = page.locator(`tr[data-call="${seeded.twilioCall}"]`)
    await row.waitFor()
    expect(await row.locator('td').nth(4).textContent()).toBe('Nobody took the call')
    expect(await row.textContent()).not.toContain('AI assistant')
    await page.goto(`${base}/console/calls/${seeded.twilioCall}?org=${seeded.twilioOrg}`)
    await page.getByRole('heading', { name: 'Call with Nora Quiet' }).waitFor()
    expect(await page.locator('.facts').textContent()).toContain('Handled byNobody took the call')
    expect(await page.locator('main').textContent()).not.toContain('AI assistant')
    // A simulated call the AI assistant talked on still names it.
    await page.goto(`${base}/console/calls?org=${seeded.org}`)
    await page.locator(`tr[data-call="${seeded.call}"]`).waitFor()
    expect(await page.locator(`tr[data-call="${seeded.call}"] td`).nth(4).textContent()).toBe('AI assistant')
    await page.close()
  })

  test('the outcome form and the filter offer the labels the list shows; times carry their zone', async () => {
    const page = await seededCallPage(seeded.sdr)
    const form = page.locator('form.outcome')
    await form.waitFor()
    const formLabels = await form.locator('select[name="outcome"] option').allTextContents()
    expect(formLabels).toContain('Hot lead')
    expect(formLabels).toContain('Not interested')
    expect(formLabels).not.toContain('interested')
    await form.locator('select[name="outcome"]').selectOption({ label: 'Hot lead' })
    await page.getByRole('button', { name: 'Save outcome' }).click()
    await page.getByText('Outcome filed: Hot lead.').waitFor()
    // The time: the zone's abbreviation beside it, the UTC instant on hover.
    const time = page.locator('.facts time')
    expect(await time.textContent()).toMatch(/\b(CST|CDT)$/)
    expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT.*Z \(UTC\)$/)

    await page.goto(`${base}/console/calls?org=${seeded.org}`)
    const row = page.locator(`tr[data-call="${seeded.call}"]`)
    await row.waitFor()
    expect(await row.locator('td').nth(3).textContent()).toBe('Hot lead')
    expect(await row.locator('time').textContent()).toMatch(/\b(CST|CDT)$/)
    const filterLabels = await page.locator('select[name="outcome"] option').allTextContents()
    expect(filterLabels.slice(1)).toEqual(formLabels)
    await page.close()
  })

  test('an expired recording link is fetched again on play; a link that keeps failing is explained, with a button', async () => {
    const page = await seededCallPage(seeded.owner)
    const audio = page.locator('audio')
    await audio.waitFor()
    const first = (await audio.getAttribute('src'))!
    // Ten minutes on the service's clock: the 5-minute link has expired.
    const at = clock!.now()
    await clock!.stop()
    clock = await startClock(base, ADMIN, at + 10 * 60_000)
    expect((await fetch(first)).status).not.toBe(200)
    await page.evaluate(() => (globalThis as any).document.querySelector('audio').play().catch(() => {}))
    await page.waitForFunction((old) => (globalThis as any).document.querySelector('audio').getAttribute('src') !== old, first)
    const renewed = (await audio.getAttribute('src'))!
    expect((await fetch(renewed)).status).toBe(200)
    await page.waitForFunction(PLAYABLE)
    expect(await page.getByText('The recording cannot be played').count()).toBe(0)

    // Every link refused (as if the service could not be reached for it): said, with a way to try again.
    await page.route('**/recordings/**', (route) => route.fulfill({ status: 403, body: 'expired' }))
    await page.reload()
    await audio.waitFor()
    await page.evaluate(() => (globalThis as any).document.querySelector('audio').play().catch(() => {}))
    await page.getByText('The recording cannot be played').waitFor()
    const retry = page.getByRole('button', { name: 'Reload the recording' })
    await retry.waitFor()
    await page.unroute('**/recordings/**')
    await retry.click()
    await page.waitForFunction(PLAYABLE)
    await page.close()
  })
})
