import { Elysia, t } from 'elysia'
import { CreateKeyBody, presentKey } from '../admin/model'
import { notFound } from '../errors'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { consoleContext } from './context'
import { ApiKeyList, ApiKeyReply, EventPage } from './model'

const hide = { hide: true }
const orgParams = t.Object({ org: t.String({ format: 'uuid' }) })

/**
 * Events and API keys in the console. Events: the organization's live events with
 * type and object filters, each one's JSON as sent. Keys: owners (and the operator) list,
 * create (the secret shown once) and revoke the organization's keys, with the admin API's rules.
 */
export const consoleKeyEventRoutes = (s: Services) => {
  return new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/events', ({ query, who }) => {
      const limit = query.limit ?? 50
      const rows = s.eventQueries.list(who, { types: query.type ? [query.type] : undefined, objectId: query.object_id || undefined, startingAfter: query.starting_after || undefined }, limit + 1)
      return { data: rows.slice(0, limit).map((row) => JSON.parse(row.body)), has_more: rows.length > limit }
    }, {
      params: orgParams,
      query: t.Object({
        type: t.Optional(t.String({ maxLength: 64 })), object_id: t.Optional(t.String({ maxLength: 64 })),
        starting_after: t.Optional(t.String({ maxLength: 64 })), limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })),
      }),
      console: 'events:read',
      response: { 200: EventPage },
      detail: hide,
    })
    .get('/orgs/:org/keys', ({ who }) => ({ data: s.keys.listForOrg(who.orgId, 200).map((k) => presentKey(k)) }), {
      params: orgParams, console: 'owner', response: { 200: ApiKeyList }, detail: hide,
    })
    .post('/orgs/:org/keys', ({ body, set, who, session }) => {
      // An owner's limits stay at or below the operator's; the operator (admin token) sets any.
      const by = session.identity.kind === 'user' ? 'owner' : 'operator'
      const { key, secret } = s.keys.create(who.orgId, body, by)
      set.status = 201
      return { data: presentKey(key, secret) }
    }, { params: orgParams, body: CreateKeyBody, console: 'owner', response: { 201: ApiKeyReply }, detail: hide })
    .post('/orgs/:org/keys/:id/revoke', ({ params, who }) => {
      // Another organization's key is not there.
      const key = s.stores.keys.get(params.id)
      if (!key || key.orgId !== who.orgId) throw notFound('No such API key')
      const revoked = s.keys.revoke(key.id)
      s.limits.requests.forget(key.id)
      return { data: presentKey(revoked) }
    }, { params: t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ minLength: 1, maxLength: 100 }) }), console: 'owner', response: { 200: ApiKeyReply }, detail: hide })
}
