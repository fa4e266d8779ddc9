import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ApiError, errorBody, errorCatalogue, invalid, maskSensitive, notFound, type ErrorCode } from '../../src/errors'
import { bodyError, paramFromPointer, toApiError } from '../../src/http/errors'
import { Type } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Copied by hand from spec "Errors" > Codes (code, HTTP, type), plus DESIGN.md's campaign_not_ready and the admin API's registry_shrink.
const SPEC_CODES: [string, number, string][] = [
  ['invalid_request', 400, 'invalid_request_error'],
  ['invalid_phone', 400, 'invalid_request_error'],
  ['on_dnc_list', 422, 'invalid_request_error'],
  ['outside_calling_hours', 422, 'invalid_request_error'],
  ['duplicate_lead', 409, 'invalid_request_error'],
  ['number_retired', 422, 'invalid_request_error'],
  ['consent_required', 422, 'invalid_request_error'],
  ['campaign_closed', 409, 'invalid_request_error'],
  ['queue_full', 429, 'rate_limit_error'],
  ['test_flows_busy', 429, 'rate_limit_error'],
  ['phone_cannot_change', 422, 'invalid_request_error'],
  ['ambiguous_external_id', 409, 'invalid_request_error'],
  ['duplicate_dnc_entry', 409, 'invalid_request_error'],
  ['not_found', 404, 'invalid_request_error'],
  ['authentication_failed', 401, 'authentication_error'],
  ['permission_denied', 403, 'permission_error'],
  ['rate_limited', 429, 'rate_limit_error'],
  ['too_many_concurrent_requests', 429, 'rate_limit_error'],
  ['lead_rate_limited', 429, 'rate_limit_error'],
  ['idempotency_mismatch', 409, 'idempotency_error'],
  ['idempotency_in_progress', 409, 'idempotency_error'],
  ['limit_reached', 403, 'invalid_request_error'],
  ['endpoint_paused', 409, 'invalid_request_error'],
  ['service_unavailable', 503, 'api_error'],
  ['internal_error', 500, 'api_error'],
  ['lead_busy', 409, 'invalid_request_error'],
  ['lead_taken_out_of_queue', 409, 'invalid_request_error'],
  ['call_limit_reached', 429, 'rate_limit_error'],
  ['number_not_allowed', 422, 'invalid_request_error'],
  ['recording_not_available', 404, 'invalid_request_error'],
  ['campaign_not_ready', 409, 'invalid_request_error'],
  // Admin API only: a national registry import that would shrink a large list by more than half.
  ['registry_shrink', 409, 'invalid_request_error'],
  // Admin API only: an organization's carrier account changed while its carrier calls are up.
  ['calls_in_progress', 409, 'invalid_request_error'],
  // A body over a route's own cap (Twilio callbacks, lead CSV imports); the API's 1 MB stays 400.
  ['payload_too_large', 413, 'invalid_request_error'],
  // Admin API and console: a lead CSV import while another of the organization's runs.
  ['import_in_progress', 409, 'invalid_request_error'],
]

describe('errorCatalogue', () => {
  test.each(SPEC_CODES)('%s is %i %s', (code, status, type) => {
    const entry: { status: number; type: string } = errorCatalogue[code as ErrorCode]
    expect(entry).toEqual({ status, type })
    const error = new ApiError(code as ErrorCode, 'x')
    expect(error.status).toBe(status)
    expect(error.type).toBe(type)
  })

  test('has no codes beyond the spec, DESIGN.md and the admin API', () => {
    expect(Object.keys(errorCatalogue).sort()).toEqual(SPEC_CODES.map(([code]) => code).sort())
  })
})

describe('ApiError and helpers', () => {
  test('defaults: param null, no retryAfter, no extras', () => {
    const error = new ApiError('rate_limited', 'slow down')
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('ApiError')
    expect(error.param).toBeNull()
    expect(error.retryAfter).toBeUndefined()
    expect(error.extras).toEqual({})
  })

  test('invalid() carries param and reason', () => {
    const error = invalid('bad url', 'url', 'private_address')
    expect(error.code).toBe('invalid_request')
    expect(error.param).toBe('url')
    expect(error.extras).toEqual({ reason: 'private_address' })
    expect(invalid('bad').extras).toEqual({})
  })

  test('notFound() is 404 not_found', () => {
    const error = notFound()
    expect(error.code).toBe('not_found')
    expect(error.status).toBe(404)
    expect(error.param).toBeNull()
  })
})

describe('errorBody', () => {
  test('envelope fields, extras spread in, phones and emails masked', () => {
    const error = new ApiError('duplicate_lead', 'Lead with phone +14155552671 exists (owner bo@example.org)', {
      param: 'phone',
      extras: { lead_id: '01936f6e-8f3a-7c1b-9a2b-3c4d5e6f7a8b' },
    })
    expect(errorBody(error, 'req_123')).toEqual({
      type: 'invalid_request_error',
      code: 'duplicate_lead',
      message: 'Lead with phone +*********71 exists (owner b***@example.org)',
      param: 'phone',
      request_id: 'req_123',
      lead_id: '01936f6e-8f3a-7c1b-9a2b-3c4d5e6f7a8b',
    })
  })

  test('request_id may be null; permission_denied extras', () => {
    const error = new ApiError('permission_denied', 'Key lacks calls:read', {
      extras: { missing_permission: 'calls:read', campaign_id: null },
    })
    expect(errorBody(error, null)).toEqual({
      type: 'permission_error',
      code: 'permission_denied',
      message: 'Key lacks calls:read',
      param: null,
      request_id: null,
      missing_permission: 'calls:read',
      campaign_id: null,
    })
  })
})

