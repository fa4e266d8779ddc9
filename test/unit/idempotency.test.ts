import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { migrate, openDatabase, type DatabaseHandle } from '../../src/db/client'
import { idempotencyStore, type IdempotencyStore } from '../../src/db/stores/idempotency-store'
import { ApiError } from '../../src/errors'
import {
  IDEMPOTENCY_MEMORY_MS,
  IdempotencyGuard,
  canonicalJson,
  fingerprintOf,
  readIdempotencyKey,
} from '../../src/http/idempotency'
import { FakeClock } from '../../src/jobs/clock'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const HOUR = 3_600_000

function thrownBy(run: () => unknown): ApiError {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError)
    return error as ApiError
  }
  throw new Error('expected an ApiError, nothing was thrown')
}

describe('canonicalJson', () => {
  test('key order does not matter, nested too', () => {
    const a = { b: 1, a: { y: [1, { q: 1, p: 2 }], x: 'x' } }
    const b = { a: { x: 'x', y: [1, { p: 2, q: 1 }] }, b: 1 }
    expect(canonicalJson(a)).toBe(canonicalJson(b))
    expect(canonicalJson(a)).toBe('{"a":{"x":"x","y":[1,{"p":2,"q":1}]},"b":1}')
  })

  test('array order matters; values matter', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]))
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }))
  })

  test('undefined fields are dropped, as JSON.stringify would', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}')
  })

  test.each<[unknown, string]>([
    [null, 'null'],
    [undefined, 'null'],
    ['s', '"s"'],
    [3, '3'],
    [true, 'true'],
    [[], '[]'],
    [{}, '{}'],
  ])('scalar %p -> %s', (value, expected) => {
    expect(canonicalJson(value)).toBe(expected)
  })
})

describe('fingerprintOf', () => {
  const base = fingerprintOf('POST', '/api/v1/external/leads', { phone: '+14155552671', name: 'Ann' })

  test('same request with keys reordered: same fingerprint', () => {
    expect(fingerprintOf('POST', '/api/v1/external/leads', { name: 'Ann', phone: '+14155552671' })).toBe(base)
    expect(base).toMatch(/^[0-9a-f]{64}$/)
  })

  test.each<[string, string, unknown]>([
    ['PATCH', '/api/v1/external/leads', { phone: '+14155552671', name: 'Ann' }],
    ['POST', '/api/v1/external/dnc', { phone: '+14155552671', name: 'Ann' }],
    ['POST', '/api/v1/external/leads?x=1', { phone: '+14155552671', name: 'Ann' }],
    ['POST', '/api/v1/external/leads', { phone: '+14155552671', name: 'Bo' }],
    ['POST', '/api/v1/external/leads', null],
  ])('differs for %s %s %o', (method, path, body) => {
    expect(fingerprintOf(method, path, body)).not.toBe(base)
  })

  test('no body and a null body are the same request', () => {
    expect(fingerprintOf('POST', '/x', undefined)).toBe(fingerprintOf('POST', '/x', null))
  })
})

describe('readIdempotencyKey', () => {
  test.each([
    'a',
    'order-123_retry:1',
    '!~',
    'x'.repeat(255),
    String.fromCharCode(...Array.from({ length: 94 }, (_, i) => 0x21 + i)),
  ])('accepts %p', (key) => {
    expect(readIdempotencyKey(key)).toBe(key)
  })

  test('no header: null', () => {
    expect(readIdempotencyKey(null)).toBeNull()
  })

  test.each([
    ['empty', ''],
    ['256 chars', 'x'.repeat(256)],
    ['a space inside', 'order 123'],
    ['a leading space', ' abc'],
    ['a tab', 'a\tb'],
    ['DEL (0x7F)', 'abc\x7f'],
    ['non-ASCII', 'clé-1'],
    ['emoji', 'key-🙂'],
  ])('refuses %s', (_, key) => {
    const error = thrownBy(() => readIdempotencyKey(key))
    expect(error.code).toBe('invalid_request')
    expect(error.param).toBe('Idempotency-Key')
  })
})

