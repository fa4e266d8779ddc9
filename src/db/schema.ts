import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

// Times are unix milliseconds (integers); ids are uuid v7 unless a prefix is named.
// JSON columns hold small documents that are always read whole.

export const settings = sqliteTable('settings', {
  name: text('name').primaryKey(),
  value: text('value').notNull(),
})

export const orgs = sqliteTable('orgs', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  timezone: text('timezone').notNull(),
  rateUsdPerMinute: real('rate_usd_per_minute').notNull(),
  planRequestsPerMinute: integer('plan_requests_per_minute').notNull(),
  recordingEnabled: integer('recording_enabled', { mode: 'boolean' }).notNull(),
  webhookEndpointLimit: integer('webhook_endpoint_limit').notNull(),
  outcomeLabels: text('outcome_labels', { mode: 'json' }).$type<Record<string, string>>().notNull(),
  created: integer('created').notNull(),
  updated: integer('updated').notNull(),
})

export const apiKeys = sqliteTable(
  'api_keys',
  {
    /** The key ID, `dk_live_...` or `dk_test_...` (the Basic auth username). */
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    name: text('name').notNull(),
    mode: text('mode', { enum: ['live', 'test'] }).notNull(),
    /** SHA-256 of the secret, hex. The secret itself is never stored. */
    secretHash: text('secret_hash').notNull(),
    permissions: text('permissions', { mode: 'json' }).$type<string[]>().notNull(),
    /** null: every campaign of the organization. */
    campaignIds: text('campaign_ids', { mode: 'json' }).$type<string[] | null>(),
    maxConcurrent: integer('max_concurrent').notNull(),
    requestsPerMinute: integer('requests_per_minute').notNull(),
    burst: integer('burst').notNull(),
    leadsPerMinute: integer('leads_per_minute').notNull(),
    expiresAt: integer('expires_at'),
    disabled: integer('disabled', { mode: 'boolean' }).notNull().default(false),
    revokedAt: integer('revoked_at'),
    created: integer('created').notNull(),
    updated: integer('updated').notNull(),
  },
  (t) => [index('api_keys_org').on(t.orgId)],
)

export interface Person {
  id: string
  name: string
}

export const campaigns = sqliteTable(
  'campaigns',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    name: text('name').notNull(),
    status: text('status', { enum: ['draft', 'active', 'paused', 'completed'] }).notNull(),
    lines: integer('lines').notNull(),
    sdrs: text('sdrs', { mode: 'json' }).$type<Person[]>().notNull(),
    closers: text('closers', { mode: 'json' }).$type<Person[]>().notNull(),
    requiresConsent: integer('requires_consent', { mode: 'boolean' }).notNull(),
    callNowDefault: integer('call_now_default', { mode: 'boolean' }).notNull(),
    lateMinutes: integer('late_minutes').notNull(),
    /** "HH:MM" in the lead's local time. */
    callingHoursStart: text('calling_hours_start').notNull(),
    callingHoursEnd: text('calling_hours_end').notNull(),
    maxAttempts: integer('max_attempts').notNull(),
    retryMinutes: integer('retry_minutes').notNull(),
    duplicateWindowHours: integer('duplicate_window_hours').notNull(),
    cooldownHours: integer('cooldown_hours').notNull(),
    spendCapUsd: real('spend_cap_usd'),
    created: integer('created').notNull(),
    updated: integer('updated').notNull(),
  },
  (t) => [index('campaigns_org').on(t.orgId, t.id)],
)

export const retiredNumbers = sqliteTable(
  'retired_numbers',
  {
    id: text('id').primaryKey(),
    campaignId: text('campaign_id').notNull().references(() => campaigns.id),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    /** E.164 */
    phone: text('phone').notNull(),
    reason: text('reason').notNull(),
    created: integer('created').notNull(),
  },
  (t) => [uniqueIndex('retired_numbers_unique').on(t.campaignId, t.livemode, t.phone)],
)

export const dncEntries = sqliteTable(
  'dnc_entries',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    /** E.164, so one number written two ways is one entry. */
    phone: text('phone').notNull(),
    source: text('source').notNull(),
    reason: text('reason'),
    created: integer('created').notNull(),
  },
  (t) => [
    uniqueIndex('dnc_entries_phone').on(t.orgId, t.livemode, t.phone),
    index('dnc_entries_list').on(t.orgId, t.livemode, t.id),
  ],
)

