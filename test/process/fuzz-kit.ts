/**
 * The fuzz test's parts (test/process/fuzz.test.ts): the seeded world, the route table, the
 * request arbitraries and the checks every reply must pass.
 *
 * A generated request is a `FuzzCase`: the raw request plus what the generator knows about it
 * (the route it was made from, whether its credentials open that route's door, and why, if
 * at all, it must be refused). Printing a case (fast-check does, for the shrunk counterexample)
 * gives the raw HTTP request, so a failure can be replayed with curl or a socket.
 */
import fc from 'fast-check'
import type { RawReply, RawRequest, SendResult } from './fuzz-http'

export const ADMIN_TOKEN = 'fuzz-admin-token-0123456789abcdef'
export const EXTERNAL = '/api/v1/external'
export const ADMIN = '/api/v1/admin'
export const OPENAPI = `${EXTERNAL}/openapi.json`
const MAX_BODY = 1_000_000

// ---------------------------------------------------------------------------------------------
// The world the fuzzer plays in (made through the admin and external APIs, see fuzz.test.ts)

export type IdKind =
  | 'campaign' | 'lead' | 'call' | 'dnc' | 'event' | 'webhook' | 'delivery' | 'export'
  | 'org' | 'key' | 'retired' | 'job' | 'recording'

export interface Credential {
  id: string
  secret: string
}

export interface World {
  /** Valid keys of the fuzzed organization (live, test, campaign-scoped, read-only) and of another one. */
  good: Record<'live' | 'test' | 'scoped' | 'readonly' | 'other', Credential>
  /** Keys that must not authenticate: revoked, disabled, expired. */
  bad: Record<'revoked' | 'disabled' | 'expired', Credential>
  /** Ids per kind: `mine` belong to the fuzzed organization (or, for admin kinds, the playground), `other` to another. */
  ids: Record<IdKind, { mine: string[]; other: string[] }>
  /** Signed links as path + query: recordings and export downloads. */
  links: { recording: string[]; export: string[] }
  /** A phone number per scenario family, and numbers already on the Do Not Call list. */
  phones: string[]
}

// ---------------------------------------------------------------------------------------------
// Routes

export type Door = 'external' | 'admin' | 'open'

export interface ParamSpec {
  name: string
  required: boolean
  schema: Record<string, any>
}

export interface Route {
  method: string
  /** OpenAPI form: /api/v1/external/leads/{id} */
  template: string
  door: Door
  query: ParamSpec[]
  /** Whether the route reads a body (POST, PATCH). */
  hasBody: boolean
}

export function doorOf(path: string): Door {
  const trimmed = path.replace(/\/+$/, '') || '/'
  if (trimmed === OPENAPI) return 'open'
  if (trimmed.startsWith(EXTERNAL)) return 'external'
  if (trimmed.startsWith(ADMIN) || trimmed === '/metrics') return 'admin'
  return 'open'
}

/** The external routes, from the served OpenAPI document (so a new route is fuzzed without a change here). */
export function externalRoutes(openapi: any): Route[] {
  const routes: Route[] = []
  for (const [template, ops] of Object.entries<any>(openapi.paths)) {
    for (const [method, op] of Object.entries<any>(ops)) {
      if (!['get', 'post', 'patch', 'put', 'delete'].includes(method)) continue
      const query = (op.parameters ?? [])
        .filter((p: any) => p.in === 'query')
        .map((p: any) => ({ name: p.name, required: !!p.required, schema: p.schema ?? {} }))
      routes.push({ method: method.toUpperCase(), template, door: doorOf(template), query, hasBody: !!op.requestBody || method === 'post' || method === 'patch' })
    }
  }
  return routes
}

const adminList: ParamSpec[] = [
  { name: 'limit', required: false, schema: { anyOf: [{ type: 'integer', minimum: 1, maximum: 100 }] } },
  { name: 'starting_after', required: false, schema: { type: 'string' } },
]

/** The admin API (hidden from the OpenAPI document): src/admin/routes.ts. */
export const ADMIN_ROUTES: Route[] = (
  [
    ['POST', '/orgs', []], ['GET', '/orgs', adminList], ['GET', '/orgs/{org}', []], ['PATCH', '/orgs/{org}', []],
    ['POST', '/orgs/{org}/keys', []], ['GET', '/orgs/{org}/keys', adminList], ['GET', '/keys/{key}', []],
    ['PATCH', '/keys/{key}', []], ['POST', '/keys/{key}/revoke', []],
    ['POST', '/orgs/{org}/campaigns', []], ['GET', '/orgs/{org}/campaigns', adminList], ['GET', '/campaigns/{campaign}', []],
    ['PATCH', '/campaigns/{campaign}', []], ['POST', '/campaigns/{campaign}/retired_numbers', []],
    ['GET', '/campaigns/{campaign}/retired_numbers', adminList], ['DELETE', '/campaigns/{campaign}/retired_numbers/{retired}', []],
    ['POST', '/calls/{call}/outcome', []], ['POST', '/leads/{lead}/take_out_of_queue', []],
    ['GET', '/jobs', []], ['POST', '/jobs/{job}/run', []], ['GET', '/clock', []], ['POST', '/clock', []],
  ] as [string, string, ParamSpec[]][]
).map(([method, path, query]) => ({ method, template: ADMIN + path, door: 'admin' as Door, query, hasBody: method === 'POST' || method === 'PATCH' }))

const signedQuery: ParamSpec[] = [
  { name: 'expires', required: false, schema: { type: 'string' } },
  { name: 'signature', required: false, schema: { type: 'string' } },
]

/** Operations, docs and the signed links (no API key). */
export const OPEN_ROUTES: Route[] = [
  { method: 'GET', template: '/metrics', door: 'admin', query: [], hasBody: false },
  { method: 'GET', template: '/healthz', door: 'open', query: [], hasBody: false },
  { method: 'GET', template: '/readyz', door: 'open', query: [], hasBody: false },
  { method: 'GET', template: '/docs', door: 'open', query: [], hasBody: false },
  { method: 'GET', template: '/docs/assets/swagger-ui-bundle.js', door: 'open', query: [], hasBody: false },
  { method: 'GET', template: '/docs/assets/swagger-ui.css', door: 'open', query: [], hasBody: false },
  { method: 'GET', template: OPENAPI, door: 'open', query: [], hasBody: false },
  { method: 'GET', template: '/recordings/{recording}', door: 'open', query: signedQuery, hasBody: false },
  { method: 'GET', template: '/exports/{export}/download', door: 'open', query: signedQuery, hasBody: false },
]

/** Static documents: not built from the request, so exempt from the leak check (the JS bundle is full of "at x (" and "src/"). */
const STATIC = new Set(['/docs', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', OPENAPI])

/** The kind of id a path parameter takes, from the segment before it. */
function kindOfParam(template: string, index: number): IdKind {
  const name = /\{([^}]+)\}/g
  let m: RegExpExecArray | null
  let i = 0
  while ((m = name.exec(template))) {
    if (i++ !== index) continue
    const param = m[1]!
    if (param !== 'id') {
      if (param === 'delivery_id') return 'delivery'
      return param as IdKind
    }
    const before = template.slice(0, m.index).split('/').filter(Boolean).pop() ?? ''
    const byCollection: Record<string, IdKind> = {
      campaigns: 'campaign', leads: 'lead', calls: 'call', dnc: 'dnc', events: 'event', webhook_endpoints: 'webhook',
      deliveries: 'delivery', exports: 'export', orgs: 'org', keys: 'key', recordings: 'recording',
    }
    return byCollection[before] ?? 'lead'
  }
  return 'lead'
}

// ---------------------------------------------------------------------------------------------
// Small helpers

/** UTF-8 bytes of a string as a one-byte-per-character (latin1) string, for raw paths and headers. */
const utf8AsLatin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1')

/** A header value HTTP allows (no control characters but tab): anything else is replaced. */
export function headerSafe(value: string): string {
  // eslint-disable-next-line no-control-regex
  return utf8AsLatin1(value).replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '?').trim()
}

/** A request-target piece HTTP allows (no space, control characters or '#'): anything else is percent-encoded. */
export function targetSafe(latin1: string): string {
  let out = ''
  for (const ch of latin1) {
    const c = ch.charCodeAt(0)
    out += c <= 0x20 || c === 0x7f || ch === '#' ? `%${c.toString(16).padStart(2, '0').toUpperCase()}` : ch
  }
  return out
}

/** Percent-encoding (a lone surrogate, which has no UTF-8 form, goes as U+FFFD). */
export const enc = (s: string) => encodeURIComponent(s.toWellFormed())
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64')
const basic = (id: string, secret: string) => `Basic ${b64(`${id}:${secret}`)}`
const pick = <T>(list: T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined)

