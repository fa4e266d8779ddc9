/** Seats: a campaign's SDR or closer waiting on their phone in a conference of their own (dial_mode power, predictive). */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { orgs } from './access'
import { campaigns } from './campaigns'

export const seats = sqliteTable(
  'seats',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    campaignId: text('campaign_id').notNull().references(() => campaigns.id),
    /** The campaign person's id (sdrs[].id; closers have ids too), their name and role as when seated. */
    personId: text('person_id').notNull(),
    name: text('name').notNull(),
    role: text('role', { enum: ['sdr', 'closer'] }).notNull(),
    /** E.164: the phone the seat's call rings. */
    phone: text('phone').notNull(),
    /** calling: their phone rings / they have not pressed 1; waiting: in their conference, free; on_call: a lead is with them; ended. */
    state: text('state', { enum: ['calling', 'waiting', 'on_call', 'ended'] }).notNull(),
    /** The carrier that placed the seat's call (twilio). */
    carrier: text('carrier').notNull(),
    /** The carrier's call id of the seat's leg (Twilio CallSid); null until the create request succeeded. */
    carrierCallId: text('carrier_call_id'),
    /** The conference's id at the carrier (Twilio ConferenceSid), once it started. */
    conferenceSid: text('conference_sid'),
    /** The lead call with them now (state on_call). */
    leadCallId: text('lead_call_id'),
    /** Carrier-specific state of the seat's leg, saved with each callback. */
    carrierState: text('carrier_state', { mode: 'json' }).$type<unknown>().notNull(),
    /** Why it ended: deleted, hung_up, no_answer, not_accepted, failed. */
    endedReason: text('ended_reason'),
    created: integer('created').notNull(),
    updated: integer('updated').notNull(),
    /** When it sat (pressed 1), and when it ended. */
    seatedAt: integer('seated_at'),
    endedAt: integer('ended_at'),
  },
  (t) => [
    index('seats_campaign').on(t.campaignId, t.state, t.id),
    index('seats_org').on(t.orgId, t.state),
    uniqueIndex('seats_carrier_call').on(t.carrierCallId),
    index('seats_lead_call').on(t.leadCallId),
  ],
)