export const idempotencyRecords = sqliteTable(
  'idempotency_records',
  {
    keyId: text('key_id').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    /** SHA-256 over method, path and the canonical JSON body. */
    fingerprint: text('fingerprint').notNull(),
    status: integer('status').notNull(),
    body: text('body').notNull(),
    created: integer('created').notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.idempotencyKey] }), index('idempotency_created').on(t.created)],
)

/** Waiting API leads (queued, scheduled, held) per campaign and mode, kept by triggers (migration 0002). */
export const campaignCounters = sqliteTable(
  'campaign_counters',
  {
    campaignId: text('campaign_id').notNull().references(() => campaigns.id),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    apiWaiting: integer('api_waiting').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.campaignId, t.livemode] })],
)

export interface Consent {
  source: string
  agreed_at: string
  text?: string
  url?: string
  ip?: string
}

export const LEAD_STATUSES = [
  'new', 'queued', 'scheduled', 'held', 'dialing', 'on_call', 'callback_scheduled', 'done', 'out_of_queue',
] as const

export const leads = sqliteTable(
  'leads',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    campaignId: text('campaign_id').notNull().references(() => campaigns.id),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    externalId: text('external_id'),
    /** E.164 */
    phone: text('phone').notNull(),
    name: text('name'),
    email: text('email'),
    address: text('address'),
    fields: text('fields', { mode: 'json' }).$type<Record<string, string>>().notNull(),
    consent: text('consent', { mode: 'json' }).$type<Consent | null>(),
    /** api (POST /leads and the older campaign path), import (admin CSV), app. */
    leadSource: text('lead_source'),
    owner: text('owner', { mode: 'json' }).$type<Person | null>(),
    status: text('status', { enum: LEAD_STATUSES }).notNull(),
    callNow: integer('call_now', { mode: 'boolean' }).notNull(),
    /** Position key in the campaign's dial queue while queued (see domain/queue). */
    queueKey: integer('queue_key'),
    /** When the lead was (last) put in line: orders leads of one priority, oldest first. */
    queuedAt: integer('queued_at').notNull(),
    /** While scheduled: when it may be called (the spec's scheduled_for) and why it waits. */
    dueAt: integer('due_at'),
    dueReason: text('due_reason'),
    heldReason: text('held_reason'),
    callbackAt: integer('callback_at'),
    late: integer('late', { mode: 'boolean' }).notNull().default(false),
    attempts: integer('attempts').notNull().default(0),
    lastOutcome: text('last_outcome'),
    lastOutcomeLabel: text('last_outcome_label'),
    nextDialAt: integer('next_dial_at'),
    /** Last accepted POST for this lead: the duplicate window counts from it. */
    lastPostedAt: integer('last_posted_at').notNull(),
    lastContactAt: integer('last_contact_at'),
    /** Why the lead is out_of_queue: opted_out, dnc, taken_out. */
    outReason: text('out_reason'),
    optOutReason: text('opt_out_reason'),
    optedOutAt: integer('opted_out_at'),
    /** The API key that added the lead (a test lead's sample calls count toward it). */
    addedByKeyId: text('added_by_key_id'),
    /** Set by POST /calls or a call_now intake: the next call is started by this API key. */
    callRequestedBy: text('call_requested_by'),
    /** failed / wrong_number outcomes in a row (three retire the number in the campaign). */
    failStreak: integer('fail_streak').notNull().default(0),
    created: integer('created').notNull(),
    updated: integer('updated').notNull(),
  },
  (t) => [
    // One index each serves the organization's search (by phone: Do Not Call, cooldown; by
    // external_id: GET /leads) and, with the campaign last, the uniqueness within a campaign
    // (a campaign belongs to one organization). Each index costs every lead insert.
    uniqueIndex('leads_org_phone_campaign').on(t.orgId, t.livemode, t.phone, t.campaignId),
    uniqueIndex('leads_org_external_campaign').on(t.orgId, t.livemode, t.externalId, t.campaignId).where(sql`external_id IS NOT NULL`),
    index('leads_org_list').on(t.orgId, t.livemode, t.id),
    index('leads_campaign_list').on(t.campaignId, t.livemode, t.id),
    // Partial indexes: each lead write touches only the indexes its state needs. Queue order
    // first (only the boot rebuild reads it): a new lead joins near the end of one order, not
    // at its campaign's own spot, so a commit of leads for many campaigns writes fewer pages.
    // The campaign columns make it covering.
    index('leads_queued').on(t.queueKey, t.id, t.campaignId, t.livemode).where(sql`status = 'queued'`),
    index('leads_waiting_due').on(t.dueAt).where(sql`status IN ('scheduled', 'callback_scheduled')`),
  ],
)