/** `arb` in about `percent` % of cases, else null. */
const sometimes = <T>(arb: fc.Arbitrary<T>, percent: number): fc.Arbitrary<T | null> =>
  percent <= 0 ? fc.constant(null) : fc.oneof({ weight: 100 - percent, arbitrary: fc.constant(null) }, { weight: percent, arbitrary: arb })

// ---------------------------------------------------------------------------------------------
// Hostile values

/** Strings that have broken parsers, validators, SQL, templates and loggers before. */
const HOSTILE_STRINGS = [
  '', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff\ud800', '\u202eevil', '\ufeff', 'é', 'ﬀ', 'İ', '\u{1f600}', '\u0301',
  '\n', '\r\n', '\t', '\\', '"', "'", '`', '<script>alert(1)</script>', "' OR 1=1 --", '"; DROP TABLE leads; --', '%00', '%',
  '%ff', '%zz', '..', '../..', '%2e%2e', '${7*7}', '{{7*7}}', '#{7*7}', 'NaN', 'Infinity', '-Infinity', '-1', '-0', '0',
  '1e999', '0x10', '1_000', ' 5', '5 ', '+5', '1.5', '9'.repeat(30), 'null', 'undefined', 'true', 'false', '[]', '{}',
  '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'then', '*', '?', '&', '=', ';', ',',
  '2026-02-30', '2026-13-01T00:00:00Z', '0000-00-00', '9999-12-31T23:59:59.999Z', '1970-01-01', '-62167219200',
  '99999999999999999999', 'current', 'x'.repeat(201), 'x'.repeat(5001), 'évt_00', 'evt_' + 'f'.repeat(32), 'wd_' + '0'.repeat(32),
  '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF', '01890000-0000-7000-8000-00000000000',
  '+1 (415) 555-2671', '+14155552671', '+1415555267', '+441632960961', '+18095551234', '+19005551234', '+12125550150', '911', 'tel:+14155552671',
]

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 20 }) },
  { weight: 1, arbitrary: fc.integer({ min: 200, max: 6_000 }).map((n) => 'a'.repeat(n)) },
)

const HUGE_NUMBERS = [0, -0, 1, -1, 0.5, -0.5, 1e308, -1e308, 5e-324, 2 ** 53, 2 ** 53 + 2, -(2 ** 53), 2 ** 31, 2 ** 32, 1e21, 1e-7, 100, 101, 1000, 1_000_001]

/** A key that has meaning to JavaScript objects. */
export const protoKey = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'toJSON', 'then', 'length', 'isPrototypeOf', '__defineGetter__', '')

/** An object with own keys, including ones like __proto__ that a literal would not make own. */
function own(entries: [string, unknown][]): Record<string, unknown> {
  const o: Record<string, unknown> = {}
  for (const [k, v] of entries) Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
  return o
}

/** Values of the wrong type or shape for any field. */
export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { weight: 3, arbitrary: hostileString },
    { weight: 2, arbitrary: fc.constantFrom(...HUGE_NUMBERS) },
    { weight: 1, arbitrary: fc.double() },
    { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
    { weight: 2, arbitrary: fc.tuple(protoKey, fc.constantFrom<unknown>(1, 'x', null, {}, [], true)).map(([k, v]) => own([[k, v]])) },
    { weight: 1, arbitrary: fc.constant(own([['toString', 1], ['valueOf', 2]])) },
    { weight: 1, arbitrary: fc.constant(own([['__proto__', own([['admin', true], ['livemode', false]])]])) },
    { weight: 1, arbitrary: fc.array(tie('v'), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.dictionary(fc.oneof(protoKey, fc.string({ maxLength: 8 })), tie('v'), { maxKeys: 3 }).map((d) => own(Object.entries(d))) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 3000 }).map((n) => nest(n, 'array')) },
    { weight: 1, arbitrary: fc.integer({ min: 2, max: 3000 }).map((n) => nest(n, 'object')) },
    { weight: 1, arbitrary: fc.integer({ min: 60, max: 2000 }).map((n) => Array.from({ length: n }, (_, i) => `+1212555${String(1000 + (i % 9000)).padStart(4, '0')}`)) },
  ),
})).v

/** A value nested `depth` levels deep (built without recursion). */
function nest(depth: number, kind: 'array' | 'object'): unknown {
  let v: unknown = 1
  for (let i = 0; i < depth; i++) v = kind === 'array' ? [v] : { a: v }
  return v
}

// ---------------------------------------------------------------------------------------------
// Bodies: valid-ish shapes from the spec, then mutated

const iso = fc.integer({ min: Date.UTC(2025, 0, 1), max: Date.UTC(2027, 0, 1) }).map((t) => new Date(t).toISOString())
const eventTypes = ['lead.created', 'lead.queued', 'lead.interested', 'lead.opted_out', 'lead.late', 'call.started', 'call.answered', 'call.completed', 'handover.accepted', 'voicemail.left', 'callback.booked']
const outcomes = ['interested', 'not_interested', 'callback', 'voicemail', 'no_answer', 'busy', 'failed', 'dnc', 'wrong_number', 'hung_up', 'screened', 'language_barrier', 'not_qualified', 'undetermined', 'other']
const PERMISSIONS = ['leads:read', 'leads:write', 'calls:read', 'calls:write', 'campaigns:read', 'campaigns:write', 'dnc:read', 'dnc:write', 'events:read', 'usage:read', 'webhooks:write']

/** Webhook targets that reach this machine or a private network: the service must refuse every one. */
export const PRIVATE_URLS = [
  'http://localhost/hook', 'http://localhost./hook', 'http://LOCALHOST:8080/hook', 'http://localhost.:3000/x', 'http://a.localhost/hook',
  'https://127.0.0.1/hook', 'http://127.0.0.1./hook', 'http://127.1/hook', 'http://0x7f000001/hook', 'http://2130706433/hook',
  'http://0177.0.0.1/hook', 'http://0/hook', 'http://0.0.0.0:9/hook', 'http://[::1]/hook', 'http://[::]/hook',
  'http://[::ffff:127.0.0.1]/hook', 'http://[::ffff:7f00:1]/hook', 'http://[0:0:0:0:0:0:0:1]/hook', 'http://[64:ff9b::7f00:1]/hook',
  'http://10.1.2.3/hook', 'http://172.16.0.1/hook', 'http://192.168.1.1/hook', 'http://169.254.169.254/latest/meta-data/',
  'http://[fd00:ec2::254]/hook', 'http://[fe80::1]/hook', 'http://100.64.0.1/hook', 'http://%6c%6fcalhost/hook', 'http://\u24dbocalhost/hook',
]
const PRIVATE_URL_SET = new Set(PRIVATE_URLS)
/** Public, literal addresses, so no DNS lookup in a test (example.com's former address, as in the HTTP tests; port 9 is discard, so a delivery goes nowhere). */
const PUBLIC_URLS = ['https://93.184.215.14:9/hook', 'http://93.184.215.14:9/dialer?x=1', 'https://93.184.215.14:9/in']
const webhookUrl = fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...PUBLIC_URLS) }, { weight: 5, arbitrary: fc.constantFrom(...PRIVATE_URLS) }, { weight: 1, arbitrary: hostileString })

export function idOf(w: World, kind: IdKind): fc.Arbitrary<string> {
  const { mine, other } = w.ids[kind]
  const arbs: fc.WeightedArbitrary<string>[] = [{ weight: 1, arbitrary: fc.uuid() }]
  if (mine.length) arbs.push({ weight: 8, arbitrary: fc.constantFrom(...mine) })
  if (other.length) arbs.push({ weight: 2, arbitrary: fc.constantFrom(...other) })
  return fc.oneof(...arbs)
}

const phone = (w: World) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...w.phones) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 9999 }).map((n) => `+1212555${String(n).padStart(4, '0')}`) }, { weight: 1, arbitrary: hostileString })

function leadShape(w: World, withCampaign: boolean, legacy = false): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      ...(withCampaign ? { campaign_id: idOf(w, 'campaign') } : {}),
      phone: phone(w),
      external_id: fc.string({ minLength: 1, maxLength: 12 }),
      name: fc.string({ maxLength: 20 }),
      email: fc.emailAddress(),
      address: fc.string({ maxLength: 20 }),
      fields: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 10 }), { maxKeys: 3 }),
      consent: fc.record({ source: fc.constantFrom('web_form', 'crm'), agreed_at: iso, text: fc.string({ maxLength: 20 }), url: fc.webUrl(), ip: fc.ipV4() }, { requiredKeys: ['source', 'agreed_at'] }),
      call_now: fc.boolean(),
      dry_run: fc.boolean(),
      ...(legacy ? { customFields: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.string({ maxLength: 10 }), { maxKeys: 2 }) } : {}),
    },
    { requiredKeys: withCampaign ? ['campaign_id', 'phone'] : ['phone'] },
  )
}

