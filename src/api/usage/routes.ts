import { Elysia, t } from 'elysia'
import { apiContext } from '../../http/pipeline'
import type { Services } from '../../services'
import { dataOf, DateTime, operation, strict } from '../shared'

const Counts = {
  requests: t.Integer(),
  leads_added: t.Integer(),
  calls: t.Integer(),
  calls_connected: t.Integer(),
  minutes: t.Number(),
  cost_usd: t.Number(),
}

const Usage = t.Object({
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

export const usageRoutes = (s: Services) =>
  new Elysia().use(apiContext(s)).get(
    '/usage',
    ({ principal, query }) => ({ data: s.usage.read(principal, query.period ?? 'current', query.group_by) }),
    {
      permission: 'usage:read',
      query: t.Object(
        {
          period: t.Optional(t.String({ maxLength: 20, 'x-param': 'period', description: '`current` (default) or a month, YYYY-MM, in the organization\u2019s zone' })),
          group_by: t.Optional(t.Union([t.Literal('key'), t.Literal('campaign'), t.Literal('day')], { 'x-param': 'group_by' })),
        },
        strict,
      ),
      response: { 200: dataOf(Usage) },
      detail: operation('Usage', 'Read usage', 'usage:read',
        'Requests, leads added, calls, calls a person answered, billed minutes (each call rounded up to the minute) and cost at the organization\u2019s rate, for a month in the organization\u2019s zone. Counted every 5 minutes (`updated`). A test key sees test counts, never billed; a key limited to some campaigns sees their leads, calls and minutes plus its own requests.'),
    },
  )
