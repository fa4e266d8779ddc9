import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { defaultsIn } from '../../scripts/openapi/schema'
import { renderOpenApi } from '../../scripts/generate-openapi'
import { docsRoutes } from '../../src/api/docs'
import { listeningUrl, loadConfig, withBoundPort } from '../../src/config'
import { EVENT_TYPES } from '../../src/domain/events/event-log'
import { errorCatalogue, type ErrorCode } from '../../src/errors'

setDefaultTimeout(60_000)

// Issue 15, item 1: the OpenAPI 3.1 document is the contract. A client generated from it with
// openapi-typescript must type-check without hand edits; these check the document's structure.
const FILE = join(import.meta.dir, '../../src/api/openapi.generated.json')
const text = readFileSync(FILE, 'utf8')
const doc = JSON.parse(text)
const PREFIX = '/api/v1/external'
const METHODS = ['get', 'post', 'patch', 'put', 'delete']

type Json = Record<string, any>
const resolve = (node: Json): Json => {
  let current = node
  while (current?.$ref) current = current.$ref.slice(2).split('/').reduce((n: Json, k: string) => n?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc)
  return current
}
const operations: { path: string; method: string; op: Json }[] = Object.entries<Json>(doc.paths).flatMap(([path, item]) =>
  Object.entries<Json>(item).filter(([m]) => METHODS.includes(m)).map(([method, op]) => ({ path, method, op })),
)
const opOf = (method: string, path: string) => doc.paths[PREFIX + path][method] as Json
/** The codes an operation documents for a status. */
const codesOf = (op: Json, status: number): string[] => {
  const response = op.responses[String(status)]
  if (!response) return []
  const schema = resolve(response).content['application/json'].schema
  return schema.allOf[1].properties.error.properties.code.enum
}

function* keysIn(node: unknown): Generator<[string, unknown]> {
  if (!node || typeof node !== 'object') return
  for (const [key, value] of Object.entries(node)) {
    yield [key, value]
    yield* keysIn(value)
  }
}

test('the checked-in document is what the generator writes from the code', () => {
  expect(renderOpenApi()).toBe(text)
})

test('OpenAPI 3.1 with servers, tags and security', () => {
  expect(doc.openapi).toBe('3.1.0')
  expect(doc.servers[0].url).toMatch(/^https?:\/\//)
  expect(doc.components.securitySchemes.basicAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'basic' }))
  expect(operations.length).toBeGreaterThan(25)
  const tags = new Set(doc.tags.map((t: Json) => t.name))
  for (const { op } of operations) for (const tag of op.tags) expect(tags.has(tag)).toBe(true)
})

test('no `nullable` (OpenAPI 3.0) anywhere, and no empty content', () => {
  for (const [key, value] of keysIn(doc)) {
    expect(key).not.toBe('nullable')
    if (key === 'content') expect(Object.keys(value as Json).length).toBeGreaterThan(0)
  }
  expect(text).not.toContain('"x-param"')
})

