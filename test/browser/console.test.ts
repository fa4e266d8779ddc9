import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { scratchDir } from '../harness'
import { serviceCommand, spawnService, type ServiceProcess } from '../process/spawn-service'
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
const seeded = { org: '', campaign: '', owner: { email: 'owner@acme.example', password: '' }, sdr: { email: 'sdr@acme.example', password: 'correct horse battery' } }

function cli(args: string[], stdin?: string) {
  const r = Bun.spawnSync([...command, 'admin', ...args], {
    cwd: work.path,
    env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_URL: base, DIALER_ADMIN_TOKEN: ADMIN },
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
  })
  if (r.exitCode !== 0) throw new Error(`dialer admin ${args.join(' ')}: exit ${r.exitCode} ${r.stderr.toString()}`)
  return JSON.parse(r.stdout.toString()).data
}

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto(`${base}/console`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
}

async function axeFindings(page: Page): Promise<string[]> {
  // Evaluated through DevTools: the page's own CSP (script-src 'self') rightly refuses an inline script tag.
  await page.evaluate(`${readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8')}\n;undefined`)
  const result = await page.evaluate(async () => (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }))
  return (result.violations as { id: string; impact: string; nodes: unknown[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`)
}

beforeAll(async () => {
  mkdirSync(join(work.path, 'run'))
  const started = await spawnService({
    command, dataDir: join(work.path, 'data'), cwd: join(work.path, 'run'),
    env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_LOG_REQUESTS: '0', DIALER_CHECK_REPLIES: '1' },
  })
  server = started.proc
  base = started.base
  seeded.org = cli(['org', 'create', '--name', 'Acme Roofing', '--timezone', 'America/Chicago']).id
  seeded.campaign = cli(['campaign', 'create', '--org', seeded.org, '--name', 'Spring roofs', '--status', 'active', '--sdrs', 'Alex Rivera', '--lines', '4']).id
  seeded.owner.password = cli(['user', 'create', '--org', seeded.org, '--email', seeded.owner.email, '--role', 'owner', '--name', 'Olive Owner']).password
  cli(['user', 'create', '--org', seeded.org, '--email', seeded.sdr.email, '--role', 'sdr', '--password-stdin'], `${seeded.sdr.password}\n`)
  browser = await launchChromium()
}, 60_000)

afterAll(async () => {
  await browser?.close()
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
    await page.close()
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
    await signIn(page, seeded.sdr.email, seeded.sdr.password)
    await expect(page.getByRole('alert').textContent()).resolves.toContain('disabled')
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
