/**
 * The fuzz test's newer surfaces (test/process/fuzz.test.ts): the console's JSON API, lead CSV
 * imports and the Twilio callbacks. This file holds what the three families share: the routes
 * (read off the app's own route table, so a new route is fuzzed without a change here), the
 * extra world they play in (console accounts and sessions, an organization on the Twilio
 * emulator with calls placed) and one plain request per route to warm the service up.
 */
import type { TwilioEmulator } from '../emulators/twilio/emulator'
import { createApp } from '../../src/app'
import { createServices } from '../../src/services'
import { testConfig } from '../harness'
import { send } from './fuzz-http'
import { ADMIN_TOKEN, type ParamSpec, type Route } from './fuzz-kit'

export const CONSOLE_API = '/console/api'
export const SIGN_IN = `${CONSOLE_API}/session`

/** A route of the app, with the schemas Elysia checks (TypeBox, as plain JSON schema). */
export interface AppRoute extends Route {
  body: Record<string, any> | null
}

/** TypeBox's union of literals (t.Union([t.Literal('a'), ...])) as an enum, which queryViolation reads. */
function paramSchema(schema: Record<string, any>): Record<string, any> {
  const branches = schema.anyOf as Record<string, any>[] | undefined
  if (branches?.length && branches.every((b) => 'const' in b)) return { ...schema, enum: branches.map((b) => b.const) }
  return schema
}

/** Every route the app registers, from an in-memory copy of it (the binary under test is built from the same source). */
export function appRoutes(): AppRoute[] {
  const services = createServices(testConfig())
  try {
    const app = createApp(services)
    return app.routes.map((r) => {
      const hooks = JSON.parse(JSON.stringify(r.hooks ?? {})) as Record<string, any>
      const props = (hooks.query?.properties ?? {}) as Record<string, Record<string, any>>
      const required = new Set<string>(hooks.query?.required ?? [])
      const query: ParamSpec[] = Object.entries(props).map(([name, schema]) => ({ name, required: required.has(name), schema: paramSchema(schema) }))
      const template = r.path.replace(/:([A-Za-z_]+)/g, '{$1}')
      return { method: r.method, template, door: 'open' as const, query, hasBody: r.method === 'POST' || r.method === 'PATCH', body: hooks.body ?? null }
    })
  } finally {
    services.close()
  }
}

// ---------------------------------------------------------------------------------------------
// The world of the new families

export type PersonKind = 'owner' | 'sdr' | 'other-org'
export type SessionKind = PersonKind | 'operator'

export interface Session {
  cookie: string
  csrf: string
}

export interface Login {
  email: string
  password: string
}

export interface SurfaceWorld {
  /** The fuzzed organization (A: the World's "mine" ids), the other one (B), the admin playground, the Twilio one. */
  orgs: { fuzzed: string; other: string; playground: string; twilio: string }
  /**
   * Live sessions, a few per kind (each has its own request budget, counted on the fake clock,
   * which stands still while a family runs); renewed before each family, as the admin family
   * moves the fake clock past their idle time.
   */
  sessions: Record<SessionKind, Session[]>
  logins: Record<PersonKind, Login>
  /** An account that only ever gets wrong passwords (a per-account failure budget must not lock the seeded people out). */
  decoy: Login
  /** Cookies that name no live session: signed out, and of an account disabled since. */
  deadCookies: string[]
  /** Targets the operator may disable and enable (never the seeded people). */
  users: { fuzzed: string[]; other: string[] }
  /** API keys the console may revoke (never the World's keys). */
  keys: { fuzzed: string[]; other: string[] }
  /** Campaigns of the fuzzed organization (A), the other one (B) and the playground (P): import targets. */
  campaigns: { A: string[]; B: string[]; P: string[] }
  /** Ids of import records, where the app keeps them (the reply to an import names one). */
  importIds: string[]
  twilio: { accountSid: string; authToken: string; calls: string[]; sids: string[] }
}

export const TWILIO_SID = `AC${'f7'.repeat(16)}`
export const TWILIO_TOKEN = '7d'.repeat(16)
const CALLER = '+12125550100'

async function json(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any; cookie: string | null }> {
  const r = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await r.text()
  return { status: r.status, body: text.startsWith('{') ? JSON.parse(text) : text, cookie: r.headers.get('set-cookie') }
}

