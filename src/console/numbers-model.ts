/** The Numbers page's replies (console contract, as model.ts): the organization's carriers and each caller ID's health. */
import { Type as t, type Static } from '@sinclair/typebox'
import { NumberHealthShape } from '../domain/caller-ids/health-shape'
import { Nullable } from '../domain/shapes'

/** A carrier as the page shows it: never a secret, only whether each is set. */
export const NumbersCarrier = t.Object({
  kind: t.String(),
  /** null: the organization's one carrier; 1-100: its share in a pool. */
  weight: Nullable(t.Integer()),
  caller_ids: t.Array(t.String()),
  /** The kind's other settings as the admin read shows them (scalars only). */
  settings: t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean(), t.Null()])),
  /** The names of its write-only fields that are set (`auth_token`, `api_key`). */
  secrets_set: t.Array(t.String()),
})
export type NumbersCarrier = Static<typeof NumbersCarrier>

export const NumbersPage = t.Object({
  carriers: t.Array(NumbersCarrier),
  numbers: t.Array(NumberHealthShape),
  /** Days a number far below its baseline is rested (0: never, only shown). */
  rest_days: t.Integer(),
})
export type NumbersPage = Static<typeof NumbersPage>
export type NumberHealth = Static<typeof NumberHealthShape>
export const NumbersReply = t.Object({ data: NumbersPage })
export const NumberReply = t.Object({ data: NumberHealthShape })
