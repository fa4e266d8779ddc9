/**
 * The console's reply contract: one TypeBox schema per reply of /console/api, checked on the
 * routes (`response`, under DIALER_CHECK_REPLIES) and read by the browser code as types
 * (type-only imports: nothing here is bundled into the page). Where the console returns an
 * object the external API returns too, the API's model is reused; the console-only shapes live
 * here. Property order is reply order.
 */
import { Type as t, type Static, type TSchema } from '@sinclair/typebox'
import { Call, RecordingConsentShape } from '../domain/calls/call-shape'
import { Contactability } from '../domain/leads/contactability-shape'
import { CallNowReply, Lead } from '../domain/leads/lead-shape'
import { DateTime, Nullable, Uuid } from '../domain/shapes'
import { Event } from '../api/events/model'
import { Usage } from '../api/usage/model'
import { Delivery, Endpoint } from '../api/webhooks/model'
import { ListMetaSchema } from '../http/paging'

export { Call, Contactability, Delivery, Endpoint, Event, Lead, Usage }
export type Event = Static<typeof Event>
export type Usage = Static<typeof Usage>
export type Endpoint = Static<typeof Endpoint>
export type Delivery = Static<typeof Delivery>

/** `{ data }`, one object. */
const dataOf = <T extends TSchema>(schema: T) => t.Object({ data: schema })
/** `{ data: [...], meta }`, a page with the API's list envelope. */
const pageOf = <T extends TSchema>(schema: T) => t.Object({ data: t.Array(schema), meta: ListMetaSchema })
/** `{ data: [...], has_more }`, a page of the console's older list shape (leads, events). */
const moreOf = <T extends TSchema>(schema: T) => t.Object({ data: t.Array(schema), has_more: t.Boolean() })

// ---- the session ----

/**
 * What this session may do (in any organization it may open): each is one requirement the
 * console's routes declare (src/console/context.ts), so the page shows what the server allows.
 */
export const Capabilities = t.Object({
  campaigns_read: t.Boolean(),
  campaigns_write: t.Boolean(),
  leads_read: t.Boolean(),
  /** CSV import (leads:write). */
  imports: t.Boolean(),
  calls_read: t.Boolean(),
  /** The outcome form and "call now" (calls:write). */
  calls_write: t.Boolean(),
  dnc_read: t.Boolean(),
  /** Adding to and removing from Do Not Call (dnc:write). */
  dnc_write: t.Boolean(),
  events_read: t.Boolean(),
  /** Endpoints and deliveries are read with events:read; this is changing them. */
  webhooks_write: t.Boolean(),
  usage_read: t.Boolean(),
  /** API keys: owners and the operator. */
  keys: t.Boolean(),
  /** Console accounts: the operator. */
  people: t.Boolean(),
  /** The Numbers page (carriers, caller-ID health): owners and the operator. */
  numbers: t.Boolean(),
})
export type Capabilities = Static<typeof Capabilities>

export const Role = t.Union([t.Literal('owner'), t.Literal('sdr')])
export type Role = Static<typeof Role>

/** One outcome word with the organization's label for it (the label calls are filed and listed with). */
export const OutcomeChoice = t.Object({ outcome: t.String(), label: t.String() })
export type OutcomeChoice = Static<typeof OutcomeChoice>
export const OrgSummary = t.Object({ id: Uuid, name: t.String(), timezone: t.String(), outcomes: t.Array(OutcomeChoice) })
export type OrgSummary = Static<typeof OrgSummary>

/** The signed-in session: who, the CSRF token for changes, the organizations it may open. */
export const Me = t.Object({
  kind: t.Union([t.Literal('operator'), t.Literal('user')]),
  user: Nullable(t.Object({ id: Uuid, email: t.String(), name: t.String(), role: Role, org_id: Uuid })),
  csrf_token: t.String(),
  orgs: t.Array(OrgSummary),
  capabilities: Capabilities,
})
export type Me = Static<typeof Me>
export const SessionReply = dataOf(Me)
export const SignedOutReply = dataOf(t.Object({ signed_out: t.Literal(true) }))

// ---- campaigns ----

