import { t } from 'elysia'
import { DateTime, Uuid } from '../../domain/shapes'

/** A webhook endpoint and a delivery as the API returns them (the console's Webhooks page too). */
export const Endpoint = t.Object({
  id: Uuid,
  object: t.Literal('webhook_endpoint'),
  url: t.String(),
  description: t.Nullable(t.String()),
  events: t.Array(t.String()),
  campaign_ids: t.Nullable(t.Array(Uuid)),
  mode: t.Union([t.Literal('live'), t.Literal('test')]),
  livemode: t.Boolean(),
  status: t.Union([t.Literal('active'), t.Literal('paused')]),
  failing_since: t.Nullable(DateTime),
  paused_at: t.Nullable(DateTime),
  last_success_at: t.Nullable(DateTime),
  previous_secret_expires_at: t.Nullable(DateTime),
  created: DateTime,
  updated: DateTime,
  secret: t.Optional(t.String({ description: 'only on create and roll_secret' })),
})

export const Delivery = t.Object({
  id: t.String(),
  object: t.Literal('webhook_delivery'),
  endpoint_id: Uuid,
  event_id: t.Nullable(t.String()),
  event_type: t.String(),
  status: t.Union([t.Literal('pending'), t.Literal('sent'), t.Literal('failed'), t.Literal('gave_up'), t.Literal('skipped_paused')]),
  attempts: t.Integer(),
  next_attempt_at: t.Nullable(DateTime),
  last_attempt_at: t.Nullable(DateTime),
  response_status: t.Nullable(t.Integer()),
  response_body: t.Nullable(t.String()),
  duration_ms: t.Nullable(t.Integer()),
  resent_from: t.Nullable(t.String()),
  created: DateTime,
  livemode: t.Boolean(),
})
