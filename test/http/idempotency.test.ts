import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { fingerprintOf } from '../../src/http/idempotency'
import { createHarness, seedWorld, type Harness, type Reply, type TestKey, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Idempotency-Key on writes (spec "Endpoints" conventions; DESIGN.md "Idempotency",
 * "Contract details"): replay with `Idempotent-Replayed: true`, mismatch, in progress,
 * stored 4xx, per API key, 24 hours.
 */

let h: Harness
let w: World
let sameOrgLive: TestKey
beforeAll(async () => {
  h = createHarness()
  w = await seedWorld(h)
  sameOrgLive = await h.createKey(w.orgId, { name: 'second live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
})
afterAll(() => h.close())

const idem = (key: string) => ({ 'idempotency-key': key })

/**
 * The first reply again, except that an error's request_id is the replay's own (spec "Errors":
 * same as the Request-Id header); Original-Request names the first request.
 */
function expectReplayOf(replay: Reply, first: Reply) {
  expect(replay.headers.get('idempotent-replayed')).toBe('true')
  expect(replay.status).toBe(first.status)
  expect(replay.headers.get('content-type')).toMatch(/^application\/json/)
  expect(replay.headers.get('request-id')).toMatch(/^req_/)
  expect(replay.headers.get('original-request')).toBe(first.headers.get('request-id'))
  if (first.body?.error) {
    expect(replay.body.error.request_id).toBe(replay.headers.get('request-id'))
    expect({ error: { ...replay.body.error, request_id: first.body.error.request_id } }).toEqual(first.body)
  } else {
    expect(replay.body).toEqual(first.body)
  }
}

function expectFresh(r: Reply) {
  expect(r.headers.get('idempotent-replayed')).toBeNull()
}

function expectIdempotencyError(r: Reply, code: 'idempotency_mismatch' | 'idempotency_in_progress') {
  expect(r.status).toBe(409)
  expect(r.body.error).toMatchObject({ type: 'idempotency_error', code })
  expect(r.body.error.request_id).toBe(r.headers.get('request-id'))
  expectFresh(r)
}

async function dncPhones(key: TestKey, search: string): Promise<string[]> {
  const r = await h.api('GET', `/dnc?search=${search}`, { key })
  expect(r.status).toBe(200)
  return r.body.data.map((e: { phone: string }) => e.phone)
}

describe('POST /dnc replay', () => {
  const PHONE = '+14155552651'
  let first: Reply

  test('first request: 201, no replay header', async () => {
    first = await h.api('POST', '/dnc', { key: w.live, body: { phone: PHONE }, headers: idem('dnc-1') })
    expect(first.status).toBe(201)
    expect(first.body.data.phone).toBe(PHONE)
    expectFresh(first)
  })

  test('repeat: same status and body, Idempotent-Replayed: true', async () => {
    const replay = await h.api('POST', '/dnc', { key: w.live, body: { phone: PHONE }, headers: idem('dnc-1') })
    expectReplayOf(replay, first)
    expect(replay.headers.get('request-id')).not.toBe(first.headers.get('request-id'))
  })

  test('no second entry was created', async () => {
    expect(await dncPhones(w.live, '4155552651')).toEqual([PHONE])
  })

  test('without the key the same request runs (and is a duplicate)', async () => {
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: PHONE } })
    expect(r.status).toBe(409)
    expect(r.body.error.code).toBe('duplicate_dnc_entry')
    expectFresh(r)
  })

  test('same key, different body: 409 idempotency_mismatch, nothing added', async () => {
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552652' }, headers: idem('dnc-1') })
    expectIdempotencyError(r, 'idempotency_mismatch')
    expect(await dncPhones(w.live, '4155552652')).toEqual([])
  })

  test('same key, different path: 409 idempotency_mismatch', async () => {
    const r = await h.api('POST', '/dnc/batch', { key: w.live, body: { phones: [PHONE] }, headers: idem('dnc-1') })
    expectIdempotencyError(r, 'idempotency_mismatch')
  })

  test('the same JSON written differently (spacing, escapes) replays', async () => {
    const rawBody = `{\n  "phone" :  "\\u002B14155552651"\n}`
    const r = await h.api('POST', '/dnc', {
      key: w.live, rawBody, headers: { ...idem('dnc-1'), 'content-type': 'application/json' },
    })
    expectReplayOf(r, first)
  })

  test('the fingerprint ignores JSON key order', () => {
    // No external write body has two fields yet, so key order is checked on the fingerprint itself.
    const a = fingerprintOf('POST', '/api/v1/external/x', { a: 1, b: { c: [1, { d: 2, e: 3 }], f: null } })
    const b = fingerprintOf('POST', '/api/v1/external/x', { b: { f: null, c: [1, { e: 3, d: 2 }] }, a: 1 })
    expect(a).toBe(b)
    expect(fingerprintOf('POST', '/api/v1/external/x', { a: 1, b: 2 })).not.toBe(fingerprintOf('POST', '/api/v1/external/x', { a: 2, b: 1 }))
    expect(fingerprintOf('POST', '/api/v1/external/x', { a: [1, 2] })).not.toBe(fingerprintOf('POST', '/api/v1/external/x', { a: [2, 1] }))
  })

  test('POST /dnc/batch replays its 200', async () => {
    const body = { phones: ['+14155552653', '+14155552654', 'not a number'] }
    const one = await h.api('POST', '/dnc/batch', { key: w.live, body, headers: idem('batch-1') })
    expect(one.status).toBe(200)
    expect(one.body.data).toMatchObject({ succeeded: 2, failed: 1, errors: ['not a number'] })
    const two = await h.api('POST', '/dnc/batch', { key: w.live, body, headers: idem('batch-1') })
    expectReplayOf(two, one)
    // A run (not a replay) would have said the two numbers are already there.
    expect(two.body.data.succeeded).toBe(2)
  })
})

