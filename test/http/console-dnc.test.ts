import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, type Harness, type TestKey } from '../harness'

setDefaultTimeout(60_000)

// Issue 19: the console's Do Not Call API (check, add one or a pasted list, search, remove), by role.

let h: Harness
let orgId = ''
let live: TestKey
const OWNER = { email: 'owner@acme.example', password: 'owner password 123' }
const SDR = { email: 'sdr@acme.example', password: 'sdr password 12345' }

async function call(method: string, path: string, options: { session?: { cookie: string; csrf: string }; body?: unknown } = {}) {
  const headers: Record<string, string> = {}
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  if (options.session) Object.assign(headers, { cookie: options.session.cookie, 'x-csrf-token': options.session.csrf })
  const r = await h.app.handle(new Request(`http://127.0.0.1${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) }))
  await h.services.database.pendingCommit()
  return { status: r.status, body: (await r.json()) as any, cookie: r.headers.get('set-cookie') }
}
async function signIn(body: unknown) {
  const r = await call('POST', '/console/api/session', { body })
  return { cookie: r.cookie!.split(';')[0]!, csrf: r.body.data.csrf_token as string }
}

beforeEach(async () => {
  h = createHarness()
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
  await h.admin('POST', `/orgs/${orgId}/users`, { ...OWNER, role: 'owner' })
  await h.admin('POST', `/orgs/${orgId}/users`, { ...SDR, role: 'sdr' })
  live = await h.createKey(orgId, { name: 'live', mode: 'live' })
})
afterEach(() => h.close())

describe('console Do Not Call', () => {
  test('a pasted list: good numbers added, bad and repeated ones listed; the live list the API sees', async () => {
    const owner = await signIn(OWNER)
    const r = await call('POST', `/console/api/orgs/${orgId}/dnc`, { session: owner, body: { phones: '(415) 555-2671\n+1 212 555 2672, 415.555.2671\n\nnope' } })
    expect(r.body.data).toEqual({ succeeded: 2, failed: 2, errors: ['415.555.2671', 'nope'] })
    expect((await h.api('GET', '/dnc/check?phone=%2B14155552671', { key: live })).body.data.onDncList).toBe(true)
    const search = await call('GET', `/console/api/orgs/${orgId}/dnc?search=2672`, { session: owner })
    expect(search.body.data.map((e: any) => e.phone)).toEqual(['+12125552672'])
    expect((await call('GET', `/console/api/orgs/${orgId}/dnc/check?phone=2125552672`, { session: owner })).body.data.onDncList).toBe(true)
    const removed = await call('DELETE', `/console/api/orgs/${orgId}/dnc/${search.body.data[0].id}`, { session: owner })
    expect(removed.body.data.phone).toBe('+12125552672')
    expect((await h.api('GET', '/dnc/check?phone=%2B12125552672', { key: live })).body.data.onDncList).toBe(false)
  })

  test('an SDR checks and reads but cannot add or remove', async () => {
    const owner = await signIn(OWNER)
    await call('POST', `/console/api/orgs/${orgId}/dnc`, { session: owner, body: { phones: '4155552671' } })
    const sdr = await signIn(SDR)
    expect((await call('GET', `/console/api/orgs/${orgId}/dnc`, { session: sdr })).body.data).toHaveLength(1)
    const add = await call('POST', `/console/api/orgs/${orgId}/dnc`, { session: sdr, body: { phones: '4155552672' } })
    expect(add.status).toBe(403)
    expect(add.body.error.missing_permission).toBe('dnc:write')
    const id = (await call('GET', `/console/api/orgs/${orgId}/dnc`, { session: sdr })).body.data[0].id
    expect((await call('DELETE', `/console/api/orgs/${orgId}/dnc/${id}`, { session: sdr })).status).toBe(403)
  })

  test.each([
    ['nothing but separators', '\n,\n ; ', 'phones'],
    ['more than 1,000 numbers', Array.from({ length: 1001 }, (_, i) => `415555${String(i).padStart(4, '0')}`).join('\n'), 'phones'],
    ['a line too long to be a number', 'x'.repeat(40), 'phones'],
  ])('%s: 400 naming phones, nothing added', async (_, phones, param) => {
    const owner = await signIn(OWNER)
    const r = await call('POST', `/console/api/orgs/${orgId}/dnc`, { session: owner, body: { phones } })
    expect(r.status).toBe(400)
    expect(r.body.error.param).toBe(param)
    expect((await call('GET', `/console/api/orgs/${orgId}/dnc`, { session: owner })).body.data).toEqual([])
  })

  test('checking a number that cannot be one is 400 invalid_phone', async () => {
    const owner = await signIn(OWNER)
    const r = await call('GET', `/console/api/orgs/${orgId}/dnc/check?phone=%2B1999`, { session: owner })
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('invalid_phone')
  })
})
