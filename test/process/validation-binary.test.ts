import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { createApp } from '../../src/app'
import { createServices } from '../../src/services'
import { basic, scratchDir, testConfig } from '../harness'
import { placeBinary, spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Every bound in the route schemas, checked against the compiled binary: a build that skips
// validation (a `--minify` build did: Elysia matches errors by class name) fails here.
// Cases come from the served OpenAPI document plus the admin routes, so new routes are covered.
const ADMIN = 'validation-binary-admin-token-0123456789'
const work = scratchDir('dialer-valid-')
const binary = join(work.path, 'dialer')

type Schema = Record<string, any>
type Where = 'path' | 'query' | 'body'
interface Route { method: string; path: string; params: Schema | null; query: Schema | null; body: Schema | null }
interface Case {
  route: Route; where: Where; param: string; value: string; pathValues: Record<string, string>; query: Record<string, string>
  body?: unknown
  /** A body number sent as a string (see send). */
  numericString?: boolean
}

let server: ServiceProcess | null = null
let base = ''
let auth = ''
let doc: Schema = {}

beforeAll(async () => {
  placeBinary(binary)
  const started = await spawnService({
    command: [binary], dataDir: join(work.path, 'data'), cwd: work.path,
    env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_LOG_REQUESTS: '0' },
  })
  server = started.proc
  base = started.base
  // Limits high enough for a few hundred requests a second from one key.
  const org = await admin('POST', '/orgs', { name: 'Validation Org', plan_requests_per_minute: 100_000 })
  await admin('POST', `/orgs/${org.data.id}/campaigns`, { name: 'V1', status: 'paused', sdrs: [{ name: 'Ann' }] })
  const key = await admin('POST', `/orgs/${org.data.id}/keys`, { name: 'v', mode: 'live', requests_per_minute: 100_000, burst: 100_000, max_concurrent: 50 })
  auth = basic(key.data.id, key.data.secret)
  doc = (await (await fetch(`${base}/api/v1/external/openapi.json`)).json()) as Schema
}, 120_000)

afterAll(() => {
  server?.kill('SIGKILL')
  work.remove()
})

async function admin(method: string, path: string, body?: unknown): Promise<any> {
  const reply = await fetch(`${base}/api/v1/admin${path}`, {
    method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
  })
  if (reply.status >= 300) throw new Error(`admin ${method} ${path}: ${reply.status} ${await reply.text()}`)
  return reply.json()
}

// ---- the route table ----

const plain = (schema: unknown): Schema | null => (schema ? (JSON.parse(JSON.stringify(schema)) as Schema) : null)

function deref(schema: Schema | undefined): Schema | undefined {
  const ref = schema?.$ref as string | undefined
  if (!ref?.startsWith('#/components/schemas/')) return schema
  return doc.components?.schemas?.[ref.slice('#/components/schemas/'.length)]
}

/** OpenAPI parameters of one place as an object schema, as TypeBox would write it. */
function paramObject(parameters: Schema[], place: string): Schema | null {
  const list = parameters.filter((p) => p.in === place)
  if (list.length === 0) return null
  return {
    type: 'object',
    properties: Object.fromEntries(list.map((p) => [p.name, deref(p.schema) ?? {}])),
    required: list.filter((p) => p.required).map((p) => p.name),
  }
}

/**
 * External routes from the served document; admin routes (not in the document) from the app's
 * own route table. The document carries no request-body schemas while the app parses bodies
 * with its own hook (@elysiajs/openapi then writes `content: {}`), so bodies missing there are
 * read from the app's routes too.
 */
