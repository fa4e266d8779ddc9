import type { CallerIdHealthRow, CallerIdCall } from '../../db/stores/caller-id-store'
import type { OrgRow } from '../../db/stores/org-store'
import { notFound } from '../../errors'
import { iso, type Clock } from '../../jobs/clock'
import { logger } from '../../log'
import { figuresOf, judgeAll, windowStart, WINDOW_CALLS, type Figures, type Verdict } from './health-rule'

/** What a rest keeps: the verdict, when, for how long, and whether every number of the carrier was rested then. */
export interface RestEvidence extends Verdict {
  rested_at: string
  rest_days: number
}

/** The data the health rules read and write (src/db/stores/caller-id-store.ts, the organization's row). */
export interface CallerIdHealthPorts {
  store: {
    healthOf(orgId: string): readonly CallerIdHealthRow[]
    put(row: CallerIdHealthRow): void
    recentCalls(orgId: string, callerId: string, since: number, limit: number): CallerIdCall[]
    orgsWithCarriers(): string[]
  }
  org(orgId: string): OrgRow | undefined
  transaction<T>(work: () => T): T
  /** The organization's carriers as reads show them (orgs.carrierPool): each one's `caller_ids`. */
  carrierPool(orgId: string): readonly { kind: string; [field: string]: unknown }[]
  clock: Clock
}

/** A number as the console's Numbers page shows it. */
export interface NumberHealth {
  caller_id: string
  /** The carrier kinds that list it. */
  carriers: string[]
  figures: Figures
  status: 'in_use' | 'rested'
  rested_until: string | null
  /** The verdict that rested it (kept after the rest ends, until the next one). */
  evidence: RestEvidence | null
  /** Far below its baseline now, by the same rule (also when the organization rests none: caller_id_rest_days 0). */
  far_below: Verdict | null
  /** When its calls count from (30 days back, or when it came back into use). */
  window_start: string
}

export const callerIdsOf = (view: { [field: string]: unknown }): string[] =>
  Array.isArray(view.caller_ids) ? view.caller_ids.filter((id): id is string => typeof id === 'string') : []

/**
 * Caller-ID health (docs/caller-ids.md): a job judges each organization's numbers against their
 * campaigns' other numbers and rests one far below for `caller_id_rest_days`; dials skip rested
 * numbers unless every number offered is rested. Health, not rotation past spam labels.
 */
