/**
 * The console's replies for seats, the campaigns' abandonment and the floor view (beside
 * model.ts, read by the page as types only). Property order is reply order.
 */
import { Type as t, type Static } from '@sinclair/typebox'
import { Seat } from '../domain/seats/seat-shape'
import { DateTime, Nullable, Uuid } from '../domain/shapes'

export { Seat }

export const SeatList = t.Object({ data: t.Array(Seat) })
export type SeatList = Static<typeof SeatList>
export const SeatReply = t.Object({ data: Seat })
export type SeatReply = Static<typeof SeatReply>

/** A campaign's abandonment over the last 30 days (live calls a person answered), for the Campaigns page. */
export const CampaignAbandonment = t.Object({
  campaign_id: Uuid,
  answered_by_person: t.Integer(),
  abandoned: t.Integer(),
  rate: t.Number(),
  /** The campaign's own bound (pacing keeps predictive under it). */
  max_abandon_rate: t.Number(),
  /** The rate is above the rule's 3 %. */
  warning: t.Boolean(),
})
export type CampaignAbandonment = Static<typeof CampaignAbandonment>
export const AbandonmentList = t.Object({ data: t.Array(CampaignAbandonment), days: t.Integer() })
export type AbandonmentList = Static<typeof AbandonmentList>

const Role = t.Union([t.Literal('sdr'), t.Literal('closer')])

/** A seat that has not ended: calling (their phone rings), waiting (seated, free) or on_call with a lead. */
export const FloorSeat = t.Object({
  id: Uuid,
  campaign_id: Uuid,
  campaign_name: t.String(),
  person_name: t.String(),
  role: Role,
  state: t.Union([t.Literal('calling'), t.Literal('waiting'), t.Literal('on_call')]),
  lead_call_id: Nullable(Uuid),
  lead_name: Nullable(t.String()),
  seated_at: Nullable(DateTime),
})
export type FloorSeat = Static<typeof FloorSeat>

/** A live call: ringing the lead, or in progress; `waiting` once a person answered and nobody is with them yet. */
export const FloorCall = t.Object({
  id: Uuid,
  campaign_id: Uuid,
  campaign_name: t.String(),
  lead_id: Uuid,
  lead_name: Nullable(t.String()),
  lead_phone: t.String(),
  status: t.Union([t.Literal('ringing'), t.Literal('in_progress')]),
  direction: t.Union([t.Literal('outbound'), t.Literal('inbound')]),
  started: DateTime,
  answered_at: Nullable(DateTime),
  connected_at: Nullable(DateTime),
  waiting: t.Boolean(),
  /** Who is with the lead (the seat's person, or who took the bridged call); null: nobody yet. */
  person_name: Nullable(t.String()),
  /** The seat whose conference the call is in: a supervisor may listen, whisper or barge. */
  seat_id: Nullable(Uuid),
})
export type FloorCall = Static<typeof FloorCall>

export const FloorCallback = t.Object({
  lead_id: Uuid, campaign_id: Uuid, campaign_name: t.String(), lead_name: Nullable(t.String()), lead_phone: t.String(), callback_at: DateTime,
})
export type FloorCallback = Static<typeof FloorCallback>

/** Today's figures (the organization's day) for one person: calls taken, talk time, average time to handover. */
export const FloorPerson = t.Object({
  id: t.String(),
  name: t.String(),
  role: Role,
  calls_taken: t.Integer(),
  talk_seconds: t.Integer(),
  handover_seconds: Nullable(t.Number()),
})
export type FloorPerson = Static<typeof FloorPerson>

export const Floor = t.Object({
  seats: t.Array(FloorSeat),
  calls: t.Array(FloorCall),
  /** Live calls a person answered that nobody is with yet. */
  calls_waiting: t.Integer(),
  /** Live leads in line to be dialed, all campaigns. */
  queued: t.Integer(),
  callbacks: t.Array(FloorCallback),
  people: t.Array(FloorPerson),
})
export type Floor = Static<typeof Floor>
/** GET floor, and each `floor` message of its stream. */
export const FloorReply = t.Object({ data: Floor, at: DateTime })
export type FloorReply = Static<typeof FloorReply>

export const SuperviseBody = t.Object(
  { mode: t.Union([t.Literal('listen'), t.Literal('whisper'), t.Literal('barge')]), phone: t.String({ minLength: 1, maxLength: 32 }) },
  { additionalProperties: false },
)
export const SuperviseReply = t.Object({ data: t.Object({ call_id: Uuid, mode: t.String(), phone: t.String() }) })
export type SuperviseReply = Static<typeof SuperviseReply>
