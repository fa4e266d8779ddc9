/**
 * What applies to a lead: the compiled rules of its set of states (memoized by country and
 * states), and their one intersected profile per campaign window.
 */
import { registerPureMemo } from '../../cache-registry'
import type { LeadReach, RuleView } from './contract'
import { holidayNames } from './holidays'
import { CACHE_LIMIT, compile, FULL_DAY, HHMM, minutes, profile, pure, type Cap, type Compiled, type Profile, type Span } from './rule-profiles'
import { CANADA_HOURS, FEDERAL_HOURS, FLOOR, PROVINCES, RULES_VERSION, STATE_RULES } from './state-rules'

/** What applies to one set of states (memoized by country, states and whether the call is automated). */
export interface RuleSet {
  compiled: Compiled[]
  /**
   * Rules checked beside the intersected profile, not merged into it: a fixed zone (its window is
   * not the same local window in the lead's zones) or holiday hours (a window, not a barred day).
   */
  beside: Compiled[]
  views: RuleView[]
  caps: Cap[]
  historyMs: number
  /** The intersected profile of every hours-like rule, per campaign window "HH:MM-HH:MM". */
  byCampaign: Map<string, CampaignEntry>
}

export interface CampaignEntry {
  profile: Profile
  campaign: Compiled
  /** The verdict's rules list, shared by every verdict for this set and window. */
  rules: RuleView[]
}

/** Holiday rows show the names barred; built once per row (names of the table's year). */
const TABLE_YEAR = Number(RULES_VERSION.slice(0, 4))
function withHolidayNames(view: RuleView): RuleView {
  return view.kind === 'holiday' || view.holiday_hours ? Object.freeze({ ...view, holidays: holidayNames(view.state!, TABLE_YEAR) }) : view
}

const compiledById = new Map<string, Compiled>()
function compiledRow(view: RuleView): Compiled {
  let compiled = compiledById.get(view.id)
  if (!compiled) {
    compiled = compile(withHolidayNames(view))
    compiledById.set(view.id, compiled)
  }
  return compiled
}

const ruleSets = new Map<string, RuleSet>()
// One per automated flag: automated rows apply only to automated calls.
let byReach = [new WeakMap<LeadReach, RuleSet>(), new WeakMap<LeadReach, RuleSet>()] as const
registerPureMemo(pure(
  'rule-sets', "the compiled rules of a set of states, with their intersected window per campaign window", '50,000 state sets (1,000 campaign windows each); full, emptied',
  '0.7–0.8 vs 9–13 µs an evaluate',
), () => {
  ruleSets.clear()
  byReach = [new WeakMap(), new WeakMap()]
})

/** Merged into the per-weekday local profile; else checked beside it. */
const mergeable = (c: Compiled): boolean => c.zone === null && !c.view.holiday_hours

export function ruleSetOf(reach: LeadReach, automated = false): RuleSet {
  const memo = byReach[automated ? 1 : 0]
  let set = memo.get(reach)
  if (set) return set
  const canadian = reach.country === 'CA' || reach.states.some((s) => PROVINCES.has(s))
  const key = `${canadian ? 'CA' : ''}${automated ? '+A' : ''}:${reach.states.join(',')}`
  set = ruleSets.get(key)
  if (!set) {
    const compiled = [compiledRow(FEDERAL_HOURS)]
    if (canadian) compiled.push(compiledRow(CANADA_HOURS))
    for (const state of reach.states) {
      for (const row of STATE_RULES[state] ?? []) if (automated || row.kind !== 'automated') compiled.push(compiledRow(row))
    }
    const caps = compiled.flatMap((c) => (c.cap ? [c.cap] : []))
    set = {
      compiled,
      beside: compiled.filter((c) => c.profile && !mergeable(c)),
      views: compiled.map((c) => c.view),
      caps,
      historyMs: Math.max(0, ...caps.map((c) => c.period)),
      byCampaign: new Map(),
    }
    if (ruleSets.size >= CACHE_LIMIT) ruleSets.clear()
    ruleSets.set(key, set)
  }
  memo.set(reach, set)
  return set
}

/** The campaign window clamped to the floor; empty (never) when nothing of it is inside the floor. */
function campaignRule(window: { start: string; end: string }): Compiled {
  const start = Math.max(minutes(window.start), minutes(FLOOR.start))
  const end = Math.min(minutes(window.end), minutes(FLOOR.end))
  const clamped = start !== minutes(window.start) || end !== minutes(window.end)
  const open = start < end
  const view: RuleView = {
    id: 'campaign-hours',
    kind: 'hours',
    state: null,
    source: 'campaign calling_hours',
    effective: null,
    hours: [open ? { start: HHMM[start]!, end: HHMM[end]!, days: 'all' } : { start: window.start, end: window.start, days: 'all' }],
    ...(clamped ? { note: `The campaign's ${window.start}-${window.end} is clamped to the federal floor ${FLOOR.start}-${FLOOR.end}.` } : {}),
  }
  const span: Span | null = open ? [start, end] : null
  return { view, profile: profile(Array(7).fill(span)), cap: null, zone: null }
}

export function combined(set: RuleSet, window: { start: string; end: string }): CampaignEntry {
  const key = `${window.start}-${window.end}`
  let entry = set.byCampaign.get(key)
  if (!entry) {
    const campaign = campaignRule(window)
    const parts = [campaign, ...set.compiled].flatMap((c) => (c.profile && mergeable(c) ? [c.profile] : []))
    const week: (Span | null)[] = []
    for (let day = 0; day < 7; day++) {
      let span: Span | null = FULL_DAY
      for (const part of parts) {
        const other = part.week[day]!
        span = span && other ? [Math.max(span[0], other[0]), Math.min(span[1], other[1])] : null
        if (span && span[0] >= span[1]) span = null
      }
      week.push(span)
    }
    entry = { profile: profile(week, [...new Set(parts.flatMap((p) => p.holidayStates))]), campaign, rules: [campaign.view, ...set.views] }
    if (set.byCampaign.size >= 1000) set.byCampaign.clear()
    set.byCampaign.set(key, entry)
  }
  return entry
}
