/**
 * The Call object (spec "Call"), one TypeBox model: the domain's `Call` type is its `Static`,
 * src/api/calls/model.ts re-exports it for validation and the OpenAPI document. Presented by
 * call-view.ts. Property order is reply order.
 */
import { Type as t, type Static } from '@sinclair/typebox'
import { DateTime, Nullable, Person, Uuid } from '../shapes'

export const Call = t.Object({
  id: Uuid,
  object: t.Literal('call'),
  livemode: t.Boolean(),
  lead: Nullable(t.Object({ id: Uuid, external_id: Nullable(t.String()), name: Nullable(t.String()), phone: Nullable(t.String()) })),
  campaign_id: Nullable(Uuid),
  direction: t.Union([t.Literal('outbound'), t.Literal('inbound')]),
  status: t.Union([t.Literal('ringing'), t.Literal('in_progress'), t.Literal('ended')]),
  outcome: Nullable(t.String()),
  outcome_label: Nullable(t.String()),
  note: Nullable(t.String()),
  duration_seconds: Nullable(t.Integer()),
  started: DateTime,
  answered: Nullable(DateTime),
  ended: Nullable(DateTime),
  updated: DateTime,
  handled_by: t.Object({ id: Nullable(t.String()), name: t.String(), role: t.Union([t.Literal('sdr'), t.Literal('closer'), t.Literal('ai')]) }),
  owner: Nullable(Person),
  tth_seconds: Nullable(t.Number()),
  callback_at: Nullable(DateTime),
  recording_available: t.Boolean(),
  transcript_available: t.Boolean(),
  started_by: t.Object({ type: t.Union([t.Literal('dialer'), t.Literal('api'), t.Literal('person')]), api_key_id: Nullable(t.String()) }),
})
export type Call = Static<typeof Call>

/**
 * Where a state of the lead requires every party's consent to record: which states, when the
 * notice finished playing (recording started from then; null until it has), and how it was given.
 */
export const RecordingConsentShape = t.Object({
  required_by: t.Array(t.String()),
  announced_at: Nullable(DateTime),
  method: t.Union([t.Literal('say'), t.Literal('audio_url')]),
})

/** The operator's read of a call (GET /api/v1/admin/calls/{id}): the Call object, then fields only the operator sees. */
export const AdminCall = t.Composite([
  Call,
  t.Object({
    org_id: Uuid,
    /** The carrier that placed the call (simulator, twilio). */
    carrier: t.String(),
    /** Null where no state of the lead asked for all-party consent, or the organization does not record. */
    recording_consent: Nullable(RecordingConsentShape),
    /** The abandonment ledger (issue 28): the carrier's answer of a call a person answered, */
    answered_at: Nullable(DateTime),
    /** when a representative (or the AI seat) was connected, */
    connected_at: Nullable(DateTime),
    /** and whether the person waited more than 2 s for one (null: no person answered, or not decided yet). */
    abandoned: Nullable(t.Boolean()),
    /** The call was put on the campaign's AI seat (its agent's stream started). */
    ai_seated: t.Boolean(),
    /** ms from the seat's stream start to the agent's first audio (null: no audio came, or no seat). */
    ai_first_audio_ms: Nullable(t.Integer()),
    /** A built-in agent's instructions as rendered for this call (null: no built-in agent). */
    ai_instructions: Nullable(t.String()),
    /** The model's usage on the call as OpenAI reported it, summed over its responses (null: no built-in agent ran). */
    ai_usage: Nullable(t.Object({
      input_tokens: t.Integer(), output_tokens: t.Integer(), input_text_tokens: t.Integer(), input_audio_tokens: t.Integer(),
      input_cached_tokens: t.Integer(), output_text_tokens: t.Integer(), output_audio_tokens: t.Integer(),
    })),
    /** The AI seat's time on the call rounded up to the minute (null: never seated). */
    ai_minutes: Nullable(t.Integer()),
  }),
])
export type AdminCall = Static<typeof AdminCall>