/** A plausible body for a route, from the spec's shapes; `{}` for routes that take none. */
function bodyShape(w: World, route: Route): fc.Arbitrary<unknown> {
  const t = route.template.replace(EXTERNAL, '').replace(ADMIN, 'admin:')
  const m = route.method
  const shapes: Record<string, () => fc.Arbitrary<unknown>> = {
    'POST /leads': () => leadShape(w, true),
    'POST /leads/batch': () => fc.record({ campaign_id: idOf(w, 'campaign'), dry_run: fc.boolean(), leads: fc.array(leadShape(w, false), { maxLength: 4 }) }, { requiredKeys: ['leads'] }),
    'PATCH /leads/{id}': () => fc.record({ name: fc.option(fc.string({ maxLength: 20 })), email: fc.option(fc.emailAddress()), address: fc.string({ maxLength: 10 }), fields: fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }), external_id: fc.string({ minLength: 1, maxLength: 10 }), call_now: fc.constant(false), phone: phone(w) }, { requiredKeys: [] }),
    'POST /leads/{id}/opt_out': () => fc.record({ reason: fc.string({ maxLength: 30 }) }, { requiredKeys: [] }),
    'POST /campaigns/{id}/leads': () => leadShape(w, false, true),
    'POST /campaigns/{id}/leads/batch': () => fc.record({ dry_run: fc.boolean(), leads: fc.array(leadShape(w, false, true), { maxLength: 4 }) }, { requiredKeys: ['leads'] }),
    'POST /calls': () => fc.record({ lead_id: idOf(w, 'lead'), external_id: fc.constantFrom('ext-1', 'ext-2', 'nope'), campaign_id: idOf(w, 'campaign') }, { requiredKeys: [] }),
    'POST /dnc': () => fc.record({ phone: phone(w) }),
    'POST /dnc/batch': () => fc.record({ phones: fc.array(phone(w), { maxLength: 5 }) }),
    'POST /webhook_endpoints': () => fc.record({ url: webhookUrl, events: fc.subarray(eventTypes, { minLength: 1 }), campaign_ids: fc.option(fc.array(idOf(w, 'campaign'), { maxLength: 2 })), description: fc.option(fc.string({ maxLength: 20 })) }, { requiredKeys: ['url', 'events'] }),
    'POST /webhooks': () => fc.record({ url: webhookUrl, events: fc.subarray(eventTypes, { minLength: 1 }) }),
    'PATCH /webhook_endpoints/{id}': () => fc.record({ url: webhookUrl, events: fc.subarray(eventTypes, { minLength: 1 }), campaign_ids: fc.option(fc.array(idOf(w, 'campaign'), { maxLength: 2 })), description: fc.option(fc.string({ maxLength: 20 })), status: fc.constantFrom('active', 'paused') }, { requiredKeys: [] }),
    'POST /webhook_endpoints/{id}/roll_secret': () => fc.record({ expire_old_after_hours: fc.integer({ min: 0, max: 720 }) }, { requiredKeys: [] }),
    'POST /exports': () => fc.record({ exportType: fc.constantFrom('leads', 'call_history', 'analytics'), filters: fc.record({ campaignId: idOf(w, 'campaign'), startDate: fc.constantFrom('2026-01-01', '2026-01-05'), endDate: fc.constantFrom('2026-01-31', '2026-12-31') }, { requiredKeys: [] }) }, { requiredKeys: ['exportType'] }),
    'POST admin:/orgs': () => fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }), timezone: fc.constantFrom('America/Chicago', 'UTC', 'Mars/Olympus', ''), rate_usd_per_minute: fc.double({ min: 0, max: 100, noNaN: true }), plan_requests_per_minute: fc.integer({ min: 120, max: 100_000 }), recording_enabled: fc.boolean(), webhook_endpoint_limit: fc.integer({ min: 0, max: 1000 }), outcome_labels: fc.dictionary(fc.constantFrom(...outcomes), fc.string({ maxLength: 10 }), { maxKeys: 2 }) }, { requiredKeys: ['name'] }),
    'PATCH admin:/orgs/{org}': () => fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }), timezone: fc.constantFrom('America/Chicago', 'UTC', 'Nowhere/Land'), recording_enabled: fc.boolean(), webhook_endpoint_limit: fc.integer({ min: 0, max: 1000 }) }, { requiredKeys: [] }),
    'POST admin:/orgs/{org}/keys': () => fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }), mode: fc.constantFrom('live', 'test', 'both'), permissions: fc.subarray([...PERMISSIONS, 'admin:all']), campaign_ids: fc.option(fc.array(idOf(w, 'campaign'), { maxLength: 2 })), max_concurrent: fc.integer({ min: 1, max: 50 }), requests_per_minute: fc.integer({ min: 1, max: 100_000 }), burst: fc.integer({ min: 1, max: 100_000 }), leads_per_minute: fc.integer({ min: 1, max: 100_000 }), expires_at: fc.option(iso) }, { requiredKeys: ['name', 'mode'] }),
    'PATCH admin:/keys/{key}': () => fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }), permissions: fc.subarray(PERMISSIONS), campaign_ids: fc.option(fc.array(idOf(w, 'campaign'), { maxLength: 2 })), disabled: fc.boolean(), requests_per_minute: fc.integer({ min: 1, max: 100_000 }), expires_at: fc.option(iso) }, { requiredKeys: [] }),
    'POST admin:/orgs/{org}/campaigns': () => fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }), status: fc.constantFrom('draft', 'active', 'paused', 'completed'), lines: fc.integer({ min: 1, max: 1000 }), sdrs: fc.array(fc.record({ name: fc.string({ minLength: 1, maxLength: 10 }) }), { maxLength: 2 }), requires_consent: fc.boolean(), calling_hours: fc.record({ start: fc.constantFrom('09:00', '25:00', 'x'), end: fc.constantFrom('17:00', '00:00', '') }), spend_cap_usd: fc.option(fc.double({ min: 0, max: 1e8, noNaN: true })) }, { requiredKeys: ['name'] }),
    'PATCH admin:/campaigns/{campaign}': () => fc.record({ name: fc.string({ minLength: 1, maxLength: 20 }), status: fc.constantFrom('draft', 'active', 'paused', 'completed'), lines: fc.integer({ min: 1, max: 1000 }), late_minutes: fc.integer({ min: 1, max: 1440 }), calling_hours: fc.record({ start: fc.constantFrom('09:00', '23:59', '9'), end: fc.constantFrom('17:00', '08:00') }), max_attempts: fc.integer({ min: 1, max: 50 }), spend_cap_usd: fc.option(fc.double({ min: 0, max: 1e8, noNaN: true })) }, { requiredKeys: [] }),
    'POST admin:/campaigns/{campaign}/retired_numbers': () => fc.record({ phone: phone(w), livemode: fc.boolean(), reason: fc.string({ maxLength: 20 }) }, { requiredKeys: ['phone'] }),
    'POST admin:/calls/{call}/outcome': () => fc.record({ outcome: fc.constantFrom(...outcomes, 'bogus'), outcome_label: fc.string({ minLength: 1, maxLength: 20 }), note: fc.option(fc.string({ maxLength: 30 })) }, { requiredKeys: [] }),
    'POST admin:/leads/{lead}/take_out_of_queue': () => fc.record({ reason: fc.string({ maxLength: 20 }) }, { requiredKeys: [] }),
    // The fake clock only moves forward; a few minutes at most, so the whole fuzz run stays within a simulated hour or two.
    'POST admin:/clock': () => fc.oneof(fc.record({ advance_seconds: fc.integer({ min: 0, max: 120 }) }), fc.record({ now: iso })),
  }
  return (shapes[`${m} ${t}`] ?? (() => fc.constant({})))()
}

