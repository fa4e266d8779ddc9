import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Page } from 'playwright-core'

/** What the browser tests share: the admin CLI to seed with, signing in, and axe-core's findings. */

const root = join(import.meta.dir, '../..')

/**
 * `dialer admin …` against the service at `base()` (read at call time: the tests learn it once
 * the service listens); the `data` of its reply, thrown when it exits non-zero.
 */
export function adminCli(command: string[], home: string, adminToken: string, base: () => string) {
  return (args: string[], stdin?: string) => {
    const r = Bun.spawnSync([...command, 'admin', ...args], {
      cwd: home,
      env: { PATH: process.env.PATH ?? '', HOME: home, DIALER_ADMIN_URL: base(), DIALER_ADMIN_TOKEN: adminToken },
      stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
    })
    if (r.exitCode !== 0) throw new Error(`dialer admin ${args.join(' ')}: exit ${r.exitCode} ${r.stderr.toString()}`)
    return JSON.parse(r.stdout.toString()).data
  }
}

/**
 * Signs in on the console's sign-in page, as a person or as the operator with `token`; with
 * `wait`, until the signed-in page shows its Sign out button (off where the sign-in is meant to fail).
 */
export async function signInAt(page: Page, base: string, who: { email: string; password: string } | { token: string }, wait: boolean): Promise<void> {
  await page.goto(`${base}/console`)
  if ('token' in who) {
    await page.getByRole('button', { name: 'Operator? Sign in with the admin token' }).click()
    await page.getByLabel('Admin token').fill(who.token)
  } else {
    await page.getByLabel('Email').fill(who.email)
    await page.getByLabel('Password').fill(who.password)
  }
  await page.getByRole('button', { name: 'Sign in', exact: true }).click()
  if (wait) await page.getByRole('button', { name: 'Sign out' }).waitFor()
}

/** axe-core's serious and critical findings on the page as it stands. */
export async function axeFindings(page: Page): Promise<string[]> {
  // Evaluated through DevTools: the page's own CSP (script-src 'self') rightly refuses an inline script tag.
  await page.evaluate(`${readFileSync(join(root, 'node_modules/axe-core/axe.min.js'), 'utf8')}\n;undefined`)
  const result = await page.evaluate(async () => (globalThis as any).axe.run((globalThis as any).document, { resultTypes: ['violations'] }))
  return (result.violations as { id: string; impact: string; nodes: unknown[] }[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}, ${v.nodes.length} nodes)`)
}
