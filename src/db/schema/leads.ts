/** Leads and call-now requests. */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { orgs } from './access'
import { type Person, campaigns } from './campaigns'

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
    /** Consent evidence: when the consent above was stored, and SHA-256 (hex) of its text, else its url. */
    consentRecordedAt: integer('consent_recorded_at'),
    consentSha256: text('consent_sha256'),
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
