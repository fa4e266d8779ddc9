import { t } from 'elysia'
import { isCalendarDate, parseCalendarDate, utcMidnight } from '../domain/calendar-date'
import { invalid } from '../errors'

/** `limit` query parameter: 1..max. `x-param` names the field when a bound fails. */
export const limitQuery = (max = 100) =>
  t.Optional(t.Integer({ minimum: 1, maximum: max, 'x-param': 'limit', description: `1 to ${max}` }))

export const uuidQuery = (name: string, description?: string) =>
  t.Optional(t.String({ format: 'uuid', 'x-param': name, ...(description ? { description } : {}) }))

export interface ListMeta {
  next_cursor: string | null
  has_more: boolean
}

export const ListMetaSchema = t.Object({ next_cursor: t.Nullable(t.String()), has_more: t.Boolean() })

/** List envelope from `limit + 1` fetched rows: the extra row only says there is more. */
export function listReply<Row extends { id: string }, Out>(
  rows: Row[],
  limit: number,
  present: (row: Row) => Out,
): { data: Out[]; meta: ListMeta } {
  const hasMore = rows.length > limit
  const page = hasMore ? rows.slice(0, limit) : rows
  return {
    data: page.map(present),
    meta: { next_cursor: hasMore ? page[page.length - 1]!.id : null, has_more: hasMore },
  }
}

/** `created[gte]`/`created[lte]`: ISO 8601, unix seconds, or a plain date (midnight UTC). */
export function parseTimeBound(value: string | undefined, param: string): number | undefined {
  if (value === undefined) return undefined
  const v = value.trim()
  let ms: number
  if (/^\d{1,12}$/.test(v)) ms = Number(v) * 1000
  else if (/^\d{4}-\d{2}-\d{2}$/.test(v)) {
    const date = parseCalendarDate(v)
    ms = date ? utcMidnight(date) : Number.NaN
  }
  // A date-time with no offset is read as UTC, not as the server's zone. Date.parse would roll
  // a day that does not exist (2026-02-30) over to March: its date is checked first.
  else if (/^\d{4}-\d{2}-\d{2}T/.test(v) && isCalendarDate(v.slice(0, 10))) ms = Date.parse(/(Z|[+-]\d{2}:?\d{2})$/i.test(v) ? v : `${v}Z`)
  else ms = Number.NaN
  if (Number.isNaN(ms)) {
    throw invalid(`${param} must be an ISO 8601 date-time, unix seconds or a date (YYYY-MM-DD).`, param)
  }
  return ms
}
