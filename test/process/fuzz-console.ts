/**
 * The fuzz test's console family (test/process/fuzz.test.ts): every /console/api route, with
 * the sessions of an owner, an SDR, the operator and a person of another organization, no
 * cookie or a dead one; with and without the session's CSRF token; real ids of both
 * organizations and junk in the path; bodies generated from the route's own schema, then
 * mutated. What the generator knows must be refused becomes the case's `mustRefuse`.
 */
import fc from 'fast-check'
import { PERMISSIONS } from '../../src/domain/access/permissions'
import {
  ADMIN_TOKEN, bodyFor, describeCase, enc, headerSafe, hostileString, hostileValue, idOf, queryFor, queryViolation, targetSafe,
  type AuthKind, type Body, type FuzzCase, type IdKind, type QueryPart, type Route, type World,
} from './fuzz-kit'
import { CONSOLE_API, SIGN_IN, type AppRoute, type SessionKind, type SurfaceWorld } from './fuzz-surfaces'

/**
 * Who may use each console route, from the permission its handler checks (src/console/*.ts):
 * any person of the organization (SDRs read, file outcomes and call now), owners and the
 * operator, or the operator only. A route missing here fails the test: classify it.
 */
type Access = 'sign-in' | 'session' | 'owner' | 'operator'
const ACCESS: Record<string, Access> = {
  'POST /session': 'sign-in', 'GET /session': 'session', 'DELETE /session': 'session',
  'GET /orgs/{org}/campaigns': 'session', 'GET /orgs/{org}/campaigns/stream': 'session',
  'POST /orgs/{org}/campaigns/{id}/pause': 'owner', 'POST /orgs/{org}/campaigns/{id}/activate': 'owner',
  'GET /orgs/{org}/campaigns/{id}': 'owner', 'PATCH /orgs/{org}/campaigns/{id}': 'owner',
  'GET /orgs/{org}/calls': 'session', 'GET /orgs/{org}/calls/{id}': 'session', 'POST /orgs/{org}/calls/{id}/outcome': 'session',
  'GET /orgs/{org}/dnc': 'session', 'GET /orgs/{org}/dnc/check': 'session', 'POST /orgs/{org}/dnc': 'owner', 'DELETE /orgs/{org}/dnc/{id}': 'owner',
  'GET /orgs/{org}/webhooks': 'session', 'GET /orgs/{org}/webhooks/{id}/deliveries': 'session',
  'POST /orgs/{org}/webhooks/{id}/deliveries/{delivery}/resend': 'owner', 'POST /orgs/{org}/webhooks/{id}/test': 'owner',
  'POST /orgs/{org}/webhooks/{id}/pause': 'owner', 'POST /orgs/{org}/webhooks/{id}/resume': 'owner', 'POST /orgs/{org}/webhooks/{id}/roll_secret': 'owner',
  'POST /orgs/{org}/leads/import': 'owner',
  'GET /orgs/{org}/leads': 'session', 'GET /orgs/{org}/leads/{id}': 'session', 'POST /orgs/{org}/leads/{id}/call_now': 'session',
  'GET /orgs/{org}/events': 'session', 'GET /orgs/{org}/usage': 'session',
  'GET /orgs/{org}/keys': 'owner', 'POST /orgs/{org}/keys': 'owner', 'POST /orgs/{org}/keys/{id}/revoke': 'owner',
  'GET /orgs/{org}/users': 'operator', 'POST /orgs/{org}/users': 'operator', 'POST /orgs/{org}/users/{id}/{action}': 'operator',
  // Seats show people's phones and call them: owners; the rates and the floor are read by everyone; supervising is for owners.
  'GET /orgs/{org}/campaigns/{id}/seats': 'owner', 'POST /orgs/{org}/campaigns/{id}/seats': 'owner', 'DELETE /orgs/{org}/campaigns/{id}/seats/{seat}': 'owner',
  'GET /orgs/{org}/abandonment': 'session', 'GET /orgs/{org}/floor': 'session', 'GET /orgs/{org}/floor/stream': 'session',
  'POST /orgs/{org}/calls/{id}/supervise': 'owner',
  // Caller-ID health (issue 31): carriers' settings and putting a rested number back are for owners.
  'GET /orgs/{org}/numbers': 'owner', 'POST /orgs/{org}/numbers/{number}/put-back': 'owner',
}

