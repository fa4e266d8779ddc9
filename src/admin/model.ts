import { t } from 'elysia'
import type { CampaignRow, RetiredNumberRow } from '../db/stores/campaign-store'
import type { ApiKeyRow } from '../db/stores/key-store'
import type { UserRow } from '../db/stores/console-store'
import type { OrgRow } from '../db/stores/org-store'
import type { CarrierView } from '../domain/orgs/carrier-settings'
import { iso, isoOrNull } from '../jobs/clock'
import { strict } from '../api/shared'
import { carrierInputSchema } from '../telephony/registry'

// Admin limits go up to 100000 (DESIGN.md "Contract details").
const rate = (min = 1) => t.Integer({ minimum: min, maximum: 100_000 })
const Name = t.String({ minLength: 1, maxLength: 200 })
// `phone` (E.164) is where a live carrier's bridge rings the person.
const PersonInput = t.Object(
  { id: t.Optional(t.String()), name: t.String({ minLength: 1, maxLength: 200 }), phone: t.Optional(t.String({ minLength: 1, maxLength: 32 })) },
  strict,
)

// The organization's carrier for live calls: each kind's fields from its settings schema
// (src/telephony/registry.ts); each kind's settings rules check the formats.
const CarrierInput = carrierInputSchema(strict)
// A pool instead (docs/api.md "Carrier pools"): each entry one carrier's fields and its weight;
// the domain checks kinds (one each, not the default) and each entry by its kind's rules.
const PoolEntryInput = t.Object({ ...CarrierInput.properties, weight: t.Integer({ minimum: 1, maximum: 100, description: "the entry's share of dials" }) }, strict)
const CarriersInput = t.Array(PoolEntryInput, { maxItems: 4, description: 'a pool of 1-4 carriers, one per kind, in failover order; [] goes back to the default carrier' })

// What a campaign drops on an answering machine: an audio file the carrier plays, or text it says.
const VoicemailInput = t.Nullable(
  t.Union([
    t.Object({ audio_url: t.String({ minLength: 1, maxLength: 2000 }) }, strict),
    t.Object({ say: t.String({ minLength: 1, maxLength: 1000 }) }, strict),
  ]),
)

// bridge (default): people rung after the answer; power: a waiting seat first; predictive: paced lines per seat (docs/telephony.md).
const DialMode = t.Union([t.Literal('bridge'), t.Literal('power'), t.Literal('predictive')])
// Played within 2 s to a person no representative can take: exactly one of say (1-500) or an https audio_url.
const AbandonMessageInput = t.Nullable(
  t.Union([
    t.Object({ say: t.String({ minLength: 1, maxLength: 500 }) }, strict),
    t.Object({ audio_url: t.String({ minLength: 1, maxLength: 2000 }) }, strict),
  ]),
)

// The AI seat (docs/agents.md): the call's audio relayed to `url` in Twilio's Media Streams
// protocol after the disclosure, or the service's own agent on OpenAI's Realtime API; the rules
// (wss, loopback ws, dialer_ names, placeholders, consent) are the domain's. One flat union with
// null, so a field's error names the field inside the member its `kind` picks (http/errors.ts).
const Disclosure = t.Union([
  t.Object({ say: t.String({ minLength: 1, maxLength: 1000 }) }, strict),
  t.Object({ audio_url: t.String({ minLength: 1, maxLength: 2000 }) }, strict),
])
const FirstAudioMs = t.Optional(t.Integer({ minimum: 500, maximum: 5000, description: "the agent's first audio is due this long after the stream starts (default 2000)" }))
const StreamAgentInput = t.Object(
  {
    kind: t.Optional(t.Literal('stream')),
    url: t.String({ minLength: 1, maxLength: 2000, description: 'wss:// (ws:// only to a loopback address)' }),
    parameters: t.Optional(t.Record(t.String({ minLength: 1, maxLength: 100 }), t.String({ maxLength: 1000 }), { description: 'at most 20, sent in start.customParameters; no name starts with dialer_' })),
    first_audio_ms: FirstAudioMs,
    disclosure: Disclosure,
  },
  strict,
)
const RealtimeAgentInput = t.Object(
  {
    kind: t.Literal('openai_realtime'),
    model: t.String({ minLength: 1, maxLength: 200, description: 'passed to OpenAI as given' }),
    voice: t.String({ minLength: 1, maxLength: 200, description: 'passed to OpenAI as given' }),
    instructions: t.String({ minLength: 1, maxLength: 20_000, description: 'the prompt, a template: {{lead.name}}, {{lead.phone}}, {{lead.email}}, {{lead.fields.<key>}}, {{campaign.name}}, {{org.name}}' }),
    first_audio_ms: FirstAudioMs,
    disclosure: Disclosure,
    api_key: t.Optional(t.String({ minLength: 1, maxLength: 1000, writeOnly: true, description: 'write-only, sealed at rest; required on create, kept when a change leaves it out; reads show api_key_set' })),
    base_url: t.Optional(t.String({ minLength: 1, maxLength: 2000, description: 'the Realtime endpoint (default wss://api.openai.com/v1/realtime; ws:// only to a loopback address); the model is added as ?model=' })),
  },
  strict,
)
const AiAgentInput = t.Union([StreamAgentInput, RealtimeAgentInput, t.Null()])

