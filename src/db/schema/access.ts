/** Organizations, API keys, settings and idempotency records. */
import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import type { AiPrices } from '../../telephony/call-values'

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
  /** Recordings older than this many days are deleted and shown as not available. */
  recordingRetentionDays: integer('recording_retention_days').notNull().default(90),
  webhookEndpointLimit: integer('webhook_endpoint_limit').notNull(),
  outcomeLabels: text('outcome_labels', { mode: 'json' }).$type<Record<string, string>>().notNull(),
  /** USD per million tokens by model, for AI cost (null: no prices, no cost shown). */
  aiPrices: text('ai_prices', { mode: 'json' }).$type<AiPrices>(),
  /** Days a caller ID far below its campaign's baseline is rested (0: never rested, only shown). */
  callerIdRestDays: integer('caller_id_rest_days').notNull().default(7),
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
