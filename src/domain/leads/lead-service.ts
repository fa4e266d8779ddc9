import type { CampaignRow } from '../../db/stores/campaign-store'
import type { LeadListFilter, LeadRow, LeadStatus, NewLead } from '../../db/stores/lead-store'
import type { Stores } from '../../db/stores'
import { ApiError, invalid, itemErrorBody, notFound } from '../../errors'
import { iso, isoOrNull, type Clock } from '../../jobs/clock'
import type { Scheduler } from '../../jobs/scheduler'
import type { MinuteCounter } from '../../http/rate-limit'
import { inScope, requireCampaignScope, type Principal } from '../access/permissions'
import { zonesForPhone } from '../calling-hours/lead-zones'
import type { CampaignService } from '../campaigns/campaign-service'
import type { DncService, DncSource } from '../dnc/dnc-service'
import type { EventLog, EventType } from '../events/event-log'
import { newId } from '../ids'
import { outcomeLabel, type Outcome } from '../outcomes'
import { classifyPhone } from '../phone/phone-number'
import { estimatedWaitSeconds, type DialQueues } from '../queue/dial-queues'
import { queueKey } from '../queue/ranked-queue'
import { checkLeadInput, checkConsent, checkFields, type LeadInput } from './lead-input'
import { apiLead, eventLead, type ApiLead, type LeadCallSummary } from './lead-view'
import { placeLead, type Placement, type ScheduledReason } from './placement'
import { afterCall } from '../calls/after-call'
import type { Person } from '../../db/schema'

/** Spec "Limits": waiting API leads per campaign, API-started calls per lead per 24 h. */
export const MAX_WAITING_API_LEADS = 5000
export const MAX_API_CALLS_PER_DAY = 3
const DAY = 24 * 60 * 60 * 1000
// Until a campaign has calls of its own to average (the dialer reports them).
export const DEFAULT_HANDLE_SECONDS = 180
/** Spec: the late sweep runs every 30 s. */
export const LATE_SWEEP_MS = 30_000
const CALL_NOW_CLASS_END = 2 ** 44

/** The intake reply of the spec (POST /leads, each ok batch result). */
export interface IntakeReply {
  id: string | null
  external_id: string | null
  status: 'queued' | 'dialing' | 'scheduled' | 'held'
  call_now: boolean
  place_in_line: number | null
  estimated_wait_seconds: number | null
  scheduled_for: string | null
  scheduled_reason: string | null
  held_reason: string | null
  dry_run: boolean
  requeued?: true
  livemode: boolean
}

export interface IntakeOutcome {
  reply: IntakeReply
  /** 201 for a new lead, 200 for a dry run or a re-queue. */
  created: boolean
}

export interface LeadPatch {
  name?: string | null
  email?: string | null
  address?: string | null
  fields?: Record<string, string>
  consent?: LeadInput['consent']
  external_id?: string
  call_now?: boolean
  /** Present only to be refused (phone_cannot_change). */
  phone?: unknown
}

/** The call-now reply of the spec (POST /calls, 202). */
export interface CallNowReply {
  lead_id: string
  external_id: string | null
  campaign_id: string
  status: IntakeReply['status']
  place_in_line: number | null
  estimated_wait_seconds: number | null
  scheduled_for: string | null
  scheduled_reason: string | null
  held_reason: string | null
  calls_left_today: number
  livemode: boolean
}

export type BatchResult =
  | { index: number; ok: true; lead: IntakeReply }
  | { index: number; ok: false; error: { code: string; message: string; param: string | null; lead_id: string | null } }

/** What the lead service needs of later capabilities; defaults until they exist. */
export interface LeadHooks {
  /** Sample calls of a test key not yet ended (dialer). */
  runningTestCalls(keyId: string): number
  /** The campaign reached its monthly spend cap (usage). */
  spendCapReached(campaign: CampaignRow, livemode: boolean): boolean
  /** Recent average handle time of the campaign's calls, seconds (dialer). */
  averageHandleSeconds(campaignId: string, livemode: boolean): number
  /** A call to this lead is up (dialing or talking), whatever the lead's status says now. */
  callInProgress(lead: LeadRow): boolean
  /** The lead's last 10 calls, newest first (the Lead's `calls`). */
  recentCalls(leadId: string): LeadCallSummary[]
}

const REQUEUEABLE: readonly LeadStatus[] = ['done', 'callback_scheduled', 'new']

