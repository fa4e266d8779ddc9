import type { HandledBy, Person } from '../../db/schema'
import type { CallFilter, CallRow, CallViewRow, ListedCall } from '../../db/stores/call-store'
import type { CampaignRow } from '../../db/stores/campaign-store'
import type { LeadRow } from '../../db/stores/lead-store'
import type { Stores } from '../../db/stores'
import { ApiError, invalid, notFound } from '../../errors'
import { iso, type Clock } from '../../jobs/clock'
import type { Scheduler } from '../../jobs/scheduler'
import type { AnsweredBy, BridgePerson, CallEvents, CallReport, DialRequest } from '../../telephony/carrier'
import type { TranscriptLine } from '../../db/schema'
import { bridgeOf, chooseCallerId, type CarrierDirectory } from './carrier-choice'
import { inScope, type Principal } from '../access/permissions'
import { zonesForPhone } from '../calling-hours/lead-zones'
import type { DncService } from '../dnc/dnc-service'
import type { EventLog, EventType } from '../events/event-log'
import type { LeadCallSide } from '../leads/lead-service'
import { newId } from '../ids'
import type { SignedLinks } from '../links/signed-links'
import { isOutcome, outcomeForLabel, outcomeLabel, type Outcome } from '../outcomes'
import { callView, recordingPath, transcriptPath } from './call-view'

/** Spec: a person-handled call with no outcome filed after 10 minutes completes as other. */
export const OUTCOME_GRACE_MS = 10 * 60 * 1000
/** Spec "Limits": recording link life. */
export const RECORDING_LINK_MS = 5 * 60 * 1000

const AI: HandledBy = { id: null, name: 'AI assistant', role: 'ai' }

/** Who started a call: the dialer from the queue, or an API key (POST /calls, call_now intake). */
export type StartedBy = { type: 'dialer' | 'api' | 'person'; api_key_id: string | null }

/**
 * Calls, from dialing to call.completed: the carrier reports what happens, each step is one
 * transaction that updates the call, moves the lead and stores the step's event.
 */