describe('requests', () => {
  test('every POST and PATCH has a JSON body with a schema, and the Idempotency-Key header', () => {
    const writes = operations.filter(({ method }) => method === 'post' || method === 'patch')
    expect(writes.length).toBe(19)
    for (const { path, method, op } of writes) {
      const schema = op.requestBody?.content?.['application/json']?.schema
      expect({ path, method, type: schema?.type }).toEqual({ path, method, type: 'object' })
      const headers = (op.parameters ?? []).map(resolve).filter((p: Json) => p.in === 'header').map((p: Json) => p.name)
      expect({ path, method, headers }).toEqual({ path, method, headers: ['Idempotency-Key'] })
    }
    const key = doc.components.parameters.IdempotencyKey
    expect(key).toEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header', required: false }))
    expect(key.schema).toEqual(expect.objectContaining({ type: 'string', minLength: 1, maxLength: 255 }))
  })

  test('bodies keep required fields, lengths and enums; a body that may be left out is not required', () => {
    const lead = opOf('post', '/leads').requestBody
    expect(lead.required).toBe(true)
    expect(lead.content['application/json'].schema.required).toEqual(['campaign_id', 'phone'])
    expect(lead.content['application/json'].schema.properties.phone).toEqual(expect.objectContaining({ maxLength: 32, examples: ['+14155550123'] }))
    expect(lead.content['application/json'].schema.properties.consent.properties.source.maxLength).toBe(100)
    expect(opOf('post', '/exports').requestBody.content['application/json'].schema.properties.exportType.enum).toEqual(['leads', 'call_history', 'analytics'])
    expect(opOf('post', '/campaigns/{id}/activate').requestBody.required).toBe(false)
    expect(opOf('post', '/leads/{id}/opt_out').requestBody.required).toBe(false)
  })

  test('query and path integers are integers with their bounds, never string | integer', () => {
    for (const { op } of operations) {
      for (const parameter of (op.parameters ?? []).map(resolve)) {
        const schema = parameter.schema
        const branches: Json[] = schema.anyOf ?? schema.oneOf ?? []
        expect(branches.some((b) => b.type === 'string') && branches.some((b) => b.type === 'integer' || b.type === 'number')).toBe(false)
        expect(schema.format === 'integer' || schema.format === 'numeric').toBe(false)
        if (parameter.name === 'limit' || parameter.name === 'offset') {
          expect(schema.type).toBe('integer')
          expect(typeof schema.minimum).toBe('number')
          expect(typeof schema.maximum).toBe('number')
        }
      }
    }
  })

  test('each list documents its real default limit (spec "Limits", page sizes)', () => {
    const limits = Object.fromEntries(
      operations.flatMap(({ path, method, op }) =>
        (op.parameters ?? []).filter((p: Json) => p.name === 'limit').map((p: Json) => [`${method} ${path.slice(PREFIX.length)}`, p.schema.default]),
      ),
    )
    expect(limits).toEqual({
      'get /leads': 20,
      'get /calls': 50,
      'get /events': 50,
      'get /campaigns': 50,
      'get /dnc': 50,
      'get /campaigns/{id}/leads': 50,
      'get /webhook_endpoints': 50,
      'get /webhook_endpoints/{id}/deliveries': 25,
    })
  })

  test('every default is a valid value of its schema', () => {
    const ajv = new Ajv2020({ strict: false })
    addFormats(ajv)
    let seen = 0
    for (const { path, schema } of defaultsIn(doc)) {
      const { default: value, ...rest } = schema
      expect({ path, valid: ajv.validate(rest, value) }).toEqual({ path, valid: true })
      seen++
    }
    expect(seen).toBeGreaterThanOrEqual(8)
  })
})

