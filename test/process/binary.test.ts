import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { copyFileSync, existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { basic, createHarness, scratchDir } from '../harness'
import { leakingRoutes, rawStatus } from '../raw-http'
import { placeBinary, spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// The compiled binary, started from an empty folder with no node_modules beside it.
// CI builds dist/dialer first and points DIALER_TEST_BINARY at it; otherwise it is built here.
const ADMIN = 'binary-test-admin-token-0123456789'
const work = scratchDir('dialer-bin-')
const binary = join(work.path, 'dialer')

let server: ServiceProcess | null = null
let base = ''

async function startServer(dir: string): Promise<void> {
  const started = await spawnService({
    command: [binary], dataDir: join(dir, 'data'), cwd: dir, env: { PATH: process.env.PATH ?? '', HOME: dir, DIALER_ADMIN_TOKEN: ADMIN },
  })
  server = started.proc
  base = started.base
}

const run = (args: string[], env: Record<string, string> = {}) =>
  Bun.spawnSync([binary, ...args], { cwd: work.path, env: { PATH: process.env.PATH ?? '', ...env } })

beforeAll(async () => {
  placeBinary(binary)
  await startServer(work.path)
}, 120_000)

afterAll(() => {
  server?.kill('SIGKILL')
  work.remove()
})

const admin = (method: string, path: string, body?: unknown) =>
  fetch(`${base}/api/v1/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

describe('compiled binary from an empty folder', () => {
  test('version', () => {
    const r = run(['version'])
    expect(r.exitCode).toBe(0)
    expect(r.stdout.toString().trim()).toMatch(/^\d+\.\d+\.\d+$/)
  })

  test('healthz, readyz, openapi and the offline docs page', async () => {
    expect((await (await fetch(`${base}/healthz`)).json()) as any).toEqual({ status: 'ok' })
    expect((await fetch(`${base}/readyz`)).status).toBe(200)
    const spec = (await (await fetch(`${base}/api/v1/external/openapi.json`)).json()) as any
    expect(spec.openapi).toStartWith('3.1')
    expect(Object.keys(spec.paths)).toContain('/api/v1/external/dnc/check')
    const page = await (await fetch(`${base}/docs`)).text()
    expect(page).toContain('/docs/assets/swagger-ui-bundle.js')
    expect(page).not.toContain('unpkg.com')
    const bundle = await fetch(`${base}/docs/assets/swagger-ui-bundle.js`)
    expect(bundle.status).toBe(200)
    expect((await bundle.text()).length).toBeGreaterThan(100_000)
  })

  test('admin API creates an org and key; the key reads /campaigns', async () => {
    const org = (await (await admin('POST', '/orgs', { name: 'Binary Org' })).json()) as any
    const campaign = await admin('POST', `/orgs/${org.data.id}/campaigns`, { name: 'C1', status: 'active', sdrs: [{ name: 'Ann' }] })
    expect(campaign.status).toBe(201)
    const key = (await (await admin('POST', `/orgs/${org.data.id}/keys`, { name: 'k', mode: 'live' })).json()) as any
    const reply = await fetch(`${base}/api/v1/external/campaigns`, { headers: { authorization: basic(key.data.id, key.data.secret) } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('ratelimit-limit')).toBe('120')
    const body = (await reply.json()) as any
    expect(body.data).toEqual([{ id: ((await campaign.json()) as any).data.id, name: 'C1', status: 'active', livemode: true }])
  })

  test('a lead, usage, a CSV export through its signed link, and metrics', async () => {
    const org = (await (await admin('POST', '/orgs', { name: 'Export Org' })).json()) as any
    const campaign = (await (await admin('POST', `/orgs/${org.data.id}/campaigns`, { name: 'E1', status: 'paused', sdrs: [{ name: 'Ann' }] })).json()) as any
    const key = (await (await admin('POST', `/orgs/${org.data.id}/keys`, { name: 'k', mode: 'live' })).json()) as any
    const auth = { authorization: basic(key.data.id, key.data.secret), 'content-type': 'application/json' }
    const api = `${base}/api/v1/external`
    const lead = await fetch(`${api}/leads`, { method: 'POST', headers: auth, body: JSON.stringify({ campaign_id: campaign.data.id, phone: '+13125552001', name: 'Ann, "A"' }) })
    expect(lead.status).toBe(201)
    expect((await admin('POST', '/jobs/usage_count/run')).status).toBe(200)
    const usage = (await (await fetch(`${api}/usage`, { headers: auth })).json()) as any
    expect(usage.data.totals.leads_added).toBe(1)
    const made = (await (await fetch(`${api}/exports`, { method: 'POST', headers: auth, body: JSON.stringify({ exportType: 'leads' }) })).json()) as any
    expect(made.data.export).toMatchObject({ status: 'ready', rowCount: 1 })
    const url = new URL(made.data.downloadUrl)
    const csv = await fetch(`${base}${url.pathname}${url.search}`)
    expect(csv.status).toBe(200)
    const lines = (await csv.text()).trim().split('\n')
    expect(lines[0]).toStartWith('id,external_id,campaign_id,name,phone')
    expect(lines[1]).toContain('"Ann, ""A"""')
    expect(existsSync(join(work.path, 'data', 'exports', `${made.data.export.id}.csv`))).toBe(true)
    expect((await fetch(`${base}${url.pathname}?expires=${url.searchParams.get('expires')}&signature=x`)).status).toBe(403)
    const metrics = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })
    expect(metrics.status).toBe(200)
    expect(await metrics.text()).toContain('dialer_http_requests_total{method="POST",route="/api/v1/external/exports",status="200"} 1')
  })

  test('no route behind a door answers without credentials, whatever the Host header or path prefix (issue 14)', async () => {
    // The routes the source registers; the binary must guard each one as the source does.
    const h = createHarness()
    const routes = h.routes.routes
      .filter((r) => (r.path.startsWith('/api/v1/external') && !r.path.endsWith('/openapi.json')) || r.path.startsWith('/api/v1/admin') || r.path === '/metrics')
      .map((r) => ({ method: r.method, path: r.path.replace(/:[a-z_]+/gi, '01890000-0000-7000-8000-000000000000') }))
    h.close()
    expect(routes.length).toBeGreaterThan(50)
    expect(await leakingRoutes(Number(new URL(base).port), routes)).toEqual([])
    expect(await rawStatus(Number(new URL(base).port), 'GET', '/abc/api/v1/admin/orgs', 'x')).toBe(404)
  }, 60_000)

  test('admin CLI talks to the running service', () => {
    const env = { DIALER_ADMIN_URL: base, DIALER_ADMIN_TOKEN: ADMIN }
    const created = run(['admin', 'org', 'create', '--name', 'From CLI', '--timezone', 'America/Chicago'], env)
    expect(created.exitCode).toBe(0)
    const org = JSON.parse(created.stdout.toString())
    expect(org.data).toMatchObject({ name: 'From CLI', timezone: 'America/Chicago' })
    const key = run(['admin', 'key', 'create', '--org', org.data.id, '--name', 'cli', '--mode', 'test', '--max-concurrent', '5'], env)
    expect(JSON.parse(key.stdout.toString()).data).toMatchObject({ mode: 'test', max_concurrent: 5 })
    const bad = run(['admin', 'key', 'create', '--org', org.data.id, '--name', 'x', '--mode', 'nope'], env)
    // 4: the service answered 4xx (2 is a usage error the CLI finds itself).
    expect(bad.exitCode).toBe(4)
    expect(bad.stderr.toString()).toContain('(invalid_request, param mode)')
  })

  test('backup while serving is a consistent database', () => {
    const target = join(work.path, 'backup.db')
    const r = run(['backup', target, '--data-dir', join(work.path, 'data')])
    expect(r.exitCode).toBe(0)
    const copy = new Database(target, { readonly: true })
    const orgs = copy.query('SELECT name FROM orgs ORDER BY name').all() as { name: string }[]
    copy.close()
    expect(orgs.map((o) => o.name)).toContain('Binary Org')
    expect(run(['backup', target, '--data-dir', join(work.path, 'data')]).exitCode).toBe(2)
  })

  test('a restored backup serves its data (the README restore steps)', async () => {
    const restored = join(work.path, 'restored', 'data')
    mkdirSync(restored, { recursive: true })
    copyFileSync(join(work.path, 'backup.db'), join(restored, 'dialer.db'))
    const { proc, base: url } = await spawnService({
      command: [binary], dataDir: restored, cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN },
    })
    try {
      const orgs = (await (await fetch(`${url}/api/v1/admin/orgs?limit=100`, { headers: { authorization: `Bearer ${ADMIN}` } })).json()) as any
      expect(orgs.data.map((o: any) => o.name)).toContain('Binary Org')
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
  })

  test('the WAL is folded into the database file while serving (checkpointer worker)', async () => {
    for (let i = 0; i < 30; i++) await admin('POST', '/orgs', { name: `Filler ${i}`, outcome_labels: { [`label ${i}`.padEnd(90, 'x')]: 'other' } })
    const { statSync } = await import('node:fs')
    const file = join(work.path, 'data', 'dialer.db')
    const deadline = Date.now() + 5000
    while (statSync(file).size <= 4096 && Date.now() < deadline) await Bun.sleep(100)
    expect(statSync(file).size).toBeGreaterThan(4096)
  })

  test('migrate on an up-to-date database applies nothing', () => {
    const r = run(['migrate', '--data-dir', join(work.path, 'data')])
    expect(r.exitCode).toBe(0)
    expect(r.stdout.toString()).toContain('0 migration(s) applied')
  })

  test('SIGTERM stops it cleanly', async () => {
    server!.kill('SIGTERM')
    expect(await server!.exited).toBe(0)
    server = null
  })
})

describe('demo mode', () => {
  const demo = scratchDir('dialer-demo-')
  afterAll(() => demo.remove())

  test('prints a live key, a test key and a curl line that works', async () => {
    const proc = Bun.spawn([binary, 'serve', '--demo', '--port', '0', '--data-dir', join(demo.path, 'data')], {
      cwd: demo.path,
      env: { PATH: process.env.PATH ?? '' },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    let text = ''
    const reader = proc.stdout.getReader()
    while (!text.includes('curl -u')) {
      const { value, done } = await reader.read()
      if (done) break
      text += new TextDecoder().decode(value)
    }
    try {
      expect(text).toMatch(/Test key: +dk_test_/)
      const curl = /curl -u (dk_live_\S+):(\S+) (\S+)/.exec(text)!
      const reply = await fetch(curl[3]!, { headers: { authorization: basic(curl[1]!, curl[2]!) } })
      expect(reply.status).toBe(200)
      const body = (await reply.json()) as any
      expect(body.data[0]).toMatchObject({ name: 'Demo campaign', status: 'active', livemode: true })
      // The minted admin token goes to stderr, once, never to stdout (the log); the demo's key secrets stay on stdout.
      expect(text).not.toContain('dat_')
      const errors = new Response(proc.stderr).text()
      proc.kill('SIGTERM')
      await proc.exited
      expect(await errors).toMatch(/Admin token \(shown once.*\): dat_/)
      expect((await errors).match(/dat_/g)!.length).toBe(1)
    } finally {
      proc.kill('SIGTERM')
      await proc.exited
    }
  })
})
