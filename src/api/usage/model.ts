import { t } from 'elysia'
import { DateTime } from '../../domain/shapes'

const Counts = {
  requests: t.Integer(),
  leads_added: t.Integer(),
  calls: t.Integer(),
  calls_connected: t.Integer(),
  minutes: t.Number(),
  cost_usd: t.Number(),
  ai_minutes: t.Integer({ description: "AI seats' time, each call's rounded up to the minute" }),
  ai_cost_usd: t.Nullable(t.Number({ description: "the built-in agent's tokens at the organization's ai_prices; null when it has none" })),
  ai_unpriced_calls: t.Integer({ description: 'AI calls whose model has no price (their cost is not in ai_cost_usd)' }),
}

/** GET /usage's `data` (the console's Usage page shows three of them). */
export const Usage = t.Object({
  object: t.Literal('usage'),
  period: t.String({ pattern: '^\\d{4}-\\d{2}$' }),
  timezone: t.String(),
  livemode: t.Boolean(),
  totals: t.Object(Counts),
  group_by: t.Nullable(t.Union([t.Literal('key'), t.Literal('campaign'), t.Literal('day')])),
  groups: t.Array(
    t.Object({
      ...Counts,
      key_id: t.Optional(t.String()),
      key_name: t.Optional(t.Nullable(t.String())),
      campaign_id: t.Optional(t.String()),
      campaign_name: t.Optional(t.Nullable(t.String())),
      day: t.Optional(t.String()),
    }),
  ),
  updated: t.Nullable(DateTime),
})
