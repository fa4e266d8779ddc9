import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { placeBinary, spawnService, type RunningService } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Issue 25, the smaller items, against the compiled binary started under `umask 022` from an
// empty folder: synchronous FULL (the start-up log line reports the connection's setting),
// keys born expired, owners' key limits in the console, private data files (database, WAL,
// SHM, secret.key, exports, a backup), and the registry shrink guard with the CLI's --force.
const ADMIN = 'security-small-admin-token-0123456789'
// Not test/harness.ts's scratchDir: that module loads the whole service from source.
function scratchDir(prefix: string) {
  const path = mkdtempSync(join(tmpdir(), prefix))
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) }
}
const work = scratchDir('dialer-sec-small-')
const binary = join(work.path, 'dialer')
const dataDir = join(work.path, 'data')
const env = { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_LOG_REQUESTS: '0' }
/** Runs the binary with umask 022, the usual default that leaves new files world-readable. */
const umask022 = (command: string[]) => ['/bin/sh', '-c', 'umask 022 && exec "$0" "$@"', ...command]

let service: RunningService | null = null
let base = ''
let orgId = ''

beforeAll(async () => {
  placeBinary(binary)
  service = await spawnService({ command: umask022([binary]), dataDir, cwd: work.path, env })
  base = service.base
  orgId = (await admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 600 })).body.data.id
  await admin('POST', `/orgs/${orgId}/users`, { email: 'owner@acme.example', password: 'owner password 123', role: 'owner' })
}, 120_000)

afterAll(() => {
  service?.proc.kill('SIGKILL')
  work.remove()
})

async function admin(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const r = await fetch(`${base}/api/v1/admin${path}`, {
    method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: r.status, body: (await r.json()) as any }
}

function cli(args: string[]) {
  const r = Bun.spawnSync(umask022([binary, ...args]), { cwd: work.path, env: { ...env, DIALER_ADMIN_URL: base } })
  return { exitCode: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() }
}

const past = () => new Date(Date.now() - 3_600_000).toISOString()

describe('synchronous', () => {
  test('the start-up log line reports FULL by default', () => {
    const line = service!.output().split('\n').find((l) => l.includes('"msg":"listening"'))
    expect(line).toBeDefined()
    expect(JSON.parse(line!).synchronous).toBe('FULL')
  })

  test('DIALER_SYNCHRONOUS=NORMAL is still honoured', async () => {
    const other = scratchDir('dialer-sec-small-normal-')
    try {
      const normal = await spawnService({ command: [binary], dataDir: join(other.path, 'data'), cwd: other.path, env: { ...env, DIALER_SYNCHRONOUS: 'NORMAL' } })
      normal.proc.kill('SIGTERM')
      await normal.proc.exited
      const line = normal.output().split('\n').find((l) => l.includes('"msg":"listening"'))
      expect(JSON.parse(line!).synchronous).toBe('NORMAL')
    } finally {
      other.remove()
    }
  })
})

describe('a key cannot be born expired', () => {
  test('admin create and PATCH: 400 invalid_request on expires_at', async () => {
    const created = await admin('POST', `/orgs/${orgId}/keys`, { name: 'k', mode: 'live', expires_at: past() })
    expect([created.status, created.body.error?.code, created.body.error?.param]).toEqual([400, 'invalid_request', 'expires_at'])
    const key = await admin('POST', `/orgs/${orgId}/keys`, { name: 'k', mode: 'live' })
    const patched = await admin('PATCH', `/keys/${key.body.data.id}`, { expires_at: past() })
    expect([patched.status, patched.body.error?.code, patched.body.error?.param]).toEqual([400, 'invalid_request', 'expires_at'])
  })

  test('the CLI is refused too (exit 4, naming expires_at)', () => {
    const r = cli(['admin', 'key', 'create', '--org', orgId, '--name', 'k', '--mode', 'live', '--expires-at', past()])
    expect(r.exitCode).toBe(4)
    expect(r.stderr).toContain('param expires_at')
  })
})

describe('console: an owner cannot raise key limits above the operator', () => {
  async function ownerSession() {
    const r = await fetch(`${base}/console/api/session`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'owner@acme.example', password: 'owner password 123' }),
    })
    expect(r.status).toBe(200)
    return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await r.json()) as any).data.csrf_token as string }
  }
  async function createKey(body: Record<string, unknown>) {
    const session = await ownerSession()
    const r = await fetch(`${base}/console/api/orgs/${orgId}/keys`, {
      method: 'POST', headers: { 'content-type': 'application/json', cookie: session.cookie, 'x-csrf-token': session.csrf }, body: JSON.stringify(body),
    })
    return { status: r.status, body: (await r.json()) as any }
  }

  test('requests a minute above the plan, or leads a minute above the default: 400 naming the field; at the plan: 201', async () => {
    const high = await createKey({ name: 'k', mode: 'live', requests_per_minute: 100_000 })
    expect([high.status, high.body.error?.code, high.body.error?.param]).toEqual([400, 'invalid_request', 'requests_per_minute'])
    const leads = await createKey({ name: 'k', mode: 'live', leads_per_minute: 100_000 })
    expect([leads.status, leads.body.error?.param]).toEqual([400, 'leads_per_minute'])
    const ok = await createKey({ name: 'k', mode: 'live', requests_per_minute: 600, leads_per_minute: 30 })
    expect(ok.status).toBe(201)
  })

  test('a key born expired is 400 here too', async () => {
    const r = await createKey({ name: 'k', mode: 'live', expires_at: past() })
    expect([r.status, r.body.error?.param]).toEqual([400, 'expires_at'])
  })
})

