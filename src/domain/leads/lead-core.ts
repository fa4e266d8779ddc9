import type { CampaignRow } from '../../db/stores/campaign-store'
import type { LeadRow, NewLead } from '../../db/stores/lead-store'
import { notFound } from '../../errors'
import type { Verdict } from '../calling-rules/contract'
import { callingRules as defaultEngine } from '../calling-rules'
import type { EventType } from '../events/event-log'
import { outcomeLabel } from '../outcomes'
import { queueKey } from '../queue/queue-key'
import type { LeadCallSummary } from './lead-shape'
import { eventLead } from './lead-view'
import { leadRulesOf, type RulesLead } from './lead-rules'
import { newId } from '../ids'
import type { LeadDeps } from './lead-deps'
import { firstCallable, placeLead, type Placement, type Wait } from './placement'
import { DEFAULT_WINDOW_END_MARGIN_MS, dialVerdict } from './window-margin'

// Until a campaign has calls of its own to average (the dialer reports them).
export const DEFAULT_HANDLE_SECONDS = 180
/** Spec: the late sweep runs every 30 s. */
export const LATE_SWEEP_MS = 30_000

export type { CallActivity, HandleTimeSource, LeadAllowance, LeadDeps, SpendCap } from './lead-deps'

/**
 * What every lead module shares: writing a lead (SQLite first, the dial queue and the due timer
 * after commit), placing it, and its events.
 */
