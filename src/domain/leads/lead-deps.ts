/** The ports the leads need of other services, each given at construction (lead-service.ts builds them into leadCore). */
import type { CampaignRow } from '../../db/stores/campaign-store'
import type { LeadRow } from '../../db/stores/lead-store'
import type { Stores } from '../../db/stores'
import type { Clock } from '../../jobs/clock'
import type { Scheduler } from '../../jobs/scheduler'
import type { CallingRulesEngine } from '../calling-rules/contract'
import type { CampaignService } from '../campaigns/campaign-service'
import type { DncService } from '../dnc/dnc-service'
import type { NationalRegistry } from '../dnc/national-registry'
import type { EventLog } from '../events/event-log'
import type { ImportService } from '../imports/import-service'
import type { DialQueues } from '../queue/dial-queues'
import type { LeadCallSummary } from './lead-shape'

/** What the leads read of calls (the call store answers; no call service needed). */
export interface CallActivity {
  /** Sample calls of a test key not yet ended. */
  runningTestCalls(keyId: string): number
  /** A call to this lead is up (dialing or talking), whatever the lead's status says now. */
  callInProgress(lead: LeadRow): boolean
  /** The lead's last 10 calls, newest first (the Lead's `calls`). */
  recentCalls(leadId: string): LeadCallSummary[]
}

/** Recent average handle time of a campaign's calls, seconds (the dialer's cache). */
export interface HandleTimeSource {
  averageHandleSeconds(campaignId: string, livemode: boolean, fallback: number): number
}

/** Whether a campaign reached its monthly spend cap (usage). */
export interface SpendCap {
  capReached(campaign: CampaignRow, livemode: boolean): boolean
}

/** Takes `amount` from a name's allowance of `limit` this minute, all or nothing. */
export interface LeadAllowance {
  tryAdd(name: string, amount: number, limit: number): { allowed: boolean; retryAfter: number }
}

export interface LeadDeps {
  stores: Stores
  campaigns: CampaignService
  dnc: DncService
  /** The national Do Not Call registry: refused at intake and POST /calls unless the lead has consent. */
  registry: NationalRegistry
  events: EventLog
  queues: DialQueues
  scheduler: Scheduler
  clock: Clock
  /** New leads a minute per key (a clock-minute counter: src/http/rate-limit.ts MinuteCounter). */
  newLeads: LeadAllowance
  calls: CallActivity
  handleTimes: HandleTimeSource
  spendCap: SpendCap
  /** The calling-rules engine; the built-in table when not given. */
  rules?: CallingRulesEngine
  /** A lead refused at intake (not a dry run), by its error code: the intake-refusals metric. */
  onRefused: (code: string) => void
  /** CSV imports' records and their one-at-a-time rule. */
  imports: ImportService
  /** A lead is dialed only while its calling window stays open this long (ms; window-margin.ts); 60 s when not given. */
  windowEndMarginMs?: number
  /** Toll-free and non-geographic numbers: every US zone applies (default), or refused at intake and POST /calls. */
  tollFree?: 'strictest_zone' | 'refuse'
}