describe('stored 4xx replies', () => {
  test('409 duplicate_dnc_entry is stored and replayed, even after the entry is gone', async () => {
    const phone = '+14155552655'
    const added = await h.api('POST', '/dnc', { key: w.live, body: { phone } })
    expect(added.status).toBe(201)

    const first = await h.api('POST', '/dnc', { key: w.live, body: { phone }, headers: idem('dup-1') })
    expect(first.status).toBe(409)
    expect(first.body.error.code).toBe('duplicate_dnc_entry')
    expectFresh(first)

    const removed = await h.api('DELETE', `/dnc/${added.body.data.id}`, { key: w.live })
    expect(removed.status).toBe(200)

    const replay = await h.api('POST', '/dnc', { key: w.live, body: { phone }, headers: idem('dup-1') })
    expectReplayOf(replay, first)
    // The replay did not run: the number is still off the list.
    expect(await dncPhones(w.live, '4155552655')).toEqual([])
  })

  test('400 invalid_phone is stored and replayed', async () => {
    const first = await h.api('POST', '/dnc', { key: w.live, body: { phone: 'hello' }, headers: idem('bad-phone-1') })
    expect(first.status).toBe(400)
    expect(first.body.error).toMatchObject({ code: 'invalid_phone', param: 'phone' })
    expectFresh(first)
    const replay = await h.api('POST', '/dnc', { key: w.live, body: { phone: 'hello' }, headers: idem('bad-phone-1') })
    expectReplayOf(replay, first)
  })

  test('404 not_found from a write is stored and replayed', async () => {
    const path = `/campaigns/${w.otherCampaignId}/pause`
    const first = await h.api('POST', path, { key: w.live, headers: idem('nf-1') })
    expect(first.status).toBe(404)
    expect(first.body.error.code).toBe('not_found')
    const replay = await h.api('POST', path, { key: w.live, headers: idem('nf-1') })
    expectReplayOf(replay, first)
  })
})

describe('keys are per API key', () => {
  test('another API key with the same Idempotency-Key runs fresh', async () => {
    const phone = '+14155552656'
    const mine = await h.api('POST', '/dnc', { key: w.live, body: { phone }, headers: idem('shared-1') })
    expect(mine.status).toBe(201)

    // Same organization and mode: a real run finds the number already listed.
    const theirs = await h.api('POST', '/dnc', { key: sameOrgLive, body: { phone }, headers: idem('shared-1') })
    expect(theirs.status).toBe(409)
    expect(theirs.body.error.code).toBe('duplicate_dnc_entry')
    expectFresh(theirs)

    // A test key's run adds its own test-mode entry.
    const test = await h.api('POST', '/dnc', { key: w.test, body: { phone }, headers: idem('shared-1') })
    expect(test.status).toBe(201)
    expect(test.body.data.livemode).toBe(false)
    expectFresh(test)
  })

  test("another key's different body is not a mismatch", async () => {
    const r = await h.api('POST', '/dnc', { key: w.otherLive, body: { phone: '+14155552657' }, headers: idem('shared-1') })
    expect(r.status).toBe(201)
    expectFresh(r)
  })
})

describe('invalid Idempotency-Key values', () => {
  test.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a space inside', 'two words'],
    ['a tab inside', 'tab\there'],
    ['non-ASCII (latin-1)', 'clé'],
    ['DEL character', 'del\x7f'],
  ])('%s: 400 invalid_request, param Idempotency-Key, nothing done', async (_label, value) => {
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552658' }, headers: idem(value) })
    expect(r.status).toBe(400)
    expect(r.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param: 'Idempotency-Key' })
    expect(await dncPhones(w.live, '4155552658')).toEqual([])
  })

  test('255 visible ASCII characters are accepted', async () => {
    const key = ('!~' + 'a'.repeat(253)).slice(0, 255)
    expect(key.length).toBe(255)
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552658' }, headers: idem(key) })
    expect(r.status).toBe(201)
    const replay = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552658' }, headers: idem(key) })
    expectReplayOf(replay, r)
  })

  test('a single character is accepted', async () => {
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552659' }, headers: idem('x') })
    expect(r.status).toBe(201)
  })

  test('reads ignore the header (GET is not a write)', async () => {
    const r = await h.api('GET', '/dnc', { key: w.live, headers: idem('not valid here') })
    expect(r.status).toBe(200)
  })
})