async function must(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<any> {
  const r = await json(base, method, path, headers, body)
  if (r.status >= 300) throw new Error(`seeding: ${method} ${path} answered ${r.status}: ${JSON.stringify(r.body)}`)
  return r.body
}

const adminAuth = { authorization: `Bearer ${ADMIN_TOKEN}` }

export async function signIn(base: string, credentials: Login | { admin_token: string }): Promise<Session> {
  const r = await json(base, 'POST', SIGN_IN, {}, credentials)
  if (r.status !== 200 || !r.cookie) throw new Error(`seeding: sign-in answered ${r.status}: ${JSON.stringify(r.body)}`)
  return { cookie: r.cookie.split(';')[0]!, csrf: r.body.data.csrf_token }
}

const SESSIONS_PER_KIND = 3

/** Fresh sessions for every kind (the fake clock may have moved past the old ones' idle time). */
export async function renewSessions(base: string, sw: SurfaceWorld): Promise<void> {
  const some = (credentials: Login | { admin_token: string }) => Promise.all(Array.from({ length: SESSIONS_PER_KIND }, () => signIn(base, credentials)))
  const [owner, sdr, other, operator] = await Promise.all([some(sw.logins.owner), some(sw.logins.sdr), some(sw.logins['other-org']), some({ admin_token: ADMIN_TOKEN })])
  sw.sessions = { owner, sdr, 'other-org': other, operator }
}

/**
 * Seeds on top of the World (fuzz.test.ts seedWorld): console accounts, sessions, keys to
 * revoke, and an organization whose carrier is the Twilio emulator, with two calls placed so
 * real call ids (and their Twilio sids) exist.
 */
export async function seedSurfaces(base: string, emulator: TwilioEmulator): Promise<SurfaceWorld> {
  const admin = (method: string, path: string, body?: unknown) => must(base, method, `/api/v1/admin${path}`, adminAuth, body)
  const orgs = (await admin('GET', '/orgs?limit=100')).data as { id: string; name: string }[]
  const orgId = (name: string) => orgs.find((o) => o.name === name)?.id ?? (() => { throw new Error(`seeding: no organization ${name}`) })()
  const fuzzed = orgId('Fuzzed Org')
  const other = orgId('Other Org')
  const playground = orgId('Admin Playground')

  const user = async (org: string, email: string, role: 'owner' | 'sdr'): Promise<{ id: string; login: Login }> => {
    const password = `${role} password for ${email}`
    const d = (await admin('POST', `/orgs/${org}/users`, { email, role, name: email.split('@')[0], password })).data
    return { id: d.id, login: { email, password } }
  }
  const owner = await user(fuzzed, 'owner@fuzzed.example', 'owner')
  const sdr = await user(fuzzed, 'sdr@fuzzed.example', 'sdr')
  const otherOwner = await user(other, 'owner@other.example', 'owner')
  const decoy = await user(fuzzed, 'decoy@fuzzed.example', 'sdr')
  const victims = [await user(fuzzed, 'target-1@fuzzed.example', 'sdr'), await user(fuzzed, 'target-2@fuzzed.example', 'owner')]
  const otherVictim = await user(other, 'target@other.example', 'sdr')

  // Cookies that once worked: one signed out, one of an account disabled since.
  const gone = await signIn(base, owner.login)
  await must(base, 'DELETE', SIGN_IN, { cookie: gone.cookie, 'x-csrf-token': gone.csrf })
  const disabled = await user(fuzzed, 'disabled@fuzzed.example', 'sdr')
  const disabledSession = await signIn(base, disabled.login)
  await admin('PATCH', `/users/${disabled.id}`, { disabled: true })

  const key = async (org: string, name: string) => (await admin('POST', `/orgs/${org}/keys`, { name, mode: 'live' })).data.id as string
  const keys = { fuzzed: [await key(fuzzed, 'console 1'), await key(fuzzed, 'console 2')], other: [await key(other, 'console other')] }
  const campaignsOf = async (org: string) => ((await admin('GET', `/orgs/${org}/campaigns?limit=100`)).data as { id: string }[]).map((c) => c.id)
  const campaigns = { A: await campaignsOf(fuzzed), B: await campaignsOf(other), P: await campaignsOf(playground) }
  const importIds: string[] = []
  for (const org of [playground, other]) {
    const r = await fetch(`${base}/api/v1/admin/orgs/${org}/leads/import?campaign_id=${org === playground ? campaigns.P[0] : campaigns.B[0]}`, {
      method: 'POST', headers: { ...adminAuth, 'content-type': 'text/csv' }, body: 'phone,name\n+13125550188,Seed import\n',
    })
    const d = ((await r.json()) as { data?: Record<string, unknown> }).data
    const id = d?.import_id ?? (d?.object === 'lead_import' ? d.id : undefined)
    if (typeof id === 'string') importIds.push(id)
  }

  // The Twilio organization: its carrier is the emulator (over loopback), two calls placed.
  const twilio = (await admin('POST', '/orgs', { name: 'Twilio Org', plan_requests_per_minute: 100_000 })).data.id as string
  await admin('PATCH', `/orgs/${twilio}`, { carrier: { kind: 'twilio', account_sid: TWILIO_SID, auth_token: TWILIO_TOKEN, caller_ids: [CALLER], api_base_url: emulator.url } })
  const campaign = (await admin('POST', `/orgs/${twilio}/campaigns`, {
    name: 'Twilio active', status: 'active', lines: 5,
    sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }], closers: [{ name: 'Sam Chen', phone: '+13125550151' }],
  })).data.id as string
  const k = (await admin('POST', `/orgs/${twilio}/keys`, { name: 'twilio live', mode: 'live', requests_per_minute: 100_000, burst: 100_000 })).data
  const basic = { authorization: `Basic ${Buffer.from(`${k.id}:${k.secret}`).toString('base64')}` }
  for (const phone of ['+12125557300', '+12125557304']) {
    await must(base, 'POST', '/api/v1/external/leads', basic, { campaign_id: campaign, phone, name: 'Jordan Lee', call_now: true })
  }
  await admin('POST', '/clock', { advance_seconds: 1 })
  const deadline = Date.now() + 15_000
  let calls: string[] = []
  let sids: string[] = []
  for (;;) {
    calls = ((await must(base, 'GET', '/api/v1/external/calls?limit=10', basic)).data as { id: string }[]).map((c) => c.id)
    const emulated = [...emulator.calls.values()]
    sids = calls.map((id) => emulated.find((c) => c.statusCallback?.includes(`/twilio/calls/${id}/`))?.sid).filter((s): s is string => !!s)
    if (calls.length >= 2 && sids.length >= 2) break
    if (Date.now() > deadline) throw new Error(`seeding: the Twilio calls were not placed (calls ${JSON.stringify(calls)}, emulator ${emulated.length})`)
    await Bun.sleep(100)
  }

  const sw: SurfaceWorld = {
    orgs: { fuzzed, other, playground, twilio },
    sessions: {} as SurfaceWorld['sessions'],
    logins: { owner: owner.login, sdr: sdr.login, 'other-org': otherOwner.login },
    decoy: decoy.login,
    deadCookies: [gone.cookie, disabledSession.cookie],
    users: { fuzzed: victims.map((v) => v.id), other: [otherVictim.id] },
    keys,
    campaigns,
    importIds,
    twilio: { accountSid: TWILIO_SID, authToken: TWILIO_TOKEN, calls, sids },
  }
  await renewSessions(base, sw)
  return sw
}

