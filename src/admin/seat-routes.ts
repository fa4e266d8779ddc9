import { Elysia, t } from 'elysia'
import { bodyChecksOf, type BodyCheck } from '../http/body-check'
import { listReply, ListMetaSchema } from '../http/paging'
import { ADMIN_PREFIX, markAdminRoute } from '../http/pipeline'
import { CreateSeatBody, Seat } from '../domain/seats/seat-shape'
import type { Services } from '../services'
import { adminListQuery } from './model'

const detail = (summary: string) => ({ tags: ['Admin'], summary, hide: true })
const campaignParams = t.Object({ id: t.String({ format: 'uuid' }) })
const seatParams = t.Object({ id: t.String({ format: 'uuid' }), seat_id: t.String({ format: 'uuid', 'x-param': 'seat_id' }) })

/**
 * Seats of power/predictive campaigns (docs/api.md "Admin API"): a person of the campaign called
 * on their phone to sit in a conference of their own, listed with their state, ended.
 */
export const seatRoutes = (s: Services) => {
  // The body is checked against its schema before Elysia's own check (body-check.ts), as the other admin routes.
  let bodyChecks = new Map<string, BodyCheck>()
  const app = new Elysia({ prefix: ADMIN_PREFIX })
    .onTransform(({ request, route, body, params, query }) => {
      markAdminRoute({ request, route })
      bodyChecks.get(`${request.method} ${route}`)?.(body, params, query)
    })
    .post('/campaigns/:id/seats', ({ params, body, set }) => {
      set.status = 201
      return { data: s.seats.create(params.id, body) }
    }, {
      params: campaignParams, body: CreateSeatBody, response: { 201: t.Object({ data: Seat }) },
      detail: detail('Seat a person of a power or predictive campaign (found by phone among its SDRs and closers): their phone is called, they press 1 to sit'),
    })
    .get('/campaigns/:id/seats', ({ params, query }) => {
      const limit = query.limit ?? 50
      return listReply(s.seats.list(params.id, limit + 1, query.starting_after), limit, (seat) => seat)
    }, {
      params: campaignParams, query: adminListQuery, response: { 200: t.Object({ data: t.Array(Seat), meta: ListMetaSchema }) },
      detail: detail("List a campaign's seats, newest first, ended ones too"),
    })
    .get('/campaigns/:id/seats/:seat_id', ({ params }) => ({ data: s.seats.get(params.id, params.seat_id) }), {
      params: seatParams, response: { 200: t.Object({ data: Seat }) }, detail: detail('Get a seat'),
    })
    .delete('/campaigns/:id/seats/:seat_id', ({ params }) => ({ data: s.seats.end(params.id, params.seat_id) }), {
      params: seatParams, response: { 200: t.Object({ data: Seat }) },
      detail: detail('End a seat: its call is hung up (an ended seat is returned as it is)'),
    })
  bodyChecks = bodyChecksOf(app.routes)
  return app
}
