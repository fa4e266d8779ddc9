/**
 * The lead's reply shapes (spec "Lead", "POST /leads", "POST /calls"), one TypeBox model each:
 * the domain's types are their `Static`, src/api/leads/model.ts and src/api/calls/model.ts
 * re-export them for validation and the OpenAPI document. Presented by lead-view.ts (the Lead
 * object) and intake.ts (the intake reply). Property order is reply order.
 */
import { Type as t, type Static } from '@sinclair/typebox'
import { DateTime, Nullable, Person, Uuid } from '../shapes'

// Literals written out: t.UnionEnum would give the query parameter a default ('new').
export const LeadStatus = t.Union(
  [
    t.Literal('new'), t.Literal('queued'), t.Literal('scheduled'), t.Literal('held'), t.Literal('dialing'),
    t.Literal('on_call'), t.Literal('callback_scheduled'), t.Literal('done'), t.Literal('out_of_queue'),
  ],
  { 'x-param': 'status' },
)

export const LeadCallSummary = t.Object({
  id: t.String(),
  started: DateTime,
  outcome: Nullable(t.String()),
  outcome_label: Nullable(t.String()),
  duration_seconds: Nullable(t.Integer()),
})
export type LeadCallSummary = Static<typeof LeadCallSummary>

/** Where a lead stands in line: in the Lead object, the intake reply and the call-now reply. */
const queuePosition = {
  place_in_line: Nullable(t.Integer()),
  estimated_wait_seconds: Nullable(t.Integer()),
  scheduled_for: Nullable(DateTime),
  scheduled_reason: Nullable(t.String()),
  held_reason: Nullable(t.String()),
}
const QueuePosition = t.Object(queuePosition)
export type QueuePosition = Static<typeof QueuePosition>

/** The Lead object's fields, for the API's variants of it (src/api/leads/model.ts). */
export const leadProperties = {
  id: Uuid,
  external_id: Nullable(t.String()),
  campaign_id: Uuid,
  name: Nullable(t.String()),
  phone: t.String(),
  email: Nullable(t.String()),
  address: Nullable(t.String()),
  fields: t.Record(t.String(), t.String()),
  consent: Nullable(t.Object({}, { additionalProperties: true })),
  lead_source: Nullable(t.String()),
  owner: Nullable(Person),
  created: DateTime,
  updated: DateTime,
  status: LeadStatus,
  call_now: t.Boolean(),
  ...queuePosition,
  callback_at: Nullable(DateTime),
  late: t.Boolean(),
  attempts: t.Integer(),
  last_outcome: Nullable(t.String()),
  last_outcome_label: Nullable(t.String()),
  next_dial_at: Nullable(DateTime),
  calls: t.Array(LeadCallSummary),
  livemode: t.Boolean(),
}

/** As GET /leads/{id} and the lists return it. */
export const Lead = t.Object(leadProperties)
export type Lead = Static<typeof Lead>

/** POST /leads/{id}/opt_out. */
export const OptedOutLead = t.Object({ ...leadProperties, call_in_progress: t.Boolean() })
export type OptedOutLead = Static<typeof OptedOutLead>

/** A lead inside an event: as GET /leads/{id} returns it, without `livemode` in a live event. */
export const EventLead = t.Composite([t.Omit(Lead, ['livemode']), t.Object({ livemode: t.Optional(t.Literal(false)) })], {
  description: '`place_in_line` and `estimated_wait_seconds` are null in lead events; `livemode` is present (false) only in test events',
})
export type EventLead = Static<typeof EventLead>

const IntakeStatus = t.Union([t.Literal('dialing'), t.Literal('queued'), t.Literal('scheduled'), t.Literal('held')])

/** POST /leads, and each accepted lead of POST /leads/batch. */
export const IntakeReply = t.Object({
  id: Nullable(Uuid),
  external_id: Nullable(t.String()),
  status: IntakeStatus,
  call_now: t.Boolean(),
  ...queuePosition,
  dry_run: t.Boolean(),
  requeued: t.Optional(t.Literal(true)),
  livemode: t.Boolean(),
})
export type IntakeReply = Static<typeof IntakeReply>

/** One result of POST /leads/batch, in the order sent. */
export const BatchResult = t.Union([
  t.Object({ index: t.Integer(), ok: t.Literal(true), lead: IntakeReply }),
  t.Object({
    index: t.Integer(),
    ok: t.Literal(false),
    error: t.Object({ code: t.String(), message: t.String(), param: Nullable(t.String()), lead_id: Nullable(t.String()) }),
  }),
])
export type BatchResult = Static<typeof BatchResult>

/** POST /calls (202): the lead at the front of its queue. */
export const CallNowReply = t.Object({
  lead_id: Uuid,
  external_id: Nullable(t.String()),
  campaign_id: Uuid,
  status: IntakeStatus,
  ...queuePosition,
  calls_left_today: t.Integer(),
  livemode: t.Boolean(),
})
export type CallNowReply = Static<typeof CallNowReply>
