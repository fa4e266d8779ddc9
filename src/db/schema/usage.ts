/** Usage rollups and analytics exports. */
import { index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { orgs } from './access'

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
    /** AI minutes: each AI-seated call's seat time rounded up to the minute. */
    aiMinutes: integer('ai_minutes').notNull().default(0),
    /** AI cost in millionths of a USD, of calls whose model the organization priced. */
    aiCostMicros: integer('ai_cost_micros').notNull().default(0),
    /** AI-seated calls with usage whose model has no price (their cost is unknown). */
    aiUnpricedCalls: integer('ai_unpriced_calls').notNull().default(0),
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
