import type { HandledBy, Person, TranscriptLine } from '../../db/schema'
import type { CallRow } from '../../db/stores/call-store'
import type { CampaignRow } from '../../db/stores/campaign-store'
import type { LeadRow } from '../../db/stores/lead-store'
import type { Stores } from '../../db/stores'
import { iso, type Clock } from '../../jobs/clock'
import type { AnsweredBy, BridgePerson, CallEvents, CallReport } from '../../telephony/carrier'
import { callingRules } from '../calling-rules'
import type { CallingRulesEngine } from '../calling-rules/contract'
import type { LeadCallSide } from '../leads/lead-service'
import { newId } from '../ids'
import { outcomeLabel } from '../outcomes'
import { chooseCallerId, type CarrierDirectory } from './carrier-choice'
import { redial, type CarrierFailover } from './carrier-failover'
import { dialRequestOf } from './dial-request'
import { OUTCOME_GRACE_MS, type CallOutcomes } from './call-outcomes'
import { callLedger } from './call-ledger'
import { aiSeatEvents } from './ai-seat-events'
import type { CallSteps } from './call-steps'
import { recordingConsentOf } from './recording-consent'
import { renderInstructions } from '../campaigns/instructions-template'

const AI: HandledBy = { id: null, name: 'AI assistant', role: 'ai' }
/** A call the carrier rang only after the lead's calling window closed (it had queued it): canceled, never connected. */
export const LATE_RING_NOTE = 'Canceled at the carrier: it began ringing after the lead\u2019s calling window had closed.'

/** Who started a call: the dialer from the queue, or an API key (POST /calls, call_now intake). */
export type StartedBy = { type: 'dialer' | 'api' | 'person'; api_key_id: string | null }

type LineListener = (campaignId: string, livemode: boolean) => void

/**
 * A call from dialing to its end: the start, the events the carrier reports (each step one
 * transaction that updates the call, moves the lead and stores the step's event) and boot
 * recovery of calls a stop cut off.
 */