/** Changes a plausible body: fields dropped, replaced by hostile values, unknown (or prototype) keys added. */
function mutate(value: unknown, ops: { kind: number; at: number; key: string; v: unknown }[]): unknown {
  let root = structuredCloneOwn(value)
  for (const raw of ops) {
    // A copy: generated values (fc.constant ones especially) are shared between runs.
    const op = { ...raw, v: structuredCloneOwn(raw.v) }
    const spots: { parent: any; key: string | number }[] = []
    walk(root, (parent, key) => spots.push({ parent, key }))
    const kind = op.kind % 4
    if (kind === 0 && spots.length) {
      const s = spots[op.at % spots.length]!
      s.parent[s.key] = op.v
    } else if (kind === 1 && spots.length) {
      const s = spots[op.at % spots.length]!
      if (Array.isArray(s.parent)) s.parent.splice(Number(s.key), 1)
      else delete s.parent[s.key]
    } else if (kind === 2) {
      const objects: any[] = []
      if (isObject(root)) objects.push(root)
      for (const s of spots) if (isObject(s.parent[s.key])) objects.push(s.parent[s.key])
      const target = objects.length ? objects[op.at % objects.length] : null
      if (target) Object.defineProperty(target, op.key, { value: op.v, enumerable: true, writable: true, configurable: true })
    } else {
      root = op.v
    }
  }
  return root
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

function walk(v: unknown, visit: (parent: any, key: string | number) => void, depth = 0): void {
  if (depth > 20) return
  if (Array.isArray(v)) v.forEach((item, i) => { visit(v, i); walk(item, visit, depth + 1) })
  else if (isObject(v)) for (const k of Object.keys(v)) { visit(v, k); walk(v[k], visit, depth + 1) }
}

/** A deep copy keeping own keys such as __proto__ own (structuredClone would too, JSON would not). */
function structuredCloneOwn(v: unknown, depth = 0): unknown {
  // Deeply nested values are built fresh for each run and never changed in place: shared as they are.
  if (depth > 50) return v
  if (Array.isArray(v)) return v.map((x) => structuredCloneOwn(x, depth + 1))
  if (isObject(v)) return own(Object.keys(v).map((k) => [k, structuredCloneOwn(v[k], depth + 1)]))
  return v
}

const mutations = fc.array(fc.record({ kind: fc.nat(), at: fc.nat(), key: fc.oneof(protoKey, fc.string({ maxLength: 10 })), v: hostileValue }), { maxLength: 3 })

// ---------------------------------------------------------------------------------------------
// Raw body texts (bytes a JSON.stringify of a value cannot give)

const NOT_JSON = [
  '', ' ', '\n', 'null', 'true', '0', '-0', '1e999', '"str"', '[]', '{', '}', '{"a":', '{"a" 1}', '{a:1}', "{'a':1}", 'NaN', 'Infinity',
  '{"a":NaN}', '{"a":1,}', '[1,]', '<xml/>', 'a=1&b=2', '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--', '\u0000',
  '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"a":"\\x41"}', '{"a":01}', '{"a":1e99999}', '{"a":-1e99999}', '{"a":123456789012345678901234567890}',
  '{"a":0.0000000000000000000000000000000000000000000000000000000000000001}', '\ufeff{}', '{}garbage', '{}{}', '[{}]', '"\\"',
]

const INVALID_UTF8 = [[0xff], [0xfe, 0xff], [0xc0, 0xaf], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0x80], [0xc3, 0x28]]

export interface Body {
  bytes: Uint8Array
  /** How to print it in a report (the bytes can be 1 MB). */
  label: string
}

/** Printable ASCII as is, anything else as a JSON string literal; long texts cut. */
const printable = (text: string) => (/^[\x20-\x7e]*$/.test(text) ? text : `(as a JSON string) ${JSON.stringify(text)}`)

const textBody = (text: string, label?: string): Body => {
  const bytes = Buffer.from(text, 'utf8')
  return { bytes, label: label ?? (text.length > 300 ? `${printable(text.slice(0, 200))}... (${bytes.byteLength} bytes)` : printable(text)) }
}

function jsonBody(value: unknown): Body {
  let text: string
  try {
    text = JSON.stringify(value) ?? 'null'
  } catch {
    text = 'null'
  }
  return textBody(text)
}

/** Deeply nested JSON text, optionally inside a field of a plausible body. */
const deepText = fc.record({
  depth: fc.oneof(fc.integer({ min: 2, max: 600 }), fc.constantFrom(1_000, 5_000, 10_000, 50_000, 100_000)),
  kind: fc.constantFrom('array', 'object', 'mixed'),
  field: fc.constantFrom(null, 'phone', 'fields', 'leads', 'url', 'events', 'name', 'exportType', 'filters', 'campaign_id', 'reason'),
}).map(({ depth, kind, field }) => {
  const open = kind === 'array' ? '[' : kind === 'object' ? '{"a":' : '[{"a":'
  const close = kind === 'array' ? ']' : kind === 'object' ? '}' : '}]'
  const reps = kind === 'mixed' ? Math.ceil(depth / 2) : depth
  const deep = open.repeat(reps) + '1' + close.repeat(reps)
  const text = field ? `{"${field}":${deep}}` : deep
  return { bytes: Buffer.from(text), label: `${field ? `{"${field}": ` : ''}${open.repeat(3)}...1...${close.repeat(3)} (${kind} nested ${depth} levels${field ? ' }' : ''}, ${text.length} bytes)` }
})

/** A plausible JSON text with invalid UTF-8 (or raw NUL) bytes inside a string. */
function withBadBytes(base: string, bytes: number[], at: number): Body {
  const quote = [...base.matchAll(/":"/g)].map((m) => m.index! + 3)
  const spot = quote.length ? quote[at % quote.length]! : 0
  const prefix = Buffer.from(base.slice(0, spot))
  const suffix = Buffer.from(base.slice(spot))
  const out = Buffer.concat([prefix, Buffer.from(bytes), suffix])
  return { bytes: out, label: `${JSON.stringify(base.slice(0, spot))} + bytes [${bytes.map((b) => '0x' + b.toString(16)).join(' ')}] + ${JSON.stringify(base.slice(spot).slice(0, 80))}` }
}

/** Replaces one value of a JSON text with a number literal JSON.stringify never writes. */
function withNumberText(base: string, literal: string, at: number): Body {
  const values = [...base.matchAll(/":("[^"]*"|-?\d[\d.eE+-]*|true|false|null)/g)]
  if (!values.length) return textBody(base)
  const m = values[at % values.length]!
  const start = m.index! + 2
  return textBody(base.slice(0, start) + literal + base.slice(start + m[1]!.length))
}

const NUMBER_TEXTS = ['1e400', '-1e400', '123456789012345678901234567890', '-0', '1E+2', '0.1e-400', '9007199254740993', '1.0', '100.0000000000000001', '-9223372036854775809']

/** A body for a route: mostly its plausible shape (mutated or not), then the raw hostile texts. */
export function bodyFor(w: World, route: Route, hostile: boolean, plainWeight = 4): fc.Arbitrary<Body | null> {
  const shape = bodyShape(w, route)
  const plain = shape.map(jsonBody)
  const mutated = fc.tuple(shape, mutations).map(([v, ops]) => jsonBody(mutate(v, ops)))
  const fromBase = (make: (base: string, n: number) => fc.Arbitrary<Body>) => fc.tuple(shape, fc.nat()).chain(([v, n]) => make(JSON.stringify(v) ?? '{}', n))
  const raw: fc.WeightedArbitrary<Body | null>[] = [
    { weight: 3, arbitrary: deepText },
    { weight: 2, arbitrary: fc.constantFrom(...NOT_JSON).map((t) => textBody(t)) },
    { weight: 2, arbitrary: fromBase((base, n) => fc.constantFrom(...INVALID_UTF8, [0]).map((bytes) => withBadBytes(base, bytes, n))) },
    { weight: 2, arbitrary: fromBase((base, n) => fc.constantFrom(...NUMBER_TEXTS).map((lit) => withNumberText(base, lit, n))) },
    // Duplicate keys: the last one wins in JSON.parse, after a validator may have seen the first.
    { weight: 2, arbitrary: fromBase((base) => fc.tuple(fc.constantFrom('phone', 'url', 'exportType', 'name', 'leads', '__proto__', 'constructor'), hostileValue).map(([k, v]) => textBody(base.replace(/^\{/, `{"${k}":${JSON.stringify(v) ?? 'null'},`).replace(/\}$/, `,"${k}":${JSON.stringify(v) ?? 'null'}}`)))) },
    // Around the 1 MB cap.
    { weight: 1, arbitrary: fc.constantFrom(MAX_BODY - 20, MAX_BODY + 1, MAX_BODY + 5_000).map((n) => textBody(`{"name":"${'x'.repeat(Math.max(0, n - 12))}"}`)) },
    { weight: 1, arbitrary: fc.constant(null) },
  ]
  if (!hostile) return fc.oneof({ weight: plainWeight, arbitrary: plain }, { weight: 5, arbitrary: mutated }, { weight: 1, arbitrary: fc.oneof(...raw) }, { weight: 1, arbitrary: fc.constant(null) })
  return fc.oneof({ weight: 1, arbitrary: plain }, { weight: 3, arbitrary: mutated }, { weight: 6, arbitrary: fc.oneof(...raw) })
}

// ---------------------------------------------------------------------------------------------
// Paths and queries

interface PathPiece {
  /** Latin1 text put in the path as is. */
  raw: string
}

/** A path parameter: a real id (this organization's or another's), another kind's id, or something hostile. */
function paramValue(w: World, kind: IdKind): fc.Arbitrary<PathPiece> {
  const otherKinds = (Object.keys(w.ids) as IdKind[]).filter((k) => k !== kind)
  const encoded = (a: fc.Arbitrary<string>) => a.map((s) => ({ raw: enc(s) }))
  return fc.oneof(
    { weight: 20, arbitrary: idOf(w, kind).map((raw) => ({ raw })) },
    { weight: 2, arbitrary: fc.constantFrom(...otherKinds).chain((k) => idOf(w, k)).map((raw) => ({ raw })) },
    { weight: 1, arbitrary: idOf(w, kind).map((id) => ({ raw: id.toUpperCase() })) },
    { weight: 1, arbitrary: idOf(w, kind).map((id) => ({ raw: enc(` ${id}`) })) },
    { weight: 3, arbitrary: encoded(hostileString) },
    // As is: dot segments, encoded slashes and dots, stray percent signs, raw (invalid) UTF-8.
    { weight: 3, arbitrary: fc.constantFrom('..', '.', '%2e%2e', '%2E', '..%2f..%2fadmin', '%2f', '%5c', '%00', '%', '%zz', '%c0%ae', '%ff%fe', ';x=1', '*', '~', '!$&\'()*+,;=:@', '\xff', '\xc3\x28', '\xed\xa0\x80', utf8AsLatin1('é'), utf8AsLatin1('\u{1f600}')).map((raw) => ({ raw })) },
    { weight: 1, arbitrary: fc.integer({ min: 100, max: 7_000 }).map((n) => ({ raw: 'a'.repeat(n) })) },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 }).map((s) => ({ raw: utf8AsLatin1(s) })) },
  )
}

