import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, type Harness } from '../harness'

setDefaultTimeout(60_000)

/**
 * A campaign's settings changed in the console by an owner (lines, people with their phones,
 * calling hours, voicemail) under the admin API's rules; bad input answers the API's envelope
 * naming the field; an SDR is refused; another organization's campaign is not there. Also the
 * sign-in's wording for a wrong admin token, and the outcome labels the session sends.
 */

let h: Harness
let orgId = ''
let campaignId = ''
let otherCampaignId = ''
const OWNER = { email: 'owner@settings.example', password: 'owner password 123' }
const SDR = { email: 'sdr@settings.example', password: 'sdr password 12345' }
const OTHER = { email: 'owner@other.example', password: 'other password 123' }

interface Session { cookie: string; csrf: string; me: any }

async function call(method: string, path: string, session: Session | null, body?: unknown) {
  const headers: Record<string, string> = {}
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (session) {
    headers.cookie = session.cookie
    if (method !== 'GET') headers['x-csrf-token'] = session.csrf
  }
  const r = await h.app.handle(new Request(`http://127.0.0.1/console/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }))
  await h.services.database.pendingCommit()
  const text = await r.text()
  return { status: r.status, body: text.startsWith('{') ? JSON.parse(text) : text, cookie: r.headers.get('set-cookie') }
}

async function signIn(credentials: object): Promise<Session> {
  const r = await call('POST', '/session', null, credentials)
  expect(r.status).toBe(200)
  return { cookie: r.cookie!.split(';')[0]!, csrf: r.body.data.csrf_token, me: r.body.data }
}

let owner: Session
let sdr: Session
let other: Session

beforeAll(async () => {
  h = createHarness({ env: { DIALER_AUTH_FAILURES_PER_MINUTE: '100' } })
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing', outcome_labels: { 'Hot lead': 'interested' } })).body.data.id
  const otherOrg = (await h.admin('POST', '/orgs', { name: 'Other Org' })).body.data.id
  campaignId = (await h.admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Spring', status: 'active', sdrs: [{ name: 'Alex' }] })).body.data.id
  otherCampaignId = (await h.admin('POST', `/orgs/${otherOrg}/campaigns`, { name: 'Theirs', sdrs: [{ name: 'Zed' }] })).body.data.id
  expect((await h.admin('POST', `/orgs/${orgId}/users`, { ...OWNER, role: 'owner' })).status).toBe(201)
  expect((await h.admin('POST', `/orgs/${orgId}/users`, { ...SDR, role: 'sdr' })).status).toBe(201)
  expect((await h.admin('POST', `/orgs/${otherOrg}/users`, { ...OTHER, role: 'owner' })).status).toBe(201)
  owner = await signIn(OWNER)
  sdr = await signIn(SDR)
  other = await signIn(OTHER)
})
afterAll(() => h.close())

const path = () => `/orgs/${orgId}/campaigns/${campaignId}`

describe('campaign settings in the console', () => {
  test('an owner reads and changes lines, people with phones, calling hours and voicemail; the admin API sees the change', async () => {
    const read = await call('GET', path(), owner)
    expect(read.status).toBe(200)
    expect(read.body.data).toMatchObject({ id: campaignId, name: 'Spring', status: 'active', lines: 2, calling_hours: { start: '08:00', end: '21:00' }, voicemail: null })
    const alex = read.body.data.sdrs[0]
    const patch = {
      lines: 5,
      sdrs: [{ id: alex.id, name: 'Alex Rivera', phone: '+13125550150' }, { name: 'Bo Park' }],
      closers: [{ name: 'Sam Chen', phone: '+13125550151' }],
      calling_hours: { start: '09:00', end: '17:30' },
      voicemail: { say: 'Hi, this is Acme Roofing.' },
    }
    const changed = await call('PATCH', path(), owner, patch)
    expect({ status: changed.status, error: changed.body.error }).toEqual({ status: 200, error: undefined })
    expect(changed.body.data).toMatchObject({ lines: 5, calling_hours: { start: '09:00', end: '17:30' }, voicemail: { say: 'Hi, this is Acme Roofing.' } })
    expect(changed.body.data.sdrs).toEqual([{ id: alex.id, name: 'Alex Rivera', phone: '+13125550150' }, { id: expect.any(String), name: 'Bo Park' }])
    expect(changed.body.data.closers).toEqual([{ id: expect.any(String), name: 'Sam Chen', phone: '+13125550151' }])
    const admin = (await h.admin('GET', `/campaigns/${campaignId}`)).body.data
    expect(admin).toMatchObject({ lines: 5, calling_hours: { start: '09:00', end: '17:30' }, voicemail: { say: 'Hi, this is Acme Roofing.' }, status: 'active' })
    // Only what is sent changes.
    const lines = await call('PATCH', path(), owner, { lines: 3 })
    expect(lines.body.data).toMatchObject({ lines: 3, calling_hours: { start: '09:00', end: '17:30' } })
    expect(lines.body.data.sdrs.length).toBe(2)
  })

  test('bad input answers the API’s error envelope naming the field, and changes nothing', async () => {
    const before = (await call('GET', path(), owner)).body.data
    const cases: [unknown, string][] = [
      [{ lines: 0 }, 'lines'],
      [{ lines: 'four' }, 'lines'],
      [{ sdrs: [{ name: 'Alex', phone: '555' }] }, 'sdrs[0].phone'],
      [{ closers: [{ name: ' ' }] }, 'closers[0].name'],
      [{ calling_hours: { start: '07:00', end: '12:00' } }, 'calling_hours.start'],
      [{ calling_hours: { start: '10:00', end: '22:00' } }, 'calling_hours.end'],
      [{ calling_hours: { start: '9am', end: '12:00' } }, 'calling_hours.start'],
      [{ voicemail: { say: '   ' } }, 'voicemail.say'],
      [{ voicemail: { audio_url: 'ftp://example.com/x.mp3' } }, 'voicemail.audio_url'],
      [{ spend_cap_usd: 10 }, 'spend_cap_usd'],
      [{ status: 'completed' }, 'status'],
    ]
    for (const [body, param] of cases) {
      const r = await call('PATCH', path(), owner, body)
      expect({ body, status: r.status, code: r.body.error?.code, param: r.body.error?.param, type: r.body.error?.type })
        .toEqual({ body, status: 400, code: 'invalid_request', param, type: 'invalid_request_error' })
      expect(typeof r.body.error.message).toBe('string')
    }
    // Every SDR removed from an active campaign: it could not dial (the activation rule).
    const empty = await call('PATCH', path(), owner, { sdrs: [] })
    expect(empty.status).toBe(409)
    expect(empty.body.error.code).toBe('campaign_not_ready')
    expect((await call('GET', path(), owner)).body.data).toEqual(before)
  })

  test('an SDR is refused (403 naming campaigns:write) and changes nothing; another organization gets 404', async () => {
    const refused = await call('PATCH', path(), sdr, { lines: 9 })
    expect(refused.status).toBe(403)
    expect(refused.body.error).toMatchObject({ code: 'permission_denied', missing_permission: 'campaigns:write' })
    expect((await call('GET', path(), sdr)).status).toBe(403)
    // Another organization's owner: its own path is not there, nor is this campaign through its organization.
    expect((await call('PATCH', path(), other, { lines: 9 })).status).toBe(404)
    const crossed = await call('PATCH', `/orgs/${other.me.orgs[0].id}/campaigns/${campaignId}`, other, { lines: 9 })
    expect(crossed.status).toBe(404)
    expect(crossed.body.error.code).toBe('not_found')
    // An owner of this organization asking for another organization's campaign: 404 too.
    expect((await call('PATCH', `/orgs/${orgId}/campaigns/${otherCampaignId}`, owner, { lines: 9 })).status).toBe(404)
    expect((await h.admin('GET', `/campaigns/${campaignId}`)).body.data.lines).not.toBe(9)
    expect((await h.admin('GET', `/campaigns/${otherCampaignId}`)).body.data.lines).not.toBe(9)
  })

  test('without the CSRF token the change is refused', async () => {
    const r = await h.app.handle(new Request(`http://127.0.0.1/console/api${path()}`, {
      method: 'PATCH', headers: { cookie: owner.cookie, 'content-type': 'application/json' }, body: JSON.stringify({ lines: 9 }),
    }))
    expect(r.status).toBe(403)
  })
})