/** Each accepted call-now request (POST /calls, POST /leads with call_now for an existing lead). */
export const callRequests = sqliteTable(
  'call_requests',
  {
    id: text('id').primaryKey(),
    leadId: text('lead_id').notNull().references(() => leads.id),
    keyId: text('key_id').notNull(),
    at: integer('at').notNull(),
  },
  (t) => [index('call_requests_lead').on(t.leadId, t.at)],
)

/** Every event, stored with the change that caused it (the webhook outbox reads from here). */
export const events = sqliteTable(
  'events',
  {
    /** The table's integer key, made with the id: ids sort as seq does (db/event-keys.ts). */
    seq: integer('seq').primaryKey(),
    /** evt_ + 32 hex digits of a uuid v7; found through its millisecond's seq range, so no index of its own. */
    id: text('id').notNull(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    type: text('type').notNull(),
    campaignId: text('campaign_id'),
    /** The lead or call the event is about. */
    objectId: text('object_id').notNull(),
    created: integer('created').notNull(),
    /** The whole envelope as sent and as GET /events/{id} returns it. */
    body: text('body').notNull(),
  },
  (t) => [
    // Each index ends in seq (SQLite's rowid): newest first per organization or object for free.
    index('events_org_list').on(t.orgId, t.livemode),
    index('events_object').on(t.objectId),
  ],
)

export interface HandledBy {
  id: string | null
  name: string
  role: 'sdr' | 'closer' | 'ai'
}

export interface TranscriptLine {
  speaker: 'ai' | 'lead' | 'agent'
  name: string
  text: string
  /** unix ms */
  at: number
}

export interface Intent {
  at: number
  excerpt: string
  confidence: number
  offered_to: { id: string | null; name: string; role: 'sdr' | 'closer' }[]
}

export const calls = sqliteTable(
  'calls',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    campaignId: text('campaign_id').notNull().references(() => campaigns.id),
    leadId: text('lead_id').notNull().references(() => leads.id),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    /** The API key a test call counts toward (20 running sample calls per test key). */
    keyId: text('key_id'),
    direction: text('direction', { enum: ['outbound', 'inbound'] }).notNull(),
    status: text('status', { enum: ['ringing', 'in_progress', 'ended'] }).notNull(),
    outcome: text('outcome'),
    outcomeLabel: text('outcome_label'),
    note: text('note'),
    durationSeconds: integer('duration_seconds'),
    started: integer('started').notNull(),
    answered: integer('answered'),
    ended: integer('ended'),
    updated: integer('updated').notNull(),
    answeredBy: text('answered_by'),
    handledBy: text('handled_by', { mode: 'json' }).$type<HandledBy>().notNull(),
    owner: text('owner', { mode: 'json' }).$type<Person | null>(),
    tthSeconds: real('tth_seconds'),
    callbackAt: integer('callback_at'),
    intent: text('intent', { mode: 'json' }).$type<Intent | null>(),
    recordingAvailable: integer('recording_available', { mode: 'boolean' }).notNull().default(false),
    /** The lines are in call_transcripts: large, and read only by GET .../transcript. */
    transcriptAvailable: integer('transcript_available', { mode: 'boolean' }).notNull().default(false),
    startedBy: text('started_by', { mode: 'json' }).$type<{ type: 'dialer' | 'api' | 'person'; api_key_id: string | null }>().notNull(),
    /** How many times call.completed was sent (outcome corrections add one). */
    revision: integer('revision').notNull().default(0),
    /** A person took the call: the outcome is theirs to file, by this time or it becomes other. */
    outcomeDueAt: integer('outcome_due_at'),
    carrier: text('carrier').notNull(),
    /** Set once the usage count has added this ended call to the rollups. */
    usageCounted: integer('usage_counted', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    index('calls_org_list').on(t.orgId, t.livemode, t.id),
    index('calls_org_outcome').on(t.orgId, t.livemode, t.outcome, t.id),
    index('calls_campaign_list').on(t.campaignId, t.livemode, t.id),
    index('calls_lead').on(t.leadId, t.id),
    index('calls_open').on(t.status),
    index('calls_outcome_due').on(t.outcomeDueAt),
    // The usage count reads ended calls it has not counted yet (a small index: counted calls leave it).
    index('calls_uncounted').on(t.id).where(sql`status = 'ended' AND usage_counted = 0`),
  ],
)

export const callTranscripts = sqliteTable('call_transcripts', {
  callId: text('call_id').primaryKey().references(() => calls.id),
  lines: text('lines', { mode: 'json' }).$type<TranscriptLine[]>().notNull(),
})

export const webhookEndpoints = sqliteTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    /** The creating key's mode: the endpoint gets only that mode's events. */
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    url: text('url').notNull(),
    description: text('description'),
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    /** null: every campaign. */
    campaignIds: text('campaign_ids', { mode: 'json' }).$type<string[] | null>(),
    status: text('status', { enum: ['active', 'paused'] }).notNull(),
    /** whsec_... : the service signs with it, so it is kept as is. */
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: integer('previous_secret_expires_at'),
    failingSince: integer('failing_since'),
    pausedAt: integer('paused_at'),
    lastSuccessAt: integer('last_success_at'),
    created: integer('created').notNull(),
    updated: integer('updated').notNull(),
  },
  (t) => [index('webhook_endpoints_org').on(t.orgId, t.livemode, t.id)],
)