export function fillTemplate(template: string, values: PathPiece[]): string {
  let i = 0
  return template.replace(/\{[^}]+\}/g, () => targetSafe(values[i++]?.raw ?? ''))
}

/** A value a query parameter's schema allows (from the OpenAPI document, or the admin list shape). */
function validQueryValue(w: World, p: ParamSpec): fc.Arbitrary<string> {
  const s = p.schema
  const bounds = integerBounds(s)
  if (bounds) return fc.integer({ min: bounds.min, max: Math.min(bounds.max, 200) }).map(String)
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum.map(String))
  if (s.type === 'array') return fc.subarray(eventTypes, { minLength: 1 }).map((a) => a.join(','))
  const byName: Record<string, () => fc.Arbitrary<string>> = {
    campaign_id: () => idOf(w, 'campaign'),
    lead_id: () => idOf(w, 'lead'),
    object_id: () => fc.oneof(idOf(w, 'lead'), idOf(w, 'call')),
    'created[gte]': () => fc.oneof(iso, fc.constantFrom('2026-01-05', '1767625200', '0')),
    'created[lte]': () => fc.oneof(iso, fc.constantFrom('2026-12-31', '1800000000')),
    phone: () => phone(w),
    period: () => fc.constantFrom('current', '2026-01', '2025-12', '2026-1', '1999-01'),
    external_id: () => fc.constantFrom('ext-1', 'ext-2', 'nope'),
    search: () => fc.constantFrom('415', 'Ann', '@', ''),
    expires: () => fc.constantFrom('1', '99999999999', '-1', 'x'),
    signature: () => fc.constantFrom('x', '0'.repeat(64), ''),
  }
  if (byName[p.name]) return byName[p.name]!()
  if (s.pattern === '^evt_[0-9a-f]{32}$') return idOf(w, 'event')
  if (s.pattern === '^wd_[0-9a-f]{32}$') return idOf(w, 'delivery')
  if (s.format === 'uuid') return fc.oneof(idOf(w, 'lead'), idOf(w, 'call'), idOf(w, 'campaign'), fc.uuid())
  return fc.string({ maxLength: Math.min(Number(s.maxLength ?? 20), 20) })
}

function integerBounds(schema: Record<string, any>): { min: number; max: number } | null {
  const ints = [schema, ...(schema.anyOf ?? [])].filter((x) => x && (x.type === 'integer' || x.type === 'number') && (x.minimum !== undefined || x.maximum !== undefined))
  const withBounds = ints[0] ?? (schema.minimum !== undefined || schema.maximum !== undefined ? schema : null)
  if (!withBounds) return null
  return { min: Number(withBounds.minimum ?? Number.MIN_SAFE_INTEGER), max: Number(withBounds.maximum ?? Number.MAX_SAFE_INTEGER) }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/**
 * Why a query value must be refused, from its documented schema: an integer out of its range
 * (limit, offset), a value outside an enum, a malformed uuid or id pattern, a string over its
 * maximum length. null when the schema allows it, or when it cannot tell (an empty value is
 * left to the service).
 */
export function queryViolation(p: ParamSpec, value: string): string | null {
  if (value === '') return null
  const s = p.schema
  const bounds = integerBounds(s)
  if (bounds) {
    if (value.trim() === '') return null
    const n = Number(value)
    if (Number.isNaN(n)) return `${p.name}=${JSON.stringify(value)} is not a number`
    if (n < bounds.min || n > bounds.max) return `${p.name}=${JSON.stringify(value)} is outside ${bounds.min}..${bounds.max}`
    if (!Number.isInteger(n)) return `${p.name}=${JSON.stringify(value)} is not an integer`
    return null
  }
  if (Array.isArray(s.enum) && !s.enum.map(String).includes(value)) return `${p.name}=${JSON.stringify(value)} is not one of ${s.enum.join(', ')}`
  if (s.format === 'uuid' && !UUID.test(value)) return `${p.name}=${JSON.stringify(value)} is not a uuid`
  if (typeof s.pattern === 'string' && !new RegExp(s.pattern).test(value)) return `${p.name}=${JSON.stringify(value)} does not match ${s.pattern}`
  if (typeof s.maxLength === 'number' && [...value].length > s.maxLength) return `${p.name} is longer than ${s.maxLength}`
  return null
}

export interface QueryPart {
  /** The pair as sent (encoded). */
  text: string
  /** Decoded name and value, when the fuzzer knows them (sent percent-encoded, so the service reads the same). */
  name?: string
  value?: string
  exact?: boolean
}


export function queryFor(w: World, route: Route): fc.Arbitrary<QueryPart[]> {
  const documented = route.query.map((p) =>
    fc.option(
      fc.oneof(
        { weight: 5, arbitrary: validQueryValue(w, p) },
        { weight: 3, arbitrary: hostileString },
        { weight: 2, arbitrary: fc.constantFrom('0', '-1', '101', '1001', '1000001', '99999999999999999999', '1e2', '1.5', '0x10', '', ' 5', '5abc', '-0', '%00') },
      ).chain((value) =>
        fc.constantFrom('encoded', 'raw', 'plus').map((how): QueryPart => ({
          name: p.name,
          value,
          exact: how === 'encoded',
          text: `${enc(p.name)}=${how === 'encoded' ? enc(value) : how === 'plus' ? enc(value).replace(/%20/g, '+') : targetSafe(utf8AsLatin1(value).replace(/[&=]/g, (c) => enc(c)))}`,
        })),
      ),
      { freq: 2 },
    ),
  )
  const extra: fc.Arbitrary<QueryPart> = fc.oneof(
    fc.constantFrom('limit[]=1', 'limit[gte]=1', '__proto__[admin]=1', 'constructor[prototype][x]=1', 'a=1&a=2', '&&&', '=', '==', 'x', '%', '%zz=1', 'limit=5&limit=500', 'starting_after=&cursor=', 'format=json&format=text', 'type=lead.created&type=call.started', 'expand[]=lead').map((text) => ({ text })),
    fc.tuple(hostileString, hostileString).map(([k, v]) => ({ text: `${enc(k)}=${enc(v)}` })),
  )
  return fc.tuple(fc.tuple(...documented), fc.array(extra, { maxLength: 2 })).map(([doc, more]) => [...doc.filter((x): x is QueryPart => x !== null), ...more])
}

// ---------------------------------------------------------------------------------------------
// Headers

export type AuthKind =
  | 'admin' | 'live' | 'test' | 'scoped' | 'readonly' | 'other'
  | 'revoked' | 'disabled' | 'expired' | 'wrong-secret' | 'unknown-key' | 'admin-wrong' | 'malformed' | 'none'
  // The console (a session cookie) and the Twilio callbacks (a signature): fuzz-console.ts, fuzz-uploads.ts.
  | 'owner' | 'sdr' | 'operator' | 'other-org' | 'no-cookie' | 'garbage-cookie' | 'signed' | 'unsigned'

interface AuthHeader {
  kind: AuthKind
  values: string[]
}

const MALFORMED_AUTH = [
  'Basic', 'Basic ', 'Basic !!!', 'Basic ====', `Basic ${b64('no-colon')}`, `Basic ${b64(':secret')}`, `Basic ${b64('id:')}`, `Basic ${b64('x'.repeat(300) + ':y')}`,
  `Basic ${b64('a:' + 'y'.repeat(600))}`, `Basic ${b64('é:ü')}`, 'Bearer', 'Bearer ', 'bearer  x  y', `Bearer ${'t'.repeat(5000)}`, 'Digest username="x"',
  'Negotiate YII=', 'Basic\tYTpi', 'BASIC YTpi', '   ', ',', 'Basic YTpi, Basic YTpj', `Token ${ADMIN_TOKEN}`, `Bearer ${ADMIN_TOKEN} extra`,
  `Basic ${b64(`admin:${ADMIN_TOKEN}`)}`, `Bearer ${ADMIN_TOKEN.toUpperCase()}`, `Bearer ${ADMIN_TOKEN.slice(0, -1)}`,
]

function authHeader(w: World, weights: Partial<Record<'admin' | 'good' | 'bad' | 'none', number>>): fc.Arbitrary<AuthHeader> {
  // Mostly the live key: the seeded ids are mostly its organization's live objects.
  const goodWeights: Record<keyof World['good'], number> = { live: 6, test: 2, scoped: 2, readonly: 1, other: 1 }
  const good = (Object.keys(w.good) as (keyof World['good'])[]).map((k) => ({
    weight: goodWeights[k],
    arbitrary: fc.constant<AuthHeader>({ kind: k as AuthKind, values: [basic(w.good[k].id, w.good[k].secret)] }),
  }))
  const bad: AuthHeader[] = [
    ...(Object.keys(w.bad) as (keyof World['bad'])[]).map((k) => ({ kind: k as AuthKind, values: [basic(w.bad[k].id, w.bad[k].secret)] })),
    { kind: 'wrong-secret', values: [basic(w.good.live.id, w.good.live.secret + 'x')] },
    { kind: 'wrong-secret', values: [basic(w.good.live.id, w.good.other.secret)] },
    { kind: 'unknown-key', values: [basic('dk_live_nope', 'dks_nope')] },
    { kind: 'admin-wrong', values: ['Bearer wrong-token-0123456789'] },
    ...MALFORMED_AUTH.map((v) => ({ kind: 'malformed' as AuthKind, values: [v] })),
    // Two Authorization headers: a good one and a bad one, in either order.
    { kind: 'malformed', values: [basic(w.good.live.id, w.good.live.secret), 'Basic YTpi'] },
    { kind: 'malformed', values: [`Bearer ${ADMIN_TOKEN}`, basic(w.good.live.id, w.good.live.secret)] },
  ]
  return fc.oneof(
    { weight: weights.admin ?? 1, arbitrary: fc.constantFrom<AuthHeader>({ kind: 'admin', values: [`Bearer ${ADMIN_TOKEN}`] }, { kind: 'admin', values: [`bearer   ${ADMIN_TOKEN}  `] }) },
    { weight: weights.good ?? 1, arbitrary: fc.oneof(...good) },
    { weight: weights.bad ?? 1, arbitrary: fc.oneof(fc.constantFrom(...bad), hostileString.map((s) => ({ kind: 'malformed' as AuthKind, values: [`Basic ${s}`] }))) },
    { weight: weights.none ?? 1, arbitrary: fc.constant<AuthHeader>({ kind: 'none', values: [] }) },
  )
}

/** Whether credentials open a door. */
export function opens(kind: AuthKind, door: Door): boolean {
  if (door === 'open') return true
  if (door === 'admin') return kind === 'admin'
  return kind === 'live' || kind === 'test' || kind === 'scoped' || kind === 'readonly' || kind === 'other'
}

const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'APPLICATION/JSON', 'application/json;charset=latin1', 'application/jsonx',
  'text/plain', 'text/csv', 'text/csv; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x',
  'multipart/form-data', 'application/octet-stream', 'application/merge-patch+json', 'application/xml', '*/*', '', ';', 'application/json, text/plain',
]
const SHORT_HOSTS = ['a', 'ab', 'abc', 'abcd', 'a:1', 'ab:1', 'x:9', 'a.b']
const HOSTS = ['localhost', '127.0.0.1', '', 'a', 'ab', 'abc', 'abcd', 'a:1', 'x:99999', '[::1]', '1.2.3.4:80', 'a.b', 'h?q', 'h#f', 'h/x', 'evil.example.com', 'localhost:0', '\xe9', 'x'.repeat(300), 'a b']
const IDEMPOTENCY_KEYS = ['fuzz-1', 'fuzz-2', 'fuzz-3', '', ' ', 'a'.repeat(255), 'a'.repeat(256), 'k\u00e9y', 'a b', '"quoted"', '*', '../x', '\t']
const FORWARDED = ['', '1.2.3.4', '::1', '127.0.0.1, 10.0.0.1', ',,,', 'x'.repeat(1000), '999.999.999.999', 'unknown', '[::1]:80', '%00', 'a, b, c, d, e, f, g, h, i, j, k', '1.2.3.4' + ', 5.6.7.8'.repeat(100)]
const ODD_HEADERS: [string, string][] = [
  ['Accept', 'application/xml'], ['Accept', '*/*;q=0'], ['Accept-Encoding', 'gzip, br'], ['X-HTTP-Method-Override', 'DELETE'],
  ['Cookie', 'session=x; admin=true'], ['Origin', 'https://evil.example'], ['X-Request-Id', 'req_injected'], ['Request-Id', 'req_injected\u00e9'],
  ['X-Original-URL', '/api/v1/admin/orgs'], ['X-Rewrite-URL', '/api/v1/admin/orgs'], ['X-Forwarded-Host', 'a'], ['X-Forwarded-Proto', 'gopher'],
  ['Range', 'bytes=0-0'], ['If-None-Match', '*'], ['Content-Encoding', 'gzip'], ['Upgrade', 'websocket'],
  ['Livemode', 'false'], ['Idempotent-Replayed', 'true'], ['Authorization-Admin', ADMIN_TOKEN],
]

