import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, expectError, type Harness } from '../harness'

setDefaultTimeout(60_000)

// Issue 19, item 2: console accounts (admin API), sign-in, sessions, CSRF and roles, through the handler.

let h: Harness
let orgId = ''
let otherOrgId = ''
let campaignId = ''
let otherCampaignId = ''
const OWNER = { email: 'owner@acme.example', password: 'owner password 123' }
const SDR = { email: 'sdr@acme.example', password: 'sdr password 12345' }

interface Reply { status: number; body: any; cookie: string | null }

async function call(method: string, path: string, options: { cookie?: string | null; csrf?: string; body?: unknown; contentType?: string } = {}): Promise<Reply> {
  const headers: Record<string, string> = {}
  if (options.body !== undefined) headers['content-type'] = options.contentType ?? 'application/json'
  if (options.cookie) headers.cookie = options.cookie
  if (options.csrf !== undefined) headers['x-csrf-token'] = options.csrf
  const r = await h.app.handle(new Request(`http://127.0.0.1${path}`, {
    method, headers, body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  }))
  await h.services.database.pendingCommit()
  const text = await r.text()
  return { status: r.status, body: text.startsWith('{') ? JSON.parse(text) : text, cookie: r.headers.get('set-cookie') }
}

async function signIn(credentials: { email: string; password: string } | { admin_token: string }) {
  const r = await call('POST', '/console/api/session', { body: credentials })
  expect(r.status).toBe(200)
  return { cookie: r.cookie!.split(';')[0]!, csrf: r.body.data.csrf_token as string, me: r.body.data }
}

beforeEach(async () => {
  h = createHarness({ env: { DIALER_AUTH_FAILURES_PER_MINUTE: '20' } })
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
  otherOrgId = (await h.admin('POST', '/orgs', { name: 'Other Org' })).body.data.id
  campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'active', sdrs: [{ name: 'Alex' }] })).body.data.id
  otherCampaignId = (await h.admin('POST', `/orgs/${otherOrgId}/campaigns`, { name: 'Theirs', status: 'active', sdrs: [{ name: 'Zed' }] })).body.data.id
  expect((await h.admin('POST', `/orgs/${orgId}/users`, { ...OWNER, role: 'owner' })).status).toBe(201)
  expect((await h.admin('POST', `/orgs/${orgId}/users`, { ...SDR, role: 'sdr' })).status).toBe(201)
})
afterEach(() => h.close())

describe('accounts through the admin API', () => {
  test('a minted password is shown once; never the hash; email lower-cased and unique', async () => {
    const r = await h.admin('POST', `/orgs/${orgId}/users`, { email: '  New.Person@Acme.Example ', role: 'sdr', name: 'New Person' })
    expect(r.status).toBe(201)
    expect(r.body.data).toMatchObject({ object: 'user', org_id: orgId, email: 'new.person@acme.example', role: 'sdr', name: 'New Person', disabled: false })
    expect(r.body.data.password).toMatch(/^[A-Za-z0-9_-]{24}$/)
    const again = await h.admin('GET', `/users/${r.body.data.id}`)
    expect(again.body.data.password).toBeUndefined()
    expect(JSON.stringify(again.body)).not.toContain('argon2')
    expectError(await h.admin('POST', `/orgs/${otherOrgId}/users`, { email: 'NEW.person@acme.example', role: 'owner' }), 400, 'invalid_request', 'email')
    const list = await h.admin('GET', `/orgs/${orgId}/users`)
    expect(list.body.data.map((u: any) => u.email).sort()).toEqual(['new.person@acme.example', OWNER.email, SDR.email].sort())
  })

  test.each([
    [{ email: 'not-an-email', role: 'sdr' }, 'email'],
    [{ email: 'a@b.example', role: 'admin' }, 'role'],
    [{ email: 'a@b.example', role: 'sdr', password: 'short' }, 'password'],
    [{ email: 'a@b.example', role: 'sdr', password: 'x'.repeat(201) }, 'password'],
    [{ email: 'a@b.example', role: 'sdr', extra: true }, 'extra'],
  ])('%j: 400 naming %s', async (body, param) => {
    const r = await h.admin('POST', `/orgs/${orgId}/users`, body)
    expect(r.status).toBe(400)
    expect(r.body.error.param).toBe(param)
  })
})