export function callLifecycle(deps: {
  stores: Stores
  leads: LeadCallSide
  carriers: CarrierDirectory
  clock: Clock
  steps: CallSteps
  /** Arms the outcome timer of a call a person handled. */
  outcomes: Pick<CallOutcomes, 'arm'>
  /** Which states of a lead require all-party consent to record (default: the shared engine). */
  rules?: Pick<CallingRulesEngine, 'reachOf' | 'recordingConsent'>
  /**
   * The organization's caller IDs a dial may show now (caller-ID health rests some: src/domain/caller-ids/);
   * absent: all of them.
   */
  usableCallerIds?: (orgId: string, callerIds: readonly string[]) => readonly string[]
  /** A pool's failover and breakers (src/domain/calls/carrier-failover.ts); absent: a call ends where its carrier left it. */
  failover?: CarrierFailover
}) {
  const { stores, clock, steps, outcomes } = deps
  const { emit, update, settle, org } = steps
  const calls = stores.calls
  // People on a call right now (SDRs are offered interested leads before closers).
  const busyPeople = new Set<string>()
  const lineFreeListeners: LineListener[] = []
  const throttleListeners: LineListener[] = []
  const ledger = callLedger({ stores, update })
  const seat = aiSeatEvents({ stores, update })

  /** The events the carrier sends back, each applied in one transaction. */
  const carrierEvents: CallEvents = {
    attested(callId: string, level: 'A' | 'B' | 'C') {
      const row = calls.get(callId)
      if (!row || row.attestation !== null) return
      stores.transaction(() => update(row, { attestation: level }))
    },

    answered(callId: string, by: AnsweredBy) {
      const row = calls.get(callId)
      if (!row || row.status !== 'ringing') return
      deps.failover?.answered(row)
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
      const next = deps.failover?.ended(row, report)
      if (next) return redial({ stores, update }, row, next, carrierEvents)
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
          ...ledger.atEnd(row, report.endedAt ?? now),
        })
        if (report.transcript.length > 0) calls.saveTranscript(row.id, report.transcript)
        if (report.voicemailDelivered) emit('voicemail.left', base)
        if (report.optOut) steps.listNumber(row, report.dncSource ?? 'ai')
        if (report.outcome === null && personHandled) {
          // The person files the outcome (the lead stays on_call meanwhile, wrapping up); with
          // none after 10 minutes it becomes other.
          return update(base, { outcomeDueAt: now + OUTCOME_GRACE_MS })
        }
        const outcome = report.outcome ?? 'undetermined'
        return settle(base, outcome, outcomeLabel(orgRow.outcomeLabels, outcome), report.note, report.dncSource ?? 'ai', report.carrierFault !== undefined)
      })
      outcomes.arm(ended)
      if (report.carrierFault === 'throttled') for (const listener of throttleListeners) listener(row.campaignId, row.livemode)
      // A call the lead made (inbound) held none of the dialer's lines.
      if (row.direction === 'outbound') for (const listener of lineFreeListeners) listener(row.campaignId, row.livemode)
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

    personAnswered: ledger.personAnswered,
    connected: ledger.connected,
    ...seat,

    announced(callId: string, at: number) {
      const row = calls.get(callId)
      // Once: the first end of the notice is when recording could start.
      if (!row?.recordingConsent || row.recordingConsent.announced_at !== null) return
      stores.transaction(() => update(row, { recordingConsent: { ...row.recordingConsent!, announced_at: at } }))
    },

    ringing(callId: string): boolean {
      const row = calls.get(callId)
      // Asked once, before the answer is told: a call already answered or ended is not stopped here.
      if (!row || row.status !== 'ringing') return true
      const now = clock.now()
      const label = outcomeLabel(org(row.orgId).outcomeLabels, 'no_answer')
      const open = stores.transaction(() => {
        if (deps.leads.callRinging(row.leadId, now, { outcome: 'no_answer', label })) {
          // Caller-ID health reads declines from it (ended within 3 s of ringing, unanswered).
          if (row.rangAt === null) update(row, { rangAt: now })
          return true
        }
        const ended = update(row, { status: 'ended', ended: now, durationSeconds: 0, outcome: 'no_answer', outcomeLabel: label, note: LATE_RING_NOTE, outcomeDueAt: null })
        steps.count('no_answer')
        steps.complete(ended)
        return false
      })
      if (!open) for (const listener of lineFreeListeners) listener(row.campaignId, row.livemode)
      return open
    },
  }

  return {
    /** The events carriers report calls with (a carrier's callbacks may come without a dial: after a restart). */
    carrierEvents,

    /** Told when a call ends, so its line can take the next lead. */
    onLineFree(listener: LineListener): void {
      lineFreeListeners.push(listener)
    },

    /** Told when the carrier turned a call away for its own limit (Twilio's 429), before the line is freed. */
    onCarrierThrottled(listener: LineListener): void {
      throttleListeners.push(listener)
    },

    /**
     * Dials a lead taken off the queue: the call, the lead dialing, call.started; then the
     * carrier, once those rows are durable (a dial cannot be taken back, so it never starts
     * for a call a failed commit or a crash could still lose).
     */
    start(lead: LeadRow, campaign: CampaignRow, owner: Person): CallRow {
      const now = clock.now()
      const startedBy: StartedBy = lead.callRequestedBy ? { type: 'api', api_key_id: lead.callRequestedBy } : { type: 'dialer', api_key_id: null }
      const orgRow = org(lead.orgId)
      // Power and predictive answers join a seat's conference: at the pool's first carrier, where seats are.
      const choice = deps.carriers.forDial(lead.orgId, lead.livemode, { seated: campaign.dialMode !== 'bridge' })
      const callerId = chooseCallerId(deps.usableCallerIds?.(lead.orgId, choice.callerIds) ?? choice.callerIds, lead.phone)
      const consent = recordingConsentOf(deps.rules ?? callingRules, {
        phone: lead.phone, address: lead.address, orgTimezone: orgRow.timezone, recordingEnabled: orgRow.recordingEnabled, notice: campaign.recordingNotice,
      })
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
          callerId,
          recordingConsent: consent?.stored ?? null,
          // The built-in agent's prompt as this call will have it, kept for the operator.
          aiInstructions: campaign.aiAgent?.kind === 'openai_realtime'
            ? renderInstructions(campaign.aiAgent.instructions, { lead, campaign, org: orgRow })
            : null,
        })
        deps.leads.beginCall(lead, owner)
        emit('call.started', row)
        return row
      })
      const request = dialRequestOf(call, lead, campaign, owner, orgRow, { consent: consent?.carrier ?? null, callerId, machineDetection: choice.machineDetection })
      deps.failover?.dialing(request, choice.carrier.name, choice.fallbacks)
      stores.afterDurable(() => choice.carrier.dial(request, carrierEvents))
      return call
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
          const done = update(row, { status: 'ended', ended, durationSeconds: row.answered ? Math.round((ended - row.answered) / 1000) : 0, ...ledger.atEnd(row, ended) })
          const label = outcomeLabel(org(row.orgId).outcomeLabels, 'failed')
          settle(done, 'failed', label, 'The service restarted during the call; it was not completed.')
        })
      }
      for (const row of calls.awaitingOutcome()) outcomes.arm(row)
      return closed
    },
  }
}
