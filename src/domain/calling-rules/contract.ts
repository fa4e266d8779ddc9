/**
 * The calling-rules engine's contract: what the rest of the service may ask of it.
 * Pure: every function takes the instant as unix ms and reads no clock, no database.
 * Implemented by the modules beside this file; see docs/calling-rules.md.
 */

/**
 * hours: a daily local window; day: whole weekdays barred; holiday: named days barred; cap: at most N
 * calls per rolling period; automated: hours (and caps) for calls with a prerecorded or artificial voice
 * only; recording: every party must consent before a call is recorded (blocks nothing, read by the carrier).
 */
export type RuleKind = 'hours' | 'day' | 'holiday' | 'cap' | 'automated' | 'recording'

/** One rule as the contactability reply shows it (snake_case: it is served as is). */
export interface RuleView {
  /** Stable id, e.g. "US-hours", "FL-hours", "FL-cap", "AL-sunday", "AL-holidays", "campaign-hours". */
  id: string
  kind: RuleKind
  /** Two-letter state or province, or null for a national rule (US federal, Canada CRTC) or the campaign's own window. */
  state: string | null
  /** Statute or regulation, e.g. "47 CFR 64.1200(c)(1)"; "campaign calling_hours" for the campaign's window. */
  source: string
  /** Date the rule took effect (YYYY-MM-DD), or null when not known. */
  effective: string | null
  /** kind hours: local window(s). weekdays/weekend differ for Canada. */
  hours?: {
    start: string
    end: string
    days?: 'weekdays' | 'weekends' | 'all'
    /** Local weekdays (0 = Sunday) this window is for, when neither weekdays nor weekends fits (Texas: Sunday). */
    weekdays?: number[]
  }[]
  /**
   * The fixed zone the hours are read in, for a statute that names one (Mississippi: Central
   * Standard Time all year, Etc/GMT+6); absent: every zone of the lead.
   */
  timezone?: string
  /** kind automated: the window on the state's holidays (within the weekday's window). */
  holiday_hours?: { start: string; end: string }
  /** kind day: barred weekdays, 0 = Sunday. */
  days?: number[]
  /** kind holiday: the holiday names barred. */
  holidays?: string[]
  /** kind cap (or automated with a cap): at most max calls per period_hours (rolling). */
  max?: number
  period_hours?: number
  /** Where sources disagree, what was taken (the stricter) and why. */
  note?: string
}

export type BlockReason = 'outside_calling_hours' | 'recent_contact_cooldown'

export interface Block {
  rule_id: string
  reason: BlockReason
  /** When this rule alone stops blocking (unix ms), or null when not within the search horizon. */
  until: number | null
}

/** Where a lead may be: from its number's area code and, when it holds a ZIP or state, its address. */
export interface LeadReach {
  country: 'US' | 'CA' | null
  /** Two-letter codes, sorted, no duplicates (US states, DC, territories, Canadian provinces). */
  states: readonly string[]
  /** IANA zones, no duplicates; the organization's zone when nothing else is known. */
  zones: readonly string[]
  /** Things noticed but not applied, e.g. "zip_unknown:00000" (a ZIP that does not exist). */
  notes: readonly string[]
  /**
   * Zones in `zones` only because the number's exchange is not in the table of a split area
   * code (its area code's other zones); absent when none. A block that only these cause is
   * shown as exchange_unknown.
   */
  guessedZones?: readonly string[]
}

export interface EvaluateInput {
  reach: LeadReach
  /** The campaign's calling_hours; clamped to the federal floor by the engine (a campaign stored before the floor). */
  campaignWindow: { start: string; end: string }
  /**
   * Start instants of the calls that count toward caps: every call to this number from any
   * campaign and source of the organization, same mode, at least those in the longest cap period
   * before `now` (others are ignored). Only read when `needsCallHistory(reach)`.
   */
  callTimes: readonly number[]
  now: number
  /** The call plays a prerecorded message or an artificial (AI) voice: the automated rows apply too. */
  automated?: boolean
}

export interface Verdict {
  allowed: boolean
  /** `now` when allowed; else the earliest instant every rule allows at once, or null if none within the horizon (14 days). */
  nextAllowedAt: number | null
  /** The rules that apply to this lead (campaign window first, then federal, then state rules); shared between verdicts: do not mutate. */
  rules: RuleView[]
  /** The rules blocking now (empty when allowed). */
  blockedBy: Block[]
  /** outside_calling_hours unless the only blocks are caps (then recent_contact_cooldown). */
  reason: BlockReason | null
  /** Calls counted in the last 24 hours. */
  callsLast24h: number
}

export interface CallingRulesEngine {
  /** The rules table's version string, shown in replies as rules_version. */
  readonly rulesVersion: string
  reachOf(e164: string, address: string | null, orgTimezone: string): LeadReach
  /** Whether any cap applies (so the caller must load call history); false lets intake skip a query. `automated` as in EvaluateInput. */
  needsCallHistory(reach: LeadReach, automated?: boolean): boolean
  /** The longest cap period in ms among the rules of `reach` (how much call history to load). */
  historyWindowMs(reach: LeadReach, automated?: boolean): number
  evaluate(input: EvaluateInput): Verdict
  /**
   * The states of `reach` whose law requires every party's consent before a call is recorded
   * (sorted), and their rows (kind recording). Never blocks a call.
   */
  recordingConsent(reach: LeadReach): { requiredBy: string[]; rules: RuleView[] }
}
