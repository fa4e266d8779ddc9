import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { bodyRulesOf, declaredBodyRules, JSON_BODY } from '../../src/http/body-reader'
import { TWILIO_FORM } from '../../src/http/callback-body'
import { CSV_FILE } from '../../src/http/csv-upload'
import { createGateway, type RequestHandler } from '../../src/http/gateway'
import { REGISTRY_FILE } from '../../src/http/registry-upload'
import { createHarness, seedWorld, type Harness, type TestKey, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * The gateway hands the server a plain Response when the reply is ready at once (a GET that
 * waits for nothing) and a promise otherwise. Both ways must end the same: headers, the
 * envelope, the concurrency slot given back, the in-flight count back to zero, and no reply
 * before writes it may have read are committed.
 */

let h: Harness
let w: World
let handle: RequestHandler
let single: TestKey

beforeAll(async () => {
  h = createHarness()
  w = await seedWorld(h)
  // The server's handler over the same app and services (the harness wraps it in a promise).
  handle = createGateway(h.services, h.routes)
  single = await h.createKey(w.orgId, { name: 'one at a time', mode: 'live', max_concurrent: 1 })
})
afterAll(() => h.close())

const get = (path: string, key?: TestKey) =>
  handle(new Request(`http://localhost/api/v1/external${path}`, { headers: key ? { authorization: key.authorization } : {} }))

async function settled(reply: Response | Promise<Response>) {
  const response = await reply
  return { status: response.status, headers: response.headers, body: (await response.json()) as any }
}

// Elysia decides from a handler's source text whether it may return a promise (a handler
// returning a call's result counts), so not every GET compiles synchronous; these two do.
describe('replies ready at once are not wrapped in a promise', () => {
  test.each([
    ['GET /dnc/check', () => '/dnc/check?phone=%2B14155552671'],
    ['GET /campaigns/{id}', () => `/campaigns/${w.campaignId}`],
  ])('%s', async (_name, path) => {
    const reply = get(path(), w.live)
    expect(reply).toBeInstanceOf(Response)
    const r = await settled(reply)
    expect(r.status).toBe(200)
    expect(r.headers.get('request-id')).toMatch(/^req_[0-9a-f]+$/)
    expect(r.headers.get('ratelimit-limit')).toMatch(/^\d+$/)
    expect(r.headers.get('ratelimit-remaining')).toMatch(/^\d+$/)
    expect(r.headers.get('ratelimit-reset')).toMatch(/^\d+$/)
    expect(r.body.data.livemode).toBe(true)
    expect(handle.inFlight()).toBe(0)
  })

  test('a refusal before routing (401) is answered at once, in the envelope', async () => {
    const reply = get('/dnc/check?phone=%2B14155552671')
    expect(reply).toBeInstanceOf(Response)
    const r = await settled(reply)
    expect(r.status).toBe(401)
    expect(r.body.error).toMatchObject({ type: 'authentication_error', code: 'authentication_failed', reason: 'missing' })
    expect(r.body.error.request_id).toBe(r.headers.get('request-id'))
    expect(handle.inFlight()).toBe(0)
  })

  test('a GET Elysia compiles as async still ends the same way', async () => {
    const r = await settled(get('/campaigns', w.live))
    expect(r.status).toBe(200)
    expect(r.headers.get('request-id')).toMatch(/^req_[0-9a-f]+$/)
    expect(r.body.data.length).toBeGreaterThan(0)
    expect(handle.inFlight()).toBe(0)
  })

  test('the concurrency slot is back as soon as a synchronous reply is returned', async () => {
    for (let i = 0; i < 3; i++) {
      const reply = get('/dnc/check?phone=%2B14155552671', single)
      expect(reply).toBeInstanceOf(Response)
      expect((reply as Response).status).toBe(200)
    }
  })
})

describe('replies that wait', () => {
  test('a POST is a promise, and ends with its slot and in-flight count given back', async () => {
    const reply = handle(
      new Request('http://localhost/api/v1/external/dnc', {
        method: 'POST',
        headers: { authorization: single.authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ phone: '+14155552672' }),
      }),
    )
    expect(reply).toBeInstanceOf(Promise)
    expect(handle.inFlight()).toBe(1)
    const r = await settled(reply)
    expect(r.status).toBe(201)
    expect(handle.inFlight()).toBe(0)
    expect((get('/dnc/check?phone=%2B14155552671', single) as Response).status).toBe(200)
  })

  test('a GET that may have read an uncommitted write waits for the commit', async () => {
    // Written in this turn of the event loop: the group commit is still open.
    h.services.dnc.add({ orgId: w.orgId, livemode: true }, '+14155552673')
    expect(h.services.database.pendingCommit()).not.toBeNull()
    const reply = get('/dnc/check?phone=%2B14155552673', w.live)
    expect(reply).toBeInstanceOf(Promise)
    const r = await settled(reply)
    expect(r.body.data.onDncList).toBe(true)
    expect(h.services.database.pendingCommit()).toBeNull()
    expect(handle.inFlight()).toBe(0)
  })

  test('an unexpected error in a synchronous route is a 500 envelope without internals', async () => {
    const check = h.services.dnc.check
    h.services.dnc.check = () => {
      throw new Error('disk on fire at /var/lib/secret')
    }
    try {
      const r = await settled(get('/dnc/check?phone=%2B14155552671', single))
      expect(r.status).toBe(500)
      expect(r.body.error.type).toBe('api_error')
      expect(JSON.stringify(r.body)).not.toContain('secret')
      expect(handle.inFlight()).toBe(0)
    } finally {
      h.services.dnc.check = check
    }
    expect((get('/dnc/check?phone=%2B14155552671', single) as Response).status).toBe(200)
  })
})

