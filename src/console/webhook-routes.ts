import { Elysia, t } from 'elysia'
import { requireConsolePermission } from '../domain/console/console-access'
import { deliveryView, endpointView } from '../domain/webhooks/webhook-service'
import { listReply } from '../http/paging'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { principalOf } from './context'

const hide = { hide: true }
const endpointParams = t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) })
const DELIVERY_STATUS = t.Union([t.Literal('pending'), t.Literal('sent'), t.Literal('failed'), t.Literal('gave_up'), t.Literal('skipped_paused')])

/**
 * Webhooks in the console (issue 19): the organization's live endpoints with their status and
 * failing-since, each one's delivery log (the receiver's status and body), resend, a test
 * event, pause and resume, a new secret (shown once).
 */
export const consoleWebhookRoutes = (s: Services) => {
  const principal = principalOf(s)
  const allowed = (permission: 'events:read' | 'webhooks:write') => (request: Request, org: string) => {
    const who = principal(request, org)
    requireConsolePermission(who, permission)
    return who
  }
  // As the external API: reading endpoints and deliveries needs events:read, changes webhooks:write.
  const reader = allowed('events:read')
  const owner = allowed('webhooks:write')
  return new Elysia()
    .onTransform(markRoute)
    .get('/orgs/:org/webhooks', ({ request, params }) => ({ data: s.webhooks.list(reader(request, params.org), 100).map((row) => endpointView(row)) }), {
      params: t.Object({ org: t.String({ format: 'uuid' }) }), detail: hide,
    })
    .get('/orgs/:org/webhooks/:id/deliveries', ({ request, params, query }) => {
      const limit = query.limit ?? 50
      return listReply(s.webhooks.deliveries(reader(request, params.org), params.id, limit + 1, { status: query.status, startingAfter: query.starting_after || undefined }), limit, deliveryView)
    }, {
      params: endpointParams,
      query: t.Object({ status: t.Optional(DELIVERY_STATUS), starting_after: t.Optional(t.String({ maxLength: 64 })), limit: t.Optional(t.Integer({ minimum: 1, maximum: 100 })) }),
      detail: hide,
    })
    .post('/orgs/:org/webhooks/:id/deliveries/:delivery/resend', ({ request, params }) => ({ data: deliveryView(s.webhooks.resend(owner(request, params.org), params.id, params.delivery)) }), {
      params: t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }), delivery: t.String({ minLength: 1, maxLength: 64 }) }), detail: hide,
    })
    .post('/orgs/:org/webhooks/:id/test', ({ request, params }) => ({ data: deliveryView(s.webhooks.sendTest(owner(request, params.org), params.id)) }), { params: endpointParams, detail: hide })
    .post('/orgs/:org/webhooks/:id/pause', async ({ request, params }) => ({ data: endpointView(await s.webhooks.update(owner(request, params.org), params.id, { status: 'paused' })) }), {
      params: endpointParams, detail: hide,
    })
    .post('/orgs/:org/webhooks/:id/resume', ({ request, params }) => ({ data: endpointView(s.webhooks.resume(owner(request, params.org), params.id)) }), { params: endpointParams, detail: hide })
    .post('/orgs/:org/webhooks/:id/roll_secret', ({ request, params }) => {
      const { row, secret } = s.webhooks.rollSecret(owner(request, params.org), params.id, 24)
      return { data: endpointView(row, secret) }
    }, { params: endpointParams, detail: hide })
}
