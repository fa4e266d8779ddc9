import type { TObject } from '@sinclair/typebox'
import { t } from 'elysia'
import type { EventType } from '../../domain/events/event-types'
import { DateTime } from '../shared'

/** The envelope of every event, as GET /events lists it and a webhook receives it (spec "Events"). */
export const Event = t.Object({
  id: t.String({ pattern: '^evt_', description: 'unique; a receiver skips an id it has already handled' }),
  type: t.String(),
  created: DateTime,
  livemode: t.Boolean(),
  api_version: t.String({ description: 'a date, YYYY-MM-DD' }),
  data: t.Object({ object: t.Object({}, { additionalProperties: true }) }),
  sample: t.Optional(t.Literal(true, { description: "present (true) only on a 'Send test event' sample" })),
})

/** A lead inside an event (the domain builds it: src/domain/leads/lead-shape.ts). */
export { EventLead } from '../../domain/leads/lead-shape'

const Offered = t.Object({ id: t.String(), name: t.String(), role: t.Union([t.Literal('sdr'), t.Literal('closer')]) })

/**
 * Each event type's `data.object` (spec "Events", Types): the lead (EventLead) or the call
 * (Call) as the API returns it, plus the event's own fields (`extra`).
 */
export const eventObjects: Record<EventType, { object: 'lead' | 'call'; extra?: TObject }> = {
  'lead.created': { object: 'lead' },
  'lead.queued': { object: 'lead' },
  'lead.interested': {
    object: 'call',
    extra: t.Object({
      intent: t.Object({
        at: DateTime,
        excerpt: t.String({ description: 'what the lead said' }),
        confidence: t.Number(),
        offered_to: t.Array(Offered, { description: 'ready SDRs first, else closers' }),
      }),
    }),
  },
  'lead.opted_out': {
    object: 'lead',
    extra: t.Object({
      opt_out: t.Object({
        source: t.Union([t.Literal('api'), t.Literal('ai'), t.Literal('outcome'), t.Literal('manual'), t.Literal('bulk'), t.Literal('sms')]),
        at: DateTime,
      }),
    }),
  },
  'lead.late': { object: 'lead' },
  'call.started': { object: 'call' },
  'call.answered': { object: 'call', extra: t.Object({ answered_by: t.Union([t.Literal('person'), t.Literal('machine'), t.Literal('unknown')]) }) },
  'call.completed': {
    object: 'call',
    extra: t.Object({
      revision: t.Integer({ minimum: 1, description: '1, then 2, 3... when the outcome is corrected' }),
      recording_path: t.Nullable(t.String({ description: 'GET it for a 5-minute recording link' })),
      transcript_path: t.Nullable(t.String()),
    }),
  },
  'handover.accepted': { object: 'call' },
  'voicemail.left': { object: 'call' },
  'callback.booked': {
    object: 'lead',
    extra: t.Object({ callback: t.Object({ at: DateTime, timezone: t.String({ description: "the lead's time zone name" }) }) }),
  },
  'call.supervised': {
    object: 'call',
    extra: t.Object({
      supervision: t.Object({
        mode: t.Union([t.Literal('listen'), t.Literal('whisper'), t.Literal('barge')]),
        phone: t.String({ description: 'the supervisor\'s phone (E.164) called into the conference' }),
        at: DateTime,
      }),
    }),
  },
}

/** What sends each event type (spec "Events", Types: Sent when). */
export const eventSummaries: Record<EventType, string> = {
  'lead.created': 'A lead was added through POST /leads (or Add Lead in the app).',
  'lead.queued': 'Right after lead.created, or when POST /leads re-queued an existing lead; `status` is queued, scheduled or held.',
  'lead.interested': 'The AI detected buying intent during the call (`intent`).',
  'lead.opted_out': 'The lead\u2019s number went on the Do Not Call list (`opt_out`); one event per lead of the organization with that number.',
  'lead.late': 'A call_now lead still waits after the campaign\u2019s late minutes; it is still called (`late` true).',
  'call.started': 'A call to the lead started dialing.',
  'call.answered': 'The far end picked up (`answered_by`).',
  'call.completed': 'The outcome is final; an outcome correction resends it with the same id, a newer `updated` and the next `revision`.',
  'handover.accepted': 'A person took the call; `handled_by` names them, `tth_seconds` is the time from intent.',
  'voicemail.left': 'A voicemail was delivered (confirmed after the call).',
  'callback.booked': 'A callback time was booked (`callback`).',
  'call.supervised': 'A supervisor was called into the live call (`supervision.mode`: listen, whisper or barge); admin API or console.',
}
