import { Elysia, t } from 'elysia'
import { invalid } from '../errors'
import { listReply } from '../http/paging'
import { markRoute } from '../http/pipeline'
import { iso } from '../jobs/clock'
import type { DncEntryRow } from '../db/stores/dnc-store'
import type { Principal } from '../domain/access/permissions'
import type { Services } from '../services'
import { consoleContext } from './context'
import { DncAddedReply, DncCheckReply, DncEntryReply, DncPage } from './model'

const hide = { hide: true }
const orgParams = t.Object({ org: t.String({ format: 'uuid' }) })
/** A pasted list: one number a line (or comma-separated), at most this many at once. */
const MAX_PASTED = 1000

/** The console works on the organization's live list. */
const live = (who: Principal) => ({ orgId: who.orgId, livemode: true })
const entry = (row: DncEntryRow) => ({ id: row.id, phone: row.phone, source: row.source, created: iso(row.created) })

/**
 * Do Not Call in the console: check a number, add one or a pasted list, search,
 * remove. The organization's live list, with the same checks as the external API; SDRs read,
 * owners change it.
 */
export const consoleDncRoutes = (s: Services) => {
  return new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/dnc', ({ query, who }) => {
      const limit = query.limit ?? 50
      const rows = s.dnc.list(live(who), limit + 1, { startingAfter: query.starting_after || undefined, search: query.search || undefined })
      return listReply(rows, limit, entry)
    }, {
      params: orgParams,
      query: t.Object({ search: t.Optional(t.String({ maxLength: 32 })), starting_after: t.Optional(t.String({ maxLength: 64 })), limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })) }),
      console: 'dnc:read',
      response: { 200: DncPage },
      detail: hide,
    })
    .get('/orgs/:org/dnc/check', ({ query, who }) => ({ data: s.dnc.check(live(who), query.phone) }), {
      params: orgParams, query: t.Object({ phone: t.String({ minLength: 1, maxLength: 32 }) }), console: 'dnc:read', response: { 200: DncCheckReply }, detail: hide,
    })
    .post('/orgs/:org/dnc', ({ body, who }) => {
      const where = live(who)
      const phones = body.phones.split(/[\n,;]+/).map((p) => p.trim()).filter((p) => p !== '')
      if (phones.length === 0) throw invalid('Give at least one phone number.', 'phones')
      if (phones.length > MAX_PASTED) throw invalid(`At most ${MAX_PASTED} numbers at once; this list has ${phones.length}.`, 'phones')
      if (phones.some((p) => p.length > 32)) throw invalid('A line is too long to be a phone number (32 characters at most).', 'phones')
      return { data: s.dnc.addBatch(where, phones) }
    }, {
      params: orgParams, body: t.Object({ phones: t.String({ minLength: 1, maxLength: 40_000 }) }, { additionalProperties: false }),
      console: 'dnc:write', response: { 200: DncAddedReply }, detail: hide,
    })
    .delete('/orgs/:org/dnc/:id', ({ params, who }) => ({ data: entry(s.dnc.remove(live(who), params.id)) }), {
      params: t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) }), console: 'dnc:write', response: { 200: DncEntryReply }, detail: hide,
    })
}
