import { Elysia, t } from 'elysia'
import { requireConsolePermission } from '../domain/console/console-access'
import { invalid } from '../errors'
import { listReply } from '../http/paging'
import { markRoute } from '../http/pipeline'
import { iso } from '../jobs/clock'
import type { DncEntryRow } from '../db/stores/dnc-store'
import type { Services } from '../services'
import { principalOf } from './context'

const hide = { hide: true }
const orgParams = t.Object({ org: t.String({ format: 'uuid' }) })
/** A pasted list: one number a line (or comma-separated), at most this many at once. */
const MAX_PASTED = 1000

const entry = (row: DncEntryRow) => ({ id: row.id, phone: row.phone, source: row.source, created: iso(row.created) })

/**
 * Do Not Call in the console (issue 19): check a number, add one or a pasted list, search,
 * remove. The organization's live list, with the same checks as the external API; SDRs read,
 * owners change it.
 */
export const consoleDncRoutes = (s: Services) => {
  const principal = principalOf(s)
  const scope = (request: Request, org: string, permission: 'dnc:read' | 'dnc:write') => {
    const who = principal(request, org)
    requireConsolePermission(who, permission)
    return { orgId: who.orgId, livemode: true }
  }
  return new Elysia()
    .onTransform(markRoute)
    .get('/orgs/:org/dnc', ({ request, params, query }) => {
      const limit = query.limit ?? 50
      const rows = s.dnc.list(scope(request, params.org, 'dnc:read'), limit + 1, { startingAfter: query.starting_after || undefined, search: query.search || undefined })
      return listReply(rows, limit, entry)
    }, {
      params: orgParams,
      query: t.Object({ search: t.Optional(t.String({ maxLength: 32 })), starting_after: t.Optional(t.String({ maxLength: 64 })), limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })) }),
      detail: hide,
    })
    .get('/orgs/:org/dnc/check', ({ request, params, query }) => ({ data: s.dnc.check(scope(request, params.org, 'dnc:read'), query.phone) }), {
      params: orgParams, query: t.Object({ phone: t.String({ minLength: 1, maxLength: 32 }) }), detail: hide,
    })
    .post('/orgs/:org/dnc', ({ request, params, body }) => {
      const where = scope(request, params.org, 'dnc:write')
      const phones = body.phones.split(/[\n,;]+/).map((p) => p.trim()).filter((p) => p !== '')
      if (phones.length === 0) throw invalid('Give at least one phone number.', 'phones')
      if (phones.length > MAX_PASTED) throw invalid(`At most ${MAX_PASTED} numbers at once; this list has ${phones.length}.`, 'phones')
      if (phones.some((p) => p.length > 32)) throw invalid('A line is too long to be a phone number (32 characters at most).', 'phones')
      return { data: s.dnc.addBatch(where, phones) }
    }, { params: orgParams, body: t.Object({ phones: t.String({ minLength: 1, maxLength: 40_000 }) }, { additionalProperties: false }), detail: hide })
    .delete('/orgs/:org/dnc/:id', ({ request, params }) => ({ data: entry(s.dnc.remove(scope(request, params.org, 'dnc:write'), params.id)) }), {
      params: t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) }), detail: hide,
    })
}
