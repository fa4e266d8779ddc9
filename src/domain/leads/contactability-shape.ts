/**
 * The contactability reply (GET /leads/{id}/contactability): one TypeBox model, the
 * domain's type is its `Static` (lead-contactability.ts presents it), src/api/leads re-exports it.
 */
import { Type as t, type Static } from '@sinclair/typebox'
import { DateTime, Nullable, Uuid } from '../shapes'


const HHMM = t.String({ pattern: '^([01]\\d|2[0-3]):[0-5]\\d$|^24:00$', examples: ['08:00'] })

/** One calling rule that applies to the lead (src/domain/calling-rules/contract.ts RuleView). */
export const CallingRule = t.Object({
  id: t.String({ description: 'stable id, e.g. US-hours, FL-hours, FL-cap, AL-sunday, campaign-hours', examples: ['FL-cap'] }),
  kind: t.Union([t.Literal('hours'), t.Literal('day'), t.Literal('holiday'), t.Literal('cap'), t.Literal('automated'), t.Literal('recording')]),
  state: Nullable(t.String({ description: 'two-letter state or province; null for a national rule or the campaign window', examples: ['FL'] })),
  source: t.String({ description: 'statute or regulation', examples: ['Fla. Stat. 501.616(6)'] }),
  effective: Nullable(t.String({ format: 'date', description: 'when the rule took effect, when known' })),
  hours: t.Optional(t.Array(t.Object({
    start: HHMM,
    end: HHMM,
    days: t.Optional(t.Union([t.Literal('weekdays'), t.Literal('weekends'), t.Literal('all')])),
    weekdays: t.Optional(t.Array(t.Integer({ minimum: 0, maximum: 6 }), { description: 'the weekdays this window is for, 0 = Sunday' })),
  }), { description: 'kind hours: the local window(s)' })),
  timezone: t.Optional(t.String({ description: 'the fixed zone the hours are read in, for a statute that names one (Mississippi: Central Standard Time all year); absent: every zone of the lead', examples: ['Etc/GMT+6'] })),
  holiday_hours: t.Optional(t.Object({ start: HHMM, end: HHMM }, { description: "kind automated: the window on the state's holidays (within the weekday's)" })),
  days: t.Optional(t.Array(t.Integer({ minimum: 0, maximum: 6 }), { description: 'kind day: barred weekdays, 0 = Sunday' })),
  holidays: t.Optional(t.Array(t.String(), { description: 'kind holiday (or automated with holiday_hours): the holidays meant' })),
  max: t.Optional(t.Integer({ minimum: 0, description: 'kind cap (or automated): at most this many calls' })),
  period_hours: t.Optional(t.Integer({ minimum: 1, description: 'kind cap (or automated): per this many rolling hours' })),
  note: t.Optional(t.String({ description: 'where sources disagree: what was taken (the stricter) and why' })),
})

const Reason = t.Union([t.Literal('outside_calling_hours'), t.Literal('recent_contact_cooldown'), t.Literal('national_registry'), t.Literal('state_registry')])

/** The lead's consent as received, with when it was stored and the SHA-256 of its text (else url). */
export const ConsentEvidence = t.Object({
  source: t.String(),
  agreed_at: t.String(),
  text: t.Optional(t.String()),
  url: t.Optional(t.String()),
  ip: t.Optional(t.String()),
  recorded_at: Nullable(DateTime, { description: 'when the service stored this consent; null if stored before evidence was kept' }),
  evidence_sha256: Nullable(t.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (hex) of text, or of url when there is no text' })),
})

/** GET /leads/{id}/contactability. */
export const Contactability = t.Object({
  lead_id: Uuid,
  allowed_now: t.Boolean({ description: 'every applicable rule allows a call now, in every zone of the lead' }),
  next_allowed_at: Nullable(DateTime, { description: 'now when allowed; else the earliest instant every rule allows, or null if none within 14 days' }),
  states: t.Array(t.String({ examples: ['FL'] }), { description: 'two-letter codes: the area code\u2019s state and the address\u2019s, if any' }),
  zones: t.Array(t.String({ examples: ['America/New_York'] }), { description: 'IANA time zones the lead may be in' }),
  calls_last_24h: t.Integer({ minimum: 0, description: 'calls to this number in the last 24 hours: any campaign and source, this mode' }),
  rules: t.Array(CallingRule, { description: 'the rules that apply: campaign window first, then federal, then state' }),
  blocked_by: t.Array(t.Object({
    rule_id: t.String(),
    reason: Reason,
    until: Nullable(DateTime, { description: 'when this rule alone stops blocking; null if not within 14 days (or never, for the registry)' }),
  })),
  decisions: t.Array(t.Object({
    at: DateTime,
    rule_id: Nullable(t.String({ description: 'the blocking rule; null for a call dialed' })),
    outcome: t.Union([t.Literal('dialed'), t.Literal('deferred')]),
    until: Nullable(DateTime),
    reason: t.Optional(t.Literal('exchange_unknown', {
      description: "a deferral caused only by the zones the lead may be in because its number's exchange is not listed for its split area code (every zone of the area code applies)",
    })),
  }), { description: 'the last 20 dial decisions for the lead, newest first' }),
  notes: t.Array(t.String({ examples: ['zip_unknown:00000'] }), { description: 'what was noticed about the lead and not applied, e.g. a ZIP in its address that does not exist (zip_unknown:NNNNN)' }),
  rules_version: t.String({ description: 'version of the calling-rules table' }),
  consent: Nullable(ConsentEvidence),
  livemode: t.Boolean(),
})
export type Contactability = Static<typeof Contactability>
export type ConsentEvidence = Static<typeof ConsentEvidence>
export type CallingRule = Static<typeof CallingRule>
