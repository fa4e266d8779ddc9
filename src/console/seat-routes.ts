import { Elysia, t } from 'elysia'
import { ABANDON_RATE_BOUND } from '../domain/calls/ledger'
import { CreateSeatBody } from '../domain/seats/seat-shape'
import { markRoute } from '../http/pipeline'
import type { Services } from '../services'
import { consoleContext } from './context'
import { AbandonmentList, SeatList, SeatReply } from './floor-model'

const hide = { hide: true }
const orgParams = t.Object({ org: t.String({ format: 'uuid' }) })
const campaignParams = t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) })
const seatParams = t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }), seat: t.String({ format: 'uuid' }) })
/** The window the Campaigns page shows (the rule's 30 days). */
const ABANDON_DAYS = 30
/** The Campaigns page shows a campaign's newest seats, ended ones too. */
const SEATS_SHOWN = 50

/**
 * Seats on the Campaigns page (owners: people's phones are read only by who may change them):
 * list, add a person of the campaign (by phone, as the admin API), end. And each campaign's
 * 30-day abandonment rate, for every role that reads campaigns.
 */
export const consoleSeatRoutes = (s: Services) =>
  new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/campaigns/:id/seats', ({ params, who }) => {
      const campaign = s.campaigns.visible(who, params.id)
      return { data: s.seats.list(campaign.id, SEATS_SHOWN) }
    }, { params: campaignParams, console: 'campaigns:write', response: { 200: SeatList }, detail: hide })
    .post('/orgs/:org/campaigns/:id/seats', ({ params, body, who, set }) => {
      const campaign = s.campaigns.visible(who, params.id)
      const seat = s.seats.create(campaign.id, body)
      set.status = 201
      return { data: seat }
    }, { params: campaignParams, body: CreateSeatBody, console: 'campaigns:write', response: { 201: SeatReply }, detail: hide })
    .delete('/orgs/:org/campaigns/:id/seats/:seat', ({ params, who }) => {
      const campaign = s.campaigns.visible(who, params.id)
      return { data: s.seats.end(campaign.id, params.seat) }
    }, { params: seatParams, console: 'campaigns:write', response: { 200: SeatReply }, detail: hide })
    .get('/orgs/:org/abandonment', ({ params }) => {
      const abandonment = s.abandonment
      const data = s.campaigns.listForOrg(params.org, 200).map((c) => {
        const report = abandonment.report(c.id, ABANDON_DAYS)
        return {
          campaign_id: c.id, answered_by_person: report.answered_by_person, abandoned: report.abandoned, rate: report.rate,
          max_abandon_rate: c.maxAbandonRate, warning: report.rate > ABANDON_RATE_BOUND,
        }
      })
      return { data, days: ABANDON_DAYS }
    }, { params: orgParams, console: 'campaigns:read', response: { 200: AbandonmentList }, detail: hide })