describe('sign-in wording and the session’s outcome labels', () => {
  test('a wrong admin token says so; a wrong password and a disabled account keep one answer', async () => {
    const token = await call('POST', '/session', null, { admin_token: `${ADMIN_TOKEN}x` })
    expect(token.status).toBe(401)
    expect(token.body.error).toMatchObject({ code: 'authentication_failed', message: 'The admin token is wrong.', reason: 'wrong' })
    const wrong = await call('POST', '/session', null, { email: SDR.email, password: 'not the password' })
    const user = (await h.admin('GET', `/orgs/${orgId}/users`)).body.data.find((u: any) => u.email === OWNER.email)
    expect((await h.admin('PATCH', `/users/${user.id}`, { disabled: true })).status).toBe(200)
    const disabled = await call('POST', '/session', null, OWNER)
    expect(disabled.status).toBe(401)
    const { request_id: _a, ...same } = wrong.body.error
    const { request_id: _b, ...disabledError } = disabled.body.error
    expect(disabledError).toEqual(same)
    expect(wrong.body.error.message).toBe('The email or password is wrong.')
    expect((await h.admin('PATCH', `/users/${user.id}`, { disabled: false })).status).toBe(200)
  })

  test('the session sends each outcome with the organization’s label (its own, else the default)', async () => {
    const outcomes = sdr.me.orgs[0].outcomes as { outcome: string; label: string }[]
    expect(outcomes.find((o) => o.outcome === 'interested')).toEqual({ outcome: 'interested', label: 'Hot lead' })
    expect(outcomes.find((o) => o.outcome === 'not_interested')).toEqual({ outcome: 'not_interested', label: 'Not interested' })
    expect(outcomes.length).toBe(15)
  })
})
