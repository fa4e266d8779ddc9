import { Elysia, t } from 'elysia'
import { deliveryView, endpointView } from '../../domain/webhooks/webhook-service'
import { MAX_URL_LENGTH } from '../../domain/webhooks/target-check'
import { EVENT_TYPES } from '../../domain/events/event-log'
import { listReply } from '../../http/paging'
import { apiContext } from '../../http/pipeline'
import type { Services } from '../../services'
import { dataOf, idParams, listOf, NoBody, operation, pageLimit, strict, Uuid } from '../shared'
import { Delivery, Endpoint } from './model'

const TAG = 'Webhooks'

const url = t.String({ examples: ['https://hooks.example.com/dialer'], minLength: 1, maxLength: MAX_URL_LENGTH + 1, description: 'http(s); the host must resolve (else 400 reason unresolvable_host); private and special-purpose addresses are refused (reason private_address) unless the operator allows them' })
const events = t.Array(t.String({ examples: ['lead.created'] }), { maxItems: 20, description: `event types: ${EVENT_TYPES.join(', ')}`, examples: [['lead.created', 'call.completed']] })
const campaignIds = t.Nullable(t.Array(Uuid, { maxItems: 1000, description: 'null: every campaign' }))
const CreateBody = t.Object(
  { url, events, campaign_ids: t.Optional(campaignIds), description: t.Optional(t.Nullable(t.String({ maxLength: 500 }))) },
  strict,
)
const PatchBody = t.Object(
  {
    url: t.Optional(url),
    events: t.Optional(events),
    campaign_ids: t.Optional(campaignIds),
    description: t.Optional(t.Nullable(t.String({ maxLength: 500 }))),
    status: t.Optional(t.Union([t.Literal('active'), t.Literal('paused')])),
  },
  strict,
)
const deliveryParams = t.Object({ id: Uuid, delivery_id: t.String({ maxLength: 60 }) })

