import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { scratchDir } from '../harness'
import { serviceCommand, spawnService, type RunningService } from './spawn-service'

setDefaultTimeout(60_000)

// Guessing stops and sessions end, against the compiled binary (DIALER_TEST_BINARY): over the
// address's or the account's budget a right secret is refused too, a disabled account answers
// as a wrong password, an operator's session ends with its admin token (a new
// DIALER_ADMIN_TOKEN at start, `dialer admin-token reset`), two session cookies are refused,
// and on https the cookie is __Host-dialer_session.

const TOKEN_1 = 'security-sessions-admin-token-one-0123456789'
const TOKEN_2 = 'security-sessions-admin-token-two-0123456789'
const OWNER = { email: 'owner@acme.example', password: 'the owner password 1' }
const OFF = { email: 'off@acme.example', password: 'the disabled password 1' }
const work = scratchDir('dialer-security-')
const command = serviceCommand(work.path)
const dataDir = join(work.path, 'data')
const running: RunningService[] = []
let base = ''

async function start(env: Record<string, string>, dir = dataDir): Promise<RunningService> {
  const service = await spawnService({
    command, dataDir: dir, cwd: work.path,
    env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_LOG_REQUESTS: '0', DIALER_TRUST_PROXY: '1', ...env },
  })
  running.push(service)
  base = service.base
  return service
}

async function stop(service: RunningService): Promise<void> {
  service.proc.kill('SIGTERM')
  await service.proc.exited
}

async function admin(method: string, path: string, body?: unknown, token = TOKEN_1): Promise<any> {
  const r = await fetch(`${base}/api/v1/admin${path}`, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (r.status >= 300) throw new Error(`admin ${method} ${path}: ${r.status} ${await r.text()}`)
  return r.json()
}

async function signIn(body: unknown, from = '198.51.100.1') {
  const r = await fetch(`${base}/console/api/session`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': from }, body: JSON.stringify(body),
  })
  return { status: r.status, body: (await r.json()) as any, cookies: r.headers.getSetCookie(), retryAfter: r.headers.get('retry-after') }
}