export const accessOf = (route: Route): Access | undefined => ACCESS[`${route.method} ${route.template.slice(CONSOLE_API.length)}`]

/** The console routes of the app; throws for one nobody classified in ACCESS. */
export function consoleRoutes(all: AppRoute[]): AppRoute[] {
  const routes = all.filter((r) => r.template.startsWith(`${CONSOLE_API}/`) && r.method !== 'HEAD')
  const unknown = routes.filter((r) => !accessOf(r)).map((r) => `${r.method} ${r.template}`)
  if (unknown.length) throw new Error(`console routes without an entry in ACCESS (fuzz-console.ts): ${unknown.join(', ')}`)
  return routes
}

// ---------------------------------------------------------------------------------------------
// Path pieces: whose they are

/** Which organization a path piece belongs to: A (fuzzed), B (other), another than A, or nobody's (junk). */
type Owner = 'A' | 'B' | 'notA' | null
interface Piece {
  raw: string
  owner: Owner
}

const junk: fc.Arbitrary<Piece> = fc.oneof(
  { weight: 3, arbitrary: fc.uuid() },
  { weight: 3, arbitrary: hostileString.map(enc) },
  { weight: 1, arbitrary: fc.constantFrom('..', '%2e%2e', '%00', '%', '%zz', '\xff', '*', ';x=1', 'a'.repeat(300)) },
).map((raw) => ({ raw, owner: null }))

const of = (ids: string[], owner: Owner, weight: number): fc.WeightedArbitrary<Piece>[] =>
  ids.length ? [{ weight, arbitrary: fc.constantFrom(...ids).map((raw) => ({ raw, owner })) }] : []

function pieceFor(w: World, sw: SurfaceWorld, template: string, index: number): fc.Arbitrary<Piece> {
  const names = [...template.matchAll(/\{([^}]+)\}/g)]
  const m = names[index]!
  const name = m[1]!
  if (name === 'org') {
    return fc.oneof(...of([sw.orgs.fuzzed], 'A', 14), ...of([sw.orgs.other], 'B', 4), ...of([sw.orgs.playground, sw.orgs.twilio], 'notA', 1), { weight: 2, arbitrary: junk })
  }
  if (name === 'action') return fc.oneof({ weight: 8, arbitrary: fc.constantFrom('disable', 'enable').map((raw): Piece => ({ raw, owner: null })) }, { weight: 1, arbitrary: junk })
  const collection = name === 'delivery' ? 'deliveries' : template.slice(0, m.index).split('/').filter(Boolean).pop()!
  // The Twilio organization's caller ID: a number of another organization than A's (A has none).
  if (collection === 'numbers') return fc.oneof(...of([encodeURIComponent('+12125550100'), '+12125550100'], 'notA', 4), { weight: 2, arbitrary: junk })
  if (collection === 'users') return fc.oneof(...of(sw.users.fuzzed, 'A', 6), ...of(sw.users.other, 'B', 2), { weight: 1, arbitrary: junk })
  if (collection === 'keys') return fc.oneof(...of(sw.keys.fuzzed, 'A', 6), ...of(sw.keys.other, 'B', 2), { weight: 1, arbitrary: junk })
  const kinds: Record<string, IdKind> = { campaigns: 'campaign', calls: 'call', dnc: 'dnc', webhooks: 'webhook', deliveries: 'delivery', leads: 'lead' }
  const kind = kinds[collection]
  if (!kind) return junk
  return fc.oneof(...of(w.ids[kind].mine, 'A', 12), ...of(w.ids[kind].other, 'notA', 3), { weight: 2, arbitrary: junk })
}

