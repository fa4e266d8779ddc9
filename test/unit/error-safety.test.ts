import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { errorBody, invalid, maskSensitive } from '../../src/errors'
import { toApiError } from '../../src/http/errors'
import { IdempotencyGuard, replayBody } from '../../src/http/idempotency'
import type { IdempotencyRow } from '../../src/db/stores/idempotency-store'
import { FakeClock } from '../../src/jobs/clock'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

describe('errorBody masks param like message', () => {
  test('a phone number or an email used as a key is masked in param', () => {
    expect(errorBody(invalid('x', 'fields[4155552671]'), null).param).toBe('fields[********71]')
    expect(errorBody(invalid('x', 'fields.ann@example.com'), null).param).toBe(maskSensitive('fields.ann@example.com'))
    expect(errorBody(invalid('x', 'fields.ann@example.com'), null).param).not.toContain('ann@')
  })

  test('ordinary params and ids stay as they are', () => {
    expect(errorBody(invalid('x', 'leads[3].phone'), null).param).toBe('leads[3].phone')
    expect(errorBody(invalid('x', 'consent.agreed_at'), null).param).toBe('consent.agreed_at')
    expect(errorBody(invalid('x', null), null).param).toBeNull()
  })
})

describe('toApiError on a validation error', () => {
  /** Elysia's ValidationError: `all` and `message` re-walk or print the whole value. */
  function validationError(first: { path: string; message: string; type?: number }) {
    return {
      type: 'body',
      valueError: first,
      get all(): never {
        throw new Error('all was read: it re-validates and maps the whole value')
      },
      get message(): never {
        throw new Error('message was read: it pretty-prints the whole value')
      },
    }
  }

  test('builds the envelope from the first error only', () => {
    const error = toApiError('VALIDATION', validationError({ path: '/phone', message: 'Expected string', type: 54 }))
    expect(error.code).toBe('invalid_request')
    expect(error.param).toBe('phone')
    expect(error.message).toBe('phone: expected string.')
  })
})

describe('replays name their own request', () => {
  function memoryStore() {
    const rows = new Map<string, IdempotencyRow>()
    return {
      get: (keyId: string, key: string) => rows.get(`${keyId}\n${key}`),
      put: (row: IdempotencyRow) => void rows.set(`${row.keyId}\n${row.idempotencyKey}`, row),
      purgeBefore: () => 0,
    }
  }

  test('the first request id comes back with the replay', () => {
    const guard = new IdempotencyGuard(memoryStore(), new FakeClock(0))
    guard.begin('dk_live_1', 'k1', 'fp')
    guard.finish('dk_live_1', 'k1', 'fp', 201, '{"data":{"id":"a"}}', 'req_first')
    expect(guard.begin('dk_live_1', 'k1', 'fp')).toEqual({ kind: 'replay', status: 201, body: '{"data":{"id":"a"}}', requestId: 'req_first' })
  })

  test('replayBody puts the replay request id into an error envelope, and leaves other bodies alone', () => {
    const stored = JSON.stringify({ error: { type: 't', code: 'c', message: 'm', param: null, request_id: 'req_first' } })
    expect(JSON.parse(replayBody(stored, 'req_again')).error.request_id).toBe('req_again')
    expect(replayBody('{"data":{"id":"a"}}', 'req_again')).toBe('{"data":{"id":"a"}}')
  })
})
