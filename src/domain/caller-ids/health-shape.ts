import { Type as t, type Static } from '@sinclair/typebox'
import { DateTime, Nullable, Uuid } from '../shapes'

/** A number's figures over its window (health-rule.ts `figuresOf`): rates are shares of counted calls, null with none. */
export const FiguresShape = t.Object({
  calls: t.Integer(),
  answered: t.Integer(),
  answer_rate: Nullable(t.Number()),
  person_answered: t.Integer(),
  person_answer_rate: Nullable(t.Number()),
  median_talk_seconds: Nullable(t.Number()),
  declined: t.Integer(),
  decline_rate: Nullable(t.Number()),
  /** STIR/SHAKEN levels the carrier reported; not_reported where it gave none (Twilio's outbound calls, the simulator). */
  attestation: t.Object({ A: t.Integer(), B: t.Integer(), C: t.Integer(), not_reported: t.Integer() }),
})

const verdictFields = {
  campaign_id: Uuid,
  rule: t.Union([t.Literal('answer_rate'), t.Literal('declines')]),
  number: FiguresShape,
  baseline: FiguresShape,
  detail: t.String(),
}
export const VerdictShape = t.Object(verdictFields)
export const RestEvidenceShape = t.Object({ ...verdictFields, rested_at: DateTime, rest_days: t.Integer() })

/** One caller ID on the console's Numbers page. */
export const NumberHealthShape = t.Object({
  caller_id: t.String(),
  carriers: t.Array(t.String()),
  figures: FiguresShape,
  status: t.Union([t.Literal('in_use'), t.Literal('rested')]),
  rested_until: Nullable(DateTime),
  evidence: Nullable(RestEvidenceShape),
  far_below: Nullable(VerdictShape),
  window_start: DateTime,
})
export type NumberHealthShape = Static<typeof NumberHealthShape>