export function leadCore(deps: LeadDeps) {
  const { stores, queues, clock, events } = deps
  const leads = stores.leads
  const rules = leadRulesOf(stores, deps.rules ?? defaultEngine)
  const marginMs = deps.windowEndMarginMs ?? DEFAULT_WINDOW_END_MARGIN_MS

  /** Keeps the dial queue and the due timer in step with a lead's row once the transaction commits. */
  function follow(before: LeadRow | null, after: LeadRow): void {
    if (before?.status === 'queued' && after.status === 'queued' && before.queueKey === after.queueKey) return
    if (after.status === 'queued' && after.callNow && !after.late) {
      // The late sweep runs every 30 s; this asks for the tick at which the lead becomes late.
      const lateAt = after.queuedAt + campaignOf(after.campaignId).lateMinutes * 60_000
      deps.scheduler.wakeAt(Math.ceil(lateAt / LATE_SWEEP_MS) * LATE_SWEEP_MS)
    }
    stores.afterCommit(() => {
      if (before?.status === 'queued' && before.queueKey !== null) {
        queues.remove(before.campaignId, before.livemode, before.id, before.queueKey)
      }
      if (after.status === 'queued' && after.queueKey !== null) {
        queues.add(after.campaignId, after.livemode, after.id, after.queueKey)
      }
      if ((after.status === 'scheduled' || after.status === 'callback_scheduled') && after.dueAt !== null) dueTimer.consider(after.dueAt)
    })
  }

  function save(before: LeadRow, changes: Partial<NewLead>): LeadRow {
    const after = leads.update(before, { ...changes, updated: clock.now() })
    follow(before, after)
    return after
  }

  /** Row changes that put a lead where `placement` says. */
  function placementChanges(placement: Placement, lead: Pick<LeadRow, 'callNow' | 'queuedAt'>, priority?: 0 | 1 | 2): Partial<NewLead> {
    switch (placement.status) {
      case 'queued':
        return {
          status: 'queued',
          queueKey: queueKey(priority ?? (lead.callNow ? 0 : 2), lead.queuedAt),
          dueAt: null,
          dueReason: null,
          heldReason: null,
        }
      case 'scheduled':
        return { status: 'scheduled', queueKey: null, dueAt: placement.dueAt, dueReason: placement.reason, heldReason: null }
      case 'held':
        return { status: 'held', queueKey: null, heldReason: placement.reason }
    }
  }

  function campaignOf(id: string): CampaignRow {
    const campaign = stores.campaigns.get(id)
    if (!campaign) throw notFound('No such campaign')
    return campaign
  }

  /**
   * The placement inputs of a lead. The calling rules are asked at the instant its wait ends
   * (`now` when none); `verdict` gives one already evaluated at `now` (the dialer's), and a
   * block is recorded as one deferral per blocking rule, dated the instant asked, when `record`
   * is set (a due lead, the dialer's head of queue, a retry or callback after a call, POST
   * /calls), not at intake, whose reply says why.
   */
  function placementInput(lead: RulesLead, campaign: CampaignRow, opts: { verdict?: Verdict; record?: { leadId: string } }) {
    const now = clock.now()
    return {
      campaign,
      now,
      lastContactAt: campaign.cooldownHours > 0 ? leads.lastContactAt(lead.orgId, lead.livemode, lead.phone) : null,
      rules: (at: number) => {
        // With the window-end margin, as the dialer will ask (window-margin.ts): a placement names the time a dial really goes out.
        const verdict = opts.verdict && at === now ? opts.verdict : dialVerdict(rules, lead, campaign, at, marginMs)
        if (!verdict.allowed && opts.record) recordDeferrals(lead, opts.record.leadId, verdict, at)
        return verdict
      },
    }
  }

  /** Where the lead goes now (placement.ts placeLead). */
  function placementFor(
    lead: RulesLead,
    campaign: CampaignRow,
    notBefore?: Parameters<typeof placeLead>[0]['notBefore'],
    opts: { verdict?: Verdict; record?: { leadId: string } } = {},
  ): Placement {
    return placeLead({ ...placementInput(lead, campaign, opts), notBefore, spendCapReached: deps.spendCap.capReached(campaign, lead.livemode) })
  }

  /**
   * When a lead whose own wait ends at `wait.at` (a retry, a booked callback) can really be
   * called, and why (placement.ts firstCallable); a block is recorded as the lead's deferral.
   */
  function callableAfter(lead: LeadRow, campaign: CampaignRow, wait: Wait): Wait {
    return firstCallable({ ...placementInput(lead, campaign, { record: { leadId: lead.id } }), notBefore: wait })
  }

  /** One deferred decision per blocking rule (the store skips a deferral already recorded). */
  function recordDeferrals(lead: Pick<LeadRow, 'orgId' | 'livemode'>, leadId: string, verdict: Pick<Verdict, 'blockedBy'>, now: number): void {
    for (const block of verdict.blockedBy) {
      stores.decisions.recordDeferred({ id: newId(), orgId: lead.orgId, livemode: lead.livemode, leadId, at: now, ruleId: block.rule_id, until: block.until })
    }
  }

  /** The changes that take a lead out of the queue for Do Not Call (an opt-out, a listed number). */
  function optedOutChanges(orgId: string, outReason: 'opted_out' | 'dnc'): Partial<NewLead> {
    return {
      status: 'out_of_queue',
      outReason,
      queueKey: null,
      callbackAt: null,
      dueAt: null,
      dueReason: null,
      heldReason: null,
      lastOutcome: 'dnc',
      lastOutcomeLabel: outcomeLabel(stores.orgs.get(orgId)!.outcomeLabels, 'dnc'),
    }
  }

  /** 0 while the lead's call is up, its place while queued, else null. */
  function placeOf(row: LeadRow): number | null {
    if (row.status === 'dialing' || row.status === 'on_call') return 0
    if (row.status !== 'queued' || row.queueKey === null) return null
    return queues.placeInLine(row.campaignId, row.livemode, row.id, row.queueKey)
  }

  const averageHandleSeconds = (campaignId: string, livemode: boolean) =>
    deps.handleTimes.averageHandleSeconds(campaignId, livemode, DEFAULT_HANDLE_SECONDS)

  // Every call starts with beginCall (same transaction), so a lead never attempted has none;
  // intake replies and lead.created/lead.queued then skip the read.
  const recentCallsOf = (row: LeadRow): LeadCallSummary[] => (row.attempts === 0 ? [] : deps.calls.recentCalls(row.id))

  function emit(type: EventType, row: LeadRow, extra: Record<string, unknown> = {}): void {
    emitObject(type, row, { ...eventLead(row, { calls: recentCallsOf(row) }), ...extra })
  }

  function emitObject(type: EventType, row: LeadRow, object: Record<string, unknown>, objectJson?: string): void {
    events.record({ type, orgId: row.orgId, livemode: row.livemode, campaignId: row.campaignId, objectId: row.id, object, objectJson })
  }

  // ---- due timer: scheduled leads enter the queue when their time comes ----

  const dueTimer = (() => {
    let armedFor: number | null = null
    let cancel: (() => void) | null = null
    const arm = (at: number) => {
      cancel?.()
      armedFor = at
      cancel = deps.scheduler.at(at, () => {
        armedFor = null
        cancel = null
        promoteDue()
      })
    }
    return {
      consider(at: number) {
        if (armedFor === null || at < armedFor) arm(at)
      },
      rearm() {
        const next = leads.nextDueAt()
        if (next === null) {
          cancel?.()
          armedFor = null
          cancel = null
        } else arm(next)
      },
    }
  })()

  /** Places again every scheduled lead whose time has come (queued, scheduled anew, or held). */
  function promoteDue(): number {
    let moved = 0
    for (;;) {
      const due = leads.dueWaiting(clock.now(), 500)
      if (due.length === 0) break
      stores.transaction(() => {
        for (const lead of due) {
          const placement = placementFor(lead, campaignOf(lead.campaignId), undefined, { record: { leadId: lead.id } })
          // A wait that ended is over: calling hours and cooldown decide from here. A due
          // callback is called ahead of the rest (priority 1), oldest booking first; one the
          // rules still block keeps its booking, due at their next allowed instant.
          if (lead.status === 'callback_scheduled' && placement.status === 'scheduled') {
            save(lead, { dueAt: placement.dueAt, dueReason: placement.reason })
          } else if (lead.status === 'callback_scheduled') {
            const queuedAt = lead.callbackAt ?? lead.queuedAt
            save(lead, { ...placementChanges(placement, { callNow: false, queuedAt }, 1), queuedAt })
          } else {
            save(lead, placementChanges(placement, lead))
          }
          moved++
        }
      })
    }
    dueTimer.rearm()
    return moved
  }

  return {
    deps,
    follow,
    save,
    placementChanges,
    campaignOf,
    placementFor,
    callableAfter,
    rules,
    /** DIALER_WINDOW_END_MARGIN_SECONDS in ms: every placement and dial asks the rules at now and at now + this. */
    marginMs,
    recordDeferrals,
    optedOutChanges,
    placeOf,
    averageHandleSeconds,
    recentCallsOf,
    emit,
    emitObject,
    promoteDue,
  }
}

export type LeadCore = ReturnType<typeof leadCore>

export function emptyToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value
}