describe('registry shrink guard', () => {
  const numbers = (n: number, area: string) => Array.from({ length: n }, (_, i) => `${area}555${String(i).padStart(4, '0')}`).join('\n') + '\n'

  test('5 numbers over 1,500 is 409 registry_shrink naming both counts; the CLI needs --force', async () => {
    expect((await admin('POST', '/dnc_registry', numbers(1500, '212'), 'text/plain')).status).toBe(200)
    const refused = await admin('POST', '/dnc_registry', numbers(5, '310'), 'text/plain')
    expect([refused.status, refused.body.error?.code]).toEqual([409, 'registry_shrink'])
    expect(refused.body.error.message).toContain('1,500')
    expect((await admin('GET', '/dnc_registry')).body.data.total).toBe(1500)

    const file = join(work.path, 'small.txt')
    writeFileSync(file, numbers(5, '310'))
    const plain = cli(['admin', 'registry', 'import', file])
    expect(plain.exitCode).toBe(4)
    expect(plain.stderr).toContain('registry_shrink')
    expect((await admin('GET', '/dnc_registry')).body.data.total).toBe(1500)
    const forced = cli(['admin', 'registry', 'import', file, '--force'])
    expect(forced.exitCode).toBe(0)
    expect((await admin('GET', '/dnc_registry')).body.data.total).toBe(5)
  })
})

describe('data files are the owner’s only, whatever the umask', () => {
  /** Every file and folder under dir, with its permission bits. */
  function walk(dir: string, out: { path: string; dir: boolean; mode: string }[] = []) {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      out.push({ path: relative(dataDir, path), dir: entry.isDirectory(), mode: (statSync(path).mode & 0o777).toString(8) })
      if (entry.isDirectory()) walk(path, out)
    }
    return out
  }

  test('database, WAL, SHM, secret.key, an export and a backup: files 0600, folders 0700', async () => {
    // An export writes a CSV under exports/.
    const key = (await admin('POST', `/orgs/${orgId}/keys`, { name: 'exporter', mode: 'live' })).body.data
    const exported = await fetch(`${base}/api/v1/external/exports`, {
      method: 'POST', headers: { authorization: `Basic ${btoa(`${key.id}:${key.secret}`)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ exportType: 'leads' }),
    })
    expect(exported.status).toBe(200)
    const backup = cli(['backup', join(dataDir, 'backup.db'), '--data-dir', dataDir])
    expect(backup.exitCode).toBe(0)

    const entries = [{ path: '.', dir: true, mode: (statSync(dataDir).mode & 0o777).toString(8) }, ...walk(dataDir)]
    const names = entries.map((e) => e.path)
    for (const expected of ['dialer.db', 'dialer.db-wal', 'dialer.db-shm', 'secret.key', 'backup.db']) expect(names).toContain(expected)
    expect(names.some((n) => n.startsWith('exports/') && n.endsWith('.csv'))).toBe(true)
    const wrong = entries.filter((e) => e.mode !== (e.dir ? '700' : '600'))
    expect(wrong).toEqual([])
  })
})
