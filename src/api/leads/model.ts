import { t } from 'elysia'
import { MAX_CUSTOM_FIELDS } from '../../domain/leads/lead-input'
import { BatchResult, leadProperties, type Lead } from '../../domain/leads/lead-shape'
import { DateTime, strict, Uuid } from '../shared'

// The reply shapes the domain builds live with it (one model each; see docs/architecture.md).
export { IntakeReply, Lead, LeadStatus, OptedOutLead } from '../../domain/leads/lead-shape'

// Spec "Limits" field lengths.
export const Consent = t.Object(
  {
    source: t.String({ minLength: 1, maxLength: 100, description: 'where the lead agreed, e.g. web_form, crm, purchased_list', examples: ['web_form'] }),
    agreed_at: t.String({ format: 'date-time', examples: ['2026-11-01T15:04:05Z'] }),
    text: t.Optional(t.String({ maxLength: 5000, description: 'the words agreed to (text or url is required)', examples: ['I agree to be called about my quote.'] })),
    url: t.Optional(t.String({ format: 'uri', maxLength: 2048, description: 'the page agreed on (text or url is required)' })),
    ip: t.Optional(t.String({ maxLength: 45 })),
  },
  strict,
)

export const CustomFields = t.Record(t.String(), t.String({ maxLength: 1000 }), {
  maxProperties: MAX_CUSTOM_FIELDS,
  description: `custom fields: string keys (1 to 100 characters) and values, at most ${MAX_CUSTOM_FIELDS}`,
})

/** A lead's own fields, as POST /leads takes them (without campaign_id and dry_run). */
export const leadFields = {
  external_id: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'your own ID for the lead; unique per campaign', examples: ['crm-10442'] })),
  phone: t.String({ minLength: 1, maxLength: 32, description: 'US or Canadian number, any common format; +1 and 10 digits preferred', examples: ['+14155550123'] }),
  name: t.Optional(t.String({ maxLength: 200, examples: ['Dana Whitfield'] })),
  email: t.Optional(t.String({ maxLength: 254, examples: ['dana@example.com'] })),
  address: t.Optional(t.String({ maxLength: 500, examples: ['12 Elm St, Springfield, IL'] })),
  fields: t.Optional(CustomFields),
  consent: t.Optional(Consent),
  call_now: t.Optional(t.Boolean({ description: "dial ahead of the campaign's other leads; defaults to the campaign's setting" })),
}

export const CreateLeadBody = t.Object(
  { campaign_id: Uuid, ...leadFields, dry_run: t.Optional(t.Boolean({ description: 'run every check, answer, store nothing' })) },
  strict,
)

/** One item of POST /leads/batch; checked item by item so a bad item fails alone. */
export const BatchLeadItem = t.Object({ campaign_id: t.Optional(Uuid), ...leadFields }, strict)

export const BatchBody = t.Object(
  {
    campaign_id: t.Optional(Uuid),
    dry_run: t.Optional(t.Boolean()),
    leads: t.Array(t.Unknown({ description: 'a lead: the fields of POST /leads (campaign_id optional when given once for the batch)' }), {
      maxItems: 60,
    }),
  },
  strict,
)

/** The older campaign path: no campaign_id (it is in the path), `customFields` merged into `fields`. */
export const LegacyLeadItem = t.Object({ ...leadFields, customFields: t.Optional(CustomFields) }, strict)
export const LegacyCreateBody = t.Object({ ...leadFields, customFields: t.Optional(CustomFields), dry_run: t.Optional(t.Boolean()) }, strict)
export const LegacyBatchBody = t.Object(
  { dry_run: t.Optional(t.Boolean()), leads: t.Array(t.Unknown({ description: 'a lead, as POST /campaigns/{id}/leads' }), { maxItems: 60 }) },
  strict,
)

export const PatchLeadBody = t.Object(
  {
    name: t.Optional(t.Nullable(t.String({ maxLength: 200 }))),
    email: t.Optional(t.Nullable(t.String({ maxLength: 254 }))),
    address: t.Optional(t.Nullable(t.String({ maxLength: 500 }))),
    fields: t.Optional(t.Record(t.String(), t.String({ maxLength: 1000 }), { description: 'merged; a key sent as an empty string is removed' })),
    consent: t.Optional(Consent),
    external_id: t.Optional(t.String({ minLength: 1, maxLength: 200, description: 'only while the lead has none' })),
    call_now: t.Optional(t.Boolean({ description: 'only false: drops the speed-to-lead priority' })),
    phone: t.Optional(t.Unknown({ description: 'cannot be changed (422 phone_cannot_change)' })),
  },
  strict,
)

export const OptOutBody = t.Optional(t.Object({ reason: t.Optional(t.String({ maxLength: 500 })) }, strict))

/** GET /campaigns/{id}/leads: the older shape, camelCase for five fields, the rest as Lead. */
const { external_id: _e, campaign_id: _c, fields: _f, created: _cr, updated: _u, ...rest } = leadProperties
export const LegacyLead = t.Object({
  ...rest,
  externalId: t.Nullable(t.String()),
  campaignId: Uuid,
  customFields: t.Record(t.String(), t.String()),
  createdAt: DateTime,
  updatedAt: DateTime,
})

export function legacyLead(view: Lead) {
  const { external_id, campaign_id, fields, created, updated, ...others } = view
  return { ...others, externalId: external_id, campaignId: campaign_id, customFields: fields, createdAt: created, updatedAt: updated }
}

export const BatchReply = t.Object({
  succeeded: t.Integer(),
  failed: t.Integer(),
  dry_run: t.Boolean(),
  results: t.Array(BatchResult),
  livemode: t.Boolean(),
})