describe('IdempotencyGuard', () => {
  let database: DatabaseHandle
  let store: IdempotencyStore
  let clock: FakeClock
  let guard: IdempotencyGuard
  const fp = fingerprintOf('POST', '/api/v1/external/leads', { phone: '+14155552671' })
  const other = fingerprintOf('POST', '/api/v1/external/leads', { phone: '+14155552672' })

  beforeEach(() => {
    database = openDatabase(':memory:')
    migrate(database)
    store = idempotencyStore(database.db)
    clock = new FakeClock()
    guard = new IdempotencyGuard(store, clock)
  })

  afterEach(() => database.close())

  test('a new key proceeds', () => {
    expect(guard.begin('dk_live_1', 'k1', fp)).toEqual({ kind: 'proceed' })
  })

  test('after finish the same request is replayed', () => {
    guard.begin('dk_live_1', 'k1', fp)
    guard.finish('dk_live_1', 'k1', fp, 201, '{"data":{"id":"a"}}')
    expect(guard.begin('dk_live_1', 'k1', fp)).toEqual({ kind: 'replay', status: 201, body: '{"data":{"id":"a"}}' })
  })

  test('a stored 4xx (not 429) is replayed too', () => {
    guard.begin('dk_live_1', 'k1', fp)
    guard.finish('dk_live_1', 'k1', fp, 409, '{"error":{"code":"duplicate_lead"}}')
    expect(guard.begin('dk_live_1', 'k1', fp)).toEqual({ kind: 'replay', status: 409, body: '{"error":{"code":"duplicate_lead"}}' })
  })

  test('the same key with a different request is idempotency_mismatch', () => {
    guard.begin('dk_live_1', 'k1', fp)
    guard.finish('dk_live_1', 'k1', fp, 201, '{}')
    const error = thrownBy(() => guard.begin('dk_live_1', 'k1', other))
    expect(error.code).toBe('idempotency_mismatch')
    expect(error.status).toBe(409)
    expect(error.param).toBe('Idempotency-Key')
  })

  test('while the first request runs, a second is idempotency_in_progress with Retry-After', () => {
    guard.begin('dk_live_1', 'k1', fp)
    const error = thrownBy(() => guard.begin('dk_live_1', 'k1', fp))
    expect(error.code).toBe('idempotency_in_progress')
    expect(error.retryAfter).toBeGreaterThanOrEqual(1)
    // Even a different body: the running request decides first.
    expect(thrownBy(() => guard.begin('dk_live_1', 'k1', other)).code).toBe('idempotency_in_progress')
  })

  test('keys are per API key', () => {
    guard.begin('dk_live_1', 'k1', fp)
    guard.finish('dk_live_1', 'k1', fp, 201, '{}')
    expect(guard.begin('dk_live_2', 'k1', other)).toEqual({ kind: 'proceed' })
  })

  test('abandon frees the slot without storing', () => {
    guard.begin('dk_live_1', 'k1', fp)
    guard.abandon('dk_live_1', 'k1')
    expect(guard.begin('dk_live_1', 'k1', other)).toEqual({ kind: 'proceed' })
    expect(store.get('dk_live_1', 'k1')).toBeUndefined()
  })

  test.each([429, 500, 503])('a %i reply is not stored: the retry runs again', (status) => {
    guard.begin('dk_live_1', 'k1', fp)
    guard.finish('dk_live_1', 'k1', fp, status, '{"error":{}}')
    expect(store.get('dk_live_1', 'k1')).toBeUndefined()
    expect(guard.begin('dk_live_1', 'k1', fp)).toEqual({ kind: 'proceed' })
  })

  test('a record is remembered just under 24 h, ignored after', () => {
    guard.begin('dk_live_1', 'k1', fp)
    guard.finish('dk_live_1', 'k1', fp, 200, '{"a":1}')
    clock.set(clock.now() + IDEMPOTENCY_MEMORY_MS - 1)
    expect(guard.begin('dk_live_1', 'k1', fp).kind).toBe('replay')
    clock.set(clock.now() + 1)
    // 24 h on: a different request with the same key is new, not a mismatch.
    expect(guard.begin('dk_live_1', 'k1', other)).toEqual({ kind: 'proceed' })
    guard.finish('dk_live_1', 'k1', other, 201, '{"b":2}')
    expect(guard.begin('dk_live_1', 'k1', other)).toEqual({ kind: 'replay', status: 201, body: '{"b":2}' })
  })

  test('purgeExpired removes only records older than 24 h', () => {
    const start = clock.now()
    guard.begin('dk_live_1', 'old', fp)
    guard.finish('dk_live_1', 'old', fp, 200, '{}')
    clock.set(start + 10 * HOUR)
    guard.begin('dk_live_1', 'newer', fp)
    guard.finish('dk_live_1', 'newer', fp, 200, '{}')

    clock.set(start + 24 * HOUR + 1)
    expect(guard.purgeExpired()).toBe(1)
    expect(store.get('dk_live_1', 'old')).toBeUndefined()
    expect(store.get('dk_live_1', 'newer')).toBeDefined()
    expect(guard.purgeExpired()).toBe(0)

    clock.set(start + 34 * HOUR + 1)
    expect(guard.purgeExpired()).toBe(1)
    expect(store.get('dk_live_1', 'newer')).toBeUndefined()
  })
})