export function callerIdHealth(deps: CallerIdHealthPorts) {
  const { store, clock } = deps
  // Logged once per organization and set of numbers, not at every dial.
  const allRestedLogged = new Set<string>()

  const isRested = (row: CallerIdHealthRow | undefined, now: number) => row?.restedUntil != null && row.restedUntil > now
  /** When a number came back into use (a rest that ended, or an owner's put-back); null: never rested. */
  const backInUse = (row: CallerIdHealthRow | undefined, now: number) =>
    row?.restedUntil != null && row.restedUntil <= now ? row.restedUntil : null

  function numbersOf(orgId: string): Map<string, string[]> {
    const numbers = new Map<string, string[]>()
    for (const entry of deps.carrierPool(orgId)) {
      for (const id of callerIdsOf(entry)) numbers.set(id, [...(numbers.get(id) ?? []), entry.kind])
    }
    return numbers
  }

  function samplesOf(orgId: string, numbers: Iterable<string>, now: number) {
    const rows = new Map(store.healthOf(orgId).map((r) => [r.callerId, r]))
    const samples = new Map<string, CallerIdCall[]>()
    for (const id of numbers) samples.set(id, store.recentCalls(orgId, id, windowStart(now, backInUse(rows.get(id), now)), WINDOW_CALLS))
    return { rows, samples }
  }

  /** Judges one organization's numbers and rests those far below (one transaction); the numbers rested now. */
  function check(orgId: string): string[] {
    const org = deps.org(orgId)
    if (!org) return []
    const now = clock.now()
    const listed = numbersOf(orgId)
    if (listed.size < 2) return []
    return deps.transaction(() => {
      const { rows, samples } = samplesOf(orgId, listed.keys(), now)
      const verdicts = judgeAll(samples)
      const rested: string[] = []
      if (org.callerIdRestDays === 0) return rested
      for (const [callerId, verdict] of verdicts) {
        if (isRested(rows.get(callerId), now)) continue
        const evidence: RestEvidence = { ...verdict, rested_at: iso(now), rest_days: org.callerIdRestDays }
        const until = now + org.callerIdRestDays * 24 * 60 * 60 * 1000
        store.put({ orgId, callerId, restedUntil: until, restedAt: now, evidence, updated: now })
        logger.info('caller_id_rested', { org_id: orgId, caller_id: callerId, rule: verdict.rule, campaign_id: verdict.campaign_id, until: iso(until), detail: verdict.detail })
        rested.push(callerId)
      }
      return rested
    })
  }

  /** Each number of the organization's carriers with its figures, status and evidence (the console's Numbers page). */
  function numbers(orgId: string): NumberHealth[] {
    const now = clock.now()
    const listed = numbersOf(orgId)
    const { rows, samples } = samplesOf(orgId, listed.keys(), now)
    const verdicts = judgeAll(samples)
    return [...listed].map(([callerId, kinds]) => {
      const row = rows.get(callerId)
      const rested = isRested(row, now)
      return {
        caller_id: callerId,
        carriers: kinds,
        figures: figuresOf(samples.get(callerId)!),
        status: rested ? 'rested' as const : 'in_use' as const,
        rested_until: rested ? iso(row!.restedUntil!) : null,
        evidence: (row?.evidence as RestEvidence | null | undefined) ?? null,
        far_below: verdicts.get(callerId) ?? null,
        window_start: iso(windowStart(now, backInUse(row, now))),
      }
    })
  }

  return {
    /** The caller IDs a dial may show now: the rested ones left out, unless that leaves none (then all, logged). */
    usable(orgId: string, callerIds: readonly string[]): readonly string[] {
      const rows = store.healthOf(orgId)
      if (rows.length === 0 || callerIds.length === 0) return callerIds
      const now = clock.now()
      const rested = new Set(rows.filter((r) => isRested(r, now)).map((r) => r.callerId))
      if (rested.size === 0) return callerIds
      const usable = callerIds.filter((id) => !rested.has(id))
      if (usable.length > 0) return usable
      const key = `${orgId} ${callerIds.join(',')}`
      if (!allRestedLogged.has(key)) {
        allRestedLogged.add(key)
        logger.warn('caller_ids_all_rested', { org_id: orgId, caller_ids: callerIds, note: 'every caller ID of the carrier is rested: all are used until a rest ends' })
      }
      return callerIds
    },

    check,

    /** The hourly job: every organization with a carrier of its own. */
    checkAll(): { orgs: number; rested: number } {
      const orgs = store.orgsWithCarriers()
      let rested = 0
      for (const orgId of orgs) rested += check(orgId).length
      return { orgs: orgs.length, rested }
    },

    numbers,

    /** An owner puts a rested number back in use now; its calls count from now. A number in use is left as it is. */
    putBack(orgId: string, callerId: string, by: string): NumberHealth {
      if (!numbersOf(orgId).has(callerId)) throw notFound('No such caller ID among the organization\u2019s carriers.')
      const now = clock.now()
      const row = store.healthOf(orgId).find((r) => r.callerId === callerId)
      if (row && isRested(row, now)) {
        deps.transaction(() => store.put({ ...row, restedUntil: now, updated: now }))
        allRestedLogged.clear()
        logger.info('caller_id_put_back', { org_id: orgId, caller_id: callerId, by, was_rested_until: iso(row.restedUntil!) })
      }
      return numbers(orgId).find((n) => n.caller_id === callerId)!
    },
  }
}

export type CallerIdHealth = ReturnType<typeof callerIdHealth>
