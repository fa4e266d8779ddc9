/** The abandonment report of a campaign (GET /api/v1/admin/campaigns/{id}/abandonment): one TypeBox model, the type is its Static. */
import { Type as t, type Static } from '@sinclair/typebox'
import { Uuid } from '../shapes'

const Count = t.Integer({ minimum: 0 })

export const AbandonmentDay = t.Object({
  /** A calendar day in the organization's time zone (YYYY-MM-DD). */
  date: t.String({ format: 'date' }),
  answered_by_person: Count,
  abandoned: Count,
})

export const AbandonmentReport = t.Object({
  campaign_id: Uuid,
  days: t.Integer({ minimum: 1, maximum: 90 }),
  /** Live calls a person answered in the window (by answer time). */
  answered_by_person: Count,
  /** Of those, the ones no representative reached within 2 s of the answer. */
  abandoned: Count,
  /** abandoned / answered_by_person to 4 decimals; 0 when nobody answered. */
  rate: t.Number({ minimum: 0, maximum: 1 }),
  /** Every day of the window, oldest first. */
  by_day: t.Array(AbandonmentDay),
  /** The abandoned calls' ids, newest first, at most 1,000. */
  abandoned_call_ids: t.Array(Uuid),
})
export type AbandonmentReport = Static<typeof AbandonmentReport>
