import { Elysia, t } from 'elysia'
import { apiContext } from '../../http/pipeline'
import type { Services } from '../../services'
import { dataOf, operation, strict } from '../shared'
import { Usage } from './model'

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
      detail: { operationId: 'getUsage', ...operation('Usage', 'Read usage', 'usage:read',
        'Requests, leads added, calls, calls a person answered, billed minutes (each call rounded up to the minute) and cost at the organization\u2019s rate, for a month in the organization\u2019s zone. Counted every 5 minutes (`updated`). A test key sees test counts, never billed; a key limited to some campaigns sees their leads, calls and minutes plus its own requests.') },
    },
  )