// ---------------------------------------------------------------------------------------------
// Bodies from a route's schema

const OUTCOMES = ['interested', 'not_interested', 'callback', 'voicemail', 'no_answer', 'busy', 'failed', 'dnc', 'wrong_number', 'bogus', '']

/** A plausible value for a JSON schema (TypeBox's), with hints from the field's name. */
function fromSchema(w: World, schema: Record<string, any> | null | undefined, name: string, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return fc.constant({})
  if (Array.isArray(schema.anyOf)) return fc.oneof(...schema.anyOf.map((s: Record<string, any>) => fromSchema(w, s, name, depth + 1)))
  if ('const' in schema) return fc.constant(schema.const)
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum)
  const hint: Record<string, () => fc.Arbitrary<unknown>> = {
    phones: () => fc.array(fc.oneof(fc.constantFrom(...w.phones), fc.integer({ min: 0, max: 9999 }).map((n) => `+1415555${String(n).padStart(4, '0')}`), hostileString), { minLength: 1, maxLength: 20 })
      .chain((list) => fc.constantFrom('\n', ',', ';', '\r\n').map((sep) => list.join(sep))),
    email: () => fc.oneof(fc.emailAddress(), fc.constantFrom('owner@fuzzed.example', 'NEW@Fuzzed.Example', 'x')),
    outcome: () => fc.constantFrom(...OUTCOMES),
    permissions: () => fc.subarray([...PERMISSIONS, 'admin:all', 'nope']),
    campaign_ids: () => fc.option(fc.array(idOf(w, 'campaign'), { maxLength: 2 })),
    expires_at: () => fc.constantFrom('2026-12-31T00:00:00Z', '2025-01-01T00:00:00Z', 'tomorrow'),
  }
  if (hint[name] && depth === 1) return hint[name]!()
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Record<string, any>>
      const shape = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, fromSchema(w, s, k, depth + 1)]))
      return fc.record(shape, { requiredKeys: (schema.required ?? []).filter((k: string) => k in shape) })
    }
    case 'string':
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.max(schema.minLength ?? 0, Math.min(schema.maxLength ?? 30, 30)) })
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -5, -1e6), max: Math.min(schema.maximum ?? 1000, 100_000) })
    case 'number':
      return fc.double({ min: schema.minimum ?? 0, max: Math.min(schema.maximum ?? 1000, 100_000), noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return fc.array(fromSchema(w, schema.items, name, depth + 1), { maxLength: Math.min(schema.maxItems ?? 3, 3) })
    default:
      return fc.constant({})
  }
}

const jsonText = (v: unknown): Body => {
  const text = JSON.stringify(v) ?? 'null'
  return { bytes: Buffer.from(text), label: text.length > 300 ? `${text.slice(0, 200)}... (${text.length} chars)` : text }
}

/** The schema's shape (as is, or with a field made hostile or an unknown one added), or the kit's raw hostile bodies. */
function consoleBody(w: World, route: AppRoute, shape: fc.Arbitrary<unknown>): fc.Arbitrary<Body | null> {
  const mutated = fc.tuple(shape, fc.nat(), fc.oneof(fc.constantFrom('extra', '__proto__', 'constructor'), fc.string({ maxLength: 8 })), hostileValue).map(([v, at, key, bad]) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return jsonText(bad)
    const keys = Object.keys(v)
    const copy: Record<string, unknown> = { ...(v as Record<string, unknown>) }
    if (keys.length && at % 3 !== 0) copy[keys[at % keys.length]!] = bad
    else Object.defineProperty(copy, key, { value: bad, enumerable: true, writable: true, configurable: true })
    return jsonText(copy)
  })
  return fc.oneof({ weight: 6, arbitrary: shape.map(jsonText) }, { weight: 3, arbitrary: mutated }, { weight: 2, arbitrary: bodyFor(w, route, true) })
}

