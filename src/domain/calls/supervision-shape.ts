/** POST /api/v1/admin/calls/{id}/supervise (and the console's): the body and the supervision object. */
import { Type as t, type Static } from '@sinclair/typebox'
import { DateTime, Uuid } from '../shapes'

export const SuperviseMode = t.Union([t.Literal('listen'), t.Literal('whisper'), t.Literal('barge')])
export type SuperviseMode = Static<typeof SuperviseMode>

export const SuperviseBody = t.Object(
  {
    /** listen: muted; whisper: only the seat's person hears the supervisor; barge: everyone does. */
    mode: SuperviseMode,
    /** The supervisor's phone (E.164, US or Canada), called into the seat's conference. */
    phone: t.String({ minLength: 1, maxLength: 32 }),
  },
  { additionalProperties: false },
)
export type SuperviseBody = Static<typeof SuperviseBody>

export const Supervision = t.Object({
  object: t.Literal('supervision'),
  call_id: Uuid,
  mode: SuperviseMode,
  phone: t.String(),
  /** The seat whose conference the supervisor's phone is called into. */
  seat_id: Uuid,
  /** When it was asked for (the call.supervised event's `supervision.at`); the phone rings right after. */
  at: DateTime,
})
export type Supervision = Static<typeof Supervision>
