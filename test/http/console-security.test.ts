import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { ConsoleDeclaration } from '../../src/console/context'
import { ADMIN_TOKEN, createHarness, seedWorld, type World } from '../harness'
import { consoleRouteRows, type ConsoleRouteRow } from './console-route-table'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Security per console route. The table is generated from the app (console-route-table.ts:
 * every route under /console/api with the authorization it declares), and every row is run
 * for the people who must be refused and for one who must pass:
 *
 * - a disabled account (signed in before it was disabled): 401 on every route, and its
 *   password no longer signs in;
 * - an owner of another organization: 404 "No such organization" on every organization route;
 * - an SDR: 403 on every route its role may not use, naming what it lacks
 *   (`missing_permission`, or `reason` owner_only / operator_only); the routes it may use pass;
 * - an owner: 403 operator_only on the operator's routes; every other route passes;
 * - the operator: every route passes (the positive control).
 *
 * "Passes" means the authorization let the request through: no 401, no 403, no 404 for the
 * organization, no 5xx (an object that is not there may still be 404). A route with no row in
 * SECURITY, or whose declaration differs from its row, fails: a new console route cannot ship
 * without its row, and a changed check shows here.
 */

const h = createHarness({ env: { DIALER_AUTH_FAILURES_PER_MINUTE: '100' } })
const ROWS: ConsoleRouteRow[] = consoleRouteRows(h.routes.routes)

type Persona = 'operator' | 'owner' | 'sdr' | 'otherOwner' | 'disabled'
interface Session { cookie: string; csrf: string }
interface Req { path: string; body?: unknown; csv?: string }
interface Row {
  declares: ConsoleDeclaration
  request: (who: Persona) => Req
  /** The reply is an event stream: its status is read, its body cancelled. */
  stream?: boolean
  /** Run on a session of its own (signing out ends the one it is sent on). */
  fresh?: boolean
}

const PASSWORD = 'console security 123'
const EMAIL: Record<Exclude<Persona, 'operator'>, string> = {
  owner: 'owner@sec.example', sdr: 'sdr@sec.example', otherOwner: 'owner@other.example', disabled: 'gone@sec.example',
}
/** The SDR role's permissions (docs/console.md), written out here rather than read from src/. */
const SDR_MAY = new Set(['leads:read', 'calls:read', 'calls:write', 'campaigns:read', 'dnc:read', 'events:read', 'usage:read'])
const SAMPLE = '01890000-0000-7000-8000-000000000000'

let w: World
let sessions: Record<Persona, Session>
const o = { lead: '', dnc: '', key: '', user: '' }
let seq = 0

const org = () => `/orgs/${w.orgId}`
const campaign = (action: string) => () => ({ path: `${org()}/campaigns/${w.campaignId}/${action}` })
const byId = (tail: string) => () => ({ path: `${org()}${tail}` })