function routeTable(): Route[] {
  const services = createServices(testConfig())
  try {
    const app = createApp(services)
    const hooksOf = new Map(app.routes.map((r) => [`${r.method} ${r.path}`, r.hooks as Record<string, unknown>]))
    const routes: Route[] = []
    for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, op] of Object.entries(operations)) {
        const elysiaPath = path.replace(/\{([^}]+)\}/g, ':$1')
        const hooks = hooksOf.get(`${method.toUpperCase()} ${elysiaPath}`)
        const body = deref(op.requestBody?.content?.['application/json']?.schema) ?? plain(hooks?.body)
        routes.push({ method: method.toUpperCase(), path: elysiaPath, params: paramObject(op.parameters ?? [], 'path'), query: paramObject(op.parameters ?? [], 'query'), body })
      }
    }
    for (const r of app.routes) {
      if (!r.path.startsWith('/api/v1/admin/')) continue
      const hooks = r.hooks as Record<string, unknown>
      routes.push({ method: r.method, path: r.path, params: plain(hooks.params), query: plain(hooks.query), body: plain(hooks.body) })
    }
    return routes
  } finally {
    services.close()
  }
}

// ---- values that pass, values that do not ----

const UUID = '00000000-0000-4000-8000-000000000000'
const isInteger = (s: Schema) => s.type === 'integer' || (s.anyOf as Schema[] | undefined)?.some((b) => b.type === 'integer') === true
const isNumber = (s: Schema) => s.type === 'number' || (s.anyOf as Schema[] | undefined)?.some((b) => b.type === 'number') === true
const enumOf = (s: Schema): unknown[] | null =>
  s.enum ?? (s.anyOf?.length && s.anyOf.every((b: Schema) => 'const' in b) ? s.anyOf.map((b: Schema) => b.const) : null)
/** The non-null branch of a Nullable. */
const unwrap = (s: Schema): Schema => {
  const branches = (s.anyOf as Schema[] | undefined)?.filter((b) => b.type !== 'null')
  return branches && branches.length === 1 && s.anyOf.length === 2 ? branches[0]! : s
}

/** A value the schema accepts (only what a request needs to reach the one bad field). */
function sample(raw: Schema): unknown {
  const s = unwrap(raw)
  const choices = enumOf(s)
  if (choices) return choices[0]
  if (isInteger(s) || isNumber(s)) return s.minimum ?? 1
  if (s.type === 'boolean') return true
  if (s.type === 'array') return Array.from({ length: s.minItems ?? 0 }, () => sample(s.items ?? {}))
  if (s.type === 'object') {
    const out: Record<string, unknown> = {}
    for (const name of s.required ?? []) out[name] = sample(s.properties?.[name] ?? {})
    return out
  }
  // A union of objects (a disclosure: say or audio_url): its first member.
  if (s.type === undefined && Array.isArray(s.anyOf) && s.anyOf.length > 0) return sample(s.anyOf[0])
  if (s.type === 'string') {
    const prefixed = /^\^([a-z]+_)\[0-9a-f\]\{(\d+)\}\$$/.exec(s.pattern ?? '')
    if (prefixed) return prefixed[1] + 'a'.repeat(Number(prefixed[2]))
    const byFormat: Record<string, string> = { uuid: UUID, 'date-time': '2026-01-05T15:00:00Z', date: '2026-01-05', uri: 'https://example.com/x', email: 'a@example.com' }
    if (s.format && byFormat[s.format]) return byFormat[s.format]
    return 'x'.repeat(Math.max(s.minLength ?? 1, 1))
  }
  return 'x'
}

