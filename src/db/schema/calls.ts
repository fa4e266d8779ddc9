/** Calls and their transcripts. */
import { sql } from 'drizzle-orm'
import { index, integer, primaryKey, real, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { orgs } from './access'
import { type Person, campaigns } from './campaigns'
import { leads } from './leads'
import type { AiUsage, TranscriptLine } from '../../telephony/call-values'

export interface HandledBy {
  id: string | null
  name: string
  role: 'sdr' | 'closer' | 'ai'
}

// Telephony owns the transcript line (it reports them); stored as it is.
export type { TranscriptLine }

export interface Intent {
  at: number
  excerpt: string
  confidence: number
  offered_to: { id: string | null; name: string; role: 'sdr' | 'closer' }[]
}

export interface RecordingConsent {
  required_by: string[]
  /** Unix ms the notice finished playing (recording may start from then); null until it has. */
  announced_at: number | null
  method: 'say' | 'audio_url'
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
    /** Where a state of the lead requires all-party consent to record: which states, when the notice played, how. */
    recordingConsent: text('recording_consent', { mode: 'json' }).$type<RecordingConsent | null>(),
    /** The lines are in call_transcripts: large, and read only by GET .../transcript. */
    transcriptAvailable: integer('transcript_available', { mode: 'boolean' }).notNull().default(false),
    startedBy: text('started_by', { mode: 'json' }).$type<{ type: 'dialer' | 'api' | 'person'; api_key_id: string | null }>().notNull(),
    /** How many times call.completed was sent (outcome corrections add one). */
    revision: integer('revision').notNull().default(0),
    /** A person took the call: the outcome is theirs to file, by this time or it becomes other. */
    outcomeDueAt: integer('outcome_due_at'),
    carrier: text('carrier').notNull(),
    /** Abandonment ledger (47 CFR 64.1200(a)(7)): the carrier's answer of a call a person answered (unix ms); null otherwise. */
    answeredAt: integer('answered_at'),
    /** A representative bridged or in the conference (or the AI seat's first audio); null until then. */
    connectedAt: integer('connected_at'),
    /** No connection within 2 s of answered_at (a lead who hung up inside the 2 s is not); null until decided or when no person answered. */
    abandoned: integer('abandoned', { mode: 'boolean' }),
    /** The call was put on the campaign's AI seat (an agent talked to the lead). */
    aiSeated: integer('ai_seated', { mode: 'boolean' }).notNull().default(false),
    /** ms from the stream's start to the agent's first audio; null when no audio came (or no seat). */
    aiFirstAudioMs: integer('ai_first_audio_ms'),
    /** An openai_realtime seat's instructions as rendered for this call (for the operator; never in events). */
    aiInstructions: text('ai_instructions'),
    /** The model's usage on this call, summed as reported; null when no built-in agent ran. */
    aiUsage: text('ai_usage', { mode: 'json' }).$type<AiUsage>(),
    /** Seconds the AI seat had the call (from the stream's start to its end); null when never seated. */
    aiSeconds: real('ai_seconds'),
    /** The number the lead saw (the organization's caller ID chosen at the dial); null for the simulator and inbound calls. */
    callerId: text('caller_id'),
    /** When the carrier said the lead's phone rang (unix ms); null until it did (declines within 3 s are read from it). */
    rangAt: integer('rang_at'),
    /** The STIR/SHAKEN attestation the carrier reported for the call (A, B or C); null when it reported none. */
    attestation: text('attestation'),
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
    // The daily retention purge reads recorded calls by end time.
    index('calls_recorded').on(t.ended).where(sql`recording_available = 1`),
    // The usage count reads ended calls it has not counted yet (a small index: counted calls leave it).
    // The abandonment report reads a campaign's person-answered calls by answer time.
    index('calls_ledger').on(t.campaignId, t.answeredAt).where(sql`answered_at IS NOT NULL`),
    // Caller-ID health reads an organization's calls by the number they showed, newest first.
    index('calls_caller_id').on(t.orgId, t.callerId, t.started).where(sql`caller_id IS NOT NULL`),
    index('calls_uncounted').on(t.id).where(sql`status = 'ended' AND usage_counted = 0`),
  ],
)

export const callTranscripts = sqliteTable('call_transcripts', {
  callId: text('call_id').primaryKey().references(() => calls.id),
  lines: text('lines', { mode: 'json' }).$type<TranscriptLine[]>().notNull(),
})