// USD per million tokens of one model (GET /usage's AI cost); null clears the organization's prices.
const Price = t.Number({ minimum: 0, maximum: 100_000 })
const AiPricesInput = t.Nullable(
  t.Record(
    t.String({ minLength: 1, maxLength: 200 }),
    t.Object({ input_text: Price, input_audio: Price, input_cached: Price, output_text: Price, output_audio: Price }, strict),
    { description: 'USD per million tokens by model name' },
  ),
)

const orgFields = {
  name: Name,
  timezone: t.String({ minLength: 1, maxLength: 64 }),
  rate_usd_per_minute: t.Number({ minimum: 0, maximum: 100 }),
  plan_requests_per_minute: rate(120),
  recording_enabled: t.Boolean(),
  webhook_endpoint_limit: t.Integer({ minimum: 0, maximum: 1000 }),
  outcome_labels: t.Record(t.String({ maxLength: 100 }), t.String()),
  carrier: CarrierInput,
  carriers: CarriersInput,
  recording_retention_days: t.Integer({ minimum: 1, maximum: 3650 }),
  caller_id_rest_days: t.Integer({ minimum: 0, maximum: 90, description: 'days a caller ID far below its baseline is rested (default 7; 0: never rested, only shown)' }),
  ai_prices: AiPricesInput,
}

export const CreateOrgBody = t.Composite([t.Object({ name: Name }), t.Partial(t.Omit(t.Object(orgFields), ['name']))], strict)
export const PatchOrgBody = t.Partial(t.Object(orgFields), strict)

const keyFields = {
  name: Name,
  permissions: t.Array(t.String(), { maxItems: 50 }),
  campaign_ids: t.Nullable(t.Array(t.String(), { maxItems: 1000 })),
  max_concurrent: t.Integer({ minimum: 1, maximum: 50 }),
  requests_per_minute: rate(),
  burst: rate(),
  leads_per_minute: rate(),
  expires_at: t.Nullable(t.String({ format: 'date-time' })),
}

export const CreateKeyBody = t.Object(
  {
    name: keyFields.name,
    mode: t.Union([t.Literal('live'), t.Literal('test')]),
    permissions: t.Optional(keyFields.permissions),
    campaign_ids: t.Optional(keyFields.campaign_ids),
    max_concurrent: t.Optional(keyFields.max_concurrent),
    requests_per_minute: t.Optional(keyFields.requests_per_minute),
    burst: t.Optional(keyFields.burst),
    leads_per_minute: t.Optional(keyFields.leads_per_minute),
    expires_at: t.Optional(keyFields.expires_at),
  },
  strict,
)
export const PatchKeyBody = t.Partial(t.Object({ ...keyFields, disabled: t.Boolean() }), strict)

const campaignFields = {
  name: Name,
  status: t.Union([t.Literal('draft'), t.Literal('active'), t.Literal('paused'), t.Literal('completed')]),
  lines: t.Integer({ minimum: 1, maximum: 1000 }),
  sdrs: t.Array(PersonInput, { maxItems: 500 }),
  closers: t.Array(PersonInput, { maxItems: 500 }),
  requires_consent: t.Boolean(),
  call_now_default: t.Boolean(),
  late_minutes: t.Integer({ minimum: 1, maximum: 1440 }),
  calling_hours: t.Object({ start: t.String(), end: t.String() }, strict),
  max_attempts: t.Integer({ minimum: 1, maximum: 50 }),
  retry_minutes: t.Integer({ minimum: 1, maximum: 43_200 }),
  duplicate_window_hours: t.Integer({ minimum: 0, maximum: 8760 }),
  cooldown_hours: t.Integer({ minimum: 0, maximum: 8760 }),
  spend_cap_usd: t.Nullable(t.Number({ minimum: 0, maximum: 100_000_000 })),
  voicemail: VoicemailInput,
  // Played before recording where every party must consent: the same two forms as the voicemail.
  recording_notice: VoicemailInput,
  automated_voice: t.Boolean({ description: 'calls play a prerecorded message or an artificial (AI) voice: the automated-call rules apply (default false)' }),
  dial_mode: DialMode,
  max_abandon_rate: t.Number({ exclusiveMinimum: 0, maximum: 0.03, description: "the 30-day abandonment rate predictive pacing keeps at or under (default 0.03)" }),
  abandon_message: AbandonMessageInput,
  ai_agent: AiAgentInput,
}

export const CreateCampaignBody = t.Composite([t.Object({ name: Name }), t.Partial(t.Omit(t.Object(campaignFields), ['name']))], strict)
export const PatchCampaignBody = t.Partial(t.Object(campaignFields), strict)
/** An owner's change in the console: these fields, each under the same schema as here. */
export const CampaignSettingsBody = t.Partial(
  t.Object({ lines: campaignFields.lines, sdrs: campaignFields.sdrs, closers: campaignFields.closers, calling_hours: campaignFields.calling_hours, voicemail: campaignFields.voicemail,
    recording_notice: campaignFields.recording_notice, dial_mode: campaignFields.dial_mode, max_abandon_rate: campaignFields.max_abandon_rate,
    abandon_message: campaignFields.abandon_message }),
  strict,
)

