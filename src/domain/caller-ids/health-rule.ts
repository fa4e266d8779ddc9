import type { CallerIdCall } from '../../db/stores/caller-id-store'

/**
 * Caller-ID health (docs/caller-ids.md): a number's figures over its recent calls, its
 * campaign's baseline over the same window on the campaign's other numbers, and the rule that
 * says a number is far below it. Pure: the caller reads the calls and the clock.
 *
 * This is number health (a number people decline or never pick up loses a campaign its
 * connects), not rotation to slip past carrier spam labels.
 */

/** How far back a number's calls count, and how many of its newest calls at most. */
export const WINDOW_DAYS = 30
export const WINDOW_CALLS = 200
/** Unanswered and ended within this of the first ring: the phone (or its owner) declined it. */
export const DECLINE_WITHIN_MS = 3_000
/** Neither side is judged on fewer calls than this (chance alone moves small samples). */
export const MIN_CALLS = 30
/** Rested when its answer rate is under this share of the baseline's... */
export const ANSWER_RATE_FLOOR = 0.5
/** ...or its declines are over this many times the baseline's and at least DECLINE_SHARE_FLOOR of its calls. */
export const DECLINE_FACTOR = 3
export const DECLINE_SHARE_FLOOR = 0.2

/** One ended outbound live call as health reads it (the store's row shape). */
export type HealthCall = CallerIdCall

export interface Figures {
  calls: number
  answered: number
  answer_rate: number | null
  person_answered: number
  person_answer_rate: number | null
  median_talk_seconds: number | null
  declined: number
  decline_rate: number | null
  attestation: { A: number; B: number; C: number; not_reported: number }
}

export type RuleName = 'answer_rate' | 'declines'

/** Why a number was (or would be) rested: its figures in one campaign against that campaign's other numbers. */
export interface Verdict {
  campaign_id: string
  rule: RuleName
  number: Figures
  baseline: Figures
  /** What the rule compared, in words (shown as it is). */
  detail: string
}

/**
 * Whether a call counts at all: a call the carrier failed before the phone rang never showed
 * the number to anyone (an outage, a refused request), so it says nothing about the number.
 */
export function counts(call: HealthCall): boolean {
  return !(call.outcome === 'failed' && call.rangAt === null && call.answered === null)
}

/** Busy, or unanswered and over within DECLINE_WITHIN_MS of the first ring. */
export function declined(call: HealthCall): boolean {
  if (call.outcome === 'busy') return true
  return call.answered === null && call.rangAt !== null && call.ended !== null && call.ended - call.rangAt <= DECLINE_WITHIN_MS
}

const rate = (n: number, of: number): number | null => (of === 0 ? null : n / of)

export function figuresOf(calls: readonly HealthCall[]): Figures {
  const counted = calls.filter(counts)
  const answered = counted.filter((c) => c.answered !== null)
  // Answering-machine detection's unknown is taken for a person, as the abandonment ledger does.
  const person = answered.filter((c) => c.answeredBy === 'person' || c.answeredBy === 'unknown')
  const declines = counted.filter(declined).length
  const attestation = { A: 0, B: 0, C: 0, not_reported: 0 }
  for (const c of counted) {
    if (c.attestation === 'A' || c.attestation === 'B' || c.attestation === 'C') attestation[c.attestation]++
    else attestation.not_reported++
  }
  return {
    calls: counted.length,
    answered: answered.length,
    answer_rate: rate(answered.length, counted.length),
    person_answered: person.length,
    person_answer_rate: rate(person.length, counted.length),
    median_talk_seconds: median(answered.map((c) => c.durationSeconds ?? 0)),
    declined: declines,
    decline_rate: rate(declines, counted.length),
    attestation,
  }
}

function median(values: number[]): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

const pct = (x: number | null) => (x === null ? 'n/a' : `${Math.round(x * 1000) / 10}%`)

/** The rule for one campaign: null unless both sides have MIN_CALLS and the number is far below. */
export function judge(campaignId: string, number: Figures, baseline: Figures): Verdict | null {
  if (number.calls < MIN_CALLS || baseline.calls < MIN_CALLS) return null
  const own = number.answer_rate!
  const base = baseline.answer_rate!
  if (own < ANSWER_RATE_FLOOR * base) {
    return { campaign_id: campaignId, rule: 'answer_rate', number, baseline, detail: `answer rate ${pct(own)} is under half of the campaign's other numbers' ${pct(base)}` }
  }
  const ownDeclines = number.decline_rate!
  const baseDeclines = baseline.decline_rate!
  if (ownDeclines > DECLINE_FACTOR * baseDeclines && ownDeclines >= DECLINE_SHARE_FLOOR) {
    return { campaign_id: campaignId, rule: 'declines', number, baseline, detail: `declined within 3 s on ${pct(ownDeclines)} of calls, over 3 times the campaign's other numbers' ${pct(baseDeclines)}` }
  }
  return null
}

/**
 * Judges every number of an organization: each number's calls (its newest WINDOW_CALLS within
 * the window, already cut by the caller) per campaign it served, against the other numbers'
 * calls in that campaign. The first verdict per number (its campaign with the most calls first).
 */
export function judgeAll(samples: ReadonlyMap<string, readonly HealthCall[]>): Map<string, Verdict> {
  const byCampaign = new Map<string, Map<string, HealthCall[]>>()
  for (const [callerId, calls] of samples) {
    for (const call of calls) {
      let numbers = byCampaign.get(call.campaignId)
      if (!numbers) byCampaign.set(call.campaignId, (numbers = new Map()))
      let list = numbers.get(callerId)
      if (!list) numbers.set(callerId, (list = []))
      list.push(call)
    }
  }
  const verdicts = new Map<string, Verdict>()
  for (const [callerId] of samples) {
    const campaigns = [...byCampaign].filter(([, numbers]) => numbers.has(callerId))
      .sort((a, b) => b[1].get(callerId)!.length - a[1].get(callerId)!.length)
    for (const [campaignId, numbers] of campaigns) {
      const others = [...numbers].filter(([id]) => id !== callerId).flatMap(([, calls]) => calls)
      const verdict = judge(campaignId, figuresOf(numbers.get(callerId)!), figuresOf(others))
      if (verdict) {
        verdicts.set(callerId, verdict)
        break
      }
    }
  }
  return verdicts
}

/** Where a number's window starts: 30 days back, or when it came back into use if later (a rest does not count twice). */
export function windowStart(now: number, backInUseAt: number | null): number {
  return Math.max(now - WINDOW_DAYS * 24 * 60 * 60 * 1000, backInUseAt ?? 0)
}
