import { t } from 'elysia'
import { DateTime, strict, Uuid } from '../shared'

// The reply shapes the domain builds live with it (one model each; see docs/architecture.md).
export { Call } from '../../domain/calls/call-shape'
export { CallNowReply } from '../../domain/leads/lead-shape'

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

export const RecordingLink = t.Object({ url: t.String({ format: 'uri' }), expires_at: DateTime, livemode: t.Boolean() })

export const Transcript = t.Object({
  call_id: Uuid,
  lines: t.Array(t.Object({ speaker: t.Union([t.Literal('ai'), t.Literal('lead'), t.Literal('agent')]), name: t.String(), text: t.String(), at: DateTime })),
  livemode: t.Boolean(),
})
