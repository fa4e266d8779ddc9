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