describe('body limits and parsers are declared on the routes', () => {
  test('the file uploads and Twilio\'s callbacks declare theirs; every other route takes JSON up to 1 MB', () => {
    const declared = declaredBodyRules(h.routes.routes).map(({ method, path, rule }) => [method, path, rule])
    expect(declared.sort()).toEqual([
      ['POST', '/api/v1/admin/dnc_registry', REGISTRY_FILE],
      ['POST', '/api/v1/admin/orgs/:id/leads/import', CSV_FILE],
      ['POST', '/console/api/orgs/:org/leads/import', CSV_FILE],
      ['POST', '/telnyx/calls/:id/:step', TWILIO_FORM],
      ['POST', '/telnyx/inbound/:org', TWILIO_FORM],
      ['POST', '/telnyx/inbound/:org/status', TWILIO_FORM],
      ['POST', '/telnyx/seats/:seatId/:step', TWILIO_FORM],
      ['POST', '/twilio/calls/:id/:step', TWILIO_FORM],
      ['POST', '/twilio/inbound/:org', TWILIO_FORM],
      ['POST', '/twilio/inbound/:org/status', TWILIO_FORM],
      ['POST', '/twilio/seats/:seatId/:step', TWILIO_FORM],
    ])
  })

  test('the gateway finds a request\'s rule from the route it goes to', () => {
    const ruleOf = bodyRulesOf(h.routes.routes)
    expect(ruleOf('POST', `/api/v1/admin/orgs/${w.orgId}/leads/import/`)).toBe(CSV_FILE)
    expect(ruleOf('POST', `/console/api/orgs/${w.orgId}/leads/import`)).toBe(CSV_FILE)
    expect(ruleOf('POST', '/api/v1/admin/dnc_registry')).toBe(REGISTRY_FILE)
    expect(ruleOf('POST', '/twilio/calls/call_1/status')).toBe(TWILIO_FORM)
    expect(ruleOf('POST', '/twilio/seats/seat_1/sit')).toBe(TWILIO_FORM)
    expect(ruleOf('POST', `/twilio/inbound/${w.orgId}`)).toBe(TWILIO_FORM)
    expect(ruleOf('POST', '/telnyx/calls/call_1/status')).toBe(TWILIO_FORM)
    expect(ruleOf('POST', '/api/v1/external/leads')).toBe(JSON_BODY)
    expect(ruleOf('PATCH', `/api/v1/admin/orgs/${w.orgId}`)).toBe(JSON_BODY)
  })
})
