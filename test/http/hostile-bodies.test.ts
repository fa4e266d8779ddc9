import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { maskSensitive } from '../../src/errors'
import { createHarness, seedWorld, type Harness, type Reply, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Bodies built to hurt (issue 14 items 3 and 6): deep or wide JSON, objects where strings
 * belong, odd keys and strings. Each is a cheap 400 invalid_request naming the field, never
 * a 500; replayed replies name their own request. Timings here are loose (shared machine):
 * scripts/bench/hostile-bodies.ts measures them.
 */

let h: Harness
let w: World
let leadId: string
beforeAll(async () => {
  h = createHarness()
  w = await seedWorld(h)
  const lead = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+14155550000', name: 'Ann' } })
  leadId = lead.body.data.id
})
afterAll(() => h.close())

const JSON_TYPE = { 'content-type': 'application/json' }

async function raw(method: string, path: string, text: string, headers: Record<string, string> = {}): Promise<Reply & { ms: number }> {
  const started = performance.now()
  const reply = await h.api(method, path, { key: w.live, rawBody: text, headers: { ...JSON_TYPE, ...headers } })
  return { ...reply, ms: performance.now() - started }
}

function expectInvalid(r: Reply, param: string | null) {
  expect(r.status).toBe(400)
  expect(r.body.error.code).toBe('invalid_request')
  expect(r.body.error.param).toBe(param)
  expect(r.body.error.request_id).toBe(r.headers.get('request-id'))
}

const nested = (depth: number, inner = '1') => '['.repeat(depth) + inner + ']'.repeat(depth)

describe('nesting depth is capped at 32 before the body is parsed', () => {
  test('10,000 deep arrays: 400 at once, naming the depth', async () => {
    const r = await raw('POST', '/dnc', nested(10_000))
    expectInvalid(r, null)
    expect(r.body.error.message).toMatch(/deeper than 32/)
    expect(r.ms).toBeLessThan(1000)
  })

  test('10,000 deep objects: 400 at once', async () => {
    const r = await raw('POST', '/dnc', '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000))
    expectInvalid(r, null)
    expect(r.ms).toBeLessThan(1000)
  })

  test('a megabyte less one byte of [ : 400 at once', async () => {
    const r = await raw('POST', '/dnc', '['.repeat(999_999))
    expectInvalid(r, null)
    expect(r.ms).toBeLessThan(1000)
  })

  test('32 levels reach validation (param phone); 33 are refused before it', async () => {
    const ok = await raw('POST', '/dnc', `{"phone":${nested(31)}}`)
    expectInvalid(ok, 'phone')
    const deep = await raw('POST', '/dnc', `{"phone":${nested(32)}}`)
    expectInvalid(deep, null)
    expect(deep.body.error.message).toMatch(/deeper than 32/)
  })

  test('with an Idempotency-Key, a deep lead in a batch is a 400, not a fingerprint overflow', async () => {
    const text = `{"campaign_id":"${w.campaignId}","leads":[${nested(5000)}]}`
    const r = await raw('POST', '/leads/batch', text, { 'idempotency-key': 'deep-batch' })
    expectInvalid(r, null)
  })

  test('a batch item 30 deep with an Idempotency-Key is checked as an item, and replayed', async () => {
    const text = `{"campaign_id":"${w.campaignId}","leads":[${nested(28)}]}`
    const first = await raw('POST', '/leads/batch', text, { 'idempotency-key': 'deep-ok' })
    expect(first.status).toBe(200)
    expect(first.body.data.results[0].error.param).toBe('leads[0]')
    const again = await raw('POST', '/leads/batch', text, { 'idempotency-key': 'deep-ok' })
    expect(again.headers.get('idempotent-replayed')).toBe('true')
  })
})

describe('bodies that are text', () => {
  const admin = { authorization: 'Bearer test-admin-token-0123456789', ...JSON_TYPE }

  test('a deep array sent as text/csv to an admin route: 400 before anything reads it', async () => {
    const r = await h.call('PATCH', `/api/v1/admin/orgs/${w.orgId}`, { rawBody: nested(50_000), headers: { ...admin, 'content-type': 'text/csv' } })
    expectInvalid(r, null)
    expect(r.body.error.message).toMatch(/deeper than 32/)
  })

  test('a JSON string holding a deep array, to an admin route: 400, not read a second time', async () => {
    const r = await h.call('POST', '/api/v1/admin/clock', { rawBody: JSON.stringify(nested(50_000)), headers: admin })
    expectInvalid(r, null)
    expect(r.body.error.message).toMatch(/not a string/)
  })

  test('a JSON string holding an object, to an external route with an optional body: 400', async () => {
    const r = await raw('POST', `/campaigns/${w.campaignId}/pause`, JSON.stringify('{"force":true}'))
    expectInvalid(r, null)
  })
})

describe('wide and long bodies', () => {
  test('an object with 90,000 keys: 400 before it is parsed', async () => {
    const text = '{' + Array.from({ length: 90_000 }, (_, i) => `"k${i}":1`).join(',') + '}'
    expect(text.length).toBeLessThan(1_000_000)
    const r = await raw('POST', '/dnc', text)
    expectInvalid(r, null)
    expect(r.body.error.message).toMatch(/more than 1000 members/)
    expect(r.ms).toBeLessThan(1000)
  })

  test('99,000 objects in a batch: 400 before it is parsed (at most 20,000 values)', async () => {
    const r = await raw('POST', '/leads/batch', `{"campaign_id":"${w.campaignId}","leads":[${Array(99_000).fill('{}').join(',')}]}`)
    expectInvalid(r, null)
    expect(r.body.error.message).toMatch(/more than 20000 values/)
  })

  test('200,000 numbers where 100 strings belong: 400 before it is parsed', async () => {
    const r = await raw('POST', '/dnc/batch', `{"phones":[${Array(200_000).fill('1').join(',')}]}`)
    expectInvalid(r, null)
    expect(r.ms).toBeLessThan(1000)
  })

  test('15,000 numbers where 100 strings belong: one 400 naming the field', async () => {
    const r = await raw('POST', '/dnc/batch', `{"phones":[${Array(15_000).fill('1').join(',')}]}`)
    expectInvalid(r, 'phones')
  })

  test('a batch of 60 leads with 50 custom fields each is within every limit', async () => {
    const fields = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`f${i}`, 'v']))
    const leads = Array.from({ length: 60 }, (_, i) => ({ phone: `+1415555${3000 + i}`, fields, consent: { source: 'web', agreed_at: '2026-01-01T00:00:00Z', text: 'yes' } }))
    const r = await raw('POST', '/leads/batch', JSON.stringify({ campaign_id: w.campaignId, dry_run: true, leads }))
    expect(r.status).toBe(200)
    expect(r.body.data.succeeded).toBe(60)
  })

  test('a 900 KB string where a short one belongs', async () => {
    const r = await raw('POST', '/dnc', JSON.stringify({ phone: 'x'.repeat(900_000) }))
    expectInvalid(r, 'phone')
    expect(r.text.length).toBeLessThan(1000)
  })

  test('a deep array of many items where a string belongs is not printed back', async () => {
    const r = await raw('POST', '/dnc', `{"phone":${nested(30, Array(19_000).fill('1').join(','))}}`)
    expectInvalid(r, 'phone')
    expect(r.ms).toBeLessThan(1000)
  })
})