describe('replies', () => {
  const common: [number, ErrorCode[]][] = [
    [400, ['invalid_request']],
    [401, ['authentication_failed']],
    [403, ['permission_denied']],
    [404, ['not_found']],
    [429, ['rate_limited', 'too_many_concurrent_requests']],
    [500, ['internal_error']],
    [503, ['service_unavailable']],
  ]

  test('every operation documents the common errors with the envelope; each code under its own status', () => {
    const error = doc.components.schemas.Error
    expect(error.required).toEqual(['error'])
    expect(error.properties.error.required).toEqual(['type', 'code', 'message', 'param', 'request_id'])
    expect(error.properties.error.properties.code.enum).toEqual(Object.keys(errorCatalogue))
    for (const { path, method, op } of operations) {
      for (const [status, codes] of common) {
        for (const code of codes) expect({ path, method, status, has: codesOf(op, status).includes(code) }).toEqual({ path, method, status, has: true })
      }
      for (const [status, ref] of Object.entries<Json>(op.responses)) {
        if (Number(status) < 400) continue
        const schema = resolve(ref).content['application/json'].schema
        expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Error' })
        for (const code of codesOf(op, Number(status))) expect(errorCatalogue[code as ErrorCode].status as number).toBe(Number(status))
      }
      if (method === 'post' || method === 'patch') expect(codesOf(op, 409)).toEqual(expect.arrayContaining(['idempotency_mismatch', 'idempotency_in_progress']))
    }
  })

  test('the codes the spec sends per endpoint are documented there', () => {
    const intake = ['invalid_phone', 'on_dnc_list', 'duplicate_lead', 'number_retired', 'consent_required', 'campaign_closed', 'queue_full', 'test_flows_busy', 'lead_rate_limited', 'number_not_allowed']
    const sent: [string, string, string[]][] = [
      ['post', '/leads', [...intake, 'call_limit_reached']],
      ['post', '/campaigns/{id}/leads', intake],
      ['post', '/leads/batch', ['lead_rate_limited']],
      ['post', '/campaigns/{id}/leads/batch', ['lead_rate_limited']],
      ['patch', '/leads/{id}', ['duplicate_lead', 'phone_cannot_change']],
      ['get', '/leads', ['ambiguous_external_id']],
      ['post', '/dnc', ['invalid_phone', 'duplicate_dnc_entry']],
      ['get', '/dnc/check', ['invalid_phone']],
      ['post', '/calls', ['on_dnc_list', 'number_retired', 'campaign_closed', 'test_flows_busy', 'lead_busy', 'lead_taken_out_of_queue', 'call_limit_reached', 'number_not_allowed']],
      ['get', '/calls/{id}/recording', ['recording_not_available']],
      ['post', '/webhook_endpoints', ['limit_reached']],
      ['post', '/webhooks', ['limit_reached']],
      ['post', '/webhook_endpoints/{id}/test', ['endpoint_paused']],
      ['post', '/webhook_endpoints/{id}/deliveries/{delivery_id}/resend', ['endpoint_paused']],
    ]
    for (const [method, path, codes] of sent) {
      const op = opOf(method, path)
      for (const code of codes) {
        const status = errorCatalogue[code as ErrorCode].status
        expect({ method, path, code, has: codesOf(op, status).includes(code) }).toEqual({ method, path, code, has: true })
      }
    }
  })

  test('headers: Request-Id and RateLimit-* on every reply, Retry-After on 429 and 503, replay headers on writes, Deprecation on GET /calls', () => {
    for (const { path, method, op } of operations) {
      const write = method === 'post' || method === 'patch'
      for (const [status, ref] of Object.entries<Json>(op.responses)) {
        const headers = Object.keys(resolve(ref).headers ?? {})
        const where = `${method} ${path} ${status}`
        expect({ where, headers }).toEqual({ where, headers: expect.arrayContaining(['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) })
        if (status === '429' || status === '503') expect({ where, retry: headers.includes('Retry-After') }).toEqual({ where, retry: true })
        if (write) expect({ where, headers }).toEqual({ where, headers: expect.arrayContaining(['Idempotent-Replayed', 'Original-Request']) })
      }
    }
    expect(Object.keys(opOf('get', '/calls').responses['200'].headers)).toEqual(expect.arrayContaining(['Deprecation', 'Sunset']))
    for (const name of Object.keys(doc.components.headers)) expect(name).toMatch(/^[A-Z][A-Za-z]*(-[A-Z][A-Za-z]*)*$/)
  })

  test('the transcript is JSON or text/plain', () => {
    const content = opOf('get', '/calls/{id}/transcript').responses['200'].content
    expect(Object.keys(content).sort()).toEqual(['application/json', 'text/plain'])
    expect(content['text/plain'].schema).toEqual({ type: 'string' })
    expect(resolve(content['application/json'].schema.properties.data).required).toEqual(['call_id', 'lines', 'livemode'])
  })

  test('GET /usage: a reply without group_by is valid (null is in the enum)', () => {
    const usage = resolve(opOf('get', '/usage').responses['200'].content['application/json'].schema.properties.data)
    expect(usage.properties.group_by.enum).toEqual(['key', 'campaign', 'day', null])
    expect(usage.required).toEqual(expect.arrayContaining(['object', 'period', 'timezone', 'livemode', 'totals', 'group_by', 'groups', 'updated']))
  })

  test('fields the spec says are always present are required', () => {
    const data = (method: string, path: string, status = '200') => {
      const schema = resolve(opOf(method, path).responses[status].content['application/json'].schema.properties.data)
      return resolve(schema.type === 'array' ? schema.items : schema)
    }
    expect(data('get', '/leads/{id}').required).toEqual(expect.arrayContaining(['id', 'external_id', 'campaign_id', 'phone', 'status', 'place_in_line', 'calls', 'livemode']))
    expect(data('get', '/calls/{id}').required).toEqual(expect.arrayContaining(['id', 'object', 'livemode', 'lead', 'outcome', 'handled_by', 'started_by', 'recording_available']))
    expect(data('get', '/webhook_endpoints/{id}/deliveries').required).toEqual(expect.arrayContaining(['id', 'object', 'endpoint_id', 'status', 'attempts', 'response_body', 'created', 'livemode']))
    expect(data('post', '/calls', '202').required).toEqual(expect.arrayContaining(['lead_id', 'status', 'calls_left_today', 'livemode']))
    expect(data('get', '/dnc/check').required).toEqual(['phone', 'normalizedPhone', 'onDncList', 'livemode'])
  })
})

describe('names for generated clients', () => {
  test('every operation (and webhook) has its own camelCase verbNoun operationId, not one made up from the path', () => {
    const ids = [...operations.map(({ op }) => op.operationId), ...Object.values<Json>(doc.webhooks).map((item) => item.post.operationId)]
    for (const id of ids) {
      expect(id).toMatch(/^[a-z][A-Za-z]+$/)
      expect(id).not.toMatch(/^(get|post|put|patch|delete)Api/)
    }
    expect(new Set(ids).size).toBe(ids.length)
    const idOf = (method: string, path: string) => opOf(method, path).operationId
    expect([idOf('post', '/leads'), idOf('get', '/calls'), idOf('get', '/calls/{id}'), idOf('post', '/dnc'), idOf('get', '/leads/{id}')]).toEqual(['createLead', 'listCalls', 'getCall', 'createDncEntry', 'getLead'])
  })

  test('Lead, Call, Campaign, Event and Error are components, and replies refer to them instead of inlining them', () => {
    const referenced = new Set<string>()
    for (const [key, value] of keysIn({ paths: doc.paths, webhooks: doc.webhooks, components: doc.components })) {
      if (key === '$ref' && typeof value === 'string') referenced.add(value)
    }
    for (const name of ['Lead', 'Call', 'Campaign', 'Event', 'Error', 'DncEntry', 'WebhookEndpoint', 'WebhookDelivery', 'Export', 'Usage']) {
      expect(doc.components.schemas[name]?.type).toBe('object')
      expect(referenced.has(`#/components/schemas/${name}`)).toBe(true)
    }
    const data = (method: string, path: string) => opOf(method, path).responses[method === 'post' ? '201' : '200'].content['application/json'].schema.properties.data
    expect(data('get', '/leads/{id}')).toEqual({ $ref: '#/components/schemas/Lead' })
    expect(data('get', '/calls/{id}')).toEqual({ $ref: '#/components/schemas/Call' })
    expect(data('get', '/calls').items).toEqual({ $ref: '#/components/schemas/Call' })
    expect(data('get', '/campaigns/{id}')).toEqual({ $ref: '#/components/schemas/Campaign' })
    expect(data('get', '/events').items).toEqual({ $ref: '#/components/schemas/Event' })
    expect(data('post', '/dnc')).toEqual({ $ref: '#/components/schemas/DncEntry' })
    // No component's properties are copied inline anywhere in a reply.
    const inlineCopies = [...keysIn(doc.paths)].filter(([, value]) => {
      const v = value as Json
      return v && typeof v === 'object' && v.type === 'object' && v.properties?.place_in_line && v.properties?.calls
    })
    expect(inlineCopies).toEqual([])
  })
})

describe('webhooks', () => {
  test('one POST per event type of the catalogue, its body the typed envelope', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort())
    for (const type of EVENT_TYPES) {
      const post = doc.webhooks[type].post
      const schema = resolve(post.requestBody.content['application/json'].schema)
      expect(schema.allOf[0]).toEqual({ $ref: '#/components/schemas/Event' })
      expect(schema.allOf[1].properties.type.const).toBe(type)
      const object = schema.allOf[1].properties.data.properties.object
      const base = object.$ref ?? object.allOf[0].$ref
      expect(base).toBe(type.startsWith('lead.') && type !== 'lead.interested' || type === 'callback.booked' ? '#/components/schemas/EventLead' : '#/components/schemas/Call')
      expect(post.parameters.map((p: Json) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature'])
    }
    expect(doc.webhooks['call.completed'].post.requestBody.content['application/json'].schema.$ref).toBe('#/components/schemas/CallCompletedEvent')
    const completed = doc.components.schemas.CallCompletedEvent.allOf[1].properties.data.properties.object.allOf[1]
    expect(completed.required).toEqual(['revision', 'recording_path', 'transcript_path'])
  })
})

describe('servers', () => {
  test('the served document names the public URL', async () => {
    const app = docsRoutes('https://dialer.example.com')
    const served = (await (await app.handle(new Request(`http://localhost${PREFIX}/openapi.json`))).json()) as Json
    expect(served.servers).toEqual([{ url: 'https://dialer.example.com' }])
    expect(served.paths).toEqual(doc.paths)
  })

  test('with DIALER_PORT=0 and no DIALER_PUBLIC_URL the public URL takes the bound port; a set one is kept', () => {
    expect(withBoundPort(loadConfig({ DIALER_PORT: '0' }), 43123).publicUrl).toBe('http://127.0.0.1:43123')
    expect(withBoundPort(loadConfig({ DIALER_PORT: '0', DIALER_PUBLIC_URL: 'https://dialer.example.com/' }), 43123).publicUrl).toBe('https://dialer.example.com')
    const fixed = loadConfig({ DIALER_PORT: '9090' })
    expect(withBoundPort(fixed, 9090)).toBe(fixed)
    expect(listeningUrl('::1', 8080)).toBe('http://[::1]:8080')
  })
})