export function leadService(deps: {
  stores: Stores
  campaigns: CampaignService
  dnc: DncService
  events: EventLog
  queues: DialQueues
  scheduler: Scheduler
  clock: Clock
  newLeads: MinuteCounter
  hooks?: Partial<LeadHooks>
}) {
  const { stores, queues, clock, events } = deps
  const leads = stores.leads
  const hooks: LeadHooks = {
    runningTestCalls: () => 0,
    spendCapReached: () => false,
    averageHandleSeconds: () => DEFAULT_HANDLE_SECONDS,
    callInProgress: (lead) => lead.status === 'dialing' || lead.status === 'on_call',
    recentCalls: () => [],
    ...deps.hooks,
  }

  // ---- writing leads: SQLite first, the queue after commit ----

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

  function placementFor(lead: Pick<LeadRow, 'phone' | 'orgId' | 'livemode'>, campaign: CampaignRow, notBefore?: Parameters<typeof placeLead>[0]['notBefore']): Placement {
    const org = stores.orgs.get(lead.orgId)!
    return placeLead({
      campaign,
      zones: zonesForPhone(lead.phone, org.timezone),
      now: clock.now(),
      lastContactAt: campaign.cooldownHours > 0 ? leads.lastContactAt(lead.orgId, lead.livemode, lead.phone) : null,
      notBefore,
      spendCapReached: hooks.spendCapReached(campaign, lead.livemode),
    })
  }

  /** A lead for a reply; `single` adds its place in line (only single-lead reads have it). */
  function view(row: LeadRow, single = false): ApiLead {
    // place_in_line and estimated_wait_seconds only on a single-lead read (spec "Lead").
    let place: number | null = null
    let wait: number | null = null
    if (single) {
      const position = placeOf(row)
      place = position
      if (position !== null && row.status === 'queued') {
        wait = estimatedWaitSeconds(position, campaignOf(row.campaignId).lines, hooks.averageHandleSeconds(row.campaignId, row.livemode))
      } else if (position === 0) {
        wait = 0
      }
    }
    return apiLead(row, { placeInLine: place, estimatedWaitSeconds: wait, calls: recentCallsOf(row) })
  }

  function placeOf(row: LeadRow): number | null {
    if (row.status === 'dialing' || row.status === 'on_call') return 0
    if (row.status !== 'queued' || row.queueKey === null) return null
    return queues.placeInLine(row.campaignId, row.livemode, row.id, row.queueKey)
  }

  // Every call starts with beginCall (same transaction), so a lead never attempted has none;
  // intake replies and lead.created/lead.queued then skip the read.
  const recentCallsOf = (row: LeadRow): LeadCallSummary[] => (row.attempts === 0 ? [] : hooks.recentCalls(row.id))

  function emit(type: EventType, row: LeadRow, extra: Record<string, unknown> = {}): void {
    emitObject(type, row, { ...eventLead(row, { calls: recentCallsOf(row) }), ...extra })
  }

  function emitObject(type: EventType, row: LeadRow, object: Record<string, unknown>, objectJson?: string): void {
    events.record({ type, orgId: row.orgId, livemode: row.livemode, campaignId: row.campaignId, objectId: row.id, object, objectJson })
  }

  // ---- intake ----

  interface Prepared {
    campaign: CampaignRow
    e164: string
    existing: LeadRow | undefined
    callNow: boolean
    placement: Placement
  }

  /** Every check of POST /leads in the spec's order; throws the first refusal, writes nothing. */
  function check(principal: Principal, input: LeadInput, at: string, batchSeen?: Map<string, string | null>): Prepared {
    if (!input.campaign_id) throw invalid('campaign_id is required.', `${at}campaign_id`)
    const campaign = stores.campaigns.get(input.campaign_id)
    if (!campaign || campaign.orgId !== principal.orgId) throw notFound('No such campaign', `${at}campaign_id`)
    requireCampaignScope(principal, campaign.id, 'leads:write', `${at}campaign_id`)
    if (campaign.status === 'completed') {
      throw new ApiError('campaign_closed', 'The campaign is completed and takes no new leads.', { param: `${at}campaign_id` })
    }
    checkLeadInput(input, at)

    const phone = classifyPhone(input.phone)
    if (phone.kind === 'unreadable' || phone.kind === 'invalid' || (phone.kind === 'fictional' && principal.livemode)) {
      const why = phone.kind === 'fictional' ? ' (555-01XX numbers are made up; test keys may use them)' : ''
      throw new ApiError('invalid_phone', `Not a valid phone number${why}.`, { param: `${at}phone` })
    }
    const e164 = phone.e164
    const scope = { orgId: principal.orgId, livemode: principal.livemode }
    if (deps.dnc.isListed(scope, e164)) {
      throw new ApiError('on_dnc_list', 'This number is on the Do Not Call list.', { param: `${at}phone` })
    }
    if (deps.campaigns.isRetired(campaign.id, principal.livemode, e164)) {
      throw new ApiError('number_retired', 'This number was retired in the campaign after repeated failed calls.', { param: `${at}phone` })
    }

    const externalId = input.external_id ?? null
    for (const key of [`p:${campaign.id}:${e164}`, externalId !== null ? `x:${campaign.id}:${externalId}` : null]) {
      if (key && batchSeen?.has(key)) {
        throw new ApiError('duplicate_lead', 'This lead repeats an earlier lead of the batch.', {
          param: key.startsWith('x:') ? `${at}external_id` : `${at}phone`,
          extras: { lead_id: batchSeen.get(key) ?? null },
        })
      }
    }
    const now = clock.now()
    const existing = leads.findDuplicate(campaign, principal.livemode, e164, externalId)
    if (existing) {
      const quiet = now - existing.lastPostedAt > campaign.duplicateWindowHours * 3_600_000
      if (!quiet || !REQUEUEABLE.includes(existing.status)) {
        const byExternal = externalId !== null && existing.externalId === externalId
        throw new ApiError('duplicate_lead', `A lead with this ${byExternal ? 'external_id' : 'phone'} already exists in the campaign.`, {
          param: byExternal ? `${at}external_id` : `${at}phone`,
          extras: { lead_id: existing.id },
        })
      }
    }

    if (campaign.requiresConsent && !input.consent && !existing?.consent) {
      throw new ApiError('consent_required', 'This campaign requires consent on every lead.', { param: `${at}consent` })
    }
    if (phone.kind === 'international' || phone.kind === 'premium') {
      const reason = phone.kind === 'premium' ? 'premium' : 'international'
      throw new ApiError('number_not_allowed', `${reason === 'premium' ? 'Premium-rate' : 'International'} numbers are not dialed.`, {
        param: `${at}phone`,
        extras: { reason },
      })
    }
    if (leads.apiWaiting(campaign.id, principal.livemode) >= MAX_WAITING_API_LEADS) {
      throw new ApiError('queue_full', `The campaign has ${MAX_WAITING_API_LEADS} API leads waiting; retry once some are called.`, {
        retryAfter: 60,
      })
    }
    if (!principal.livemode && hooks.runningTestCalls(principal.keyId) >= 20) {
      throw new ApiError('test_flows_busy', 'This test key has 20 sample calls running.', { retryAfter: 5 })
    }
    const callNow = input.call_now ?? campaign.callNowDefault
    if (existing && callNow) checkCallAllowance(existing.id)

    const placement = placementFor({ phone: e164, orgId: principal.orgId, livemode: principal.livemode }, campaign)
    return { campaign, e164, existing, callNow, placement }
  }

  /** 3 API-started calls per lead per 24 h (POST /calls; POST /leads with call_now for an existing lead). */
  function checkCallAllowance(leadId: string): number {
    const since = clock.now() - DAY
    const used = leads.callRequestsSince(leadId, since)
    if (used >= MAX_API_CALLS_PER_DAY) {
      const oldest = leads.oldestCallRequestSince(leadId, since) ?? clock.now()
      throw new ApiError('call_limit_reached', 'This lead already had 3 API-started calls in the last 24 hours.', {
        retryAfter: Math.max(1, Math.ceil((oldest + DAY - clock.now()) / 1000)),
      })
    }
    return MAX_API_CALLS_PER_DAY - used
  }

  function dryReply(principal: Principal, input: LeadInput, p: Prepared): IntakeReply {
    return {
      id: null,
      external_id: input.external_id ?? p.existing?.externalId ?? null,
      status: p.placement.status,
      call_now: p.callNow,
      place_in_line: null,
      estimated_wait_seconds: null,
      scheduled_for: p.placement.status === 'scheduled' ? iso(p.placement.dueAt) : null,
      scheduled_reason: p.placement.status === 'scheduled' ? p.placement.reason : null,
      held_reason: p.placement.status === 'held' ? p.placement.reason : null,
      dry_run: true,
      ...(p.existing ? { requeued: true as const } : {}),
      livemode: principal.livemode,
    }
  }

  /** The reply for a lead written by intake, read after its transaction committed. */
  function intakeReply(written: LeadRow, requeued: boolean): IntakeReply {
    let row = written
    let place = placeOf(row)
    // Queued when written but out of line now: a free line took it once it joined the queue.
    if (row.status === 'queued' && place === null) {
      row = leads.get(row.id) ?? row
      place = placeOf(row)
    }
    const wait = row.status === 'queued' && place !== null
      ? estimatedWaitSeconds(place, campaignOf(row.campaignId).lines, hooks.averageHandleSeconds(row.campaignId, row.livemode))
      : place === 0 ? 0 : null
    return {
      id: row.id,
      external_id: row.externalId,
      status: row.status as IntakeReply['status'],
      call_now: row.callNow,
      place_in_line: place,
      estimated_wait_seconds: wait,
      scheduled_for: row.status === 'scheduled' ? isoOrNull(row.dueAt) : null,
      scheduled_reason: row.status === 'scheduled' ? row.dueReason : null,
      held_reason: row.status === 'held' ? row.heldReason : null,
      dry_run: false,
      ...(requeued ? { requeued: true as const } : {}),
      livemode: row.livemode,
    }
  }

  /** Writes an accepted lead (inside the caller's transaction); returns its row. */
  function write(principal: Principal, input: LeadInput, p: Prepared): { row: LeadRow; requeued: boolean } {
    const now = clock.now()
    if (p.existing) {
      const before = p.existing
      const changes: Partial<NewLead> = {
        callNow: p.callNow,
        queuedAt: now,
        lastPostedAt: now,
        late: false,
        outReason: null,
        callbackAt: null,
        // A re-queued lead starts afresh: no wait left over from before.
        dueAt: null,
        dueReason: null,
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.email !== undefined ? { email: input.email } : {}),
        ...(input.address !== undefined ? { address: input.address } : {}),
        ...(input.fields !== undefined ? { fields: { ...before.fields, ...input.fields } } : {}),
        ...(input.consent !== undefined ? { consent: input.consent } : {}),
        ...(input.external_id !== undefined && before.externalId === null ? { externalId: input.external_id } : {}),
      }
      Object.assign(changes, placementChanges(p.placement, { callNow: p.callNow, queuedAt: now }))
      if (p.callNow) changes.callRequestedBy = principal.keyId
      const row = save(before, changes)
      if (p.callNow) leads.insertCallRequest({ id: newId(), leadId: row.id, keyId: principal.keyId, at: now })
      emit('lead.queued', row)
      return { row, requeued: true }
    }
    const fresh: NewLead = {
      id: newId(),
      orgId: principal.orgId,
      campaignId: p.campaign.id,
      livemode: principal.livemode,
      externalId: input.external_id ?? null,
      phone: p.e164,
      name: emptyToNull(input.name),
      email: emptyToNull(input.email),
      address: emptyToNull(input.address),
      fields: input.fields ?? {},
      consent: input.consent ?? null,
      leadSource: 'api',
      owner: null,
      addedByKeyId: principal.keyId,
      callRequestedBy: p.callNow ? principal.keyId : null,
      callNow: p.callNow,
      queuedAt: now,
      lastPostedAt: now,
      created: now,
      updated: now,
      status: 'new',
    }
    Object.assign(fresh, placementChanges(p.placement, { callNow: p.callNow, queuedAt: now }))
    const row = leads.insert(fresh)
    follow(null, row)
    // Both events carry the same lead: built and serialized once.
    const object = { ...eventLead(row, { calls: [] }) }
    const objectJson = JSON.stringify(object)
    emitObject('lead.created', row, object, objectJson)
    emitObject('lead.queued', row, object, objectJson)
    return { row, requeued: false }
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
          const placement = placementFor(lead, campaignOf(lead.campaignId))
          // A wait that ended is over: calling hours and cooldown decide from here. A due
          // callback is called ahead of the rest (priority 1), oldest booking first.
          if (lead.status === 'callback_scheduled') {
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

  // ---- what other modules tell the leads ----

  /** A number went on a Do Not Call list: each lead of the organization with it leaves the queue. */
  deps.dnc.onNumberBlocked((scope, e164, source, at) => {
    const org = stores.orgs.get(scope.orgId)!
    for (const lead of leads.withPhone(scope.orgId, scope.livemode, e164)) {
      if (lead.status === 'out_of_queue' && lead.outReason !== 'taken_out') continue
      const row = save(lead, {
        status: 'out_of_queue',
        outReason: source === 'api' ? 'opted_out' : 'dnc',
        queueKey: null,
        callbackAt: null,
        dueAt: null,
        dueReason: null,
        heldReason: null,
        lastOutcome: 'dnc',
        lastOutcomeLabel: outcomeLabel(org.outcomeLabels, 'dnc'),
        optedOutAt: at,
      })
      emit('lead.opted_out', row, { opt_out: { source, at: iso(at) } })
    }
  })

  /** Pausing holds the campaign's waiting leads; starting again places them, in their old order. */
  deps.campaigns.onStatusChanged((campaign, previous) => {
    if (campaign.status === 'paused' || campaign.status === 'draft') {
      const reason = campaign.status === 'paused' ? 'campaign_paused' : 'campaign_not_started'
      for (const lead of leads.inStatuses(campaign.id, null, ['queued', 'scheduled'])) {
        save(lead, { status: 'held', queueKey: null, heldReason: reason })
      }
    } else if (campaign.status === 'active' && previous !== 'active') {
      for (const lead of leads.inStatuses(campaign.id, null, ['held'])) {
        if (lead.heldReason === 'spend_cap_reached' && hooks.spendCapReached(campaign, lead.livemode)) continue
        // A lead held while it was waiting for a time keeps that wait.
        const notBefore = lead.dueAt !== null && lead.dueReason ? { at: lead.dueAt, reason: lead.dueReason as ScheduledReason } : null
        save(lead, placementChanges(placementFor(lead, campaign, notBefore), lead))
      }
    }
  })

  // ---- the API ----

  function visibleLead(principal: Principal, id: string): LeadRow {
    const lead = leads.get(id)
    if (!lead || lead.orgId !== principal.orgId || lead.livemode !== principal.livemode || !inScope(principal, lead.campaignId)) {
      throw notFound('No such lead')
    }
    return lead
  }

  /** POST /calls names a lead by lead_id or external_id (with campaign_id when it is in several). */
  function resolveLead(principal: Principal, body: { lead_id?: string; external_id?: string; campaign_id?: string }): LeadRow {
    if (body.campaign_id) requireCampaignScope(principal, body.campaign_id, 'calls:write')
    let lead: LeadRow | undefined
    if (body.lead_id) {
      try {
        lead = visibleLead(principal, body.lead_id)
      } catch {
        throw notFound('No such lead', 'lead_id')
      }
      if (body.external_id !== undefined && lead.externalId !== body.external_id) {
        throw invalid('lead_id and external_id name different leads.', 'external_id')
      }
    } else if (body.external_id !== undefined) {
      const scope = { orgId: principal.orgId, livemode: principal.livemode, campaignIds: principal.campaignIds ? [...principal.campaignIds] : null }
      const found = leads.findByExternalId(scope, body.external_id, body.campaign_id)
      if (found.length > 1) {
        throw new ApiError('ambiguous_external_id', 'This external_id names leads in several campaigns; add campaign_id.', {
          param: 'external_id',
          extras: { candidates: found.map((l) => ({ id: l.id, campaign_id: l.campaignId })) },
        })
      }
      lead = found[0]
    } else {
      throw invalid('Send lead_id or external_id.', 'lead_id')
    }
    if (!lead || (body.campaign_id && lead.campaignId !== body.campaign_id)) throw notFound('No such lead', body.lead_id ? 'lead_id' : 'external_id')
    return lead
  }

  function takeLeadAllowance(principal: Principal, count: number): void {
    const taken = deps.newLeads.tryAdd(principal.keyId, count, principal.leadsPerMinute)
    if (!taken.allowed) {
      throw new ApiError('lead_rate_limited', `This key may add ${principal.leadsPerMinute} leads a minute.`, { retryAfter: taken.retryAfter })
    }
  }

  return {
    /** POST /leads (and the older campaign path): one lead, every check, one transaction. */
    intake(principal: Principal, input: LeadInput, options: { dryRun: boolean }): IntakeOutcome {
      if (!options.dryRun) takeLeadAllowance(principal, 1)
      const prepared = check(principal, input, '')
      if (options.dryRun) return { reply: dryReply(principal, input, prepared), created: false }
      const { row, requeued } = stores.transaction(() => write(principal, input, prepared))
      return { reply: intakeReply(row, requeued), created: !requeued }
    },

    /**
     * POST /leads/batch: each lead on its own (a failing lead does not stop the others),
     * results in order, all in one transaction. The whole batch counts toward the key's
     * new-leads limit up front and is refused whole when it does not fit.
     */
    intakeBatch(principal: Principal, items: { input: LeadInput; error?: ApiError }[], options: { dryRun: boolean }): BatchResult[] {
      if (!options.dryRun) takeLeadAllowance(principal, items.length)
      const seen = new Map<string, string | null>()
      type Taken = { index: number; written: { row: LeadRow; requeued: boolean } }
      const results = stores.transaction(() =>
        items.map(({ input, error }, index): BatchResult | Taken => {
          const at = `leads[${index}].`
          try {
            if (error) throw error
            const prepared = check(principal, input, at, seen)
            const written = options.dryRun ? null : write(principal, input, prepared)
            const id = written?.row.id ?? null
            seen.set(`p:${prepared.campaign.id}:${prepared.e164}`, id)
            if (input.external_id !== undefined) seen.set(`x:${prepared.campaign.id}:${input.external_id}`, id)
            return written ? { index, written } : { index, ok: true, lead: dryReply(principal, input, prepared) }
          } catch (failure) {
            if (!(failure instanceof ApiError)) throw failure
            return {
              index,
              ok: false,
              error: itemErrorBody(failure),
            }
          }
        }),
      )
      // Places in line are read after the whole batch committed and joined the queue.
      return results.map((result) =>
        'written' in result ? { index: result.index, ok: true, lead: intakeReply(result.written.row, result.written.requeued) } : result,
      )
    },

    get(principal: Principal, id: string): ApiLead {
      return view(visibleLead(principal, id), true)
    },

    /** GET /leads?external_id=: the one lead, or 409 when it is in several of the key's campaigns. */
    findByExternalId(principal: Principal, externalId: string, campaignId?: string): ApiLead {
      if (campaignId) requireCampaignScope(principal, campaignId, 'leads:read')
      const scope = { orgId: principal.orgId, livemode: principal.livemode, campaignIds: principal.campaignIds ? [...principal.campaignIds] : null }
      const found = leads.findByExternalId(scope, externalId, campaignId)
      if (found.length === 0) throw notFound('No lead with this external_id', 'external_id')
      if (found.length > 1) {
        throw new ApiError('ambiguous_external_id', 'This external_id names leads in several campaigns; add campaign_id.', {
          param: 'external_id',
          extras: { candidates: found.map((l) => ({ id: l.id, campaign_id: l.campaignId })) },
        })
      }
      return view(found[0]!, true)
    },

    list(principal: Principal, filter: LeadListFilter, limit: number): LeadRow[] {
      if (filter.campaignId) requireCampaignScope(principal, filter.campaignId, 'leads:read')
      const scope = { orgId: principal.orgId, livemode: principal.livemode, campaignIds: principal.campaignIds ? [...principal.campaignIds] : null }
      return leads.list(scope, filter, limit)
    },

    listForCampaign(principal: Principal, campaignId: string, limit: number, options: { cursor?: string; search?: string }): LeadRow[] {
      deps.campaigns.visible(principal, campaignId)
      return leads.listForCampaign(campaignId, principal.livemode, limit, options)
    },

    view,

    /** PATCH /leads/{id} (spec table): clear, merge fields, replace consent, set external_id once, drop call_now. */
    patch(principal: Principal, id: string, patch: LeadPatch): ApiLead {
      const lead = visibleLead(principal, id)
      if (patch.phone !== undefined) {
        throw new ApiError('phone_cannot_change', 'A lead\u2019s phone cannot change; add a new lead instead.', { param: 'phone' })
      }
      if (patch.call_now === true) throw invalid('call_now can only be set to false here; use POST /calls to call a lead now.', 'call_now')
      if (patch.consent) checkConsent(patch.consent)
      if (patch.email) checkLeadInput({ email: patch.email })
      const changes: Partial<NewLead> = {}
      for (const field of ['name', 'email', 'address'] as const) {
        if (patch[field] !== undefined) changes[field] = emptyToNull(patch[field])
      }
      if (patch.fields) {
        const merged = { ...lead.fields }
        for (const [key, value] of Object.entries(patch.fields)) {
          if (value === '') delete merged[key]
          else merged[key] = value
        }
        checkFields(merged)
        changes.fields = merged
      }
      if (patch.consent) changes.consent = patch.consent
      if (patch.external_id !== undefined) {
        if (lead.externalId !== null) throw invalid('This lead already has an external_id; it cannot change.', 'external_id')
        const clash = leads.findByExternalIdInCampaign({ id: lead.campaignId, orgId: lead.orgId }, lead.livemode, patch.external_id)
        if (clash) {
          throw new ApiError('duplicate_lead', 'Another lead of the campaign has this external_id.', {
            param: 'external_id',
            extras: { lead_id: clash.id },
          })
        }
        changes.externalId = patch.external_id
      }
      if (patch.call_now === false && lead.callNow) {
        changes.callNow = false
        if (lead.status === 'queued') changes.queueKey = queueKey(2, lead.queuedAt)
      }
      const row = stores.transaction(() => save(lead, changes))
      return view(row, true)
    },

    /**
     * POST /leads/{id}/opt_out: the number goes on the Do Not Call list (source api), the
     * lead leaves the queue with the dnc outcome, open callbacks close; a call in progress
     * goes on. Asking twice answers the same and adds nothing.
     */
    optOut(principal: Principal, id: string, reason: string | null): ApiLead & { call_in_progress: boolean } {
      const lead = visibleLead(principal, id)
      const callInProgress = hooks.callInProgress(lead)
      const row = stores.transaction(() => {
        deps.dnc.ensureListed({ orgId: lead.orgId, livemode: lead.livemode }, lead.phone, 'api', reason)
        const current = leads.get(id)!
        const org = stores.orgs.get(lead.orgId)!
        if (current.status === 'out_of_queue' && current.optOutReason !== null) return current
        return save(current, {
          status: 'out_of_queue',
          outReason: 'opted_out',
          queueKey: null,
          callbackAt: null,
          dueAt: null,
          dueReason: null,
          heldReason: null,
          lastOutcome: 'dnc',
          lastOutcomeLabel: outcomeLabel(org.outcomeLabels, 'dnc'),
          optOutReason: reason ?? current.optOutReason ?? '',
          optedOutAt: current.optedOutAt ?? clock.now(),
        })
      })
      return { ...view(row, true), call_in_progress: callInProgress }
    },

    // ---- the dialer's side (called inside the call service's transactions) ----

    /** The head of a queue is being dialed: one more attempt, for `owner`. */
    beginCall(lead: LeadRow, owner: Person): LeadRow {
      return save(lead, {
        status: 'dialing',
        queueKey: null,
        attempts: lead.attempts + 1,
        owner,
        callRequestedBy: null,
        nextDialAt: null,
        dueAt: null,
        dueReason: null,
      })
    },

    /** A lead whose turn came outside its calling hours (or while it may not be called) waits again. */
    replace(lead: LeadRow): LeadRow {
      return save(lead, placementChanges(placementFor(lead, campaignOf(lead.campaignId)), lead))
    },

    callAnswered(leadId: string, at: number): void {
      const lead = leads.get(leadId)
      if (!lead) return
      save(lead, { ...(lead.status === 'dialing' ? { status: 'on_call' as const } : {}), lastContactAt: at })
    },

    /**
     * A call's outcome is known: retry, callback, done or out of the queue (DESIGN.md
     * "Retries"); three failed/wrong_number outcomes in a row retire the number. A lead that
     * opted out during the call stays out.
     */
    callEnded(leadId: string, call: { outcome: Outcome; label: string; endedAt: number; callbackAt: number | null }): LeadRow | undefined {
      const lead = leads.get(leadId)
      if (!lead) return undefined
      if (lead.status === 'out_of_queue') return save(lead, {})
      const campaign = campaignOf(lead.campaignId)
      const result = afterCall({
        outcome: call.outcome,
        attempts: lead.attempts,
        maxAttempts: campaign.maxAttempts,
        retryMinutes: campaign.retryMinutes,
        endedAt: call.endedAt,
        failStreak: lead.failStreak,
        callbackAt: call.callbackAt,
      })
      const base: Partial<NewLead> = { lastOutcome: call.outcome, lastOutcomeLabel: call.label, failStreak: result.failStreak, callNow: false, late: false }
      if (result.retire) deps.campaigns.retireNumber(lead.campaignId, lead.phone, lead.livemode, 'repeated_failures')
      const next = result.next
      switch (next.status) {
        case 'scheduled':
          return save(lead, { ...base, status: 'scheduled', queueKey: null, dueAt: next.dueAt, dueReason: next.reason, nextDialAt: next.nextDialAt })
        case 'callback_scheduled': {
          const row = save(lead, { ...base, status: 'callback_scheduled', queueKey: null, callbackAt: next.callbackAt, dueAt: next.callbackAt, dueReason: null })
          const zone = zonesForPhone(row.phone, stores.orgs.get(row.orgId)!.timezone)[0]!
          emit('callback.booked', row, { callback: { at: iso(next.callbackAt), timezone: zone } })
          return row
        }
        case 'done':
          return save(lead, { ...base, status: 'done', queueKey: null, dueAt: null, dueReason: null, nextDialAt: null })
        case 'out_of_queue':
          return save(lead, { ...base, status: 'out_of_queue', queueKey: null, dueAt: null, dueReason: null, nextDialAt: null, outReason: lead.outReason ?? 'dnc' })
      }
    },

    /** Admin: a person takes the lead out of the dialing queue (POST /calls then refuses it). */
    takeOutOfQueue(leadId: string, reason: string | null): LeadRow {
      const lead = leads.get(leadId)
      if (!lead) throw notFound('No such lead')
      return stores.transaction(() =>
        save(lead, { status: 'out_of_queue', outReason: 'taken_out', optOutReason: reason, queueKey: null, dueAt: null, dueReason: null, callbackAt: null, heldReason: null }),
      )
    },

    /**
     * POST /calls: the lead goes to the front of its campaign's queue (overriding a retry or
     * next-dial wait, never calling hours or a paused campaign); 3 a day per lead.
     */
    callNow(principal: Principal, body: { lead_id?: string; external_id?: string; campaign_id?: string }): CallNowReply {
      const lead = resolveLead(principal, body)
      const campaign = campaignOf(lead.campaignId)
      if (campaign.status === 'completed') throw new ApiError('campaign_closed', 'The campaign is completed.')
      const scope = { orgId: lead.orgId, livemode: lead.livemode }
      if (deps.dnc.isListed(scope, lead.phone)) throw new ApiError('on_dnc_list', 'This number is on the Do Not Call list.')
      if (deps.campaigns.isRetired(campaign.id, lead.livemode, lead.phone)) {
        throw new ApiError('number_retired', 'This number was retired in the campaign after repeated failed calls.')
      }
      const phone = classifyPhone(lead.phone)
      if (phone.kind === 'international' || phone.kind === 'premium') {
        throw new ApiError('number_not_allowed', 'This number is not dialed.', { extras: { reason: phone.kind === 'premium' ? 'premium' : 'international' } })
      }
      if (lead.status === 'dialing' || lead.status === 'on_call') throw new ApiError('lead_busy', 'The lead is being dialed or is on a call now.')
      if (lead.status === 'out_of_queue' && lead.outReason === 'taken_out') {
        throw new ApiError('lead_taken_out_of_queue', 'A person took this lead out of the dialing queue; the API does not overrule that.')
      }
      if (!principal.livemode && hooks.runningTestCalls(principal.keyId) >= 20) {
        throw new ApiError('test_flows_busy', 'This test key has 20 sample calls running.', { retryAfter: 5 })
      }
      const left = checkCallAllowance(lead.id) - 1
      const now = clock.now()
      const row = stores.transaction(() => {
        leads.insertCallRequest({ id: newId(), leadId: lead.id, keyId: principal.keyId, at: now })
        const placement = placementFor(lead, campaign)
        return save(lead, {
          ...placementChanges(placement, { callNow: true, queuedAt: now }, 0),
          callNow: true,
          queuedAt: now,
          callRequestedBy: principal.keyId,
          callbackAt: null,
          nextDialAt: null,
          outReason: null,
          late: false,
        })
      })
      const reply = intakeReply(leads.get(row.id) ?? row, false)
      return {
        lead_id: row.id,
        external_id: row.externalId,
        campaign_id: row.campaignId,
        status: reply.status,
        place_in_line: reply.place_in_line,
        estimated_wait_seconds: reply.estimated_wait_seconds,
        scheduled_for: reply.scheduled_for,
        scheduled_reason: reply.scheduled_reason,
        held_reason: reply.held_reason,
        calls_left_today: left,
        livemode: row.livemode,
      }
    },

    emitLead: emit,

    /**
     * A live campaign reached its monthly spend cap: its waiting leads are held
     * (spend_cap_reached); when the cap is raised or the month turns they are placed again,
     * keeping a scheduled lead's time.
     */
    spendCapChanged(campaign: CampaignRow, reached: boolean): void {
      stores.transaction(() => {
        if (reached) {
          for (const lead of leads.inStatuses(campaign.id, true, ['queued', 'scheduled'])) {
            save(lead, { status: 'held', queueKey: null, heldReason: 'spend_cap_reached' })
          }
          return
        }
        for (const lead of leads.inStatuses(campaign.id, true, ['held'])) {
          if (lead.heldReason !== 'spend_cap_reached') continue
          const notBefore = lead.dueAt !== null && lead.dueReason ? { at: lead.dueAt, reason: lead.dueReason as ScheduledReason } : null
          save(lead, placementChanges(placementFor(lead, campaign, notBefore), lead))
        }
      })
    },

    /**
     * The late sweep: call_now leads still in line after the campaign's late minutes get
     * `late: true` and one lead.late event; they are still called. Call_now leads are at the
     * head of each queue, oldest first, so only the head is read.
     */
    markLate(): number {
      const now = clock.now()
      const overdue: { id: string; key: number }[] = []
      for (const { campaignId, livemode } of queues.nonEmpty()) {
        const limit = campaignOf(campaignId).lateMinutes * 60_000
        for (const entry of queues.entries(campaignId, livemode)) {
          // Keys of priority class 0 (call_now) are the time the lead was put in line.
          if (entry.key >= CALL_NOW_CLASS_END || entry.key + limit > now) break
          overdue.push(entry)
        }
      }
      let marked = 0
      for (const entry of overdue) {
        const lead = leads.get(entry.id)
        if (!lead || lead.late || lead.status !== 'queued' || lead.queueKey !== entry.key) continue
        stores.transaction(() => emit('lead.late', save(lead, { late: true })))
        marked++
      }
      return marked
    },

    /** Later capabilities (the dialer) plug in here once they exist. */
    useHooks(more: Partial<LeadHooks>): void {
      Object.assign(hooks, more)
    },

    /** Boot: the queues from SQLite, and the timer for the next scheduled lead. */
    restore(): number {
      const count = queues.rebuild(leads.queuedInOrder())
      promoteDue()
      return count
    },

    promoteDue,
    checkCallAllowance,
  }
}

function emptyToNull(value: string | null | undefined): string | null {
  return value === undefined || value === null || value === '' ? null : value
}

export type LeadService = ReturnType<typeof leadService>
export type { DncSource }
