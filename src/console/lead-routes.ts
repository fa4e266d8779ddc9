import { Elysia, t } from 'elysia'
import { classifyPhone } from '../domain/phone/phone-number'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import type { ConsoleLimiter } from './console-limits'
import { consoleContext } from './context'
import { CallNowResultReply, LeadDetailReply, LeadPage } from './model'

const hide = { hide: true }
const leadParams = t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) })

/**
 * Leads in the console: search by name, phone, email or external id; one lead with
 * why it waits (the contactability explanation), its calls and events; "call now" through the
 * same rules as POST /calls. A session runs one search at a time (the lease is given back once
 * the reply is out).
 */
export const consoleLeadRoutes = (s: Services, limits: ConsoleLimiter) => {
  const searching = new WeakMap<Request, string>()
  return new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/leads', ({ request, query, who, session: opened }) => {
      const q = (query.q ?? '').trim()
      const limit = query.limit ?? 50
      if (q === '') {
        const rows = s.leads.list(who, { startingAfter: query.starting_after || undefined }, limit + 1)
        return { data: rows.slice(0, limit).map((row) => s.leads.view(row)), has_more: rows.length > limit }
      }
      const session = opened.tokenHash
      limits.startSearch(session)
      searching.set(request, session)
      const phone = classifyPhone(q)
      const e164 = phone.kind === 'domestic' || phone.kind === 'fictional' ? phone.e164 : null
      const ids = s.stores.console.searchLeads(who.orgId, { e164, text: q }, limit + 1, query.starting_after || null)
      return { data: ids.slice(0, limit).map((id) => s.leads.get(who, id)), has_more: ids.length > limit }
    }, {
      params: t.Object({ org: t.String({ format: 'uuid' }) }),
      query: t.Object({ q: t.Optional(t.String({ maxLength: 200 })), starting_after: t.Optional(t.String({ maxLength: 64 })), limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })) }),
      afterResponse: ({ request }) => {
        const session = searching.get(request)
        if (session !== undefined) limits.endSearch(session)
      },
      console: 'leads:read',
      response: { 200: LeadPage },
      detail: hide,
    })
    .get('/orgs/:org/leads/:id', ({ params, who }) => {
      const lead = s.leads.get(who, params.id)
      const calls = who.permissions.has('calls:read') ? s.calls.list(who, { leadId: lead.id }, 20).map(s.calls.listedView) : []
      const events = who.permissions.has('events:read') ? s.eventQueries.list(who, { objectId: lead.id }, 50).map((e) => JSON.parse(e.body)) : []
      return { data: { lead, contactability: s.leads.contactability(who, lead.id), calls, events } }
    }, { params: leadParams, console: 'leads:read', response: { 200: LeadDetailReply }, detail: hide })
    .post('/orgs/:org/leads/:id/call_now', ({ params, who }) => ({ data: s.leads.callNow(who, { lead_id: params.id }) }), {
      params: leadParams, console: 'calls:write', response: { 200: CallNowResultReply }, detail: hide,
    })
}
