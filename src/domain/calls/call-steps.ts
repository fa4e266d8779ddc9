import type { CallRow } from '../../db/stores/call-store'
import type { Stores } from '../../db/stores'
import type { Clock } from '../../jobs/clock'
import type { DncService } from '../dnc/dnc-service'
import type { EventLog, EventType } from '../events/event-log'
import type { LeadCallSide } from '../leads/lead-service'
import type { Outcome } from '../outcomes'
import type { Call } from './call-shape'
import { recordingPath, transcriptPath } from './call-view'

/**
 * The steps every part of the call service writes with: update a call, store its event,
 * complete it (call.completed) and settle its outcome (the lead moves on). Each runs inside
 * the caller's transaction.
 */
export function callSteps(deps: {
  stores: Stores
  leads: LeadCallSide
  dnc: DncService
  events: EventLog
  clock: Clock
  /** The Call object of a row (call-reads.ts). */
  view: (row: CallRow) => Call
  /** Told once a call's outcome is final and committed (metrics). */
  onOutcome?: (outcome: Outcome) => void
}) {
  const { stores, clock } = deps
  const calls = stores.calls

  function emit(type: EventType, row: CallRow, extra: Record<string, unknown> = {}): void {
    deps.events.record({ type, orgId: row.orgId, livemode: row.livemode, campaignId: row.campaignId, objectId: row.id, object: { ...deps.view(row), ...extra } })
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

  /** Puts the call's number on the Do Not Call list (source ai when the AI took it on the call, outcome when filed). */
  function listNumber(row: CallRow, source: 'ai' | 'outcome'): void {
    deps.dnc.ensureListed({ orgId: row.orgId, livemode: row.livemode }, calls.lead(row.leadId)!.phone, source)
  }

  /** The outcome is final: the call completes and the lead moves on. A dnc outcome lists the number. */
  function settle(row: CallRow, outcome: Outcome, label: string, note: string | null, dncSource: 'ai' | 'outcome' = 'outcome', carrierFault = false): CallRow {
    const settled = update(row, { outcome, outcomeLabel: label, note, outcomeDueAt: null })
    if (outcome === 'dnc') listNumber(row, dncSource)
    // A call the lead made leaves a lead that is on one of our calls right now to that call's end.
    const busy = row.direction === 'inbound' && ['dialing', 'on_call'].includes(stores.leads.get(row.leadId)?.status ?? '')
    if (!busy) deps.leads.callEnded(row.leadId, { outcome, label, endedAt: row.ended ?? clock.now(), callbackAt: row.callbackAt, carrierFault })
    count(outcome)
    return complete(settled)
  }

  /** A final outcome is counted once the transaction commits (metrics). */
  function count(outcome: Outcome): void {
    const counted = deps.onOutcome
    if (counted) stores.afterCommit(() => counted(outcome))
  }

  return {
    emit,
    update,
    complete,
    settle,
    count,
    listNumber,
    /** The call's organization (always there: calls are removed with it). */
    org: (id: string) => stores.orgs.get(id)!,
  }
}

export type CallSteps = ReturnType<typeof callSteps>
