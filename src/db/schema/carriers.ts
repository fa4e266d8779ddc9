/** Each organization's carrier for live calls (no row: the simulator). */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { orgs } from './access'
import { calls } from './calls'

export const orgCarriers = sqliteTable('org_carriers', {
  orgId: text('org_id').notNull().references(() => orgs.id),
  /** The carrier's kind (src/telephony/registry.ts); not an enum, so a new carrier needs no migration. At most one row per kind. */
  kind: text('kind').notNull(),
  /** null: the organization set one `carrier`; 1-100: its share of dials in the `carriers` pool. */
  weight: integer('weight'),
  /** The pool's order as the organization listed it (0 for a single carrier): failover tries the others in this order. */
  position: integer('position').notNull().default(0),
  /** The kind's settings but its secrets, in the admin API's spelling (its plug-in checks and reads them). */
  settings: text('settings', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  /** Its secrets by field name, each sealed by the service's secret key (src/domain/secrets/secret-box.ts); never plain. */
  secretsSealed: text('secrets_sealed', { mode: 'json' }).$type<Record<string, string>>().notNull(),
  created: integer('created').notNull(),
  updated: integer('updated').notNull(),
}, (t) => [primaryKey({ columns: [t.orgId, t.kind] })])

/**
 * A caller ID's health (src/domain/caller-ids/): rested after its figures fell far below its
 * campaign's baseline, with the figures that showed it. No row: never rested.
 */
export const callerIdHealth = sqliteTable('caller_id_health', {
  orgId: text('org_id').notNull().references(() => orgs.id),
  /** E.164, one of the organization's caller IDs. */
  callerId: text('caller_id').notNull(),
  /** Not chosen for dials until then (unix ms); null: in use. */
  restedUntil: integer('rested_until'),
  /** When it was last rested (unix ms); null: never. */
  restedAt: integer('rested_at'),
  /** The figures and the baseline that rested it (shape: src/domain/caller-ids/). */
  evidence: text('evidence', { mode: 'json' }).$type<unknown>(),
  updated: integer('updated').notNull(),
}, (t) => [primaryKey({ columns: [t.orgId, t.callerId] })])

/**
 * A call placed through a real carrier: the carrier's own call id (callbacks are matched by
 * it), what the dial asked for (to answer TwiML requests after a restart) and the callback
 * state machine's state (src/telephony/twilio/lifecycle.ts), saved with each callback.
 */
export const carrierCalls = sqliteTable(
  'carrier_calls',
  {
    callId: text('call_id').primaryKey().references(() => calls.id),
    orgId: text('org_id').notNull().references(() => orgs.id),
    carrier: text('carrier').notNull(),
    /** Twilio's CallSid; null until the create request succeeded. */
    carrierCallId: text('carrier_call_id'),
    plan: text('plan', { mode: 'json' }).$type<unknown>().notNull(),
    state: text('state', { mode: 'json' }).$type<unknown>().notNull(),
    /** Until the carrier has reported the call's end (and its recording, when one is due). */
    open: integer('open', { mode: 'boolean' }).notNull(),
    created: integer('created').notNull(),
    updated: integer('updated').notNull(),
  },
  (t) => [
    uniqueIndex('carrier_calls_sid').on(t.carrierCallId),
    index('carrier_calls_open').on(t.callId).where(sql`open = 1`),
  ],
)