const me = async (cookie: string) => (await fetch(`${base}/console/api/session`, { headers: { cookie } })).status
const bearer = async (token: string, from: string) =>
  fetch(`${base}/api/v1/admin/orgs`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': from } })

let service: RunningService
let operatorCookie = ''

beforeAll(async () => {
  service = await start({ DIALER_ADMIN_TOKEN: TOKEN_1 })
  const org = (await admin('POST', '/orgs', { name: 'Acme Roofing' })).data
  await admin('POST', `/orgs/${org.id}/users`, { ...OWNER, role: 'owner' })
  const off = (await admin('POST', `/orgs/${org.id}/users`, { ...OFF, role: 'sdr' })).data
  await admin('PATCH', `/users/${off.id}`, { disabled: true })
  const operator = await signIn({ admin_token: TOKEN_1 })
  expect(operator.status).toBe(200)
  operatorCookie = operator.cookies[0]!.split(';')[0]!
}, 120_000)

afterAll(async () => {
  for (const each of running) each.proc.kill('SIGKILL')
  await Promise.all(running.map((each) => each.proc.exited))
  work.remove()
})

describe('answers that tell nothing', () => {
  test('a disabled account’s right password answers exactly as a wrong password', async () => {
    const right = await signIn(OFF, '198.51.100.2')
    const wrong = await signIn({ email: OFF.email, password: 'not the password 12' }, '198.51.100.2')
    expect(right.status).toBe(401)
    expect(right.cookies).toEqual([])
    const { request_id: _a, ...rightError } = right.body.error
    const { request_id: _b, ...wrongError } = wrong.body.error
    expect(rightError).toEqual(wrongError)
  })

  test('two session cookies (one live among them) are 401 ambiguous_cookie', async () => {
    const owner = await signIn(OWNER, '198.51.100.3')
    const cookie = owner.cookies[0]!.split(';')[0]!
    expect(await me(cookie)).toBe(200)
    const r = await fetch(`${base}/console/api/session`, { headers: { cookie: `${cookie}; dialer_session=planted-by-a-sibling-site` } })
    expect(r.status).toBe(401)
    expect(((await r.json()) as any).error.reason).toBe('ambiguous_cookie')
  })
})

describe('guessing stops', () => {
  test('10 wrong passwords for one email from 10 addresses: the right password, from yet another, is 429 with no cookie', async () => {
    for (let i = 0; i < 10; i++) expect((await signIn({ email: OWNER.email, password: `wrong password ${i}` }, `203.0.113.${i + 10}`)).status).toBe(401)
    const r = await signIn(OWNER, '203.0.113.99')
    expect(r.status).toBe(429)
    expect(r.body.error.code).toBe('rate_limited')
    expect(Number(r.retryAfter)).toBeGreaterThan(0)
    expect(r.cookies).toEqual([])
  })

  test('40 wrong admin tokens at the console, then the right one from the same address: 429, no Set-Cookie', async () => {
    for (let i = 0; i < 40; i++) expect([401, 429]).toContain((await signIn({ admin_token: `wrong-admin-token-${i}-0123456789` }, '192.0.2.40')).status)
    const r = await signIn({ admin_token: TOKEN_1 }, '192.0.2.40')
    expect(r.status).toBe(429)
    expect(r.body.error.code).toBe('rate_limited')
    expect(r.cookies).toEqual([])
  })

  test('after a restart (budgets are in memory) with the same token: the operator’s session lives on; 40 wrong bearer tokens, then the right one is 429', async () => {
    await stop(service)
    service = await start({ DIALER_ADMIN_TOKEN: TOKEN_1 })
    expect(await me(operatorCookie)).toBe(200)
    expect((await bearer(TOKEN_1, '192.0.2.41')).status).toBe(200)
    for (let i = 0; i < 40; i++) expect([401, 429]).toContain((await bearer(`wrong-admin-token-${i}-0123456789`, '192.0.2.41')).status)
    const r = await bearer(TOKEN_1, '192.0.2.41')
    expect(r.status).toBe(429)
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
  })
})

describe('the operator’s session ends with its admin token', () => {
  test('restarted with another DIALER_ADMIN_TOKEN: the old session’s cookie is 401', async () => {
    await stop(service)
    service = await start({ DIALER_ADMIN_TOKEN: TOKEN_2 })
    expect(await me(operatorCookie)).toBe(401)
    expect((await bearer(TOKEN_2, '192.0.2.42')).status).toBe(200)
  })

  test('`dialer admin-token reset` against the data directory ends the operator’s session', async () => {
    const dir = join(work.path, 'minted')
    const minted = await start({}, dir)
    const stderr = minted.proc.stderr.getReader()
    let printed = ''
    while (!/Admin token[^:]*: (\S+)/.test(printed)) {
      const { value, done } = await stderr.read()
      if (done) break
      printed += new TextDecoder().decode(value)
    }
    stderr.releaseLock()
    const token = /Admin token[^:]*: (\S+)/.exec(printed)![1]!
    const operator = await signIn({ admin_token: token }, '192.0.2.43')
    expect(operator.status).toBe(200)
    const cookie = operator.cookies[0]!.split(';')[0]!
    expect(await me(cookie)).toBe(200)
    const reset = Bun.spawnSync([...command, 'admin-token', 'reset', '--data-dir', dir], { cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path } })
    expect(reset.exitCode).toBe(0)
    const fresh = /New admin token \(shown once\): (\S+)/.exec(reset.stdout.toString())![1]!
    expect(await me(cookie)).toBe(401)
    expect((await signIn({ admin_token: fresh }, '192.0.2.43')).status).toBe(200)
    await stop(minted)
  })
})

describe('cookie on an https public URL', () => {
  test('DIALER_PUBLIC_URL=https://…: Set-Cookie is __Host-dialer_session=…; Path=/; Secure, without Domain', async () => {
    await stop(service)
    service = await start({ DIALER_ADMIN_TOKEN: TOKEN_2, DIALER_PUBLIC_URL: 'https://dialer.example.com' })
    const r = await signIn({ admin_token: TOKEN_2 }, '192.0.2.44')
    expect(r.status).toBe(200)
    expect(r.cookies[0]).toMatch(/^__Host-dialer_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/)
    expect(r.cookies.join()).not.toContain('Domain')
    expect(await me(r.cookies[0]!.split(';')[0]!)).toBe(200)
  })
})