/** Sign-in bodies: the seeded people's own credentials or the admin token, and wrong ones (only ever against the decoy account). */
function signInShape(sw: SurfaceWorld): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('owner', 'sdr', 'other-org', 'admin').map((k) => (k === 'admin' ? { admin_token: ADMIN_TOKEN } : { ...sw.logins[k as keyof SurfaceWorld['logins']] })) },
    { weight: 2, arbitrary: fc.string({ maxLength: 30 }).map((password) => ({ email: sw.decoy.email, password })) },
    { weight: 1, arbitrary: fc.tuple(fc.emailAddress(), fc.string({ maxLength: 20 })).map(([email, password]) => ({ email, password })) },
    { weight: 1, arbitrary: fc.constantFrom('wrong-token', `${ADMIN_TOKEN}x`, ADMIN_TOKEN.toUpperCase(), '', ` ${ADMIN_TOKEN}`).map((admin_token) => ({ admin_token })) },
    { weight: 1, arbitrary: fc.constant({ admin_token: ADMIN_TOKEN, email: sw.decoy.email, password: 'x' }) },
  )
}

/** Whether a sign-in body holds working credentials, as the route reads them (the admin token first). */
function signsIn(sw: SurfaceWorld, bytes: Uint8Array): boolean {
  let v: any
  try {
    v = JSON.parse(Buffer.from(bytes).toString('utf8'))
  } catch {
    return false
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false
  const fields = Object.keys(v)
  if (fields.some((k) => !['email', 'password', 'admin_token'].includes(k)) || fields.some((k) => typeof v[k] !== 'string' || v[k].length > 254)) return false
  if (v.admin_token !== undefined) return v.admin_token === ADMIN_TOKEN
  return Object.values(sw.logins).some((l) => l.email === v.email && l.password === v.password)
}

// ---------------------------------------------------------------------------------------------
// Credentials

type ConsoleAuth = SessionKind | 'no-cookie' | 'garbage-cookie'
const PERSON_ORG: Record<string, Owner> = { owner: 'A', sdr: 'A', 'other-org': 'B' }

interface Credentials {
  auth: ConsoleAuth
  headers: [string, string][]
  /** Whether the request carries its own session's CSRF token. */
  csrf: boolean
}

/** Cookie (and CSRF) headers, read from the sessions at generation time: they are renewed before each family. */
export function consoleCredentials(w: World, sw: SurfaceWorld, weights: Partial<Record<ConsoleAuth, number>> = {}, ownCsrf = 7): fc.Arbitrary<Credentials> {
  const kinds: ConsoleAuth[] = ['owner', 'sdr', 'operator', 'other-org', 'no-cookie', 'garbage-cookie']
  const byDefault: Record<ConsoleAuth, number> = { owner: 6, sdr: 3, operator: 3, 'other-org': 2, 'no-cookie': 2, 'garbage-cookie': 2 }
  return fc.record({
    auth: fc.oneof(...kinds.map((k) => ({ weight: weights[k] ?? byDefault[k], arbitrary: fc.constant(k) }))),
    csrf: fc.oneof({ weight: ownCsrf, arbitrary: fc.constant('own') }, { weight: 2, arbitrary: fc.constant('none') }, { weight: 1, arbitrary: fc.constantFrom('other', 'empty', 'junk') }),
    garbage: fc.nat(),
    extra: fc.constantFrom(null, null, null, 'admin', 'key', 'csrf'),
    around: fc.boolean(),
  }).map((g) => {
    const headers: [string, string][] = []
    const pick = (kind: SessionKind) => sw.sessions[kind][g.garbage % sw.sessions[kind].length]!
    const owner = pick('owner')
    const token = owner.cookie.split('=')[1]!
    if (g.auth === 'garbage-cookie') {
      const dead = [
        'dialer_session=', 'dialer_session=garbage', `dialer_session=${'A'.repeat(43)}`, `dialer_session=${token}x`, `dialer_session=${token.slice(0, -1)}`,
        `DIALER_SESSION=${token}`, `dialer_session="${token}"`, `x_dialer_session=${token}`, `dialer-session=${token}`, ...sw.deadCookies,
      ]
      headers.push(['Cookie', g.garbage % 7 === 0 ? `dialer_session=${headerSafe(String(g.garbage))}%00` : dead[g.garbage % dead.length]!])
    } else if (g.auth !== 'no-cookie') {
      const session = pick(g.auth)
      headers.push(['Cookie', g.around ? `theme=dark; ${session.cookie}; lang=en` : session.cookie])
      const value = g.csrf === 'own' ? session.csrf : g.csrf === 'other' ? (g.auth === 'owner' ? pick('sdr').csrf : owner.csrf) : g.csrf === 'empty' ? '' : g.csrf === 'junk' ? 'x'.repeat(43) : null
      if (value !== null) headers.push(['X-CSRF-Token', value])
    }
    if (g.auth === 'no-cookie' || g.auth === 'garbage-cookie') {
      // Neither the admin token, an API key nor a CSRF token alone opens the console.
      if (g.extra === 'admin') headers.push(['Authorization', `Bearer ${ADMIN_TOKEN}`])
      if (g.extra === 'key') headers.push(['Authorization', `Basic ${Buffer.from(`${w.good.live.id}:${w.good.live.secret}`).toString('base64')}`])
      if (g.extra === 'csrf') headers.push(['X-CSRF-Token', owner.csrf])
    }
    return { auth: g.auth, headers, csrf: g.csrf === 'own' && g.auth !== 'no-cookie' && g.auth !== 'garbage-cookie' }
  })
}

/** Why a console request must be refused, whatever the route does with it. */
export function consoleRefusals(route: Route, method: string, cred: Credentials, org: Piece | null, ids: Piece[]): string[] {
  const why: string[] = []
  const signingIn = route.template === SIGN_IN && method === 'POST'
  if (signingIn) return why
  if (cred.auth === 'no-cookie' || cred.auth === 'garbage-cookie') why.push(`${cred.auth}: no live session`)
  else if (method !== 'GET' && method !== 'HEAD' && !cred.csrf) why.push('a change without the session\u2019s X-CSRF-Token')
  if (org) {
    const home = PERSON_ORG[cred.auth]
    if (org.owner === null) why.push('the organization in the path does not exist')
    else if (home && org.owner !== home) why.push(`a person of organization ${home} asks for organization ${org.owner}`)
    for (const id of ids) {
      if (id.owner === null) continue
      if ((org.owner === 'A' && id.owner !== 'A') || (org.owner !== 'A' && id.owner === 'A')) why.push(`an id of organization ${id.owner} under organization ${org.owner}`)
    }
  }
  const access = accessOf(route)
  const same = method === route.method || (method === 'HEAD' && route.method === 'GET')
  if (same && access === 'owner' && cred.auth === 'sdr') why.push('an SDR on an owner-only route')
  if (same && access === 'operator' && (cred.auth === 'owner' || cred.auth === 'sdr' || cred.auth === 'other-org')) why.push('a person on an operator-only route')
  return why
}

/** Query parts a documented schema forbids, or a required one missing (only on the route's own method). */
export function queryRefusals(route: Route, parts: QueryPart[]): string[] {
  const why: string[] = []
  for (const q of parts) {
    const spec = route.query.find((p) => p.name === q.name)
    const repeated = parts.filter((x) => x.name === q.name || x.text.startsWith(`${enc(q.name ?? '')}=`) || x.text.includes(`&${enc(q.name ?? '')}=`)).length > 1
    if (!spec || repeated || q.value === undefined || !q.exact) continue
    const bad = queryViolation(spec, q.value)
    if (bad) why.push(bad)
  }
  for (const p of route.query) {
    if (p.required && !parts.some((q) => q.name === p.name || q.text.startsWith(`${enc(p.name)}=`) || q.text.includes(`&${enc(p.name)}=`))) why.push(`required query parameter ${p.name} missing`)
  }
  return why
}

/** The time limit of a request that checks or hashes a password (argon2id, slow by design). */
export const PASSWORD_MS = 2_000

const OTHER_METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND']
const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/jsonx', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/csv', '']