describe('maskSensitive', () => {
  test.each([
    ['Lead +14155552671 is on the list', 'Lead +*********71 is on the list'],
    ['Call (415) 555-2671 now', 'Call (***) ***-**71 now'],
    ['415-555-2671', '***-***-**71'],
    ['phone: 4155552671.', 'phone: ********71.'],
    ['+44 20 7946 0958', '+** ** **** **58'],
    ['email ann.smith@example.com please', 'email a***@example.com please'],
    ['a@b.co and +14155552671', 'a***@b.co and +*********71'],
  ])('masks %p', (input, expected) => {
    expect(maskSensitive(input)).toBe(expected)
  })

  test.each([
    'lead 01936f6e-8f3a-7c1b-9a2b-3c4d5e6f7a8b not found',
    'limit must be at most 100',
    'batch over 60 leads, 5000 waiting',
    'order 123456',
    'created[gte] must be an ISO 8601 date-time',
    'at 2026-01-05T15:00:00Z',
    'key dk_live_0123456789abcdef not found',
    'No such object',
  ])('leaves %p alone', (input) => {
    expect(maskSensitive(input)).toBe(input)
  })

  // Regression test (found while writing the suite; fixed in src).
  test('leaves a uuid made only of decimal digits alone', () => {
    const text = 'lead 01936123-4567-7890-8123-456789012345 not found'
    expect(maskSensitive(text)).toBe(text)
  })
})

describe('paramFromPointer', () => {
  test.each<[string, string | null]>([
    ['/leads/3/phone', 'leads[3].phone'],
    ['/a/b', 'a.b'],
    ['/phone', 'phone'],
    ['/consent/agreed_at', 'consent.agreed_at'],
    ['/events/0', 'events[0]'],
    ['/0', '[0]'],
    ['', null],
    ['/', null],
    // RFC 6901 escapes: ~1 is "/", ~0 is "~", and "~01" is the literal "~1".
    ['/a~1b', 'a/b'],
    ['/a~0b', 'a~b'],
    ['/a~01', 'a~1'],
  ])('%p -> %p', (pointer, expected) => {
    expect(paramFromPointer(pointer)).toBe(expected)
  })
})

describe('toApiError', () => {
  test('an ApiError passes through unchanged', () => {
    const original = new ApiError('on_dnc_list', 'on the list', { param: 'phone' })
    expect(toApiError('UNKNOWN', original)).toBe(original)
  })

  test("'NOT_FOUND' -> 404 not_found", () => {
    const error = toApiError('NOT_FOUND', new Error('NOT_FOUND'))
    expect(error.code).toBe('not_found')
    expect(error.status).toBe(404)
  })

  test("'PARSE' -> 400 invalid_request", () => {
    const error = toApiError('PARSE', new Error('Unexpected token } in JSON at position 7'))
    expect(error.code).toBe('invalid_request')
    expect(error.status).toBe(400)
    expect(error.message).not.toContain('position 7')
  })

  test.each<[string | number, unknown]>([
    ['UNKNOWN', new Error('db at /var/lib/dialer/secret.db exploded: dk_live_abc')],
    [500, new TypeError('Cannot read properties of undefined (reading dk_live_abc)')],
    ['UNKNOWN', 'a thrown string dk_live_abc'],
  ])('%p: unknown failure -> 500 internal_error with a generic message', (code, thrown) => {
    const error = toApiError(code, thrown)
    expect(error.code).toBe('internal_error')
    expect(error.status).toBe(500)
    expect(error.type).toBe('api_error')
    expect(error.message).not.toContain('dk_live_abc')
    expect(error.message).not.toContain('exploded')
    expect(error.param).toBeNull()
  })

  test('SQLITE_BUSY -> 503 service_unavailable with Retry-After', () => {
    const error = toApiError('UNKNOWN', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' }))
    expect(error.code).toBe('service_unavailable')
    expect(error.status).toBe(503)
    expect(error.retryAfter).toBe(1)
  })
})

describe('bodyError inside a nullable object', () => {
  // A nullable object (a campaign's ai_agent) names the field inside it, not the union; a union
  // of several objects (a disclosure: say or audio_url) is still named as a whole.
  const schema = Type.Object({
    agent: Type.Union([Type.Null(), Type.Object({
      url: Type.String({ minLength: 1 }),
      first_audio_ms: Type.Optional(Type.Integer({ minimum: 500 })),
      disclosure: Type.Union([Type.Object({ say: Type.String() }, { additionalProperties: false }), Type.Object({ audio_url: Type.String() }, { additionalProperties: false })]),
    }, { additionalProperties: false })]),
  })
  const checker = TypeCompiler.Compile(schema)
  const paramOf = (value: unknown) => bodyError(checker.Errors(value).First() as never).param
  const ok = { url: 'wss://a.example.com', disclosure: { say: 'hi' } }
  test.each<[string, unknown, string]>([
    ['a number out of range', { agent: { ...ok, first_audio_ms: 100 } }, 'agent.first_audio_ms'],
    ['a missing field', { agent: { disclosure: ok.disclosure } }, 'agent.url'],
    ['an unknown field', { agent: { ...ok, model: 'x' } }, 'agent.model'],
    ['a bad member of an inner union of objects', { agent: { ...ok, disclosure: { say: 1 } } }, 'agent.disclosure'],
    ['not an object at all', { agent: 'wss://a.example.com' }, 'agent'],
  ])('%s', (_, value, param) => expect(paramOf(value)).toBe(param))
})