/**
 * Hangs up the calls still up (through the emulator's REST API, while it still listens) and
 * waits a little for them to end, then stops the emulator: stopping it with calls up would
 * leave their last callbacks to run after its server is gone.
 */
export async function stopEmulator(emulator: TwilioEmulator): Promise<void> {
  const auth = `Basic ${Buffer.from(`${TWILIO_SID}:${TWILIO_TOKEN}`).toString('base64')}`
  const up = [...emulator.calls.values()].filter((c) => c.endedAt === null)
  for (const call of up) {
    await fetch(`${emulator.url}/2010-04-01/Accounts/${TWILIO_SID}/Calls/${call.sid}.json`, {
      method: 'POST', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body: 'Status=completed',
    }).catch(() => null)
  }
  await Promise.race([Promise.all(up.map((c) => emulator.settled(c.sid))), Bun.sleep(5_000)])
  await emulator.stop()
}

/** One plain request per new route (ids that match nothing, so nothing changes), so the time limit measures the service, not first-call compilation. */
export async function warmSurfaces(port: number, sw: SurfaceWorld, routes: Route[]): Promise<void> {
  const nothing = '00000000-0000-4000-8000-000000000000'
  for (const route of routes) {
    if (route.template === SIGN_IN && route.method === 'DELETE') continue
    const target = route.template.replace(/\{[^}]+\}/g, nothing)
    const csv = /import/.test(route.template)
    const headers: [string, string][] = [
      ['Host', 'localhost'], ['Cookie', sw.sessions.operator[0]!.cookie], ['X-CSRF-Token', sw.sessions.operator[0]!.csrf],
      ['Authorization', `Bearer ${ADMIN_TOKEN}`], ['Content-Type', csv ? 'text/csv' : 'application/json'],
    ]
    await send(port, { method: route.method, target, headers, body: route.hasBody ? Buffer.from(csv ? 'phone\n' : '{}') : null }, 5_000)
  }
}