const SECURITY: Record<string, Row> = {
  'POST /session': {
    declares: 'sign_in',
    request: (who) => ({ path: '/session', body: who === 'operator' ? { admin_token: ADMIN_TOKEN } : { email: EMAIL[who], password: PASSWORD } }),
  },
  'GET /session': { declares: 'signed_in', request: () => ({ path: '/session' }) },
  'DELETE /session': { declares: 'signed_in', request: () => ({ path: '/session' }), fresh: true },
  'GET /orgs/:org/campaigns': { declares: 'campaigns:read', request: byId('/campaigns') },
  'GET /orgs/:org/campaigns/stream': { declares: 'campaigns:read', request: byId('/campaigns/stream'), stream: true },
  'POST /orgs/:org/campaigns/:id/pause': { declares: 'campaigns:write', request: campaign('pause') },
  'POST /orgs/:org/campaigns/:id/activate': { declares: 'campaigns:write', request: campaign('activate') },
  'GET /orgs/:org/campaigns/:id': { declares: 'campaigns:write', request: () => ({ path: `${org()}/campaigns/${w.campaignId}` }) },
  'PATCH /orgs/:org/campaigns/:id': { declares: 'campaigns:write', request: () => ({ path: `${org()}/campaigns/${w.campaignId}`, body: { lines: 3 } }) },
  'GET /orgs/:org/calls': { declares: 'calls:read', request: byId('/calls?limit=5') },
  'GET /orgs/:org/calls/:id': { declares: 'calls:read', request: byId(`/calls/${SAMPLE}`) },
  'POST /orgs/:org/calls/:id/outcome': { declares: 'calls:write', request: () => ({ path: `${org()}/calls/${SAMPLE}/outcome`, body: { outcome: 'interested' } }) },
  'GET /orgs/:org/leads': { declares: 'leads:read', request: byId('/leads?q=Lee') },
  'GET /orgs/:org/leads/:id': { declares: 'leads:read', request: () => ({ path: `${org()}/leads/${o.lead}` }) },
  'POST /orgs/:org/leads/:id/call_now': { declares: 'calls:write', request: () => ({ path: `${org()}/leads/${o.lead}/call_now` }) },
  'POST /orgs/:org/leads/import': {
    declares: 'leads:write',
    request: () => ({ path: `${org()}/leads/import?campaign_id=${w.campaignId}&dry_run=true`, csv: 'phone,name\n+12125553001,Lee Import\n' }),
  },
  'GET /orgs/:org/dnc': { declares: 'dnc:read', request: byId('/dnc') },
  'GET /orgs/:org/dnc/check': { declares: 'dnc:read', request: byId('/dnc/check?phone=%2B12125553002') },
  'POST /orgs/:org/dnc': { declares: 'dnc:write', request: () => ({ path: `${org()}/dnc`, body: { phones: `+1212555${3100 + seq++}` } }) },
  'DELETE /orgs/:org/dnc/:id': { declares: 'dnc:write', request: () => ({ path: `${org()}/dnc/${o.dnc}` }) },
  'GET /orgs/:org/events': { declares: 'events:read', request: byId('/events') },
  'GET /orgs/:org/webhooks': { declares: 'events:read', request: byId('/webhooks') },
  'GET /orgs/:org/webhooks/:id/deliveries': { declares: 'events:read', request: byId(`/webhooks/${SAMPLE}/deliveries`) },
  'POST /orgs/:org/webhooks/:id/deliveries/:delivery/resend': { declares: 'webhooks:write', request: byId(`/webhooks/${SAMPLE}/deliveries/whd_sample/resend`) },
  'POST /orgs/:org/webhooks/:id/test': { declares: 'webhooks:write', request: byId(`/webhooks/${SAMPLE}/test`) },
  'POST /orgs/:org/webhooks/:id/pause': { declares: 'webhooks:write', request: byId(`/webhooks/${SAMPLE}/pause`) },
  'POST /orgs/:org/webhooks/:id/resume': { declares: 'webhooks:write', request: byId(`/webhooks/${SAMPLE}/resume`) },
  'POST /orgs/:org/webhooks/:id/roll_secret': { declares: 'webhooks:write', request: byId(`/webhooks/${SAMPLE}/roll_secret`) },
  'GET /orgs/:org/usage': { declares: 'usage:read', request: byId('/usage') },
  'GET /orgs/:org/keys': { declares: 'owner', request: byId('/keys') },
  'POST /orgs/:org/keys': { declares: 'owner', request: () => ({ path: `${org()}/keys`, body: { name: `console key ${seq++}`, mode: 'test' } }) },
  'POST /orgs/:org/keys/:id/revoke': { declares: 'owner', request: () => ({ path: `${org()}/keys/${o.key}/revoke` }) },
  'GET /orgs/:org/numbers': { declares: 'owner', request: byId('/numbers') },
  // A number the organization's carriers do not list: 404 once the check has let the request through.
  'POST /orgs/:org/numbers/:number/put-back': { declares: 'owner', request: byId('/numbers/%2B12125550100/put-back') },
  'GET /orgs/:org/campaigns/:id/seats': { declares: 'campaigns:write', request: () => ({ path: `${org()}/campaigns/${w.campaignId}/seats` }) },
  'POST /orgs/:org/campaigns/:id/seats': { declares: 'campaigns:write', request: () => ({ path: `${org()}/campaigns/${w.campaignId}/seats`, body: { name: 'Alex Rivera', phone: '+12125550111' } }) },
  'DELETE /orgs/:org/campaigns/:id/seats/:seat': { declares: 'campaigns:write', request: () => ({ path: `${org()}/campaigns/${w.campaignId}/seats/${SAMPLE}` }) },
  'GET /orgs/:org/abandonment': { declares: 'campaigns:read', request: byId('/abandonment') },
  'GET /orgs/:org/floor': { declares: 'calls:read', request: byId('/floor') },
  'GET /orgs/:org/floor/stream': { declares: 'calls:read', request: byId('/floor/stream'), stream: true },
  'POST /orgs/:org/calls/:id/supervise': { declares: 'campaigns:write', request: () => ({ path: `${org()}/calls/${SAMPLE}/supervise`, body: { mode: 'listen', phone: '+12125550150' } }) },
  'GET /orgs/:org/users': { declares: 'operator', request: byId('/users') },
  'POST /orgs/:org/users': { declares: 'operator', request: () => ({ path: `${org()}/users`, body: { email: `new${seq++}@sec.example`, role: 'sdr' } }) },
  'POST /orgs/:org/users/:id/:action': { declares: 'operator', request: () => ({ path: `${org()}/users/${o.user}/disable` }) },
}