describe('in progress', () => {
  test('a key still running: 409 idempotency_in_progress with Retry-After, nothing done', async () => {
    const key = 'running-1'
    const begun = h.services.idempotency.begin(w.live.id, key, 'fingerprint of the first request')
    expect(begun.kind).toBe('proceed')
    try {
      const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552660' }, headers: idem(key) })
      expectIdempotencyError(r, 'idempotency_in_progress')
      const retryAfter = r.headers.get('retry-after')
      expect(retryAfter).toMatch(/^\d+$/)
      expect(Number(retryAfter)).toBeGreaterThan(0)
      expect(await dncPhones(w.live, '4155552660')).toEqual([])

      // Another API key with the same Idempotency-Key is not held up.
      const other = await h.api('POST', '/dnc', { key: sameOrgLive, body: { phone: '+14155552661' }, headers: idem(key) })
      expect(other.status).toBe(201)
    } finally {
      h.services.idempotency.abandon(w.live.id, key)
    }
  })

  test('the in-progress answer is not stored: once the first is done, the retry runs', async () => {
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552660' }, headers: idem('running-1') })
    expect(r.status).toBe(201)
    expectFresh(r)
  })
})

describe('campaign actions', () => {
  test('POST /campaigns/{id}/pause twice with the same key: the second is a replay', async () => {
    const path = `/campaigns/${w.campaignId}/pause`
    const first = await h.api('POST', path, { key: w.live, headers: idem('pause-1') })
    expect(first.status).toBe(200)
    expect(first.body.data).toEqual({ id: w.campaignId, status: 'paused', livemode: true })
    expectFresh(first)
    const second = await h.api('POST', path, { key: w.live, headers: idem('pause-1') })
    expectReplayOf(second, first)
  })

  test('POST /campaigns/{id}/activate with an Idempotency-Key replays without acting again', async () => {
    const activatePath = `/campaigns/${w.campaignId}/activate`
    const first = await h.api('POST', activatePath, { key: w.live, headers: idem('activate-1') })
    expect(first.status).toBe(200)
    expect(first.body.data).toEqual({ id: w.campaignId, status: 'active', livemode: true })
    expectFresh(first)

    // Pause it again under a new key, then repeat the activation: it is only replayed.
    const pause = await h.api('POST', `/campaigns/${w.campaignId}/pause`, { key: w.live, headers: idem('pause-2') })
    expect(pause.body.data.status).toBe('paused')
    const again = await h.api('POST', activatePath, { key: w.live, headers: idem('activate-1') })
    expectReplayOf(again, first)
    const now = await h.api('GET', `/campaigns/${w.campaignId}`, { key: w.live })
    expect(now.body.data.status).toBe('paused')
  })

  test('the same key on another campaign is a mismatch', async () => {
    const r = await h.api('POST', `/campaigns/${w.draftCampaignId}/activate`, { key: w.live, headers: idem('activate-1') })
    expectIdempotencyError(r, 'idempotency_mismatch')
  })

  test('a 409 campaign_not_ready from activate is stored and replayed', async () => {
    const path = `/campaigns/${w.draftCampaignId}/activate`
    const first = await h.api('POST', path, { key: w.live, headers: idem('activate-draft') })
    expect(first.status).toBe(409)
    expect(first.body.error.code).toBe('campaign_not_ready')
    const replay = await h.api('POST', path, { key: w.live, headers: idem('activate-draft') })
    expectReplayOf(replay, first)
  })
})

describe('24 hours of memory', () => {
  const PHONE = '+14155552662'
  let first: Reply

  test('just under 24 h later the key still replays', async () => {
    first = await h.api('POST', '/dnc', { key: w.live, body: { phone: PHONE }, headers: idem('day-1') })
    expect(first.status).toBe(201)
    await h.advance(86_000)
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: PHONE }, headers: idem('day-1') })
    expectReplayOf(r, first)
  })

  test('after 24 h (86401 s in all) the same key runs fresh', async () => {
    await h.advance(401)
    const r = await h.api('POST', '/dnc', { key: w.live, body: { phone: PHONE }, headers: idem('day-1') })
    expect(r.status).toBe(409)
    expect(r.body.error.code).toBe('duplicate_dnc_entry')
    expectFresh(r)
  })

  test('after 24 h a different body under the old key is no longer a mismatch', async () => {
    const key = 'day-2'
    const one = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552663' }, headers: idem(key) })
    expect(one.status).toBe(201)
    await h.advance(86_401)
    const two = await h.api('POST', '/dnc', { key: w.live, body: { phone: '+14155552664' }, headers: idem(key) })
    expect(two.status).toBe(201)
    expect(two.body.data.phone).toBe('+14155552664')
    expectFresh(two)
  })
})
