import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { resetAdminToken } from '../../src/domain/access/admin-token'
import { ADMIN_TOKEN, createHarness, type Harness } from '../harness'
import { consoleRequest, type ConsoleRequestOptions } from './console-client'

setDefaultTimeout(60_000)

// Console sessions end when they should: at their lifetime however active, with the admin
// token that made them (the operator's), and never on an ambiguous pair of cookies. The
// cookie is __Host- on an https public URL.

const OWNER = { email: 'owner@acme.example', password: 'owner password 123' }
let h: Harness

afterEach(() => h.close())

async function setUp(env: Record<string, string> = {}) {
  h = createHarness({ env })
  const orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
  expect((await h.admin('POST', `/orgs/${orgId}/users`, { ...OWNER, role: 'owner' })).status).toBe(201)
}

const call = (method: string, path: string, options: ConsoleRequestOptions = {}) => consoleRequest(h, method, path, options)

async function signIn(body: unknown) {
  const r = await call('POST', '/console/api/session', { body })
  expect(r.status).toBe(200)
  return { cookie: r.cookies[0]!.split(';')[0]!, csrf: r.body.data.csrf_token as string, setCookie: r.cookies }
}

const advance = (seconds: number) => h.services.fakeScheduler!.advanceTo(h.services.clock.now() + seconds * 1000)
const me = (cookie: string) => call('GET', '/console/api/session', { cookie })

describe('absolute lifetime, beside the 8-hour idle limit', () => {
  test.each([
    ['the operator', { admin_token: ADMIN_TOKEN }, 12],
    ['a person', OWNER, 7 * 24],
  ])('%s: used every hour, the session still ends at its lifetime from sign-in (12 h operator, 7 days people)', async (_, credentials, hours) => {
    await setUp()
    const { cookie } = await signIn(credentials)
    for (let i = 0; i < hours; i++) {
      await advance(3600)
      expect((await me(cookie)).status).toBe(200)
    }
    await advance(1)
    const r = await me(cookie)
    expect(r.status).toBe(401)
    expect(r.body.error.reason).toBe('session_expired')
  })
})

describe('the operator’s session ends with the admin token that made it', () => {
  test('a reset (the CLI writes a new token and epoch) ends it; a person’s session stays', async () => {
    await setUp()
    const operator = await signIn({ admin_token: ADMIN_TOKEN })
    const person = await signIn(OWNER)
    resetAdminToken(h.services.stores.settings)
    expect((await me(operator.cookie)).status).toBe(401)
    expect((await me(person.cookie)).status).toBe(200)
    // The configured token is still the one in force: signing in again works.
    expect((await me((await signIn({ admin_token: ADMIN_TOKEN })).cookie)).status).toBe(200)
  })
})

describe('cookies', () => {
  test('http: dialer_session under /console; sign-out clears it', async () => {
    await setUp()
    const { cookie, csrf, setCookie } = await signIn(OWNER)
    expect(setCookie).toEqual([expect.stringMatching(/^dialer_session=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict$/)])
    const out = await call('DELETE', '/console/api/session', { cookie, csrf })
    expect(out.cookies).toEqual(['dialer_session=; Path=/console; HttpOnly; SameSite=Strict; Max-Age=0'])
  })

  test('https public URL: __Host-dialer_session, Secure, Path=/, no Domain; a leftover dialer_session is cleared; sign-out clears both', async () => {
    await setUp({ DIALER_PUBLIC_URL: 'https://dialer.example.com' })
    const { cookie, csrf, setCookie } = await signIn(OWNER)
    expect(setCookie[0]).toMatch(/^__Host-dialer_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Secure$/)
    expect(setCookie[1]).toBe('dialer_session=; Path=/console; HttpOnly; SameSite=Strict; Secure; Max-Age=0')
    expect(setCookie.join()).not.toContain('Domain')
    expect((await me(cookie)).status).toBe(200)
    // The http name is not read on an https service.
    expect((await me(cookie.replace('__Host-', ''))).body.error.reason).toBe('missing')
    const out = await call('DELETE', '/console/api/session', { cookie, csrf })
    expect(out.status).toBe(200)
    expect(out.cookies).toEqual(['__Host-dialer_session=; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=0', 'dialer_session=; Path=/console; HttpOnly; SameSite=Strict; Secure; Max-Age=0'])
  })

  test.each([
    ['two of the same name', (c: string) => `${c}; dialer_session=planted-by-a-sibling`, {}],
    ['the same one twice', (c: string) => `${c}; ${c}`, {}],
    ['both names (https)', (c: string) => `dialer_session=planted; ${c}`, { DIALER_PUBLIC_URL: 'https://dialer.example.com' }],
  ])('%s: 401 ambiguous_cookie, even with a live session among them', async (_, tossed, env) => {
    await setUp(env)
    const { cookie, csrf } = await signIn(OWNER)
    for (const [method, path] of [['GET', '/console/api/session'], ['DELETE', '/console/api/session']] as const) {
      const r = await call(method, path, { cookie: tossed(cookie), csrf })
      expect(r.status).toBe(401)
      expect(r.body.error).toMatchObject({ code: 'authentication_failed', reason: 'ambiguous_cookie' })
    }
    expect((await me(cookie)).status).toBe(200)
  })
})