export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    /** wd_ + 32 hex digits of a uuid v7 */
    id: text('id').primaryKey(),
    endpointId: text('endpoint_id').notNull().references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id'),
    eventType: text('event_type').notNull(),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    status: text('status', { enum: ['pending', 'sent', 'failed', 'gave_up', 'skipped_paused'] }).notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: integer('next_attempt_at'),
    lastAttemptAt: integer('last_attempt_at'),
    responseStatus: integer('response_status'),
    responseBody: text('response_body'),
    durationMs: integer('duration_ms'),
    /** Why the last try failed: http_status, timeout, connection, redirect, private_address, unresolvable_host. */
    lastError: text('last_error'),
    resentFrom: text('resent_from'),
    /** A test send's sample body; null: the event's stored body is sent. */
    payload: text('payload'),
    created: integer('created').notNull(),
  },
  (t) => [
    index('webhook_deliveries_endpoint').on(t.endpointId, t.id),
    // The worker's due list: only deliveries still to be tried.
    index('webhook_deliveries_due').on(t.nextAttemptAt, t.id).where(sql`status IN ('pending', 'failed')`),
    index('webhook_deliveries_created').on(t.created),
  ],
)

/**
 * Usage rolled up by the usage_count job (every 5 minutes): one row per organization, mode,
 * local day (the organization's zone) and dimension: a campaign (leads, calls, minutes) or a
 * key (requests, leads added). GET /usage only reads these.
 */
export const usageDaily = sqliteTable(
  'usage_daily',
  {
    orgId: text('org_id').notNull().references(() => orgs.id),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    /** YYYY-MM-DD in the organization's time zone. */
    day: text('day').notNull(),
    dimension: text('dimension', { enum: ['campaign', 'key'] }).notNull(),
    dimensionId: text('dimension_id').notNull(),
    requests: integer('requests').notNull().default(0),
    leadsAdded: integer('leads_added').notNull().default(0),
    calls: integer('calls').notNull().default(0),
    callsConnected: integer('calls_connected').notNull().default(0),
    /** Billed minutes: each call's duration rounded up to the minute. */
    minutes: integer('minutes').notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.livemode, t.day, t.dimension, t.dimensionId] })],
)

export const exportFiles = sqliteTable(
  'exports',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    keyId: text('key_id').notNull(),
    exportType: text('export_type', { enum: ['leads', 'call_history', 'analytics'] }).notNull(),
    filters: text('filters', { mode: 'json' }).$type<{ campaignId?: string; startDate?: string; endDate?: string }>().notNull(),
    status: text('status', { enum: ['pending', 'ready', 'failed', 'expired'] }).notNull(),
    rowCount: integer('row_count').notNull().default(0),
    /** Relative to the data directory. */
    filePath: text('file_path'),
    error: text('error'),
    created: integer('created').notNull(),
    expiresAt: integer('expires_at').notNull(),
  },
  (t) => [index('exports_org').on(t.orgId, t.livemode, t.id), index('exports_expiry').on(t.status, t.expiresAt)],
)