describe('objects and other values where a string belongs', () => {
  const sneaky = { toString: 1 }
  const cases: [string, string, () => string, () => unknown, string][] = [
    ['POST', '/dnc', () => '/dnc', () => ({ phone: sneaky }), 'phone'],
    ['POST', '/dnc valueOf', () => '/dnc', () => ({ phone: { valueOf: 1 } }), 'phone'],
    ['POST', '/dnc both', () => '/dnc', () => ({ phone: { toString: 1, valueOf: 1 } }), 'phone'],
    ['POST', '/dnc in an array', () => '/dnc', () => ({ phone: [sneaky] }), 'phone'],
    ['POST', '/dnc/batch', () => '/dnc/batch', () => ({ phones: ['+14155552671', sneaky] }), 'phones[1]'],
    ['POST', '/leads', () => '/leads', () => ({ campaign_id: w.campaignId, phone: sneaky }), 'phone'],
    ['POST', '/leads name', () => '/leads', () => ({ campaign_id: w.campaignId, phone: '+14155552671', name: sneaky }), 'name'],
    ['POST', '/leads custom field', () => '/leads', () => ({ campaign_id: w.campaignId, phone: '+14155552671', fields: { a: sneaky } }), 'fields.a'],
    ['POST', '/leads consent', () => '/leads', () => ({ campaign_id: w.campaignId, phone: '+14155552671', consent: { source: sneaky, agreed_at: '2026-01-01T00:00:00Z', text: 'yes' } }), 'consent.source'],
    ['PATCH', '/leads/{id}', () => `/leads/${leadId}`, () => ({ name: sneaky }), 'name'],
    ['POST', '/campaigns/{id}/leads', () => `/campaigns/${w.campaignId}/leads`, () => ({ phone: sneaky }), 'phone'],
    ['POST', '/calls', () => '/calls', () => ({ external_id: sneaky }), 'external_id'],
    ['POST', '/webhook_endpoints url', () => '/webhook_endpoints', () => ({ url: sneaky, events: ['call.completed'] }), 'url'],
    ['POST', '/webhook_endpoints events', () => '/webhook_endpoints', () => ({ url: 'https://hooks.example.com/x', events: [sneaky] }), 'events[0]'],
    ['POST', '/exports', () => '/exports', () => ({ exportType: sneaky }), 'exportType'],
    ['POST', '/leads/{id}/opt_out', () => `/leads/${leadId}/opt_out`, () => ({ reason: sneaky }), 'reason'],
  ]
  test.each(cases)('%s %s: 400 naming the field', async (method, _name, path, body, param) => {
    const r = await raw(method, path(), JSON.stringify(body()))
    expectInvalid(r, param)
  })

  test('admin POST /orgs with an object for a name: 400 naming the field', async () => {
    const r = await h.admin('POST', '/orgs', { name: sneaky })
    expectInvalid(r, 'name')
  })

  test('admin PATCH /orgs/{id} with an object inside an array for a string: 400 naming the item', async () => {
    const r = await h.admin('PATCH', `/orgs/${w.orgId}`, { name: [sneaky] })
    expectInvalid(r, 'name[0]')
  })

  test.each<[string, string]>([
    ['a number', '{"phone":14155552671}'],
    ['a number too large for a double', '{"phone":1e400}'],
    ['a long run of digits as a number', `{"phone":${'9'.repeat(5000)}}`],
    ['true', '{"phone":true}'],
  ])('%s for a string: 400 naming the field', async (_name, text) => {
    expectInvalid(await raw('POST', '/dnc', text), 'phone')
  })
})

