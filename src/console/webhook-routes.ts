import { Elysia, t } from 'elysia'
import { deliveryView, endpointView } from '../domain/webhooks/webhook-service'
import { listReply } from '../http/paging'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { consoleContext } from './context'
import { DeliveryPage, DeliveryReply, EndpointList, EndpointReply } from './model'

const hide = { hide: true }
const endpointParams = t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) })
const DELIVERY_STATUS = t.Union([t.Literal('pending'), t.Literal('sent'), t.Literal('failed'), t.Literal('gave_up'), t.Literal('skipped_paused')])

/**
 * Webhooks in the console: the organization's live endpoints with their status and
 * failing-since, each one's delivery log (the receiver's status and body), resend, a test
 * event, pause and resume, a new secret (shown once).
 */
export const consoleWebhookRoutes = (s: Services) => {
  // As the external API: reading endpoints and deliveries needs events:read, changes webhooks:write.
  const read = { console: 'events:read' } as const
  const change = { console: 'webhooks:write' } as const
  return new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/webhooks', ({ who }) => ({ data: s.webhooks.list(who, 100).map((row) => endpointView(row)) }), {
      params: t.Object({ org: t.String({ format: 'uuid' }) }), ...read, response: { 200: EndpointList }, detail: hide,
    })
    .get('/orgs/:org/webhooks/:id/deliveries', ({ params, query, who }) => {
      const limit = query.limit ?? 50
      return listReply(s.webhooks.deliveries(who, params.id, limit + 1, { status: query.status, startingAfter: query.starting_after || undefined }), limit, deliveryView)
    }, {
      params: endpointParams,
      query: t.Object({ status: t.Optional(DELIVERY_STATUS), starting_after: t.Optional(t.String({ maxLength: 64 })), limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })) }),
      ...read,
      response: { 200: DeliveryPage },
      detail: hide,
    })
    .post('/orgs/:org/webhooks/:id/deliveries/:delivery/resend', ({ params, who }) => ({ data: deliveryView(s.webhooks.resend(who, params.id, params.delivery)) }), {
      params: t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }), delivery: t.String({ minLength: 1, maxLength: 64 }) }), ...change, response: { 200: DeliveryReply }, detail: hide,
    })
    .post('/orgs/:org/webhooks/:id/test', ({ params, who }) => ({ data: deliveryView(s.webhooks.sendTest(who, params.id)) }), {
      params: endpointParams, ...change, response: { 200: DeliveryReply }, detail: hide,
    })
    .post('/orgs/:org/webhooks/:id/pause', async ({ params, who }) => ({ data: endpointView(await s.webhooks.update(who, params.id, { status: 'paused' })) }), {
      params: endpointParams, ...change, response: { 200: EndpointReply }, detail: hide,
    })
    .post('/orgs/:org/webhooks/:id/resume', ({ params, who }) => ({ data: endpointView(s.webhooks.resume(who, params.id)) }), {
      params: endpointParams, ...change, response: { 200: EndpointReply }, detail: hide,
    })
    .post('/orgs/:org/webhooks/:id/roll_secret', ({ params, who }) => {
      const { row, secret } = s.webhooks.rollSecret(who, params.id, 24)
      return { data: endpointView(row, secret) }
    }, { params: endpointParams, ...change, response: { 200: EndpointReply }, detail: hide })
}