/** One campaign on the board: its lines, queue and today's calls (in the organization's zone). */
export const BoardCampaign = t.Object({
  id: Uuid,
  name: t.String(),
  status: t.String(),
  lines: t.Integer(),
  lines_in_use: t.Integer(),
  queued: t.Integer(),
  queued_call_now: t.Integer(),
  queued_other: t.Integer(),
  late: t.Integer(),
  calls_today: t.Integer(),
  connects_today: t.Integer(),
  /** Read only here (set with the admin API or CLI): the campaign's calls are automated, so the automated-call rules apply. */
  automated_voice: t.Boolean(),
})
export type BoardCampaign = Static<typeof BoardCampaign>
/** GET campaigns, and each `campaigns` message of its stream. */
export const BoardReply = t.Object({ data: t.Array(BoardCampaign), at: DateTime })
export type BoardReply = Static<typeof BoardReply>
export const CampaignStatusReply = dataOf(t.Object({ id: Uuid, status: t.String() }))
export type CampaignStatusReply = Static<typeof CampaignStatusReply>

/** An SDR or closer: `phone` (E.164) is where a live carrier's bridge rings them. */
export const CampaignPerson = t.Object({ id: t.String(), name: t.String(), phone: t.Optional(t.String()) })
export type CampaignPerson = Static<typeof CampaignPerson>
/** What an owner may change in the console (the admin API's campaign fields of the same names). */
export const CampaignSettings = t.Object({
  id: Uuid,
  name: t.String(),
  status: t.String(),
  lines: t.Integer(),
  sdrs: t.Array(CampaignPerson),
  closers: t.Array(CampaignPerson),
  calling_hours: t.Object({ start: t.String(), end: t.String() }),
  voicemail: Nullable(t.Union([t.Object({ audio_url: t.String() }), t.Object({ say: t.String() })])),
  /** Played before recording where every party must consent; null: "This call may be recorded." */
  recording_notice: Nullable(t.Union([t.Object({ audio_url: t.String() }), t.Object({ say: t.String() })])),
  /** bridge, power or predictive (docs/telephony.md "Dial modes"). */
  dial_mode: t.Union([t.Literal('bridge'), t.Literal('power'), t.Literal('predictive')]),
  max_abandon_rate: t.Number(),
  /** Played within 2 s to a person no seat can take (power, predictive). */
  abandon_message: Nullable(t.Union([t.Object({ audio_url: t.String() }), t.Object({ say: t.String() })])),
  /**
   * The AI seat, read only here (set by the operator): its parameters' names only, their values can be credentials;
   * the built-in agent (openai_realtime) with its endpoint as url, its model and voice, never its key.
   */
  ai_agent: Nullable(t.Object({
    kind: t.Union([t.Literal('stream'), t.Literal('openai_realtime')]),
    url: t.String(),
    model: Nullable(t.String()),
    voice: Nullable(t.String()),
    first_audio_ms: t.Integer(),
    disclosure: t.Union([t.Object({ audio_url: t.String() }), t.Object({ say: t.String() })]),
    parameter_names: t.Array(t.String()),
  })),
  updated: DateTime,
})
export type CampaignSettings = Static<typeof CampaignSettings>
export const CampaignSettingsReply = dataOf(CampaignSettings)

// ---- calls ----

/**
 * A call as the console lists it: the API's Call and `handler`, the name of who took it (null:
 * nobody did; `handled_by` then names the AI assistant even where none was on the call).
 */
export const ConsoleCall = t.Composite([Call, t.Object({ handler: Nullable(t.String()) })])
export type ConsoleCall = Static<typeof ConsoleCall>
export const CallPage = pageOf(ConsoleCall)
export type CallPage = Static<typeof CallPage>
export const TranscriptLine = t.Object({ speaker: t.Union([t.Literal('ai'), t.Literal('lead'), t.Literal('agent')]), name: t.String(), text: t.String(), at: DateTime })
export type TranscriptLine = Static<typeof TranscriptLine>
export const RecordingLink = t.Object({ url: t.String(), expires_at: DateTime })
export type RecordingLink = Static<typeof RecordingLink>
export const CallDetail = t.Object({
  call: Call, handler: Nullable(t.String()), transcript: t.Array(TranscriptLine), recording: Nullable(RecordingLink),
  /** Where a state of the lead requires all-party consent: which states, when the notice ended (recording started from then). */
  recording_consent: Nullable(RecordingConsentShape),
  /** A call put on the AI seat: ms from the stream's start to the agent's first audio (null: none came). Null: no seat. */
  ai_seat: Nullable(t.Object({ first_audio_ms: Nullable(t.Integer()) })),
})
export type CallDetail = Static<typeof CallDetail>
export const CallDetailReply = dataOf(CallDetail)
export const CallReply = dataOf(Call)

// ---- leads ----

