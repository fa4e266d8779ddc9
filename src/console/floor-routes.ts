import { Elysia, t } from 'elysia'
import { localDateOf, zonedTime } from '../domain/calling-hours/calling-window'
import { markRoute } from '../http/pipeline'
import { iso } from '../jobs/clock'
import type { Services } from '../services'
import { boardHub } from './board-stream'
import type { ConsoleLimiter } from './console-limits'
import { consoleContext } from './context'
import { FloorReply, SuperviseBody, SuperviseReply, type Floor, type FloorSeat } from './floor-model'
import { hubStream } from './stream-route'

const hide = { hide: true }
const orgParams = t.Object({ org: t.String({ format: 'uuid' }) })
const callParams = t.Object({ org: t.String({ format: 'uuid' }), id: t.String({ format: 'uuid' }) })
/** The floor streams as often as the campaign board. */
const FLOOR_EVERY_MS = 2_000
const CALLS_SHOWN = 500
const CALLBACKS_SHOWN = 200

const isoOrNull = (ms: number | null | undefined) => (ms === null || ms === undefined ? null : iso(ms))

/** The floor of an organization now: seats, live calls, today's callbacks and each person's day (live data). */
export function floorOf(s: Services, orgId: string): Floor {
  const org = s.orgs.get(orgId)
  const now = s.clock.now()
  const today = localDateOf(org.timezone, now)
  const midnight = zonedTime(org.timezone, today, '00:00')
  const tomorrow = zonedTime(org.timezone, { ...today, d: today.d + 1 }, '00:00')
  const campaigns = s.campaigns.listForOrg(orgId, 200)
  const campaignName = new Map(campaigns.map((c) => [c.id, c.name]))
  const nameOf = (id: string) => campaignName.get(id) ?? ''
  const open = s.stores.floor.openCalls(orgId, CALLS_SHOWN)
  const leadOf = new Map(open.map((c) => [c.id, c.leadName ?? c.leadPhone]))
  const live = s.seats.live(orgId).filter((seat) => seat.state !== 'ended')
  const seatOf = new Map(live.filter((seat) => seat.lead_call_id).map((seat) => [seat.lead_call_id!, seat]))
  const seats = live.map((seat): FloorSeat => ({
    id: seat.id, campaign_id: seat.campaign_id, campaign_name: nameOf(seat.campaign_id), person_name: seat.person.name, role: seat.person.role,
    state: seat.state as FloorSeat['state'], lead_call_id: seat.lead_call_id, lead_name: seat.lead_call_id ? leadOf.get(seat.lead_call_id) ?? null : null,
    seated_at: seat.seated_at,
  }))
  const calls = open.map((c) => {
    const seat = seatOf.get(c.id)
    const person = seat ? seat.person.name : c.handledBy.role !== 'ai' && c.handledBy.id ? c.handledBy.name : null
    return {
      id: c.id, campaign_id: c.campaignId, campaign_name: nameOf(c.campaignId), lead_id: c.leadId, lead_name: c.leadName, lead_phone: c.leadPhone,
      status: c.status, direction: c.direction, started: iso(c.started), answered_at: isoOrNull(c.answeredAt), connected_at: isoOrNull(c.connectedAt),
      waiting: c.answeredAt !== null && c.connectedAt === null && person === null, person_name: person, seat_id: seat?.id ?? null,
    }
  })
  return {
    seats,
    calls,
    calls_waiting: calls.filter((c) => c.waiting).length,
    queued: campaigns.reduce((sum, c) => sum + s.queues.size(c.id, true), 0),
    callbacks: s.stores.floor.callbacksBetween(orgId, midnight, tomorrow, CALLBACKS_SHOWN).map((b) => ({
      lead_id: b.leadId, campaign_id: b.campaignId, campaign_name: nameOf(b.campaignId), lead_name: b.leadName, lead_phone: b.leadPhone, callback_at: iso(b.callbackAt),
    })),
    people: s.stores.floor.peopleSince(orgId, midnight).map((p) => ({
      id: p.id, name: p.name, role: p.role, calls_taken: p.callsTaken, talk_seconds: Math.round(p.talkSeconds), handover_seconds: p.handoverSeconds,
    })),
  }
}

/**
 * The floor view: who is seated, ringing or on a call and with which lead, calls waiting for a
 * person, today's callbacks and figures per person; live through the board stream's hub (one
 * computation per organization each tick). Supervising a live call is for who may change campaigns.
 */
export const consoleFloorRoutes = (s: Services, limits: ConsoleLimiter) => {
  const floors = boardHub({ board: (orgId) => floorOf(s, orgId), at: () => iso(s.clock.now()), everyMs: FLOOR_EVERY_MS, event: 'floor' })
  return new Elysia()
    .use(consoleContext(s))
    .onTransform(markRoute)
    .get('/orgs/:org/floor', ({ params }) => ({ data: floorOf(s, params.org), at: iso(s.clock.now()) }), {
      params: orgParams, console: 'calls:read', response: { 200: FloorReply }, detail: hide,
    })
    // The reply is a stream of FloorReply messages (board-stream.ts), not one JSON body.
    .get('/orgs/:org/floor/stream', ({ request, params, session: opened }) =>
      hubStream(s, limits, floors, { request, orgId: params.org, opened, requirement: 'calls:read' }), { params: orgParams, console: 'calls:read', detail: hide })
    .post('/orgs/:org/calls/:id/supervise', async ({ params, body, who }) => {
      const call = s.calls.visible(who, params.id)
      // Settled before the reply: a refusal (not live, no seat, a bad phone) is the reply.
      await s.supervision.supervise(call.id, body)
      return { data: { call_id: call.id, mode: body.mode, phone: body.phone } }
    }, { params: callParams, body: SuperviseBody, console: 'campaigns:write', response: { 200: SuperviseReply }, detail: hide })
}
