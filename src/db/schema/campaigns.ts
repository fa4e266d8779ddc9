/** Campaigns and their lists: retired numbers, Do Not Call entries, waiting counts. */
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { orgs } from './access'
import type { AiAgentSettings, Voicemail } from '../../telephony/call-values'

export interface Person {
  id: string
  name: string
  /** E.164, the number a real carrier bridges to; absent when not given. */
  phone?: string
}

// Telephony owns the voicemail a carrier plays (src/telephony/call-values.ts); stored as it is.
export type { Voicemail }

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
    voicemail: text('voicemail', { mode: 'json' }).$type<Voicemail>(),
    /** The campaign's calls play a prerecorded message or an artificial (AI) voice: the automated-call rules apply. */
    automatedVoice: integer('automated_voice', { mode: 'boolean' }).notNull().default(false),
    /** Played after the answer, before recording starts, where a state of the lead requires all-party consent; null: the default sentence. */
    recordingNotice: text('recording_notice', { mode: 'json' }).$type<Voicemail>(),
    /** bridge: people are rung after the answer; power: a waiting seat first; predictive: more lines than seats, paced (docs/telephony.md). */
    dialMode: text('dial_mode', { enum: ['bridge', 'power', 'predictive'] }).notNull().default('bridge'),
    /** The 30-day abandonment rate the predictive pacing keeps under (0 < rate <= 0.03). */
    maxAbandonRate: real('max_abandon_rate').notNull().default(0.03),
    /** Played within 2 s to a person no representative can take (power, predictive): say or audio_url. */
    abandonMessage: text('abandon_message', { mode: 'json' }).$type<Voicemail>(),
    /** The AI seat: an agent takes every person who answers (null: people first). */
    aiAgent: text('ai_agent', { mode: 'json' }).$type<AiAgentSettings>(),
    /** An openai_realtime agent's API key, sealed (secret-box.ts, context campaign:<id>:ai_agent_key); null otherwise. */
    aiAgentKey: text('ai_agent_key'),
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