export interface HeaderOptions {
  auth: Partial<Record<'admin' | 'good' | 'bad' | 'none', number>>
  /** Odd Host values and odd extra headers (else Host is localhost). */
  oddHost: number
  /** Short Host values (a, ab, abc:1): the ones that once moved where the router read the path. */
  shortHost?: number
}

interface HeaderSet {
  auth: AuthHeader
  host: string | null
  list: [string, string][]
}

function headersFor(w: World, route: Route, withBody: boolean, o: HeaderOptions): fc.Arbitrary<HeaderSet> {
  return fc.record({
    auth: authHeader(w, o.auth),
    host: fc.oneof({ weight: 10, arbitrary: fc.constant('localhost') }, { weight: o.oddHost, arbitrary: fc.constantFrom(...HOSTS) }, { weight: o.shortHost ?? 0, arbitrary: fc.constantFrom(...SHORT_HOSTS) }),
    contentType: withBody ? fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: fc.constant(null) }) : sometimes(fc.constantFrom(...CONTENT_TYPES), 15),
    idempotency: route.method === 'POST' || route.method === 'PATCH' ? sometimes(fc.oneof(fc.constantFrom(...IDEMPOTENCY_KEYS), fc.uuid(), hostileString), 50) : sometimes(fc.constantFrom(...IDEMPOTENCY_KEYS), 10),
    forwarded: sometimes(fc.constantFrom(...FORWARDED), 25),
    odd: fc.subarray(ODD_HEADERS, { maxLength: o.oddHost > 0 ? 2 : 0 }),
    dupContentType: sometimes(fc.constant(true), o.oddHost > 0 ? 5 : 0).map((b) => b === true),
  }).map((h) => {
    const list: [string, string][] = []
    if (h.host !== null) list.push(['Host', headerSafe(h.host)])
    for (const v of h.auth.values) list.push(['Authorization', headerSafe(v)])
    if (h.contentType !== null) list.push(['Content-Type', h.contentType])
    if (h.dupContentType) list.push(['Content-Type', 'text/plain'])
    if (h.idempotency !== null) list.push(['Idempotency-Key', headerSafe(h.idempotency)])
    if (h.forwarded !== null) list.push(['X-Forwarded-For', h.forwarded])
    for (const [k, v] of h.odd) list.push([k, headerSafe(v)])
    return { auth: h.auth, host: h.host, list }
  })
}

// ---------------------------------------------------------------------------------------------
// Cases

export interface FuzzCase {
  family: string
  route: Route
  request: RawRequest
  auth: AuthKind
  /** The door of the path after dot segments are resolved (what the service must guard). */
  door: Door
  /** Why a 2xx (or 3xx) would be wrong, if it would. */
  mustRefuse: string[]
  /** The path has no junk in it (so the route's own rules, such as RateLimit-* headers, apply). */
  cleanPath: boolean
  /** Size of the request line and headers. */
  headBytes: number
  bodyLabel: string | null
  /** A time limit of its own (a large upload), instead of DIALER_FUZZ_MAX_MS. */
  maxMs?: number
}

/** Junk methods that are valid tokens; Bun's HTTP parser knows some of them. */
const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE', 'HEAD', 'OPTIONS']
const JUNK_METHODS = ['TRACE', 'CONNECT', 'PROPFIND', 'MKCOL', 'PURGE', 'LINK', 'QUERY', 'M-SEARCH', 'SEARCH', 'get', 'Post', 'FOO', 'BREW', 'X', 'GETT', 'DELETE2', 'A'.repeat(40)]
/** Methods llhttp (Bun's HTTP parser) accepts; for any other token Bun closes the connection before the service sees the request. */
export const PARSER_METHODS = new Set([
  'DELETE', 'GET', 'HEAD', 'POST', 'PUT', 'CONNECT', 'OPTIONS', 'TRACE', 'COPY', 'LOCK', 'MKCOL', 'MOVE', 'PROPFIND', 'PROPPATCH', 'SEARCH',
  'UNLOCK', 'BIND', 'REBIND', 'UNBIND', 'ACL', 'REPORT', 'MKACTIVITY', 'CHECKOUT', 'MERGE', 'M-SEARCH', 'NOTIFY', 'SUBSCRIBE', 'UNSUBSCRIBE',
  'PATCH', 'PURGE', 'MKCALENDAR', 'LINK', 'UNLINK', 'SOURCE', 'QUERY',
])