export function consoleCase(w: World, sw: SurfaceWorld, routes: AppRoute[], family: string): fc.Arbitrary<FuzzCase> {
  return fc.constantFrom(...routes).chain((route) => {
    const count = (route.template.match(/\{[^}]+\}/g) ?? []).length
    const signIn = route.template === SIGN_IN && route.method === 'POST'
    const shape = signIn ? signInShape(sw) : fromSchema(w, route.body, '', 0)
    return fc.record({
      method: fc.oneof({ weight: 12, arbitrary: fc.constant(route.method) }, { weight: 2, arbitrary: fc.constantFrom(...OTHER_METHODS) }),
      pieces: fc.tuple(...Array.from({ length: count }, (_, i) => pieceFor(w, sw, route.template, i))),
      query: queryFor(w, route),
      cred: consoleCredentials(w, sw),
      slash: fc.constantFrom('', '', '', '', '/'),
      body: route.hasBody ? consoleBody(w, route, shape) : fc.option(consoleBody(w, route, shape), { freq: 10 }),
      contentType: fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
      forwarded: fc.option(fc.constantFrom('1.2.3.4', '10.0.0.1', '::1', 'x'), { freq: 4 }),
    }).map((g): FuzzCase => {
      const method = g.method
      // The fuzzer never signs its own sessions out: a sign-out with the real token goes without it (and must be refused).
      const signOut = route.template === SIGN_IN && method === 'DELETE' && g.cred.csrf
      const cred = signOut ? { ...g.cred, headers: g.cred.headers.filter(([k]) => k !== 'X-CSRF-Token'), csrf: false } : g.cred
      let i = 0
      const path = route.template.replace(/\{[^}]+\}/g, () => targetSafe(g.pieces[i++]!.raw)) + g.slash
      const names = [...route.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1])
      const org = names.includes('org') ? g.pieces[names.indexOf('org')]! : null
      const ids = g.pieces.filter((_, n) => names[n] !== 'org' && names[n] !== 'action')
      const query = g.query.map((q) => q.text).join('&')
      const target = path + (query ? `?${query}` : '')
      const body = g.body && g.body.bytes.byteLength > 65_536 && !['POST', 'PATCH', 'PUT'].includes(method) ? null : g.body
      const headers: [string, string][] = [['Host', 'localhost'], ...cred.headers]
      if (body) headers.push(['Content-Type', g.contentType])
      if (g.forwarded) headers.push(['X-Forwarded-For', g.forwarded])
      const mustRefuse = consoleRefusals(route, method, cred, org, ids)
      const same = method === route.method || (method === 'HEAD' && route.method === 'GET')
      if (same && g.slash === '') mustRefuse.push(...queryRefusals(route, g.query))
      if (signIn && method === 'POST') {
        if (!body || !signsIn(sw, body.bytes)) mustRefuse.push('a sign-in without working credentials')
        else if (!/^application\/json/i.test(g.contentType)) mustRefuse.push('a sign-in whose body is not declared JSON')
      }
      if (body && body.bytes.byteLength > 1_000_000 && method !== 'GET' && method !== 'HEAD' && method !== 'DELETE') mustRefuse.push('body over 1 MB')
      const request = { method, target, headers, body: body ? body.bytes : null }
      const headBytes = Buffer.byteLength(`${method} ${target} HTTP/1.1\r\n${headers.map(([k, v]) => `${k}: ${v}\r\n`).join('')}`, 'latin1')
      // A password is checked (or hashed) slowly on purpose: a sign-in and a new account have a limit of their own.
      const hashing = (signIn || /\/users/.test(route.template)) && method === 'POST'
      const c: FuzzCase = { family, route, request, auth: cred.auth as AuthKind, door: 'open', mustRefuse, cleanPath: false, headBytes, bodyLabel: body ? body.label : null, maxMs: hashing ? PASSWORD_MS : undefined }
      return Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) })
    })
  })
}
