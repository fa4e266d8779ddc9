import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { buildAdminRequest } from '../../src/cli/admin-cli'
import { ADMIN_TOKEN, createHarness, expectError, START, type Harness, type Reply } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Issue 25, the smaller items, through the handler: keys born expired, owners' key limits in
// the console, and the registry shrink guard (admin API and CLI flag).

let h: Harness
let orgId = ''
beforeEach(async () => {
  h = createHarness()
  orgId = (await h.admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 600 })).body.data.id
  await h.admin('POST', `/orgs/${orgId}/users`, { email: 'owner@acme.example', password: 'owner password 123', role: 'owner' })
})
afterEach(() => h.close())

const past = new Date(START - 60_000).toISOString()
const future = new Date(START + 86_400_000).toISOString()

type Session = { cookie: string; csrf: string }
async function signIn(body: Record<string, string>): Promise<Session> {
  const r = await h.app.handle(new Request('http://127.0.0.1/console/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  expect(r.status).toBe(200)
  return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: ((await r.json()) as any).data.csrf_token as string }
}
async function consoleKey(session: Session, body: Record<string, unknown>) {
  const r = await h.app.handle(new Request(`http://127.0.0.1/console/api/orgs/${orgId}/keys`, {
    method: 'POST', headers: { 'content-type': 'application/json', cookie: session.cookie, 'x-csrf-token': session.csrf }, body: JSON.stringify(body),
  }))
  await h.services.database.pendingCommit()
  return { status: r.status, body: (await r.json()) as any }
}
const owner = () => signIn({ email: 'owner@acme.example', password: 'owner password 123' })

describe('expires_at in the past', () => {
  test('admin create and PATCH: 400 invalid_request on expires_at; a future time is kept', async () => {
    expectError(await h.admin('POST', `/orgs/${orgId}/keys`, { name: 'k', mode: 'live', expires_at: past }), 400, 'invalid_request', 'expires_at')
    const made = await h.admin('POST', `/orgs/${orgId}/keys`, { name: 'k', mode: 'live', expires_at: future })
    expect(made.status).toBe(201)
    expectError(await h.admin('PATCH', `/keys/${made.body.data.id}`, { expires_at: past }), 400, 'invalid_request', 'expires_at')
    expect((await h.admin('GET', `/keys/${made.body.data.id}`)).body.data.expires_at).toBe(future)
  })

  test('console create: 400 on expires_at', async () => {
    const r = await consoleKey(await owner(), { name: 'k', mode: 'live', expires_at: past })
    expectError(r, 400, 'invalid_request', 'expires_at')
  })
})

describe("console key limits: an owner at or below the operator's", () => {
  test('above the plan or a default is 400 naming the field; at them is 201', async () => {
    const session = await owner()
    const cases: [string, number][] = [['requests_per_minute', 601], ['burst', 21], ['leads_per_minute', 61], ['max_concurrent', 21]]
    for (const [field, value] of cases) {
      const r = await consoleKey(session, { name: 'k', mode: 'live', [field]: value })
      expect({ field, status: r.status, code: r.body.error?.code, param: r.body.error?.param }).toEqual({ field, status: 400, code: 'invalid_request', param: field })
    }
    const ok = await consoleKey(session, { name: 'k', mode: 'live', requests_per_minute: 600, burst: 20, leads_per_minute: 60, max_concurrent: 20 })
    expect(ok.status).toBe(201)
    expect(ok.body.data).toMatchObject({ requests_per_minute: 600, burst: 20, leads_per_minute: 60, max_concurrent: 20 })
    const lower = await consoleKey(session, { name: 'k', mode: 'live', requests_per_minute: 30, burst: 5, leads_per_minute: 10, max_concurrent: 2 })
    expect(lower.status).toBe(201)
  })

  test('the operator (admin token) in the console and the admin API set any limit', async () => {
    const operator = await signIn({ admin_token: ADMIN_TOKEN })
    const high = { name: 'k', mode: 'live', requests_per_minute: 5000, burst: 500, leads_per_minute: 1000, max_concurrent: 50 }
    expect((await consoleKey(operator, high)).status).toBe(201)
    expect((await h.admin('POST', `/orgs/${orgId}/keys`, high)).status).toBe(201)
  })
})

describe('registry shrink guard', () => {
  const upload = (body: string, query = ''): Promise<Reply> => h.call('POST', `/api/v1/admin/dnc_registry${query}`, {
    rawBody: body, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/plain' },
  })
  const numbers = (n: number, area = '212') => Array.from({ length: n }, (_, i) => `${area}555${String(i).padStart(4, '0')}`).join('\n')

  test('5 numbers over 2,000 is 409 registry_shrink with both counts; the list is kept; force=true replaces it', async () => {
    expect((await upload(numbers(2000))).body.data.total).toBe(2000)
    const refused = await upload(numbers(5, '310'))
    expectError(refused, 409, 'registry_shrink')
    expect(refused.body.error.message).toContain('2,000')
    expect(refused.body.error.message).toContain('holds 5 numbers')
    expect((await h.admin('GET', '/dnc_registry')).body.data.total).toBe(2000)
    expect(h.services.registry.isListed('+12125551999')).toBe(true)
    expect((await upload(numbers(5, '310'), '?force=false')).status).toBe(409)
    const forced = await upload(numbers(5, '310'), '?force=true')
    expect(forced.status).toBe(200)
    expect(forced.body.data.total).toBe(5)
    expect(h.services.registry.isListed('+12125551999')).toBe(false)
  })

  test('half or more, or a list under 1,000, replaces as before; a bad force value is 400', async () => {
    expect((await upload(numbers(999))).status).toBe(200)
    expect((await upload(numbers(1, '310'))).status).toBe(200)
    expect((await upload(numbers(1000))).status).toBe(200)
    expect((await upload(numbers(500, '310'))).status).toBe(200)
    expectError(await upload(numbers(5), '?force=yes'), 400, 'invalid_request', 'force')
  })

  test('the CLI sends --force as force=true', () => {
    expect(buildAdminRequest(['registry', 'import', '/tmp/x.txt', '--force']).path).toBe('/dnc_registry?force=true')
    expect(buildAdminRequest(['registry', 'import', '/tmp/x.txt']).path).toBe('/dnc_registry')
  })
})