describe('sign-in', () => {
  test('email and password give an HttpOnly, SameSite=Strict session cookie and a CSRF token', async () => {
    const r = await call('POST', '/console/api/session', { body: { email: 'OWNER@acme.example', password: OWNER.password } })
    expect(r.status).toBe(200)
    expect(r.cookie).toMatch(/^dialer_session=[A-Za-z0-9_-]{43}; Path=\/console; HttpOnly; SameSite=Strict$/)
    expect(r.body.data).toMatchObject({ kind: 'user', user: { email: OWNER.email, role: 'owner', org_id: orgId }, orgs: [{ id: orgId, name: 'Acme Roofing' }] })
    expect(r.body.data.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    // Only the hash of the token is stored.
    const stored = h.services.database.sqlite.query('SELECT token_hash FROM console_sessions').all() as { token_hash: string }[]
    expect(stored.some((row) => r.cookie!.includes(row.token_hash))).toBe(false)
  })

  test('the operator signs in with the admin token and sees every organization', async () => {
    const { me } = await signIn({ admin_token: ADMIN_TOKEN })
    expect(me.kind).toBe('operator')
    expect(me.orgs.map((o: any) => o.id).sort()).toEqual([orgId, otherOrgId].sort())
  })

  test.each([
    ['a wrong password', { email: OWNER.email, password: 'wrong password 123' }],
    ['an unknown email', { email: 'nobody@acme.example', password: OWNER.password }],
    ['a malformed email', { email: 'nobody', password: OWNER.password }],
    ['a wrong admin token', { admin_token: 'not-the-admin-token-at-all' }],
    ['nothing', {}],
  ])('%s: 401 with one message, no cookie', async (_, body) => {
    const r = await call('POST', '/console/api/session', { body })
    expect(r.status).toBe(401)
    expect(r.body.error.code).toBe('authentication_failed')
    expect(r.cookie).toBeNull()
  })

  test('failed sign-ins: 10 for one email close it for 15 minutes; 20 from one address close the address for the minute; right passwords are refused too', async () => {
    const advance = (seconds: number) => h.services.fakeScheduler!.advanceTo(h.services.clock.now() + seconds * 1000)
    for (let i = 0; i < 10; i++) expect((await call('POST', '/console/api/session', { body: { email: OWNER.email, password: `wrong password ${i}` } })).status).toBe(401)
    const account = await call('POST', '/console/api/session', { body: { email: OWNER.email.toUpperCase(), password: OWNER.password } })
    expectError(account, 429, 'rate_limited')
    expect(account.body.error.reason).toBe('account_failures')
    expect(account.cookie).toBeNull()
    // An email with no account is counted the same way (the answer never tells which exist).
    for (let i = 0; i < 10; i++) expect((await call('POST', '/console/api/session', { body: { email: 'nobody@acme.example', password: `guess ${i}` } })).status).toBe(401)
    const address = await call('POST', '/console/api/session', { body: { email: SDR.email, password: SDR.password } })
    expectError(address, 429, 'rate_limited')
    expect(address.body.error.reason).toBe('authentication_failures')
    expect(address.cookie).toBeNull()
    await advance(61)
    expect((await call('POST', '/console/api/session', { body: SDR })).status).toBe(200)
    expect((await call('POST', '/console/api/session', { body: OWNER })).status).toBe(429)
    await advance(15 * 60)
    expect((await call('POST', '/console/api/session', { body: OWNER })).status).toBe(200)
  })

  test('a sign-in that is not JSON (a form another site could post) is refused', async () => {
    const r = await call('POST', '/console/api/session', { body: `email=${OWNER.email}&password=x`, contentType: 'application/x-www-form-urlencoded' })
    expect(r.status).toBe(400)
    expect(r.cookie).toBeNull()
  })

  test('a disabled account cannot sign in, and its open sessions end', async () => {
    const { cookie } = await signIn(SDR)
    const id = (await h.admin('GET', `/orgs/${orgId}/users`)).body.data.find((u: any) => u.email === SDR.email).id
    expect((await h.admin('PATCH', `/users/${id}`, { disabled: true })).body.data.disabled).toBe(true)
    expect((await call('GET', '/console/api/session', { cookie })).status).toBe(401)
    // Its right password answers exactly as a wrong one (nothing tells the account exists or is disabled).
    const r = await call('POST', '/console/api/session', { body: SDR })
    const wrong = await call('POST', '/console/api/session', { body: { email: SDR.email, password: 'wrong password 123' } })
    expect(r.status).toBe(401)
    expect(r.cookie).toBeNull()
    expect(r.body.error).toEqual({ ...wrong.body.error, request_id: r.body.error.request_id })
    expect(r.body.error.reason).toBe('wrong')
  })
})

describe('sessions', () => {
  test('no cookie, a made-up cookie: 401', async () => {
    expect((await call('GET', '/console/api/session')).body.error.reason).toBe('missing')
    expect((await call('GET', '/console/api/session', { cookie: 'dialer_session=made-up' })).body.error.reason).toBe('session_expired')
  })

  test('idle for 8 hours: the session is gone; activity keeps it', async () => {
    const { cookie } = await signIn(OWNER)
    await h.advance(7 * 3600)
    expect((await call('GET', '/console/api/session', { cookie })).status).toBe(200)
    await h.advance(7 * 3600)
    expect((await call('GET', '/console/api/session', { cookie })).status).toBe(200)
    await h.advance(8 * 3600 + 1)
    const r = await call('GET', '/console/api/session', { cookie })
    expect(r.status).toBe(401)
    expect(r.body.error.message).toContain('sign in again')
  })

  test('sign-out ends the session and clears the cookie', async () => {
    const { cookie, csrf } = await signIn(OWNER)
    const r = await call('DELETE', '/console/api/session', { cookie, csrf })
    expect(r.status).toBe(200)
    expect(r.cookie).toContain('Max-Age=0')
    expect((await call('GET', '/console/api/session', { cookie })).status).toBe(401)
  })

  test('a change without the CSRF token, or with another session’s, is 403 and changes nothing', async () => {
    const owner = await signIn(OWNER)
    const other = await signIn({ admin_token: ADMIN_TOKEN })
    const path = `/console/api/orgs/${orgId}/campaigns/${campaignId}/pause`
    for (const csrf of [undefined, '', 'x'.repeat(43), other.csrf]) {
      const r = await call('POST', path, { cookie: owner.cookie, csrf })
      expect(r.status).toBe(403)
      expect(r.body.error.reason).toBe('csrf')
    }
    // Sign-out is a change too.
    expect((await call('DELETE', '/console/api/session', { cookie: owner.cookie })).status).toBe(403)
    expect((await h.admin('GET', `/campaigns/${campaignId}`)).body.data.status).toBe('active')
    expect((await call('POST', path, { cookie: owner.cookie, csrf: owner.csrf })).body.data.status).toBe('paused')
  })
})

describe('people (the operator’s console accounts page)', () => {
  test('the operator creates an account (password shown once), disables and enables it; an owner cannot', async () => {
    const operator = await signIn({ admin_token: ADMIN_TOKEN })
    const made = await call('POST', `/console/api/orgs/${orgId}/users`, { cookie: operator.cookie, csrf: operator.csrf, body: { email: 'new@acme.example', role: 'sdr' } })
    expect(made.status).toBe(201)
    expect(made.body.data.password).toMatch(/^[A-Za-z0-9_-]{24}$/)
    expect((await call('POST', '/console/api/session', { body: { email: 'new@acme.example', password: made.body.data.password } })).status).toBe(200)
    const off = await call('POST', `/console/api/orgs/${orgId}/users/${made.body.data.id}/disable`, { cookie: operator.cookie, csrf: operator.csrf })
    expect(off.body.data.disabled).toBe(true)
    expect((await call('POST', '/console/api/session', { body: { email: 'new@acme.example', password: made.body.data.password } })).status).toBe(401)
    expect((await call('POST', `/console/api/orgs/${orgId}/users/${made.body.data.id}/enable`, { cookie: operator.cookie, csrf: operator.csrf })).body.data.disabled).toBe(false)
    // Not across organizations, and not for an owner.
    expect((await call('POST', `/console/api/orgs/${otherOrgId}/users/${made.body.data.id}/disable`, { cookie: operator.cookie, csrf: operator.csrf })).status).toBe(404)
    const owner = await signIn(OWNER)
    const refused = await call('POST', `/console/api/orgs/${orgId}/users`, { cookie: owner.cookie, csrf: owner.csrf, body: { email: 'x@acme.example', role: 'owner' } })
    expect(refused.status).toBe(403)
    expect((await call('GET', `/console/api/orgs/${orgId}/users`, { cookie: owner.cookie })).status).toBe(403)
  })
})

describe('roles and organizations', () => {
  test('the campaign board: lines, queue and today’s calls', async () => {
    const { cookie } = await signIn(SDR)
    const r = await call('GET', `/console/api/orgs/${orgId}/campaigns`, { cookie })
    expect(r.body.data).toEqual([{
      id: campaignId, name: 'Spring', status: 'active', lines: 2, lines_in_use: 0, queued: 0, queued_call_now: 0, queued_other: 0, late: 0, calls_today: 0, connects_today: 0, automated_voice: false,
    }])
  })

  test('an SDR reads but cannot pause; an owner can', async () => {
    const sdr = await signIn(SDR)
    const path = `/console/api/orgs/${orgId}/campaigns/${campaignId}/pause`
    const refused = await call('POST', path, { cookie: sdr.cookie, csrf: sdr.csrf })
    expect(refused.status).toBe(403)
    expect(refused.body.error.missing_permission).toBe('campaigns:write')
    const owner = await signIn(OWNER)
    expect((await call('POST', path, { cookie: owner.cookie, csrf: owner.csrf })).body.data.status).toBe('paused')
    expect((await call('POST', `/console/api/orgs/${orgId}/campaigns/${campaignId}/activate`, { cookie: owner.cookie, csrf: owner.csrf })).body.data.status).toBe('active')
  })

  test('another organization does not exist for a person of this one; the operator reaches it', async () => {
    const owner = await signIn(OWNER)
    expect((await call('GET', `/console/api/orgs/${otherOrgId}/campaigns`, { cookie: owner.cookie })).status).toBe(404)
    const across = await call('POST', `/console/api/orgs/${orgId}/campaigns/${otherCampaignId}/pause`, { cookie: owner.cookie, csrf: owner.csrf })
    expect(across.status).toBe(404)
    expect((await h.admin('GET', `/campaigns/${otherCampaignId}`)).body.data.status).toBe('active')
    const operator = await signIn({ admin_token: ADMIN_TOKEN })
    expect((await call('GET', `/console/api/orgs/${otherOrgId}/campaigns`, { cookie: operator.cookie })).body.data[0].id).toBe(otherCampaignId)
  })

  test('unknown console API paths and malformed ids are 404 in the envelope (as the external API answers them)', async () => {
    const { cookie } = await signIn(OWNER)
    expect((await call('GET', '/console/api/nothing-here', { cookie })).body.error.code).toBe('not_found')
    expect((await call('GET', '/console/api/orgs/not-a-uuid/campaigns', { cookie })).body.error.code).toBe('not_found')
  })

  test('the page: every console URL is the same page, with a strict CSP; assets are cached for good', async () => {
    const page = await h.app.handle(new Request('http://127.0.0.1/console/calls?org=x'))
    expect(page.status).toBe(200)
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
    const html = await page.text()
    const script = /src="(\/console\/assets\/app-[0-9a-f]{12}\.js)"/.exec(html)![1]!
    const asset = await h.app.handle(new Request(`http://127.0.0.1${script}`))
    expect(asset.headers.get('cache-control')).toContain('immutable')
    expect((await asset.text()).length).toBeGreaterThan(1000)
  })
})

describe('campaign streams follow access', () => {
  const streamPath = () => `/console/api/orgs/${orgId}/campaigns/stream`
  const open = (cookie: string) => h.app.handle(new Request(`http://127.0.0.1${streamPath()}`, { headers: { cookie } }))
  /** Reads the stream for up to `ms`: whether its body ended, and how many chunks came. */
  async function readFor(r: Response, ms: number): Promise<{ ended: boolean; chunks: number }> {
    const reader = r.body!.getReader()
    const deadline = Date.now() + ms
    let chunks = 0
    for (;;) {
      const left = deadline - Date.now()
      const next = left > 0 ? await Promise.race([reader.read(), Bun.sleep(left).then(() => null)]) : null
      if (next === null) {
        await reader.cancel()
        return { ended: false, chunks }
      }
      if (next.done) return { ended: true, chunks }
      chunks++
    }
  }
  const sdrId = async () => (await h.admin('GET', `/orgs/${orgId}/users`)).body.data.find((u: any) => u.email === SDR.email).id

  test.each([
    ['the account is disabled', async () => h.admin('PATCH', `/users/${await sdrId()}`, { disabled: true })],
    ['its role changes', async () => h.admin('PATCH', `/users/${await sdrId()}`, { role: 'owner' })],
    ['it signs out', async (session: { cookie: string; csrf: string }) => call('DELETE', '/console/api/session', { cookie: session.cookie, csrf: session.csrf })],
  ] as const)('an open stream ends within a tick once %s; one left alone goes on', async (_, change) => {
    const session = await signIn(SDR)
    const bystander = await signIn(OWNER)
    const mine = await open(session.cookie)
    const theirs = await open(bystander.cookie)
    expect(mine.status).toBe(200)
    await change(session)
    const [a, b] = await Promise.all([readFor(mine, 3_000), readFor(theirs, 3_000)])
    expect(a).toMatchObject({ ended: true })
    expect(b).toMatchObject({ ended: false })
    expect(b.chunks).toBeGreaterThanOrEqual(2)
  })

  test('at most 4 streams a session: the fifth is 429 with Retry-After; closing one frees its place', async () => {
    const session = await signIn(SDR)
    const streams = await Promise.all([1, 2, 3, 4].map(() => open(session.cookie)))
    expect(streams.map((r) => r.status)).toEqual([200, 200, 200, 200])
    const fifth = await open(session.cookie)
    expect(fifth.status).toBe(429)
    expect(Number(fifth.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(((await fifth.json()) as any).error).toMatchObject({ code: 'rate_limited', reason: 'console_streams' })
    // Another session has its own four.
    const other = await signIn(SDR)
    const theirs = await open(other.cookie)
    expect(theirs.status).toBe(200)
    await streams[0]!.body!.cancel()
    const again = await open(session.cookie)
    expect(again.status).toBe(200)
    for (const r of [...streams.slice(1), theirs, again]) await r.body!.cancel()
  })
})
