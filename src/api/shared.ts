import { t, type TSchema } from 'elysia'
import { ListMetaSchema } from '../http/paging'

/** `{ data: object }`, the single-object reply. */
export const dataOf = <T extends TSchema>(schema: T) => t.Object({ data: schema })

/** `{ data: [object], meta }`, the list envelope. */
export const listOf = <T extends TSchema>(schema: T) => t.Object({ data: t.Array(schema), meta: ListMetaSchema })

export const DateTime = t.String({ format: 'date-time' })
export const Uuid = t.String({ format: 'uuid' })

/** Body objects refuse fields they do not know (400 invalid_request naming the field). */
export const strict = { additionalProperties: false } as const

/** Actions that take no body: none, or an empty object; any field is 400 naming it. */
export const NoBody = t.Optional(t.Object({}, strict))

/** Path parameter that is an object's uuid; anything else is 404 not_found. */
export const idParams = t.Object({ id: t.String({ format: 'uuid' }) })

export const ErrorEnvelope = t.Object(
  {
    error: t.Object({
      type: t.String(),
      code: t.String(),
      message: t.String(),
      param: t.Nullable(t.String()),
      request_id: t.Nullable(t.String()),
      reason: t.Optional(t.String()),
      lead_id: t.Optional(t.Nullable(t.String())),
      missing_permission: t.Optional(t.String()),
      campaign_id: t.Optional(t.Nullable(t.String())),
      candidates: t.Optional(t.Array(t.Object({ id: t.String(), campaign_id: t.String() }))),
    }),
  },
)

/** OpenAPI `detail` for an external operation: summary, tag and the permission it needs. */
export function operation(tag: string, summary: string, permission: string | null, description = '') {
  return {
    tags: [tag],
    summary,
    description: [description, permission ? `Needs the \`${permission}\` permission.` : ''].filter(Boolean).join('\n\n'),
  }
}