function methodFor(route: Route, documentedWeight: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: documentedWeight, arbitrary: fc.constant(route.method) },
    { weight: 2, arbitrary: fc.constantFrom(...METHODS) },
    { weight: 1, arbitrary: fc.constantFrom(...JUNK_METHODS) },
  )
}

/** How a path is bent: the ways a gateway and a router have disagreed on what path a request has. */
const PATH_VARIANTS = ['as-is', 'trailing-slash', 'double-slash', 'prefix', 'dot-segment', 'encoded-dot-segment', 'case', 'encoded-char', 'semicolon', 'backslash', 'absolute-form', 'query-in-path'] as const
type PathVariant = (typeof PATH_VARIANTS)[number]

// Never '/.', '/%2e' or '//': those may rightly resolve to the route itself (the dot-segment and double-slash variants cover them).
const PREFIXES = ['/a', '/ab', '/abc', '/abcd', '/abcde', '/x/y', '/api', '/v1', '/docs', '/healthz', '/recordings/x', '/-']

/** Bends a concrete path; returns the path to send and the path it resolves to when dot segments are removed. */
function bend(path: string, variant: PathVariant, n: number): { sent: string; resolved: string; notARoute: boolean } {
  const segs = path.split('/')
  switch (variant) {
    case 'as-is':
      return { sent: path, resolved: path, notARoute: false }
    case 'trailing-slash':
      return { sent: path + '/', resolved: path + '/', notARoute: false }
    case 'double-slash': {
      const i = 1 + (n % Math.max(1, segs.length - 1))
      const sent = [...segs.slice(0, i), '', ...segs.slice(i)].join('/')
      return { sent, resolved: sent, notARoute: false }
    }
    case 'prefix': {
      const sent = pick(PREFIXES, n)! + path
      return { sent, resolved: sent, notARoute: true }
    }
    case 'dot-segment': {
      // /api/v1/external/x/../leads resolves to the route; /api/v1/external/../admin/orgs to another door.
      const i = 1 + (n % Math.max(1, segs.length - 1))
      const sent = n % 3 === 0 ? `${EXTERNAL}/..${path.startsWith(ADMIN) ? path.slice('/api/v1'.length) : path.replace(/^\/api\/v1\/external/, '/external')}` : [...segs.slice(0, i), n % 2 ? 'zz/..' : '.', ...segs.slice(i)].join('/')
      return { sent, resolved: new URL(sent, 'http://h').pathname, notARoute: false }
    }
    case 'encoded-dot-segment': {
      const i = 1 + (n % Math.max(1, segs.length - 1))
      const sent = [...segs.slice(0, i), n % 2 ? 'zz/%2e%2e' : '%2e', ...segs.slice(i)].join('/')
      return { sent, resolved: new URL(sent, 'http://h').pathname, notARoute: false }
    }
    case 'case':
      return { sent: n % 2 ? path.toUpperCase() : path.replace(/[a-z]/, (c) => c.toUpperCase()), resolved: path, notARoute: false }
    case 'encoded-char': {
      const letters = [...path.matchAll(/[a-z_]/g)]
      const m = letters[n % Math.max(1, letters.length)]
      if (!m) return { sent: path, resolved: path, notARoute: false }
      const sent = path.slice(0, m.index) + `%${m[0]!.charCodeAt(0).toString(16)}` + path.slice(m.index! + 1)
      return { sent, resolved: path, notARoute: false }
    }
    case 'semicolon':
      return { sent: path + ';jsessionid=x', resolved: path + ';jsessionid=x', notARoute: false }
    case 'backslash':
      return { sent: path.replace(/\//g, (s, i: number) => (i > 0 && (i + n) % 3 === 0 ? '\\' : s)), resolved: path, notARoute: false }
    case 'absolute-form':
      return { sent: `http://localhost${path}`, resolved: path, notARoute: false }
    case 'query-in-path': {
      // An encoded "?" inside the path: /api/v1/external%3F/leads, /docs%3F
      const sent = segs.length > 2 ? path.replace(/\/([^/]*)$/, '%3F/$1') : `${path}%3F`
      return { sent, resolved: sent, notARoute: false }
    }
  }
}

export interface CaseOptions {
  family: string
  routes: Route[]
  /** Weight of the route's own method against the others. */
  documentedMethod: number
  headers: HeaderOptions
  /** Bend paths (and so also short Host values). */
  bendPaths: boolean
  /** Raw hostile bodies rather than mostly plausible ones. */
  hostileBodies: boolean
  /** Weight of unmutated plausible bodies (default 4, against 5 for mutated ones). */
  plainBodies?: number
}

export function caseArbitrary(w: World, o: CaseOptions): fc.Arbitrary<FuzzCase> {
  return fc.constantFrom(...o.routes).chain((route) => {
    const paramCount = (route.template.match(/\{[^}]+\}/g) ?? []).length
    const params = fc.tuple(...Array.from({ length: paramCount }, (_, i) => paramValue(w, kindOfParam(route.template, i))))
    const signed = route.template.startsWith('/recordings/') || route.template.startsWith('/exports/')
    return fc.record({
      method: methodFor(route, o.documentedMethod),
      params,
      link: signed ? fc.option(fc.constantFrom(...(route.template.startsWith('/recordings/') ? w.links.recording : w.links.export)), { freq: 2 }) : fc.constant(null),
      linkTamper: fc.nat(),
      query: queryFor(w, route),
      variant: o.bendPaths ? fc.constantFrom<PathVariant>(...PATH_VARIANTS, 'prefix', 'prefix', 'as-is') : fc.constantFrom<PathVariant>('as-is', 'as-is', 'as-is', 'trailing-slash'),
      variantN: fc.nat(),
      headers: headersFor(w, route, route.hasBody, o.headers),
      body: route.hasBody ? bodyFor(w, route, o.hostileBodies, o.plainBodies) : sometimes(bodyFor(w, route, true), 10),
      chunked: sometimes(fc.integer({ min: 1, max: 4 }), 15),
    }).map((g): FuzzCase => {
      let path = fillTemplate(route.template, g.params)
      let query = g.query.map((q) => q.text).join('&')
      if (g.link) {
        // A real signed link, or one with its signature, expiry or id changed.
        const [linkPath, linkQuery = ''] = g.link.split('?')
        const tamper = g.linkTamper % 6
        path = tamper === 1 ? linkPath!.replace(/[0-9a-f](?=[^/]*$)/, (c) => (c === '0' ? '1' : '0')) : linkPath!
        query = tamper === 2 ? linkQuery.replace(/signature=([^&])/, (_, c) => `signature=${c === 'a' ? 'b' : 'a'}`)
          : tamper === 3 ? linkQuery.replace(/expires=\d+/, 'expires=99999999999')
            : tamper === 4 ? linkQuery.replace(/expires=[^&]*&?/, '')
              : tamper === 5 ? `${linkQuery}&${query}` : linkQuery
      }
      const bent = bend(path, g.variant, g.variantN)
      const target = targetSafe(bent.sent) + (query ? `?${query}` : '')
      const door = doorOf(bent.resolved)
      const mustRefuse: string[] = []
      const auth = g.headers.auth.kind
      const protectedDoor = doorOf(path)
      if (!opens(auth, protectedDoor) && (protectedDoor !== 'open' || door !== 'open')) mustRefuse.push(`${auth} credentials do not open the ${protectedDoor === 'open' ? door : protectedDoor} door`)
      else if (!opens(auth, door)) mustRefuse.push(`${auth} credentials do not open the ${door} door of ${bent.resolved}`)
      if (bent.notARoute) mustRefuse.push('a path with a prefix before the route is not a route')
      const method = g.method
      const sameRoute = method === route.method || (method === 'HEAD' && route.method === 'GET')
      if (sameRoute && (g.variant === 'as-is' || g.variant === 'trailing-slash')) {
        for (const q of g.query) {
          const spec = route.query.find((p) => p.name === q.name)
          const repeated = g.query.filter((x) => x.name === q.name || x.text.startsWith(`${enc(q.name ?? '')}=`) || x.text.includes(`&${enc(q.name ?? '')}=`)).length > 1
          if (!spec || repeated || q.value === undefined || !q.exact) continue
          const why = queryViolation(spec, q.value)
          if (why) mustRefuse.push(why)
        }
      }
      // A large body only on a method that carries one: a service may answer a GET without reading
      // its body and close, and the client then sees a reset instead of the reply (TCP, not the service).
      const body = g.body && g.body.bytes.byteLength > 65_536 && !['POST', 'PATCH', 'PUT'].includes(g.method) ? null : g.body
      if (body && body.bytes.byteLength > MAX_BODY && method !== 'GET' && method !== 'HEAD' && method !== 'DELETE') mustRefuse.push('body over 1 MB')
      if (body && /webhook/.test(route.template) && sameRoute && (method === 'POST' || method === 'PATCH')) {
        const url = parsedUrlField(body.bytes)
        if (url !== null && PRIVATE_URL_SET.has(url)) mustRefuse.push(`webhook url ${url} points at a private address`)
      }
      // A plain path and a Host the URI syntax allows (RFC 9110 7.2): the route's own rules apply.
      const cleanPath = g.variant === 'as-is' && /^[A-Za-z0-9\-._~/]*$/.test(path) && !/\/\.\.?(\/|$)/.test(path) &&
        g.headers.host !== null && /^([A-Za-z0-9\-._~!$&'()*+,;=]+|\[[0-9A-Fa-f:.]+\])(:\d*)?$/.test(g.headers.host)
      const request: RawRequest = { method, target, headers: g.headers.list, body: body ? body.bytes : null, chunked: body && g.chunked ? g.chunked : undefined }
      const headBytes = Buffer.byteLength(`${method} ${target} HTTP/1.1\r\n${g.headers.list.map(([k, v]) => `${k}: ${v}\r\n`).join('')}`, 'latin1')
      const fuzzCase: FuzzCase = { family: o.family, route, request, auth, door, mustRefuse, cleanPath, headBytes, bodyLabel: body ? body.label : null }
      return Object.assign(fuzzCase, { [fc.toStringMethod]: () => describeCase(fuzzCase) })
    })
  })
}

function parsedUrlField(bytes: Uint8Array): string | null {
  try {
    const v = JSON.parse(Buffer.from(bytes).toString('utf8'))
    return isObject(v) && typeof v.url === 'string' ? v.url : null
  } catch {
    return null
  }
}

/** The request as raw HTTP (bodies shortened), for reports. */
export function describeCase(c: FuzzCase): string {
  const r = c.request
  const shown = (s: string) => (s.length > 200 ? `${s.slice(0, 120)}...(${s.length} chars)` : s)
  const lines = [`${r.method} ${shown(r.target)} HTTP/1.1`, ...r.headers.map(([k, v]) => `${k}: ${shown(v)}`)]
  if (r.body) lines.push(`${r.chunked ? `Transfer-Encoding: chunked (${r.chunked} chunks)` : `Content-Length: ${r.body.byteLength}`}`, '', c.bodyLabel ?? '')
  return `\n  [${c.family}: ${c.route.method} ${c.route.template}, auth ${c.auth}${c.mustRefuse.length ? `, must refuse: ${c.mustRefuse.join('; ')}` : ''}]\n    ${lines.join('\n    ')}\n`
}

// ---------------------------------------------------------------------------------------------
// Checks

const ERROR_TYPES = ['invalid_request_error', 'authentication_error', 'permission_error', 'rate_limit_error', 'idempotency_error', 'api_error']
/** Stack frames, source paths and module paths: none may reach a client. */
const LEAKS = [/\bat \S+ \(\S+:\d+/, /\bat (?:async )?(?:\/|file:)/, /\/work\//, /node_modules/, /\bsrc\/[\w-]+\//, /\.ts:\d+/, /\$bunfs/, /\bB:\/~BUN\//, /TypeError|ReferenceError|RangeError|SyntaxError: /, /SQLITE_[A-Z]/]

export interface CheckContext {
  maxMs: number
}

/** Every rule a reply must follow; returns the broken ones (empty when all hold). */
export function checkReply(c: FuzzCase, result: SendResult, ctx: CheckContext): string[] {
  const method = c.request.method
  if (!PARSER_METHODS.has(method)) {
    // Bun's HTTP parser refuses a method it does not know before the service sees it: it closes
    // the connection, or answers a bare 4xx/5xx of its own. Either is fine; only a service reply is checked.
    if (result.kind !== 'reply' || !result.reply.headers['request-id']) return []
  }
  // Bun refuses a request head over its limit (16 KB) with a bare 431 before the service sees it.
  if (result.kind === 'reply' && result.reply.status === 431 && !result.reply.headers['request-id'] && c.headBytes > 8192) return []
  if (result.kind === 'timeout') return [`no reply within ${Math.round(result.ms)} ms (got ${JSON.stringify(result.partial.slice(0, 120))})`]
  if (result.kind === 'closed') return [`connection closed without a complete reply after ${Math.round(result.ms)} ms${result.error ? ` (${result.error})` : ''}: ${JSON.stringify(result.partial.slice(0, 200))}`]
  const r = result.reply
  const problems: string[] = []
  const text = r.body.toString('utf8')
  if (r.status >= 500) problems.push(`status ${r.status}`)
  if (r.ms > ctx.maxMs) problems.push(`reply took ${Math.round(r.ms)} ms (limit ${ctx.maxMs})`)
  const requestId = r.headers['request-id']
  if (!requestId) problems.push('no Request-Id header')
  if (c.mustRefuse.length && r.status >= 200 && r.status < 400) problems.push(`answered ${r.status}, but ${c.mustRefuse.join('; ')}`)
  if (r.status === 429 && !r.headers['retry-after']) problems.push('429 without Retry-After')
  // Every reply of the external API carries RateLimit-* (spec "Endpoints", conventions), failed authentication included.
  const externalPath = c.cleanPath && doorOf(c.request.target.split('?')[0]!) === 'external'
  if (externalPath && PARSER_METHODS.has(method)) {
    for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
      if (!/^\d+$/.test(r.headers[h] ?? '')) problems.push(`no numeric ${h} header`)
    }
  }
  // Errors: the spec's envelope, on every path (the service answers unknown paths and methods
  // with it too: 404 not_found). A HEAD reply has no body to check.
  if (r.status >= 400 && method !== 'HEAD') {
    let parsed: any = null
    try {
      parsed = JSON.parse(text)
    } catch {
      problems.push(`error reply is not JSON: ${JSON.stringify(text.slice(0, 200))}`)
    }
    if (parsed !== null) {
      const e = parsed?.error
      const ok = e && typeof e === 'object' && ERROR_TYPES.includes(e.type) && typeof e.code === 'string' && e.code !== '' && typeof e.message === 'string' && (e.param === null || typeof e.param === 'string') && 'request_id' in e
      if (!ok) problems.push(`error reply is not the error envelope: ${JSON.stringify(text.slice(0, 300))}`)
      else if (requestId && e.request_id !== requestId) problems.push(`error.request_id ${e.request_id} is not the Request-Id header ${requestId}`)
    }
    if (!/json/i.test(r.headers['content-type'] ?? '')) problems.push(`error reply Content-Type is ${JSON.stringify(r.headers['content-type'] ?? null)}`)
  } else if (r.status < 300 && method !== 'HEAD' && /json/i.test(r.headers['content-type'] ?? '')) {
    try {
      JSON.parse(text)
    } catch {
      problems.push(`a ${r.status} JSON reply does not parse: ${JSON.stringify(text.slice(0, 200))}`)
    }
  }
  if (!(STATIC.has(c.route.template) && r.status < 300)) {
    const sent = `${c.request.target}\n${c.request.headers.map(([k, v]) => `${k}: ${v}`).join('\n')}\n${c.request.body ? Buffer.from(c.request.body).toString('utf8') : ''}`
    let decoded = sent
    try {
      decoded = decodeURIComponent(sent)
    } catch {
      // keep it encoded
    }
    for (const leak of LEAKS) {
      const m = leak.exec(text)
      // The service may echo what it was sent (a job name, a field); only what it made up is a leak.
      if (m && !sent.includes(m[0]) && !decoded.includes(m[0])) problems.push(`reply leaks internals (${leak}): ...${JSON.stringify(text.slice(Math.max(0, m.index - 100), m.index + 150))}...`)
    }
  }
  return problems
}

/** A short account of a reply, for reports. */
export function describeResult(result: SendResult): string {
  if (result.kind !== 'reply') return `${result.kind} after ${Math.round(result.ms)} ms`
  const r = result.reply
  const text = r.body.toString('utf8')
  const headers = Object.entries(r.headers).filter(([k]) => /^(content-type|request-id|ratelimit-|retry-after|www-authenticate|idempotent-replayed|deprecation)/.test(k)).map(([k, v]) => `${k}: ${v}`)
  return `${r.status} in ${Math.round(r.ms)} ms; ${headers.join('; ')}\n    ${text.length > 400 ? `${text.slice(0, 400)}...(${text.length} chars)` : text}`
}

export type { RawReply }
