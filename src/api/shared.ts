import { t, type TSchema } from 'elysia'
import { errorCatalogue, type ErrorCode } from '../errors'
import { ListMetaSchema } from '../http/paging'

/** `{ data: object }`, the single-object reply. */
export const dataOf = <T extends TSchema>(schema: T) => t.Object({ data: schema })

/** `{ data: [object], meta }`, the list envelope. */
export const listOf = <T extends TSchema>(schema: T) => t.Object({ data: t.Array(schema), meta: ListMetaSchema })

// One definition with the domain's reply shapes (src/domain/shapes.ts).
export { DateTime, Uuid } from '../domain/shapes'

/** Body objects refuse fields they do not know (400 invalid_request naming the field). */
export const strict = { additionalProperties: false } as const

/** Actions that take no body: none, or an empty object; any field is 400 naming it. */
export const NoBody = t.Optional(t.Object({}, strict))

/** Path parameter that is an object's uuid; anything else is 404 not_found. */
export const idParams = t.Object({ id: t.String({ format: 'uuid' }) })

const errorCodes = Object.keys(errorCatalogue) as ErrorCode[]
const errorTypes = [...new Set(Object.values(errorCatalogue).map((entry) => entry.type))]

/** The error envelope (spec "Errors"); `code` and `type` are the catalogue's (src/errors.ts). */
export const ErrorEnvelope = t.Object(
  {
    error: t.Object({
      type: t.Union(errorTypes.map((type) => t.Literal(type))),
      code: t.Union(errorCodes.map((code) => t.Literal(code)), { description: 'stable; branch on it, never on the message' }),
      message: t.String({ description: 'for people; may change; phone numbers and emails in it are masked' }),
      param: t.Nullable(t.String({ description: 'the field the error is about' })),
      request_id: t.Nullable(t.String({ description: 'same as the Request-Id header' })),
      reason: t.Optional(t.String({ description: 'the specific cause when the code is broader' })),
      lead_id: t.Optional(t.Nullable(t.String({ description: 'duplicate_lead only: the existing lead' }))),
      missing_permission: t.Optional(t.String({ description: 'permission_denied only' })),
      campaign_id: t.Optional(t.Nullable(t.String({ description: 'permission_denied only: the campaign outside the key\u2019s scope' }))),
      candidates: t.Optional(t.Array(t.Object({ id: t.String(), campaign_id: t.String() }), { description: 'ambiguous_external_id only' })),
    }),
  },
)

/** `limit` of a list: 1 to `max`, `byDefault` when not sent (spec "Limits", page sizes). */
export const pageLimit = (byDefault: number, max = 100) =>
  t.Optional(t.Integer({ minimum: 1, maximum: max, default: byDefault, 'x-param': 'limit', description: `1 to ${max}; default ${byDefault}` }))

/** Reply headers an operation may add beyond those every reply carries (see scripts/openapi/headers.ts). */
export type ReplyHeader = 'Deprecation' | 'Sunset'

export interface OperationDocs {
  /** Codes of the catalogue this operation answers beyond the ones every operation can (spec "Errors", Sent by). */
  errors?: ErrorCode[]
  /** Headers some of its replies carry beyond Request-Id and RateLimit-*. */
  replyHeaders?: ReplyHeader[]
}

/**
 * OpenAPI `detail` for an external operation: summary, tag and the permission it needs, and
 * (read by scripts/generate-openapi.ts, which turns them into responses and headers) the
 * error codes and extra reply headers it documents.
 */
export function operation(tag: string, summary: string, permission: string | null, description = '', docs: OperationDocs = {}) {
  return {
    tags: [tag],
    summary,
    description: [description, permission ? `Needs the \`${permission}\` permission.` : ''].filter(Boolean).join('\n\n'),
    ...(docs.errors?.length ? { 'x-errors': docs.errors } : {}),
    ...(docs.replyHeaders?.length ? { 'x-reply-headers': docs.replyHeaders } : {}),
  }
}
