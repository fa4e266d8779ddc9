import { Elysia, t } from 'elysia'
import { requireCampaignScope } from '../../domain/access/permissions'
import { parseTimeBound, uuidQuery } from '../../http/paging'
import { apiContext, markRoute } from '../../http/pipeline'
import { listReply } from '../../http/paging'
import type { Services } from '../../services'
import { ListMetaSchema as ListMeta } from '../../http/paging'
import { dataOf, idParams, operation, strict } from '../shared'
import { Call, CallNowBody, CallNowReply, OutcomeQuery, RecordingLink, Transcript } from './model'

const TAG = 'Calls'
/** The deprecated list shape stops in the next release (RFC 8594 Sunset header). */
const SUNSET = 'Tue, 01 Jun 2027 00:00:00 GMT'

const listQuery = t.Object(
  {
    limit: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 50, 'x-param': 'limit', description: '1 to 100; default 50 (over 100: the deprecated list shape)' })),
    starting_after: uuidQuery('starting_after', "the last call's id of the previous page"),
    campaign_id: uuidQuery('campaign_id'),
    lead_id: uuidQuery('lead_id'),
    external_id: t.Optional(t.String({ minLength: 1, maxLength: 200, 'x-param': 'external_id', description: "the lead's ID in the caller's system" })),
    outcome: t.Optional(OutcomeQuery),
    'created[gte]': t.Optional(t.String({ 'x-param': 'created[gte]' })),
    'created[lte]': t.Optional(t.String({ 'x-param': 'created[lte]' })),
    offset: t.Optional(t.Integer({ minimum: 0, maximum: 1_000_000, 'x-param': 'offset', description: 'deprecated' })),
    status: t.Optional(t.Union([t.Literal('ringing'), t.Literal('in_progress'), t.Literal('ended')], { 'x-param': 'status', description: 'deprecated' })),
  },
  strict,
)

export const callRoutes = (s: Services) =>
  new Elysia()
    .use(apiContext(s))
    .get(
      '/calls',
      ({ principal, query, set }) => {
        if (query.campaign_id) requireCampaignScope(principal, query.campaign_id, 'calls:read')
        const filter = {
          campaignId: query.campaign_id,
          leadId: query.lead_id,
          externalId: query.external_id,
          outcome: query.outcome,
          createdGte: parseTimeBound(query['created[gte]'], 'created[gte]'),
          createdLte: parseTimeBound(query['created[lte]'], 'created[lte]'),
        }
        const limit = query.limit ?? 50
        // Deprecated for one release: offset, status or limit over 100 answer the old shape.
        if (query.offset !== undefined || query.status !== undefined || limit > 100) {
          const offset = query.offset ?? 0
          const { rows, total } = s.calls.page(principal, { ...filter, status: query.status }, offset, limit)
          set.headers['deprecation'] = 'true'
          set.headers['sunset'] = SUNSET
          return { data: s.calls.views(rows), pagination: { offset, limit, total } }
        }
        const rows = s.calls.list(principal, { ...filter, startingAfter: query.starting_after }, limit + 1)
        return listReply(rows, limit, s.calls.listedView)
      },
      {
        permission: 'calls:read',
        query: listQuery,
        // One object (not a union of the two shapes): Elysia checks a union by encoding it object
        // by object, which cost more than the rest of the request.
        response: {
          200: t.Object({
            data: t.Array(Call),
            meta: t.Optional(ListMeta),
            pagination: t.Optional(t.Object({ offset: t.Integer(), limit: t.Integer(), total: t.Integer() }, { description: 'the deprecated shape only' })),
          }),
        },
        detail: { operationId: 'listCalls', ...operation(TAG, 'List calls', 'calls:read',
          'Newest first, cursor-paged. A key limited to some campaigns sees only their calls. Deprecated for one release: `offset`, `status` and a `limit` over 100 answer `{ data, pagination: { offset, limit, total } }` with `Deprecation` and `Sunset` headers.', { replyHeaders: ['Deprecation', 'Sunset'] }) },
      },
    )
    .get('/calls/:id', ({ principal, params }) => ({ data: s.calls.view(s.calls.visible(principal, params.id)) }), {
      permission: 'calls:read',
      params: idParams,
      response: { 200: dataOf(Call) },
      detail: { operationId: 'getCall', ...operation(TAG, 'Get a call', 'calls:read') },
    })
    .get(
      '/calls/:id/recording',
      ({ principal, params }) => ({ data: { ...s.calls.recordingLink(s.calls.visible(principal, params.id)), livemode: principal.livemode } }),
      {
        permission: 'calls:read',
        params: idParams,
        response: { 200: dataOf(RecordingLink) },
        detail: { operationId: 'getCallRecording', ...operation(TAG, 'Get a recording link', 'calls:read',
          'A signed link served by the service, made on each request, never stored, valid 5 minutes (`expires_at`). 404 recording_not_available when there is none.', { errors: ['recording_not_available'] }) },
      },
    )
    .get(
      '/calls/:id/transcript',
      ({ principal, params, query }) => {
        const call = s.calls.visible(principal, params.id)
        const transcript = s.calls.transcript(call)
        if (query.format === 'text') {
          const text = transcript.map((line) => `${line.name}: ${line.text}`).join('\n')
          return new Response(text, { headers: { 'content-type': 'text/plain; charset=utf-8' } })
        }
        const lines = transcript.map((line) => ({ ...line, at: new Date(line.at).toISOString() }))
        return { data: { call_id: call.id, lines, livemode: principal.livemode } }
      },
      {
        permission: 'calls:read',
        params: idParams,
        query: t.Object({ format: t.Optional(t.Union([t.Literal('json'), t.Literal('text')], { 'x-param': 'format' })) }, strict),
        response: { 200: t.Union([dataOf(Transcript), t.String()]) },
        detail: { operationId: 'getCallTranscript', ...operation(TAG, 'Get a transcript', 'calls:read', '`format=text` answers plain text, one line `Name: text` per turn.') },
      },
    )
    .post(
      '/calls',
      ({ principal, body, set }) => {
        set.status = 202
        return { data: s.leads.callNow(principal, body) }
      },
      {
        permission: 'calls:write',
        body: CallNowBody,
        response: { 202: dataOf(CallNowReply) },
        detail: { operationId: 'createCall', ...operation(TAG, 'Call a lead now', 'calls:write',
          'Puts an existing lead at the front of its campaign\u2019s queue; it is dialed next, never above the campaign\u2019s lines. Do Not Call, calling hours and a paused campaign still apply. At most 3 API-started calls per lead in 24 hours (`calls_left_today`).',
          { errors: ['on_dnc_list', 'number_retired', 'campaign_closed', 'test_flows_busy', 'lead_busy', 'lead_taken_out_of_queue', 'call_limit_reached', 'number_not_allowed', 'ambiguous_external_id'] }) },
      },
    )

/** The signed recording links (no API key: the signature is the permission). */
export const recordingRoutes = (s: Services) =>
  new Elysia().onTransform(markRoute).get(
    '/recordings/:id',
    ({ params, query }) =>
      new Response(s.calls.recordingAudio(params.id, query.expires, query.signature), {
        headers: { 'content-type': 'audio/wav', 'cache-control': 'private, max-age=300' },
      }),
    {
      params: t.Object({ id: t.String({ maxLength: 100 }) }),
      query: t.Object({ expires: t.Optional(t.String()), signature: t.Optional(t.String()) }),
      detail: { hide: true },
    },
  )
