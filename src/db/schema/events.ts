/** Events and the webhook outbox (endpoints, deliveries). */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { orgs } from './access'

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
