/** The Seat object (admin API and console): one TypeBox model, the type is its Static. */
import { Type as t, type Static } from '@sinclair/typebox'
import { DateTime, Nullable, Uuid } from '../shapes'

export const SeatState = t.Union([t.Literal('calling'), t.Literal('waiting'), t.Literal('on_call'), t.Literal('ended')])

export const Seat = t.Object({
  id: Uuid,
  object: t.Literal('seat'),
  campaign_id: Uuid,
  /** The campaign's person sitting (found by phone among its sdrs and closers). */
  person: t.Object({ id: t.String(), name: t.String(), role: t.Union([t.Literal('sdr'), t.Literal('closer')]) }),
  phone: t.String(),
  /** calling: their phone rings or they have not pressed 1; waiting: seated, free; on_call: a lead is with them; ended. */
  state: SeatState,
  /** The lead call with them now (on_call), else null. */
  lead_call_id: Nullable(Uuid),
  /** deleted, hung_up, no_answer, not_accepted, failed; null until ended. */
  ended_reason: Nullable(t.String()),
  seated_at: Nullable(DateTime),
  ended_at: Nullable(DateTime),
  created: DateTime,
  updated: DateTime,
})
export type Seat = Static<typeof Seat>

/** POST /api/v1/admin/campaigns/{id}/seats (and the console's): a person of the campaign, by phone. */
export const CreateSeatBody = t.Object(
  { name: t.String({ minLength: 1, maxLength: 200 }), phone: t.String({ minLength: 1, maxLength: 32 }) },
  { additionalProperties: false },
)
export type CreateSeatBody = Static<typeof CreateSeatBody>
