import { Elysia, t } from 'elysia'
import { ListMetaSchema, parseTimeBound, uuidQuery } from '../../http/paging'
import { apiContext } from '../../http/pipeline'
import type { Services } from '../../services'
import { operation, pageLimit, strict } from '../shared'
import { Event } from './model'

const TAG = 'Events'
const json = { 'content-type': 'application/json;charset=utf-8' }

export const eventRoutes = (s: Services) =>
  new Elysia()
    .use(apiContext(s))
    .get(
      '/events',
      ({ principal, query }) => {
        const limit = query.limit ?? 50
        const rows = s.eventQueries.list(
          principal,
          {
            types: query.type,
            createdGte: parseTimeBound(query['created[gte]'], 'created[gte]'),
            createdLte: parseTimeBound(query['created[lte]'], 'created[lte]'),
            campaignId: query.campaign_id,
            objectId: query.object_id,
            startingAfter: query.starting_after,
          },
          limit + 1,
        )
        const hasMore = rows.length > limit
        const page = hasMore ? rows.slice(0, limit) : rows
        const meta = { next_cursor: hasMore ? page[page.length - 1]!.id : null, has_more: hasMore }
        // The stored envelopes go out as stored: what a webhook got is what the list shows.
        return new Response(`{"data":[${page.map((r) => r.body).join(',')}],"meta":${JSON.stringify(meta)}}`, { headers: json })
      },
      {
        permission: 'events:read',
        query: t.Object(
          {
            limit: pageLimit(50),
            starting_after: t.Optional(t.String({ pattern: '^evt_[0-9a-f]{32}$', 'x-param': 'starting_after', description: 'the last event id of the previous page' })),
            type: t.Optional(t.Array(t.String(), { 'x-param': 'type', description: 'one type, a comma-separated list, or the parameter repeated' })),
            'created[gte]': t.Optional(t.String({ 'x-param': 'created[gte]' })),
            'created[lte]': t.Optional(t.String({ 'x-param': 'created[lte]' })),
            campaign_id: uuidQuery('campaign_id'),
            object_id: uuidQuery('object_id', 'only events about this call or lead'),
          },
          strict,
        ),
        response: { 200: t.Object({ data: t.Array(Event), meta: ListMetaSchema }) },
        detail: { operationId: 'listEvents', ...operation(TAG, 'List events', 'events:read', 'Every event sent or that would have been sent, newest first, kept 30 days. A test key sees test events, a live key live ones; a key limited to some campaigns sees their events.') },
      },
    )
    .get('/events/:id', ({ principal, params }) => new Response(`{"data":${s.eventQueries.get(principal, params.id)}}`, { headers: json }), {
      permission: 'events:read',
      params: t.Object({ id: t.String({ pattern: '^evt_[0-9a-f]{32}$' }) }),
      response: { 200: t.Object({ data: Event }) },
      detail: { operationId: 'getEvent', ...operation(TAG, 'Get an event', 'events:read', 'The same envelope as the webhook. An event of another organization or mode is 404.') },
    })
