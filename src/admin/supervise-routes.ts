import { Elysia, t } from 'elysia'
import { bodyChecksOf, type BodyCheck } from '../http/body-check'
import { ADMIN_PREFIX, markAdminRoute } from '../http/pipeline'
import { SuperviseBody, Supervision } from '../domain/calls/supervision-shape'
import type { Services } from '../services'

const detail = (summary: string) => ({ tags: ['Admin'], summary, hide: true })

/** Supervisors on live calls (docs/api.md "Admin API"): the operator's token, any organization's call. */
export const superviseRoutes = (s: Services) => {
  // The body is checked against its schema before Elysia's own check (body-check.ts), as the other admin routes.
  let bodyChecks = new Map<string, BodyCheck>()
  const app = new Elysia({ prefix: ADMIN_PREFIX })
    .onTransform(({ request, route, body, params, query }) => {
      markAdminRoute({ request, route })
      bodyChecks.get(`${request.method} ${route}`)?.(body, params, query)
    })
    .post('/calls/:id/supervise', ({ params, body, set }) => {
      set.status = 201
      return { data: s.supervision.supervise(params.id, body) }
    }, {
      params: t.Object({ id: t.String({ format: 'uuid' }) }),
      body: SuperviseBody,
      response: { 201: t.Object({ data: Supervision }) },
      detail: detail('Call a supervisor\u2019s phone into a live call\u2019s seat conference: listen (muted), whisper (only the seat\u2019s person hears) or barge; 404 unless the call is live in a seat\u2019s conference'),
    })
  bodyChecks = bodyChecksOf(app.routes)
  return app
}
