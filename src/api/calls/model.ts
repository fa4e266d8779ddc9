import { t } from 'elysia'
import { DateTime, strict, Uuid } from '../shared'

const Person = t.Object({ id: t.String(), name: t.String() })

export const Call = t.Object({
  id: Uuid,
  object: t.Literal('call'),
  livemode: t.Boolean(),
  lead: t.Nullable(t.Object({ id: Uuid, external_id: t.Nullable(t.String()), name: t.Nullable(t.String()), phone: t.Nullable(t.String()) })),
  campaign_id: t.Nullable(Uuid),
  direction: t.Union([t.Literal('outbound'), t.Literal('inbound')]),
  status: t.Union([t.Literal('ringing'), t.Literal('in_progress'), t.Literal('ended')]),
  outcome: t.Nullable(t.String()),
  outcome_label: t.Nullable(t.String()),
  note: t.Nullable(t.String()),
  duration_seconds: t.Nullable(t.Integer()),
  started: DateTime,
  answered: t.Nullable(DateTime),
  ended: t.Nullable(DateTime),
  updated: DateTime,
  handled_by: t.Object({ id: t.Nullable(t.String()), name: t.String(), role: t.Union([t.Literal('sdr'), t.Literal('closer'), t.Literal('ai')]) }),
  owner: t.Nullable(Person),
  tth_seconds: t.Nullable(t.Number()),
  callback_at: t.Nullable(DateTime),
  recording_available: t.Boolean(),
  transcript_available: t.Boolean(),
  started_by: t.Object({ type: t.Union([t.Literal('dialer'), t.Literal('api'), t.Literal('person')]), api_key_id: t.Nullable(t.String()) }),
})

export const OutcomeQuery = t.Union(
  [
    t.Literal('interested'), t.Literal('not_interested'), t.Literal('callback'), t.Literal('voicemail'), t.Literal('no_answer'),
    t.Literal('busy'), t.Literal('failed'), t.Literal('dnc'), t.Literal('wrong_number'), t.Literal('hung_up'), t.Literal('screened'),
    t.Literal('language_barrier'), t.Literal('not_qualified'), t.Literal('undetermined'), t.Literal('other'),
  ],
  { 'x-param': 'outcome' },
)

export const CallNowBody = t.Object(
  {
    lead_id: t.Optional(Uuid),
    external_id: t.Optional(t.String({ minLength: 1, maxLength: 200 })),
    campaign_id: t.Optional(Uuid),
  },
  strict,
)

export const CallNowReply = t.Object({
  lead_id: Uuid,
  external_id: t.Nullable(t.String()),
  campaign_id: Uuid,
  status: t.Union([t.Literal('dialing'), t.Literal('queued'), t.Literal('scheduled'), t.Literal('held')]),
  place_in_line: t.Nullable(t.Integer()),
  estimated_wait_seconds: t.Nullable(t.Integer()),
  scheduled_for: t.Nullable(DateTime),
  scheduled_reason: t.Nullable(t.String()),
  held_reason: t.Nullable(t.String()),
  calls_left_today: t.Integer(),
  livemode: t.Boolean(),
})

export const RecordingLink = t.Object({ url: t.String({ format: 'uri' }), expires_at: DateTime, livemode: t.Boolean() })

export const Transcript = t.Object({
  call_id: Uuid,
  lines: t.Array(t.Object({ speaker: t.Union([t.Literal('ai'), t.Literal('lead'), t.Literal('agent')]), name: t.String(), text: t.String(), at: DateTime })),
  livemode: t.Boolean(),
})