export const LeadPage = moreOf(Lead)
export type LeadPage = Static<typeof LeadPage>
/** One lead with why it waits, its last calls and events (empty where the role cannot read them). */
export const LeadDetail = t.Object({ lead: Lead, contactability: Contactability, calls: t.Array(Call), events: t.Array(Event) })
export type LeadDetail = Static<typeof LeadDetail>
export const LeadDetailReply = dataOf(LeadDetail)
export const CallNowResult = CallNowReply
export type CallNowResult = Static<typeof CallNowReply>
export const CallNowResultReply = dataOf(CallNowReply)

/** A CSV import (or its dry run): what was read, imported and refused, and where each column went. */
export const ImportResult = t.Object({
  import_id: Nullable(Uuid),
  resumed_rows: t.Integer(),
  rows: t.Integer(),
  imported: t.Integer(),
  failed: t.Integer(),
  errors: t.Array(t.Object({ row: t.Integer(), code: t.String(), message: t.String(), param: Nullable(t.String()) })),
  error_counts: t.Record(t.String(), t.Integer()),
  columns: t.Array(t.Object({ header: t.String(), target: Nullable(t.String()) })),
  dry_run: t.Boolean(),
  problem: Nullable(t.String()),
})
export type ImportResult = Static<typeof ImportResult>
export const ImportReply = dataOf(ImportResult)

// ---- Do Not Call ----

/** The console's entry: the organization's live list, so no `livemode`. */
export const DncEntry = t.Object({ id: Uuid, phone: t.String(), source: t.String(), created: DateTime })
export type DncEntry = Static<typeof DncEntry>
export const DncPage = pageOf(DncEntry)
export type DncPage = Static<typeof DncPage>
export const DncEntryReply = dataOf(DncEntry)
/** GET check: as the API's DncCheckResult, without `livemode`. */
export const DncCheck = t.Object({ phone: t.String(), normalizedPhone: Nullable(t.String()), onDncList: t.Boolean() })
export type DncCheck = Static<typeof DncCheck>
export const DncCheckReply = dataOf(DncCheck)
/** A pasted list added: as the API's DncBatchResult, without `livemode`. */
export const DncAdded = t.Object({ succeeded: t.Integer(), failed: t.Integer(), errors: t.Array(t.String()) })
export type DncAdded = Static<typeof DncAdded>
export const DncAddedReply = dataOf(DncAdded)

// ---- events, webhooks, usage ----

export const EventPage = moreOf(Event)
export type EventPage = Static<typeof EventPage>
export const EndpointList = dataOf(t.Array(Endpoint))
export type EndpointList = Static<typeof EndpointList>
export const EndpointReply = dataOf(Endpoint)
export const DeliveryPage = pageOf(Delivery)
export type DeliveryPage = Static<typeof DeliveryPage>
export const DeliveryReply = dataOf(Delivery)

export const UsageReport = t.Object({
  by_day: Usage,
  by_campaign: Usage,
  by_key: Usage,
  spend_caps: t.Array(t.Object({ campaign_id: Uuid, name: t.String(), spend_cap_usd: Nullable(t.Number()) })),
})
export type UsageReport = Static<typeof UsageReport>
export const UsageReply = dataOf(UsageReport)

// ---- API keys and people (as the admin API presents them) ----

export const ApiKey = t.Object({
  id: t.String(),
  object: t.Literal('api_key'),
  org_id: Uuid,
  name: t.String(),
  mode: t.Union([t.Literal('live'), t.Literal('test')]),
  livemode: t.Boolean(),
  /** As stored; the API's permission names (domain/access/permission-names.ts). */
  permissions: t.Array(t.String()),
  campaign_ids: Nullable(t.Array(Uuid)),
  max_concurrent: t.Integer(),
  requests_per_minute: t.Integer(),
  burst: t.Integer(),
  leads_per_minute: t.Integer(),
  expires_at: Nullable(DateTime),
  disabled: t.Boolean(),
  revoked_at: Nullable(DateTime),
  created: DateTime,
  updated: DateTime,
  /** Only in the reply that made the key. */
  secret: t.Optional(t.String()),
})
export type ApiKey = Static<typeof ApiKey>
export const ApiKeyList = dataOf(t.Array(ApiKey))
export const ApiKeyReply = dataOf(ApiKey)

export const User = t.Object({
  id: Uuid,
  object: t.Literal('user'),
  org_id: Uuid,
  email: t.String(),
  name: t.String(),
  role: Role,
  disabled: t.Boolean(),
  created: DateTime,
  updated: DateTime,
  /** Only in the reply that made the account. */
  password: t.Optional(t.String()),
})
export type User = Static<typeof User>
export const UserList = dataOf(t.Array(User))
export const UserReply = dataOf(User)