describe('keys and strings a body should not carry', () => {
  test.each<[string, string]>([
    ['__proto__', '{"__proto__":{"phone":"+14155552671"},"phone":"+14155552671"}'],
    ['constructor', '{"constructor":{"prototype":{}},"phone":"+14155552671"}'],
    ['toString', '{"toString":"x","phone":"+14155552671"}'],
  ])('a %s field at the top is an unknown field', async (key, text) => {
    expectInvalid(await raw('POST', '/dnc', text), key)
  })

  test('custom fields named like Object members are kept as sent', async () => {
    const fields = JSON.parse('{"__proto__":"p","constructor":"c","toString":"t","valueOf":"v"}')
    const added = await raw('POST', '/leads', JSON.stringify({ campaign_id: w.campaignId, phone: '+14155552688', fields }))
    expect(added.status).toBe(201)
    const read = await h.api('GET', `/leads/${added.body.data.id}`, { key: w.live })
    expect(read.text).toContain('"__proto__":"p"')
    expect(Object.keys(read.body.data.fields).sort()).toEqual(['__proto__', 'constructor', 'toString', 'valueOf'])
  })

  test.each<[string, string, string]>([
    ['a NUL in a name', '{"campaign_id":"CAMPAIGN","phone":"+14155552689","name":"Ann\\u0000Lee"}', 'name'],
    ['a lone surrogate in a custom field', '{"campaign_id":"CAMPAIGN","phone":"+14155552689","fields":{"k":"\\ud800"}}', 'fields.k'],
    ['a lone low surrogate in an address', '{"campaign_id":"CAMPAIGN","phone":"+14155552689","address":"x\\udc00y"}', 'address'],
    ['a NUL in a custom field name', '{"campaign_id":"CAMPAIGN","phone":"+14155552689","fields":{"k\\u0000":"v"}}', 'fields'],
  ])('%s: 400 naming the field', async (_name, text, param) => {
    const r = await raw('POST', '/leads', text.replace('CAMPAIGN', w.campaignId))
    expectInvalid(r, param)
  })

  test('a key without the permission hears 403 before anything about a NUL in its body', async () => {
    const reader = await h.createKey(w.orgId, { name: 'reader', mode: 'live', permissions: ['leads:read'] })
    const r = await h.api('POST', '/dnc', { key: reader, rawBody: '{"phone":"\\u0000"}', headers: JSON_TYPE })
    expect(r.status).toBe(403)
    expect(r.body.error.code).toBe('permission_denied')
  })

  test('a pair of surrogates (an emoji) is fine', async () => {
    const r = await raw('POST', '/leads', `{"campaign_id":"${w.campaignId}","phone":"+14155552690","name":"Ann \\ud83d\\ude00"}`)
    expect(r.status).toBe(201)
  })
})