export const webhookRoutes = (s: Services) => {
  const create = async ({ principal, body, set }: { principal: Parameters<typeof s.webhooks.create>[0]; body: typeof CreateBody.static; set: { status?: number | string } }) => {
    const { row, secret } = await s.webhooks.create(principal, body)
    set.status = 201
    return { data: endpointView(row, secret) }
  }
  const createOptions = {
    permission: 'webhooks:write' as const,
    body: CreateBody,
    response: { 201: dataOf(Endpoint) },
  }
  return new Elysia()
    .use(apiContext(s))
    .post('/webhook_endpoints', create, {
      ...createOptions,
      detail: { operationId: 'createWebhookEndpoint', ...operation(TAG, 'Create a webhook endpoint', 'webhooks:write', 'The reply carries the signing `secret` (shown here and on roll_secret only). The endpoint gets the creating key\u2019s mode\u2019s events. 403 limit_reached past the organization\u2019s endpoint limit.', { errors: ['limit_reached'] }) },
    })
    .post('/webhooks', create, { ...createOptions, detail: { operationId: 'createWebhookEndpointAlias', ...operation(TAG, 'Create a webhook endpoint (alias)', 'webhooks:write', 'Same as POST /webhook_endpoints.', { errors: ['limit_reached'] }) } })
    .get('/webhook_endpoints', ({ principal, query }) => {
      const limit = query.limit ?? 50
      return listReply(s.webhooks.list(principal, limit + 1, query.starting_after), limit, (row) => endpointView(row))
    }, {
      permission: 'events:read',
      query: t.Object({ limit: pageLimit(50), starting_after: t.Optional(t.String({ format: 'uuid', 'x-param': 'starting_after' })) }, strict),
      response: { 200: listOf(Endpoint) },
      detail: { operationId: 'listWebhookEndpoints', ...operation(TAG, 'List webhook endpoints', 'events:read') },
    })
    .get('/webhook_endpoints/:id', ({ principal, params }) => ({ data: endpointView(s.webhooks.get(principal, params.id)) }), {
      permission: 'events:read',
      params: idParams,
      response: { 200: dataOf(Endpoint) },
      detail: { operationId: 'getWebhookEndpoint', ...operation(TAG, 'Get a webhook endpoint', 'events:read') },
    })
    .patch('/webhook_endpoints/:id', async ({ principal, params, body }) => ({ data: endpointView(await s.webhooks.update(principal, params.id, body)) }), {
      permission: 'webhooks:write',
      params: idParams,
      body: PatchBody,
      response: { 200: dataOf(Endpoint) },
      detail: { operationId: 'updateWebhookEndpoint', ...operation(TAG, 'Change a webhook endpoint', 'webhooks:write', 'url, events, campaign_ids, description, status (active or paused).') },
    })
    .delete('/webhook_endpoints/:id', ({ principal, params }) => ({ data: endpointView(s.webhooks.remove(principal, params.id)) }), {
      permission: 'webhooks:write',
      params: idParams,
      response: { 200: dataOf(Endpoint) },
      detail: { operationId: 'deleteWebhookEndpoint', ...operation(TAG, 'Delete a webhook endpoint', 'webhooks:write', 'Its deliveries go with it.') },
    })
    .post('/webhook_endpoints/:id/resume', ({ principal, params }) => ({ data: endpointView(s.webhooks.resume(principal, params.id)) }), {
      permission: 'webhooks:write',
      params: idParams,
      body: NoBody,
      response: { 200: dataOf(Endpoint) },
      detail: { operationId: 'resumeWebhookEndpoint', ...operation(TAG, 'Resume a paused endpoint', 'webhooks:write', 'Clears failing_since and paused_at.') },
    })
    .post('/webhook_endpoints/:id/test', ({ principal, params }) => ({ data: deliveryView(s.webhooks.sendTest(principal, params.id)) }), {
      permission: 'webhooks:write',
      params: idParams,
      body: NoBody,
      response: { 200: dataOf(Delivery) },
      detail: { operationId: 'testWebhookEndpoint', ...operation(TAG, 'Send a test event', 'webhooks:write', 'A sample event with `sample: true`; 409 endpoint_paused while paused.', { errors: ['endpoint_paused'] }) },
    })
    .post('/webhook_endpoints/:id/roll_secret', ({ principal, params, body }) => {
      const { row, secret } = s.webhooks.rollSecret(principal, params.id, body?.expire_old_after_hours ?? 24)
      return { data: endpointView(row, secret) }
    }, {
      permission: 'webhooks:write',
      params: idParams,
      body: t.Optional(t.Object({ expire_old_after_hours: t.Optional(t.Integer({ minimum: 0, maximum: 720 })) }, strict)),
      response: { 200: dataOf(Endpoint) },
      detail: { operationId: 'rollWebhookEndpointSecret', ...operation(TAG, 'Roll the signing secret', 'webhooks:write', 'The reply carries the new `secret`; the old one also signs until `previous_secret_expires_at` (default 24 h).') },
    })
    .get('/webhook_endpoints/:id/deliveries', ({ principal, params, query }) => {
      const limit = query.limit ?? 25
      return listReply(s.webhooks.deliveries(principal, params.id, limit + 1, { status: query.status, startingAfter: query.starting_after }), limit, deliveryView)
    }, {
      permission: 'events:read',
      params: idParams,
      query: t.Object(
        {
          status: t.Optional(t.Union([t.Literal('pending'), t.Literal('sent'), t.Literal('failed'), t.Literal('gave_up'), t.Literal('skipped_paused')], { 'x-param': 'status' })),
          limit: pageLimit(25),
          starting_after: t.Optional(t.String({ pattern: '^wd_[0-9a-f]{32}$', 'x-param': 'starting_after' })),
        },
        strict,
      ),
      response: { 200: listOf(Delivery) },
      detail: { operationId: 'listWebhookDeliveries', ...operation(TAG, 'List an endpoint\u2019s deliveries', 'events:read', 'Newest first; `limit` default 25, at most 100.') },
    })
    .post('/webhook_endpoints/:id/deliveries/:delivery_id/resend', ({ principal, params }) => ({ data: deliveryView(s.webhooks.resend(principal, params.id, params.delivery_id)) }), {
      permission: 'webhooks:write',
      params: deliveryParams,
      body: NoBody,
      response: { 200: dataOf(Delivery) },
      detail: { operationId: 'resendWebhookDelivery', ...operation(TAG, 'Resend a delivery', 'webhooks:write', 'A new delivery of the same event (same webhook-id) with `resent_from`; 409 endpoint_paused while paused.', { errors: ['endpoint_paused'] }) },
    })
}