async function send(method: string, req: Req, session: Session | null, stream = false) {
  const headers: Record<string, string> = {}
  if (session) headers.cookie = session.cookie
  if (session && method !== 'GET') headers['x-csrf-token'] = session.csrf
  let body: string | undefined
  if (req.csv !== undefined) {
    headers['content-type'] = 'text/csv'
    body = req.csv
  } else if (req.body !== undefined || method === 'POST') {
    headers['content-type'] = 'application/json'
    body = req.body === undefined ? undefined : JSON.stringify(req.body)
  }
  const r = await h.app.handle(new Request(`http://127.0.0.1/console/api${req.path}`, { method, headers, body }))
  await h.services.database.pendingCommit()
  if (stream && r.status === 200) {
    await r.body?.cancel()
    return { status: r.status, body: null as any }
  }
  const text = await r.text()
  return { status: r.status, body: text.startsWith('{') ? JSON.parse(text) : text }
}

async function signIn(body: unknown): Promise<Session> {
  const r = await h.app.handle(new Request('http://127.0.0.1/console/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  const json: any = await r.json()
  if (r.status !== 200) throw new Error(`sign-in ${JSON.stringify(body)}: ${r.status} ${JSON.stringify(json)}`)
  return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: json.data.csrf_token }
}

const credentials = (who: Persona) => (who === 'operator' ? { admin_token: ADMIN_TOKEN } : { email: EMAIL[who], password: PASSWORD })

async function must(reply: Promise<{ status: number; body: any }>, status: number, what: string) {
  const r = await reply
  if (r.status !== status) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.data
}

beforeAll(async () => {
  w = await seedWorld(h)
  const user = async (orgId: string, who: Exclude<Persona, 'operator'>, role: 'owner' | 'sdr') =>
    (await must(h.admin('POST', `/orgs/${orgId}/users`, { email: EMAIL[who], password: PASSWORD, role }), 201, who)).id as string
  await user(w.orgId, 'owner', 'owner')
  await user(w.orgId, 'sdr', 'sdr')
  await user(w.otherOrgId, 'otherOwner', 'owner')
  const gone = await user(w.orgId, 'disabled', 'owner')
  o.user = (await must(h.admin('POST', `/orgs/${w.orgId}/users`, { email: 'target@sec.example', role: 'sdr' }), 201, 'target user')).id
  o.lead = (await must(h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+12125553050', name: 'Lee Secure' } }), 201, 'lead')).id
  o.dnc = (await must(h.api('POST', '/dnc', { key: w.live, body: { phone: '+12125553051' } }), 201, 'dnc entry')).id
  o.key = (await h.createKey(w.orgId, { name: 'to revoke', mode: 'test' })).id
  sessions = {
    operator: await signIn(credentials('operator')),
    owner: await signIn(credentials('owner')),
    sdr: await signIn(credentials('sdr')),
    otherOwner: await signIn(credentials('otherOwner')),
    disabled: await signIn(credentials('disabled')),
  }
  // Signed in first, disabled after: the session it holds must stop working.
  await must(h.admin('PATCH', `/users/${gone}`, { disabled: true }), 200, 'disable')
})
afterAll(() => h.close())

function specOf(row: ConsoleRouteRow): Row {
  const spec = SECURITY[row.name]
  if (!spec) throw new Error(`${row.name} has no row in SECURITY (test/http/console-security.test.ts): every console route needs one`)
  return spec
}

/** Sends the row's request as `who` (on a session of its own for `fresh` rows). */
async function run(row: ConsoleRouteRow, who: Persona) {
  const spec = specOf(row)
  const req = spec.request(who)
  if (spec.declares === 'sign_in') return send(row.method, req, null)
  const session = spec.fresh && who !== 'disabled' ? await signIn(credentials(who)) : sessions[who]
  return send(row.method, req, session, spec.stream)
}

const gist = (r: { status: number; body: any }) => ({
  status: r.status, code: r.body?.error?.code, message: r.body?.error?.message, reason: r.body?.error?.reason, missing_permission: r.body?.error?.missing_permission,
})

/** The authorization let the request through (whatever the handler then said about the object). */
function expectPassed(r: { status: number; body: any }) {
  const e = gist(r)
  const refused = r.status === 401 || r.status === 403 || r.status >= 500 || (r.status === 404 && e.message === 'No such organization')
  expect({ refused, ...e }).toEqual({ refused: false, ...e })
}

/** What refusing `who` on a route that declares `declares` looks like, or 'pass'. */
function expected(declares: ConsoleDeclaration, who: Persona): Record<string, unknown> | 'pass' {
  if (who === 'disabled') return { status: 401, code: 'authentication_failed' }
  if (declares === 'sign_in' || declares === 'signed_in' || who === 'operator') return 'pass'
  if (who === 'otherOwner') return { status: 404, code: 'not_found', message: 'No such organization' }
  if (declares === 'operator') return { status: 403, code: 'permission_denied', reason: 'operator_only' }
  if (who === 'owner') return 'pass'
  if (declares === 'owner') return { status: 403, code: 'permission_denied', reason: 'owner_only' }
  return SDR_MAY.has(declares) ? 'pass' : { status: 403, code: 'permission_denied', missing_permission: declares }
}

const PERSONAS: { id: Persona; label: string }[] = [
  { id: 'disabled', label: 'a disabled account' },
  { id: 'otherOwner', label: 'an owner of another organization' },
  { id: 'sdr', label: 'an SDR' },
  { id: 'owner', label: 'an owner' },
  { id: 'operator', label: 'the operator' },
]

interface Entry {
  name: string
  run: () => Promise<void>
}

const ENTRIES: Entry[] = ROWS.flatMap((row) => [
  {
    name: `${row.name} › declares the authorization of its row`,
    run: async () => {
      expect(row.declaration).not.toBeNull()
      expect(row.declaration).toBe(specOf(row).declares)
    },
  },
  ...PERSONAS.map(({ id, label }) => ({
    name: `${row.name} › ${label}`,
    run: async () => {
      const want = expected(specOf(row).declares, id)
      const r = await run(row, id)
      if (want === 'pass') return expectPassed(r)
      const got = gist(r)
      expect(Object.fromEntries(Object.keys(want).map((k) => [k, got[k as keyof typeof got]]))).toEqual(want)
    },
  })),
])

describe('console security per route', () => {
  test('the table is every console route, and SECURITY has no row for a route that is gone', () => {
    expect(ROWS.length).toBeGreaterThan(30)
    expect(new Set(ROWS.map((r) => r.name)).size).toBe(ROWS.length)
    const names = new Set(ROWS.map((r) => r.name))
    expect(Object.keys(SECURITY).filter((name) => !names.has(name))).toEqual([])
    expect(ROWS.filter((r) => !(r.name in SECURITY)).map((r) => r.name)).toEqual([])
    expect(ROWS.filter((r) => r.declaration === null).map((r) => r.name)).toEqual([])
  })

  test('the session tells the page what it may do, by the rule the routes check', async () => {
    const capabilities = async (who: Persona) => (await send('GET', { path: '/session' }, sessions[who])).body.data.capabilities
    const sdr = await capabilities('sdr')
    expect(sdr).toMatchObject({ campaigns_read: true, calls_write: true, campaigns_write: false, imports: false, dnc_write: false, webhooks_write: false, keys: false, people: false })
    expect(Object.values(await capabilities('owner')).filter((v) => !v).length).toBe(1)
    expect((await capabilities('owner')).people).toBe(false)
    expect(Object.values(await capabilities('operator')).every((v) => v === true)).toBe(true)
  })

  test.each(ENTRIES.map((e) => [e.name, e] as [string, Entry]))('%s', (_name, entry) => entry.run())
})