/** Values that break one bound of the schema; `text` is true for query and path values. */
function violations(raw: Schema, text: boolean): unknown[] {
  const s = unwrap(raw)
  const out: unknown[] = []
  const choices = enumOf(s)
  if (choices) out.push('not_a_listed_value')
  if (isInteger(s) || isNumber(s)) {
    const min = s.minimum ?? s.anyOf?.find((b: Schema) => b.minimum !== undefined)?.minimum
    const max = s.maximum ?? s.anyOf?.find((b: Schema) => b.maximum !== undefined)?.maximum
    const bad: (number | string)[] = ['abc']
    if (min !== undefined) bad.push(min - 1, -1)
    if (max !== undefined) bad.push(max + 1, 1_000_000, 1_000_000_000)
    if (isInteger(s)) bad.push(1.5)
    for (const v of bad) {
      if (typeof v === 'number' && min !== undefined && max !== undefined && v >= min && v <= max && Number.isInteger(v)) continue
      if (v === -1 && min !== undefined && min <= -1) continue
      out.push(text ? String(v) : v)
      // A number sent as a string: TypeBox's decode step is what checks its bounds.
      if (!text && typeof v === 'number' && isInteger(s)) out.push(String(v))
    }
    // Elysia reads a blank query value as 0 (+' '), so a blank is only refused where 0 is.
    if (text) out.push('', ...(min !== undefined && min > 0 ? [' '] : []))
  }
  if (s.type === 'string') {
    if ((s.minLength ?? 0) >= 1) out.push('')
    if (s.maxLength !== undefined) out.push('x'.repeat(s.maxLength + 1))
    if (s.format && s.format !== 'integer' && s.format !== 'numeric') out.push('not a valid value!')
    if (s.pattern) out.push('zz_not_matching')
  }
  if (!text && s.type === 'boolean') out.push('yes')
  if (!text && s.type === 'string') out.push(12)
  return [...new Set(out)]
}

// ---- the cases ----

function basePath(route: Route): Record<string, string> {
  const values: Record<string, string> = {}
  for (const name of route.path.match(/:(\w+)/g) ?? []) values[name.slice(1)] = String(sample(route.params?.properties?.[name.slice(1)] ?? { type: 'string' }))
  return values
}

function baseQuery(route: Route): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of route.query?.required ?? []) out[name] = String(sample(route.query!.properties[name]))
  return out
}

/**
 * Body cases, field by field down to nested objects and array items. `build` puts a value where
 * the field is in an otherwise valid body. Inside a union (Nullable) TypeBox reports the union,
 * so `named` keeps naming it; a nullable object is the exception: its fields are named
 * (src/http/errors.ts reports the one object member's own error).
 */
function bodyCases(route: Route, schema: Schema, build: (value: unknown) => unknown, at: string, out: Case[], named: string | null = null, depth = 0): void {
  const s = unwrap(schema)
  const param = (path: string) => named ?? path
  const inUnion = named ?? (s !== schema && s.type !== 'object' ? at : null)
  const pathValues = basePath(route)
  const query = baseQuery(route)
  const add = (name: string, value: unknown, body: unknown) =>
    out.push({ route, where: 'body', param: name, value: JSON.stringify(value) ?? '(missing)', pathValues, query, body, numericString: typeof value === 'string' && /^-?[\d.]+$/.test(value) })
  const child = (name: string) => (at ? `${at}.${name}` : name)
  if (s.type === 'object' && depth < 3) {
    const baseObject = sample(s) as Record<string, unknown>
    for (const [name, field] of Object.entries((s.properties ?? {}) as Record<string, Schema>)) {
      bodyCases(route, field, (value) => build({ ...baseObject, [name]: value }), child(name), out, inUnion, depth + 1)
    }
    for (const name of s.required ?? []) {
      const { [name]: _, ...rest } = baseObject
      add(param(child(name)), undefined, build(rest))
    }
    for (const record of Object.values((s.patternProperties ?? {}) as Record<string, Schema>)) {
      bodyCases(route, record, (value) => build({ ...baseObject, k: value }), child('k'), out, inUnion, depth + 1)
    }
    if (s.additionalProperties === false) add(param(child('unknown_field')), 1, build({ ...baseObject, unknown_field: 1 }))
    return
  }
  if (s.type === 'array') {
    if (s.maxItems !== undefined) add(param(at), `${s.maxItems + 1} items`, build(Array.from({ length: s.maxItems + 1 }, () => sample(s.items ?? {}))))
    if (s.items && depth < 3) bodyCases(route, s.items, (value) => build([value]), `${at}[0]`, out, inUnion, depth + 1)
    return
  }
  for (const value of violations(s, false)) add(param(at), value, build(value))
}