export function callService(deps: {
  stores: Stores
  leads: LeadCallSide
  dnc: DncService
  events: EventLog
  carriers: CarrierDirectory
  clock: Clock
  scheduler: Scheduler
  links: SignedLinks
  /** Told once a call's outcome is final and committed (metrics). */
  onOutcome?: (outcome: Outcome) => void
}) {
  const { stores, clock, events } = deps
  const calls = stores.calls
  // People on a call right now (SDRs are offered interested leads before closers).
  const busyPeople = new Set<string>()
  const outcomeTimers = new Map<string, () => void>()
  const lineFreeListeners: ((campaignId: string, livemode: boolean) => void)[] = []
  const throttleListeners: ((campaignId: string, livemode: boolean) => void)[] = []

  const view = (row: CallRow) => callView(row, calls.lead(row.leadId))
  /** Views of a page of calls, their leads read in one query. */
  const views = (rows: CallViewRow[]) => {
    const leadsById = calls.leadsOf(rows.map((r) => r.leadId))
    return rows.map((row) => callView(row, leadsById.get(row.leadId)))
  }
  const org = (id: string) => stores.orgs.get(id)!

  function emit(type: EventType, row: CallRow, extra: Record<string, unknown> = {}): void {
    events.record({ type, orgId: row.orgId, livemode: row.livemode, campaignId: row.campaignId, objectId: row.id, object: { ...view(row), ...extra } })
  }

  function update(row: CallRow, changes: Partial<CallRow>): CallRow {
    return calls.update(row.id, { ...changes, updated: clock.now() })
  }

  /** Sends call.completed (revision 1, 2, ...) for a call whose outcome is known. */
  function complete(row: CallRow): CallRow {
    const done = update(row, { revision: row.revision + 1 })
    emit('call.completed', done, {
      revision: done.revision,
      recording_path: done.recordingAvailable ? recordingPath(done.id) : null,
      transcript_path: done.transcriptAvailable ? transcriptPath(done.id) : null,
    })
    return done
  }

  /**
   * The outcome is final: the call completes and the lead moves on. A dnc outcome puts the
   * number on the list (source ai when the AI took it on the call, outcome when filed).
   */
  function settle(row: CallRow, outcome: Outcome, label: string, note: string | null, dncSource: 'ai' | 'outcome' = 'outcome', carrierFault = false): CallRow {
    const settled = update(row, { outcome, outcomeLabel: label, note, outcomeDueAt: null })
    if (outcome === 'dnc') {
      deps.dnc.ensureListed({ orgId: row.orgId, livemode: row.livemode }, calls.lead(row.leadId)!.phone, dncSource)
    }
    deps.leads.callEnded(row.leadId, { outcome, label, endedAt: row.ended ?? clock.now(), callbackAt: row.callbackAt, carrierFault })
    const counted = deps.onOutcome
    if (counted) stores.afterCommit(() => counted(outcome))
    return complete(settled)
  }

  function armOutcomeTimer(row: CallRow): void {
    if (row.outcomeDueAt === null) return
    outcomeTimers.get(row.id)?.()
    outcomeTimers.set(row.id, deps.scheduler.at(row.outcomeDueAt, () => {
      outcomeTimers.delete(row.id)
      const current = calls.get(row.id)
      if (!current || current.outcome !== null) return
      stores.transaction(() =>
        settle(current, 'other', outcomeLabel(org(current.orgId).outcomeLabels, 'other'), 'No outcome was filed within 10 minutes of the call.'),
      )
    }))
  }

  /** The events the carrier sends back, each applied in one transaction. */
  const carrierEvents: CallEvents = {
    answered(callId: string, by: AnsweredBy) {
      const row = calls.get(callId)
      if (!row || row.status !== 'ringing') return
      stores.transaction(() => {
        const now = clock.now()
        const answered = update(row, { status: 'in_progress', answered: now, answeredBy: by })
        deps.leads.callAnswered(row.leadId, now)
        emit('call.answered', answered, { answered_by: by })
      })
    },

    intent(callId: string, excerpt: string, confidence: number) {
      const row = calls.get(callId)
      if (!row || row.status === 'ended') return
      const campaign = stores.campaigns.get(row.campaignId)!
      // Ready SDRs first, else the campaign's closers.
      const ready = campaign.sdrs.filter((p) => !busyPeople.has(p.id))
      const offeredTo = ready.length > 0
        ? ready.map((p) => ({ id: p.id, name: p.name, role: 'sdr' as const }))
        : campaign.closers.map((p) => ({ id: p.id, name: p.name, role: 'closer' as const }))
      const intent = { at: clock.now(), excerpt, confidence, offered_to: offeredTo }
      stores.transaction(() => {
        const marked = update(row, { intent })
        emit('lead.interested', marked, { intent: { ...intent, at: iso(intent.at) } })
      })
    },

    handover(callId: string, named?: Pick<BridgePerson, 'id' | 'name' | 'role'>) {
      const row = calls.get(callId)
      // Once per call: a carrier may say it twice.
      if (!row || row.status === 'ended' || row.handledBy.role !== 'ai') return
      const offer = row.intent?.offered_to.find((p) => p.id === null || !busyPeople.has(p.id)) ?? row.intent?.offered_to[0]
      const person = named ?? offer ?? (row.owner ? { id: row.owner.id, name: row.owner.name, role: 'sdr' as const } : null)
      if (!person) return
      if (person.id) busyPeople.add(person.id)
      // A closer is named but has no id on the call (spec "Call": handled_by).
      const handledBy: HandledBy = person.role === 'closer' ? { id: null, name: person.name, role: 'closer' } : { id: person.id, name: person.name, role: 'sdr' }
      const now = clock.now()
      // Time to handover: from the intent the AI heard, else from the answer (a person-first bridge).
      const from = row.intent?.at ?? row.answered
      stores.transaction(() => {
        const taken = update(row, { handledBy, tthSeconds: from !== null ? Math.max(0, now - from) / 1000 : null, outcomeDueAt: null })
        emit('handover.accepted', taken)
      })
    },

    ended(callId: string, report: CallReport) {
      const row = calls.get(callId)
      if (!row || row.status === 'ended') return
      if (row.handledBy.id) busyPeople.delete(row.handledBy.id)
      const now = clock.now()
      const orgRow = org(row.orgId)
      const ended = stores.transaction(() => {
        const personHandled = row.handledBy.role !== 'ai'
        const base = update(row, {
          status: 'ended',
          ended: now,
          durationSeconds: report.durationSeconds,
          // A carrier may have sent lines or the recording before the end (transcribed, recorded).
          transcriptAvailable: report.transcript.length > 0 || row.transcriptAvailable,
          recordingAvailable: (report.recorded || row.recordingAvailable) && orgRow.recordingEnabled,
          callbackAt: report.callbackAt,
          note: report.note,
        })
        if (report.transcript.length > 0) calls.saveTranscript(row.id, report.transcript)
        if (report.voicemailDelivered) emit('voicemail.left', base)
        if (report.optOut) deps.dnc.ensureListed({ orgId: row.orgId, livemode: row.livemode }, calls.lead(row.leadId)!.phone, 'ai')
        if (report.outcome === null && personHandled) {
          // The person files the outcome (the lead stays on_call meanwhile, wrapping up); with
          // none after 10 minutes it becomes other.
          return update(base, { outcomeDueAt: now + OUTCOME_GRACE_MS })
        }
        const outcome = report.outcome ?? 'undetermined'
        return settle(base, outcome, outcomeLabel(orgRow.outcomeLabels, outcome), report.note, 'ai', report.carrierFault !== undefined)
      })
      armOutcomeTimer(ended)
      if (report.carrierFault === 'throttled') for (const listener of throttleListeners) listener(row.campaignId, row.livemode)
      for (const listener of lineFreeListeners) listener(row.campaignId, row.livemode)
    },

    transcribed(callId: string, lines: TranscriptLine[]) {
      const row = calls.get(callId)
      if (!row || lines.length === 0) return
      stores.transaction(() => {
        calls.appendTranscript(callId, lines)
        if (!row.transcriptAvailable) update(row, { transcriptAvailable: true })
      })
    },

    recorded(callId: string) {
      const row = calls.get(callId)
      if (!row || row.recordingAvailable || !org(row.orgId).recordingEnabled) return
      stores.transaction(() => update(row, { recordingAvailable: true }))
    },
  }

  return {
    view,
    views,

    /** Told when a call ends, so its line can take the next lead. */
    onLineFree(listener: (campaignId: string, livemode: boolean) => void): void {
      lineFreeListeners.push(listener)
    },

    /** Told when the carrier turned a call away for its own limit (Twilio's 429), before the line is freed. */
    onCarrierThrottled(listener: (campaignId: string, livemode: boolean) => void): void {
      throttleListeners.push(listener)
    },

    /** The events carriers report calls with (a carrier's callbacks may come without a dial: after a restart). */
    carrierEvents,

    /**
     * Dials a lead taken off the queue: the call, the lead dialing, call.started; then the
     * carrier, once those rows are durable (a dial cannot be taken back, so it never starts
     * for a call a failed commit or a crash could still lose).
     */
    start(lead: LeadRow, campaign: CampaignRow, owner: Person): CallRow {
      const now = clock.now()
      const startedBy: StartedBy = lead.callRequestedBy ? { type: 'api', api_key_id: lead.callRequestedBy } : { type: 'dialer', api_key_id: null }
      const orgRow = org(lead.orgId)
      const choice = deps.carriers.forDial(lead.orgId, lead.livemode)
      const call = stores.transaction(() => {
        const row = calls.insert({
          id: newId(),
          orgId: lead.orgId,
          campaignId: campaign.id,
          leadId: lead.id,
          livemode: lead.livemode,
          keyId: lead.livemode ? null : (lead.callRequestedBy ?? lead.addedByKeyId),
          direction: 'outbound',
          status: 'ringing',
          started: now,
          updated: now,
          handledBy: AI,
          owner,
          startedBy,
          carrier: choice.carrier.name,
        })
        deps.leads.beginCall(lead, owner)
        emit('call.started', row)
        return row
      })
      const request: DialRequest = {
        callId: call.id,
        orgId: lead.orgId,
        to: lead.phone,
        livemode: lead.livemode,
        record: orgRow.recordingEnabled,
        leadName: lead.name,
        agentName: owner.name,
        leadZone: zonesForPhone(lead.phone, orgRow.timezone)[0]!,
        callerId: chooseCallerId(choice.callerIds, lead.phone),
        machineDetection: choice.machineDetection,
        onAnswer: { bridge: bridgeOf(campaign), voicemail: campaign.voicemail ?? null },
      }
      stores.afterDurable(() => choice.carrier.dial(request, carrierEvents))
      return call
    },

    /**
     * Admin POST /calls/{id}/outcome: a person files the outcome of a call they handled, or
     * corrects one (call.completed again, same id, newer `updated`, revision 2, 3...).
     */
    fileOutcome(callId: string, input: { outcome?: string; outcome_label?: string; note?: string | null }): CallRow {
      const row = calls.get(callId)
      if (!row) throw notFound('No such call')
      if ((input.outcome === undefined) === (input.outcome_label === undefined)) {
        throw invalid('Send either outcome or outcome_label.', 'outcome')
      }
      if (row.status !== 'ended') throw new ApiError('lead_busy', 'The call is still up; file the outcome once it has ended.')
      const labels = org(row.orgId).outcomeLabels
      let outcome: Outcome
      let label: string
      if (input.outcome !== undefined) {
        if (!isOutcome(input.outcome)) throw invalid(`"${input.outcome}" is not an outcome word.`, 'outcome')
        outcome = input.outcome
        label = outcomeLabel(labels, outcome)
      } else {
        label = input.outcome_label!
        // An unknown label gives outcome other, the label kept (DESIGN.md).
        outcome = outcomeForLabel(labels, label)
      }
      const note = input.note === undefined ? row.note : input.note
      outcomeTimers.get(row.id)?.()
      outcomeTimers.delete(row.id)
      return stores.transaction(() => {
        if (row.outcome === null) return settle(row, outcome, label, note)
        const corrected = update(row, { outcome, outcomeLabel: label, note })
        if (outcome === 'dnc') deps.dnc.ensureListed({ orgId: row.orgId, livemode: row.livemode }, calls.lead(row.leadId)!.phone, 'outcome')
        // The lead follows the corrected outcome while this is still its latest call and no
        // new call is up; otherwise only its last outcome is corrected.
        const lead = stores.leads.get(row.leadId)
        const latest = calls.recentForLead(row.leadId, 1)[0]?.id === row.id
        if (lead && latest && lead.status !== 'dialing' && lead.status !== 'on_call') {
          deps.leads.callEnded(row.leadId, { outcome, label, endedAt: row.ended ?? clock.now(), callbackAt: row.callbackAt })
        } else {
          stores.leads.annotate(row.leadId, { lastOutcome: outcome, lastOutcomeLabel: label, updated: clock.now() })
        }
        return complete(corrected)
      })
    },

    /**
     * Boot: a call that was up when the process stopped. A real carrier is asked how it went and
     * reports it (resume); the simulator cannot resume one, so it is closed as failed (its lead
     * retried by the usual rules). Timers of calls waiting for a person's outcome are armed again.
     */
    recover(): number {
      const open = calls.open()
      let closed = 0
      for (const row of open) {
        const carrier = deps.carriers.named(row.carrier)
        if (carrier?.resume({ id: row.id, orgId: row.orgId, started: row.started, answered: row.answered }, carrierEvents)) continue
        closed++
        stores.transaction(() => {
          // Never before the call's own times: a clock set back (NTP, a fake clock that boots
          // at its fixed start) must not give a negative duration.
          const ended = Math.max(clock.now(), row.answered ?? row.started)
          const done = update(row, { status: 'ended', ended, durationSeconds: row.answered ? Math.round((ended - row.answered) / 1000) : 0 })
          const label = outcomeLabel(org(row.orgId).outcomeLabels, 'failed')
          settle(done, 'failed', label, 'The service restarted during the call; it was not completed.')
        })
      }
      for (const row of calls.awaitingOutcome()) armOutcomeTimer(row)
      return closed
    },

    // ---- the API ----

    visible(principal: Principal, id: string): CallRow {
      const row = calls.get(id)
      if (!row || row.orgId !== principal.orgId || row.livemode !== principal.livemode || !inScope(principal, row.campaignId)) {
        throw notFound('No such call')
      }
      return row
    },

    /** Newest first, each call with its lead's fields (shown with `listedView`). */
    list(principal: Principal, filter: Omit<CallFilter, 'orgId' | 'livemode' | 'campaignIds'>, limit: number): ListedCall[] {
      return calls.list(scopeFilter(principal, filter), limit)
    },

    listedView: (row: ListedCall) => callView(row, row.lead ?? undefined),

    page(principal: Principal, filter: Omit<CallFilter, 'orgId' | 'livemode' | 'campaignIds'> & { status?: string }, offset: number, limit: number) {
      return calls.page({ ...scopeFilter(principal, filter), status: filter.status }, offset, limit)
    },

    /** A 5-minute signed link to the recording, made on each request and never stored. */
    recordingLink(row: CallRow): { url: string; expires_at: string } {
      if (!row.recordingAvailable || !org(row.orgId).recordingEnabled) {
        throw new ApiError('recording_not_available', 'There is no recording of this call.')
      }
      const expiresAt = clock.now() + RECORDING_LINK_MS
      return { url: deps.links.url(`/recordings/${row.id}`, expiresAt), expires_at: iso(Math.floor(expiresAt / 1000) * 1000) }
    },

    recordingAudio(callId: string, expires: string | undefined, signature: string | undefined): Uint8Array {
      deps.links.verify(`/recordings/${callId}`, expires, signature, clock.now())
      const row = calls.get(callId)
      const audio = row?.recordingAvailable ? (deps.carriers.named(row.carrier)?.recording({ id: row.id, durationSeconds: row.durationSeconds }) ?? null) : null
      if (!audio) throw new ApiError('recording_not_available', 'There is no recording of this call.')
      return audio
    },

    transcript: (row: CallRow) => calls.transcript(row.id),
  }
}

function scopeFilter(principal: Principal, filter: Omit<CallFilter, 'orgId' | 'livemode' | 'campaignIds'>): CallFilter {
  return {
    ...filter,
    orgId: principal.orgId,
    livemode: principal.livemode,
    campaignIds: principal.campaignIds ? [...principal.campaignIds] : null,
  }
}

export type CallService = ReturnType<typeof callService>
