/**
 * Headers and error replies of the OpenAPI document, from the error catalogue (src/errors.ts)
 * and the codes each route lists in its `detail` (operation() in src/api/shared.ts).
 */
import { ErrorEnvelope, type ReplyHeader } from '../../src/api/shared'
import { errorCatalogue, type ErrorCode } from '../../src/errors'
import { fromTypeBox, type Json } from './schema'

const ref = (kind: string, name: string) => ({ $ref: `#/components/${kind}/${name}` })

/** Reply headers (spec "Endpoints", conventions; "Limits"; "Versioning"). */
export const headerComponents: Record<string, Json> & Record<ReplyHeader, Json> = {
  'Request-Id': { description: 'The request\u2019s id (req_...), the same as `error.request_id`.', required: true, schema: { type: 'string', pattern: '^req_' } },
  'RateLimit-Limit': { description: 'Requests a minute: the tighter of the key\u2019s and the plan\u2019s limit.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Remaining': { description: 'Requests left this minute.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Reset': { description: 'Seconds until the minute restarts.', schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { description: 'Seconds to wait before retrying (the same request, with the same Idempotency-Key for a write).', schema: { type: 'integer', minimum: 0 } },
  'Idempotent-Replayed': { description: 'On a replay: `true` when this is the stored answer to an earlier request with the same Idempotency-Key.', schema: { type: 'string', enum: ['true'] } },
  'Original-Request': { description: 'On a replay: the Request-Id of the request whose answer this is.', schema: { type: 'string', pattern: '^req_' } },
  Deprecation: { description: 'On the deprecated list shape only (`offset`, `status`, or `limit` over 100): `true`.', schema: { type: 'string', enum: ['true'] } },
  Sunset: { description: 'On the deprecated list shape only: when it stops (an HTTP date, RFC 8594).', schema: { type: 'string' } },
}

const EVERY_REPLY = ['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']
const ON_REPLAY = ['Idempotent-Replayed', 'Original-Request']

/** The headers of one reply. */
export function replyHeaders(options: { write: boolean; retryAfter?: boolean; extra?: string[] }): Json {
  const names = [...EVERY_REPLY, ...(options.retryAfter ? ['Retry-After'] : []), ...(options.write ? ON_REPLAY : []), ...(options.extra ?? [])]
  return Object.fromEntries(names.map((name) => [name, ref('headers', name)]))
}

/** The request header every POST and PATCH accepts (spec "Endpoints", conventions). */
export const idempotencyKeyParameter: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'New per new action. The same key again within 24 hours returns the first answer (header `Idempotent-Replayed: true`) instead of repeating the action; ' +
    'with a different request it is 409 idempotency_mismatch, while the first is still running 409 idempotency_in_progress.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
}

/** Codes every external operation can answer (spec "Errors": Sent by "any"). */
const COMMON: ErrorCode[] = ['invalid_request', 'authentication_failed', 'permission_denied', 'not_found', 'rate_limited', 'too_many_concurrent_requests', 'internal_error', 'service_unavailable']
/** And every write (spec: "any write"). */
const WRITES: ErrorCode[] = ['idempotency_mismatch', 'idempotency_in_progress']
/** Codes whose replies carry Retry-After (spec "Limits": every 429 and 503; idempotency_in_progress). */
const RETRY_AFTER = (code: ErrorCode) => [429, 503].includes(errorCatalogue[code].status) || code === 'idempotency_in_progress'

const catalogueOrder = Object.keys(errorCatalogue) as ErrorCode[]
const pascal = (code: string) => code.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase())

/** The error replies an operation documents, by HTTP status, as references into components.responses. */
export class ErrorReplies {
  readonly responses: Record<string, Json> = {}

  /** `Error` in components.schemas: the envelope with every code of the catalogue. */
  readonly envelope: Json = fromTypeBox(ErrorEnvelope)

  forOperation(write: boolean, listed: ErrorCode[] = []): Record<string, Json> {
    const unknown = listed.filter((code) => !(code in errorCatalogue))
    if (unknown.length) throw new Error(`unknown error codes in a route's detail: ${unknown.join(', ')}`)
    const codes = new Set<ErrorCode>([...COMMON, ...(write ? WRITES : []), ...listed])
    const byStatus = new Map<number, ErrorCode[]>()
    for (const code of catalogueOrder) {
      if (!codes.has(code)) continue
      const status = errorCatalogue[code].status
      byStatus.set(status, [...(byStatus.get(status) ?? []), code])
    }
    const out: Record<string, Json> = {}
    for (const [status, list] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
      out[String(status)] = ref('responses', this.component(status, list, write))
    }
    return out
  }

  /** One reply per status and set of codes (and write or not, for the replay headers), shared by every operation that has it. */
  private component(status: number, codes: ErrorCode[], write: boolean): string {
    const name = `Error${status}_${codes.map(pascal).join('_')}${write ? '_Write' : ''}`
    if (this.responses[name]) return name
    const types = [...new Set(codes.map((code) => errorCatalogue[code].type))]
    this.responses[name] = {
      description: codes.map((code) => `\`${code}\``).join(', '),
      headers: replyHeaders({ write, retryAfter: codes.some(RETRY_AFTER) }),
      content: {
        'application/json': {
          schema: {
            allOf: [
              ref('schemas', 'Error'),
              {
                type: 'object',
                properties: {
                  error: {
                    type: 'object',
                    properties: { type: { type: 'string', enum: types }, code: { type: 'string', enum: codes } },
                  },
                },
              },
            ],
          },
        },
      },
    }
    return name
  }
}