function casesOf(route: Route): Case[] {
  const out: Case[] = []
  const pathValues = basePath(route)
  const query = baseQuery(route)
  for (const [name, schema] of Object.entries((route.params?.properties ?? {}) as Record<string, Schema>)) {
    for (const value of violations(schema, true)) {
      if (value === '' || value === ' ') continue // an empty segment is another path
      out.push({ route, where: 'path', param: name, value: String(value), pathValues: { ...pathValues, [name]: String(value) }, query })
    }
  }
  for (const [name, schema] of Object.entries((route.query?.properties ?? {}) as Record<string, Schema>)) {
    for (const value of violations(schema, true)) out.push({ route, where: 'query', param: name, value: String(value), pathValues, query: { ...query, [name]: String(value) } })
  }
  for (const name of route.query?.required ?? []) {
    const rest = { ...query }
    delete rest[name]
    out.push({ route, where: 'query', param: name, value: '(missing)', pathValues, query: rest })
  }
  if (route.query) out.push({ route, where: 'query', param: 'unknown_param', value: '1', pathValues, query: { ...query, unknown_param: '1' } })
  if (route.body && route.method !== 'GET') bodyCases(route, route.body, (value) => value, '', out)
  return out
}

async function send(c: Case): Promise<string | null> {
  const path = c.route.path.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(c.pathValues[name]!))
  const search = Object.entries(c.query).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
  const external = path.startsWith('/api/v1/external')
  const reply = await fetch(`${base}${path}${search ? `?${search}` : ''}`, {
    method: c.route.method,
    headers: { authorization: external ? auth : `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: c.where === 'body' ? JSON.stringify(c.body) : c.route.body && c.route.method !== 'GET' ? JSON.stringify(sample(c.route.body)) : undefined,
  })
  const text = await reply.text()
  let error: Schema | undefined
  try {
    error = (JSON.parse(text) as Schema).error
  } catch {}
  // A bad id in a path names no object (DESIGN.md): 404 not_found; anything else is 400 naming the field.
  const [status, code, param] = c.where === 'path' ? [404, 'not_found', undefined] : [400, 'invalid_request', c.param]
  // KNOWN (reported): a body integer sent as a string ("0") fails in TypeBox's decode step,
  // where Elysia drops the field's path, so `param` is null. Status and code must still be right.
  const paramOk = param === undefined || error?.param === param || (c.numericString === true && error?.param === null)
  if (reply.status === status && error?.code === code && paramOk) return null
  const shown = c.value.length > 40 ? `${c.value.slice(0, 20)}...(${c.value.length} chars)` : c.value
  return `${c.route.method} ${c.route.path} ${c.where} ${c.param}=${shown}: ${reply.status} ${error?.code ?? text.slice(0, 80)} param=${error?.param} (want ${status} ${code}${param === undefined ? '' : ` param=${param}`})`
}

describe('the compiled binary validates every bound of every route', () => {
  test('route table: the served document and the admin routes', () => {
    const routes = routeTable()
    expect(routes.filter((r) => r.path.startsWith('/api/v1/external')).length).toBeGreaterThan(30)
    expect(routes.filter((r) => r.path.startsWith('/api/v1/admin')).length).toBeGreaterThan(15)
    expect(routes.find((r) => r.path === '/api/v1/external/dnc' && r.method === 'GET')?.query?.properties?.limit).toBeDefined()
  })

  test('each violating value is a 400 naming the field (404 for a path id), never 2xx or 5xx', async () => {
    const cases = routeTable().flatMap(casesOf)
    expect(cases.length).toBeGreaterThan(300)
    const failures: string[] = []
    let next = 0
    // Eight at a time: quick, and well under the key's concurrency limit.
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (next < cases.length) {
        const failure = await send(cases[next++]!)
        if (failure) failures.push(failure)
      }
    }))
    if (failures.length) console.error(`${failures.length} of ${cases.length} cases failed:\n${failures.sort().join('\n')}`)
    expect(failures).toEqual([])
  }, 60_000)
})
