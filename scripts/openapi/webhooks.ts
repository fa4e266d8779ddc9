/**
 * The top-level `webhooks` of the OpenAPI 3.1 document: one POST per event type, its body the
 * event envelope with `type` fixed and `data.object` typed (src/api/events/model.ts).
 */
import { Call } from '../../src/api/calls/model'
import { Event, EventLead, eventObjects, eventSummaries } from '../../src/api/events/model'
import { EVENT_TYPES } from '../../src/domain/events/event-log'
import { fromTypeBox, type Json } from './schema'

const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` })
/** `lead.opted_out` -> `LeadOptedOutEvent` */
const componentName = (type: string) => type.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('') + 'Event'

/** The Standard Webhooks headers every delivery carries. */
const deliveryHeaders: Json[] = [
  { name: 'webhook-id', in: 'header', required: true, description: 'The delivery\u2019s message id; the same on a retry.', schema: { type: 'string' } },
  { name: 'webhook-timestamp', in: 'header', required: true, description: 'Unix seconds when it was signed.', schema: { type: 'string', pattern: '^[0-9]+$' } },
  {
    name: 'webhook-signature', in: 'header', required: true,
    description: 'Space-separated `v1,<base64 HMAC-SHA256 of "{webhook-id}.{webhook-timestamp}.{body}">`; two during a secret roll.',
    schema: { type: 'string' },
  },
]

export function webhookSection(): { webhooks: Json; schemas: Record<string, Json> } {
  const envelope = fromTypeBox(Event)
  const schemas: Record<string, Json> = {
    Event: envelope,
    Call: fromTypeBox(Call),
    EventLead: fromTypeBox(EventLead),
  }
  const webhooks: Json = {}
  for (const type of EVENT_TYPES) {
    const { object, extra } = eventObjects[type]
    const base = schemaRef(object === 'lead' ? 'EventLead' : 'Call')
    const name = componentName(type)
    schemas[name] = {
      description: `The \`${type}\` event. ${eventSummaries[type]}`,
      allOf: [
        schemaRef('Event'),
        {
          type: 'object',
          required: ['type', 'data'],
          properties: {
            type: { type: 'string', const: type },
            data: {
              type: 'object',
              required: ['object'],
              properties: { object: extra ? { allOf: [base, fromTypeBox(extra)] } : base },
            },
          },
        },
      ],
    }
    webhooks[type] = {
      post: {
        operationId: `${componentName(type).replace(/Event$/, 'Webhook').replace(/^./, (c) => c.toLowerCase())}`,
        tags: ['Webhook events'],
        summary: type,
        description: `${eventSummaries[type]} Sent to the endpoints subscribed to \`${type}\`; the same envelope is listed by GET /events. An event can arrive twice: skip an \`id\` already handled.`,
        security: [],
        parameters: deliveryHeaders,
        requestBody: { required: true, content: { 'application/json': { schema: schemaRef(name) } } },
        responses: {
          '2XX': { description: 'Any 2xx answer within the time limit acknowledges the delivery; anything else is retried (7 tries at most).' },
        },
      },
    }
  }
  return { webhooks, schemas }
}