describe('replies agree with themselves', () => {
  test('a replayed error carries the replay request id in its body and the first in Original-Request', async () => {
    const headers = { 'idempotency-key': 'replay-error-1' }
    const first = await raw('POST', '/dnc', '{"phone":"hello"}', headers)
    expect(first.status).toBe(400)
    expect(first.body.error.request_id).toBe(first.headers.get('request-id'))
    const replay = await raw('POST', '/dnc', '{"phone":"hello"}', headers)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(replay.headers.get('request-id')).not.toBe(first.headers.get('request-id'))
    expect(replay.body.error.request_id).toBe(replay.headers.get('request-id'))
    expect(replay.headers.get('original-request')).toBe(first.headers.get('request-id'))
    expect({ ...replay.body.error, request_id: null }).toEqual({ ...first.body.error, request_id: null })
  })

  test('a replayed success names the first request in Original-Request', async () => {
    const headers = { 'idempotency-key': 'replay-ok-1' }
    const first = await raw('POST', '/dnc', '{"phone":"+14155552691"}', headers)
    expect(first.status).toBe(201)
    const replay = await raw('POST', '/dnc', '{"phone":"+14155552691"}', headers)
    expect(replay.status).toBe(201)
    expect(replay.body).toEqual(first.body)
    expect(replay.headers.get('original-request')).toBe(first.headers.get('request-id'))
  })

  test('a first request carries no Original-Request', async () => {
    const first = await raw('POST', '/dnc', '{"phone":"+14155552692"}', { 'idempotency-key': 'replay-ok-2' })
    expect(first.headers.get('original-request')).toBeNull()
  })

  test('param is masked like message when a phone number or email is in it', async () => {
    const r = await raw('POST', '/leads', JSON.stringify({ campaign_id: w.campaignId, phone: '+14155552693', fields: { '4155552671': 1 } }))
    expectInvalid(r, 'fields[********71]')
    expect(r.text).not.toContain('4155552671')
    const email = await raw('POST', '/leads', JSON.stringify({ campaign_id: w.campaignId, phone: '+14155552693', fields: { 'ann@example.com': 1 } }))
    // The email pattern takes in the "fields." before it: masked as a message would be.
    expectInvalid(email, maskSensitive('fields.ann@example.com'))
    expect(email.text).not.toContain('ann@')
  })

  test('param is masked in a batch item error too', async () => {
    const r = await raw('POST', '/leads/batch', JSON.stringify({ campaign_id: w.campaignId, leads: [{ phone: '+14155552694', fields: { '4155552671': 1 } }] }))
    expect(r.status).toBe(200)
    expect(r.text).not.toContain('4155552671')
    expect(r.body.data.results[0].error.param).toBe('leads[0].fields[********71]')
  })
})