export const RetireNumberBody = t.Object(
  { phone: t.String({ minLength: 1, maxLength: 32 }), livemode: t.Optional(t.Boolean()), reason: t.Optional(t.String({ maxLength: 500 })) },
  strict,
)

export const ClockBody = t.Object(
  { advance_seconds: t.Optional(t.Number({ minimum: 0, maximum: 400 * 86_400 })), now: t.Optional(t.String({ format: 'date-time' })) },
  strict,
)

export const adminListQuery = t.Object(
  { limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, 'x-param': 'limit' })), starting_after: t.Optional(t.String({ 'x-param': 'starting_after' })) },
  strict,
)

/** `carrier` for one carrier (or the default), `carriers` for a pool (each with its weight); never a secret. */
export const presentOrg = (o: OrgRow, carrier: { carrier: CarrierView } | { carriers: (CarrierView & { weight: number | null })[] }) => ({
  id: o.id,
  object: 'organization',
  name: o.name,
  timezone: o.timezone,
  rate_usd_per_minute: o.rateUsdPerMinute,
  plan_requests_per_minute: o.planRequestsPerMinute,
  recording_enabled: o.recordingEnabled,
  webhook_endpoint_limit: o.webhookEndpointLimit,
  outcome_labels: o.outcomeLabels,
  recording_retention_days: o.recordingRetentionDays,
  ai_prices: o.aiPrices ?? null,
  caller_id_rest_days: o.callerIdRestDays,
  ...carrier,
  created: iso(o.created),
  updated: iso(o.updated),
})

export const presentKey = (k: ApiKeyRow, secret?: string) => ({
  id: k.id,
  object: 'api_key' as const,
  org_id: k.orgId,
  name: k.name,
  mode: k.mode,
  livemode: k.mode === 'live',
  permissions: k.permissions,
  campaign_ids: k.campaignIds,
  max_concurrent: k.maxConcurrent,
  requests_per_minute: k.requestsPerMinute,
  burst: k.burst,
  leads_per_minute: k.leadsPerMinute,
  expires_at: isoOrNull(k.expiresAt),
  disabled: k.disabled,
  revoked_at: isoOrNull(k.revokedAt),
  created: iso(k.created),
  updated: iso(k.updated),
  ...(secret ? { secret } : {}),
})

export const presentAdminCampaign = (c: CampaignRow) => ({
  id: c.id,
  object: 'campaign',
  org_id: c.orgId,
  name: c.name,
  status: c.status,
  lines: c.lines,
  sdrs: c.sdrs,
  closers: c.closers,
  requires_consent: c.requiresConsent,
  call_now_default: c.callNowDefault,
  late_minutes: c.lateMinutes,
  calling_hours: { start: c.callingHoursStart, end: c.callingHoursEnd },
  max_attempts: c.maxAttempts,
  retry_minutes: c.retryMinutes,
  duplicate_window_hours: c.duplicateWindowHours,
  cooldown_hours: c.cooldownHours,
  spend_cap_usd: c.spendCapUsd,
  voicemail: c.voicemail,
  recording_notice: c.recordingNotice,
  automated_voice: c.automatedVoice,
  dial_mode: c.dialMode,
  max_abandon_rate: c.maxAbandonRate,
  abandon_message: c.abandonMessage,
  // Stored with its defaults filled (ai-agent-check.ts); a built-in agent's key only as set or not.
  ai_agent: c.aiAgent?.kind === 'openai_realtime' ? { ...c.aiAgent, api_key_set: c.aiAgentKey !== null } : c.aiAgent,
  created: iso(c.created),
  updated: iso(c.updated),
})

export const presentRetired = (r: RetiredNumberRow) => ({
  id: r.id,
  object: 'retired_number',
  campaign_id: r.campaignId,
  phone: r.phone,
  livemode: r.livemode,
  reason: r.reason,
  created: iso(r.created),
})

// ---- console accounts ----
const Role = t.Union([t.Literal('owner'), t.Literal('sdr')])
const Password = t.String({ minLength: 1, maxLength: 200 })

export const CreateUserBody = t.Object(
  { email: t.String({ minLength: 3, maxLength: 254 }), name: t.Optional(Name), role: Role, password: t.Optional(Password) },
  strict,
)
export const PatchUserBody = t.Partial(t.Object({ name: Name, role: Role, password: Password, disabled: t.Boolean() }), strict)

/** A console account; `password` only in the reply that minted it. Never the hash. */
export const presentUser = (u: UserRow, password?: string | null) => ({
  id: u.id,
  object: 'user' as const,
  org_id: u.orgId,
  email: u.email,
  name: u.name,
  role: u.role,
  disabled: u.disabledAt !== null,
  created: iso(u.created),
  updated: iso(u.updated),
  ...(password ? { password } : {}),
})
