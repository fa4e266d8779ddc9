import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { basic, scratchDir } from '../harness'
import { serviceCommand, spawnService, type ServiceProcess } from '../process/spawn-service'
import { adminCli, signInAt } from './console-session'
import { launchChromium } from './launch'

setDefaultTimeout(60_000)

/**
 * The console's page table, as a person meets it in the shipped service (the compiled binary
 * when DIALER_TEST_BINARY is set): each page has its own document title; the nav shows the pages
 * the session's capabilities (sent by the server) allow; a page the role cannot open says so
 * instead of drawing a form the API would refuse; an unknown path says there is no such page.
 */

const ADMIN = 'browser-pages-admin-token-0123456789'
const work = scratchDir('dialer-console-pages-')
const command = serviceCommand(work.path)
let server: ServiceProcess | null = null
let browser: Browser | null = null
let base = ''
const seeded = { org: '', lead: '', owner: { email: 'owner@pages.example', password: '' }, sdr: { email: 'sdr@pages.example', password: 'correct horse battery' } }

const cli = adminCli(command, work.path, ADMIN, () => base)

const signIn = (page: Page, email: string, password: string) => signInAt(page, base, { email, password }, true)

const navLinks = (page: Page) => page.getByRole('navigation', { name: 'Console' }).getByRole('link').allTextContents()

beforeAll(async () => {
  mkdirSync(join(work.path, 'run'))
  const started = await spawnService({
    command, dataDir: join(work.path, 'data'), cwd: join(work.path, 'run'),
    env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_LOG_REQUESTS: '0', DIALER_CHECK_REPLIES: '1' },
  })
  server = started.proc
  base = started.base
  seeded.org = cli(['org', 'create', '--name', 'Pages Roofing', '--timezone', 'America/Chicago']).id
  const campaign = cli(['campaign', 'create', '--org', seeded.org, '--name', 'Autumn roofs', '--status', 'active', '--sdrs', 'Alex Rivera']).id
  seeded.owner.password = cli(['user', 'create', '--org', seeded.org, '--email', seeded.owner.email, '--role', 'owner', '--name', 'Olive Owner']).password
  cli(['user', 'create', '--org', seeded.org, '--email', seeded.sdr.email, '--role', 'sdr', '--password-stdin'], `${seeded.sdr.password}\n`)
  const key = cli(['key', 'create', '--org', seeded.org, '--name', 'crm', '--mode', 'live'])
  const reply = await fetch(`${base}/api/v1/external/leads`, {
    method: 'POST', headers: { authorization: basic(key.id, key.secret), 'content-type': 'application/json' },
    body: JSON.stringify({ campaign_id: campaign, phone: '(212) 555-3010', name: 'Bea Park' }),
  })
  seeded.lead = ((await reply.json()) as { data: { id: string } }).data.id
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
  server?.kill('SIGTERM')
  await server?.exited
  work.remove()
})

describe('console: the page table', () => {
  test('each page has its own title, with the organization', async () => {
    const page = await browser!.newPage()
    await page.goto(`${base}/console`)
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor()
    expect(await page.title()).toBe('Sign in · Dialer console')
    await signIn(page, seeded.owner.email, seeded.owner.password)
    await page.getByRole('heading', { name: 'Campaigns' }).waitFor()
    expect(await page.title()).toBe('Campaigns · Pages Roofing · Dialer console')
    const titles: Record<string, string> = { Floor: 'Floor', Leads: 'Leads', Calls: 'Calls', 'Do Not Call': 'Do Not Call', Webhooks: 'Webhooks', Events: 'Events', Usage: 'Usage', Keys: 'API keys', Import: 'Import leads' }
    for (const [link, title] of Object.entries(titles)) {
      await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: link, exact: true }).click()
      await page.waitForFunction(`document.title === ${JSON.stringify(`${title} · Pages Roofing · Dialer console`)}`)
    }
    // A detail page: its own title, and its list's link marked as the current one.
    await page.goto(`${base}/console/leads/${seeded.lead}?org=${seeded.org}`)
    await page.getByRole('heading', { name: 'Bea Park' }).waitFor()
    await page.waitForFunction(`document.title === 'Lead · Pages Roofing · Dialer console'`)
    expect(await page.locator('nav a[aria-current="page"]').allTextContents()).toEqual(['Leads'])
    await page.goto(`${base}/console/nowhere?org=${seeded.org}`)
    await page.getByText('No such page.').waitFor()
    // The title follows the render (an effect once the session is read): wait for it, as above.
    await page.waitForFunction(`document.title === 'No such page · Dialer console'`)
    await page.close()
  })

  test('the nav follows the capabilities the server sends; a page the role cannot open says so', async () => {
    const page = await browser!.newPage()
    await signIn(page, seeded.sdr.email, seeded.sdr.password)
    const capabilities = await page.evaluate(async () => ((await (await fetch('/console/api/session')).json()) as { data: { capabilities: Record<string, boolean> } }).data.capabilities)
    expect(capabilities).toMatchObject({ keys: false, people: false, imports: false, calls_write: true })
    expect(await navLinks(page)).toEqual(['Campaigns', 'Floor', 'Leads', 'Calls', 'Do Not Call', 'Webhooks', 'Events', 'Usage'])
    await page.goto(`${base}/console/keys?org=${seeded.org}`)
    await page.getByText('Your role cannot open this page').waitFor()
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0)
    // The title follows the page's render in its own effect: wait for it rather than read it at once.
    await page.waitForFunction((title) => (globalThis as any).document.title === title, 'Not for your role · Dialer console', { timeout: 5_000 })
    expect(await page.title()).toBe('Not for your role · Dialer console')
    await page.close()
    const owner = await browser!.newPage()
    await signIn(owner, seeded.owner.email, seeded.owner.password)
    expect(await navLinks(owner)).toEqual(['Campaigns', 'Floor', 'Leads', 'Calls', 'Do Not Call', 'Webhooks', 'Events', 'Usage', 'Keys', 'Numbers', 'Import'])
    await owner.close()
  })
})
