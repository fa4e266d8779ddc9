import { Elysia, t } from 'elysia'
import { ADMIN_PREFIX, markAdminRoute } from '../http/pipeline'
import { AbandonmentReport } from '../domain/calls/abandonment-shape'
import { REPORT_DAYS_MAX } from '../domain/calls/abandonment-report'
import type { Services } from '../services'

const detail = (summary: string) => ({ tags: ['Admin'], summary, hide: true })

/** A campaign's abandonment record (docs/api.md "Admin API"): the rule's records, day by day. */
export const abandonmentRoutes = (s: Services) =>
  new Elysia({ prefix: ADMIN_PREFIX })
    .onTransform(({ request, route }) => markAdminRoute({ request, route }))
    .get('/campaigns/:id/abandonment', ({ params, query }) => ({ data: s.abandonment.report(params.id, query.days) }), {
      params: t.Object({ id: t.String({ format: 'uuid' }) }),
      query: t.Object({ days: t.Optional(t.Integer({ minimum: 1, maximum: REPORT_DAYS_MAX, 'x-param': 'days' })) }, { additionalProperties: false }),
      response: { 200: t.Object({ data: AbandonmentReport }) },
      detail: detail("A campaign's abandonment record: its live person-answered and abandoned calls over the last `days` days (1-90, default 30) of the organization's zone, day by day"),
    })
