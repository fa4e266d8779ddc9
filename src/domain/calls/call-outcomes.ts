import type { CallRow } from '../../db/stores/call-store'
import type { Stores } from '../../db/stores'
import type { Clock } from '../../jobs/clock'
import type { Scheduler } from '../../jobs/scheduler'
import { ApiError, invalid, notFound } from '../../errors'
import type { LeadCallSide } from '../leads/lead-service'
import { isOutcome, outcomeForLabel, outcomeLabel, type Outcome } from '../outcomes'
import type { CallSteps } from './call-steps'

/** Spec: a person-handled call with no outcome filed after 10 minutes completes as other. */
export const OUTCOME_GRACE_MS = 10 * 60 * 1000

/**
 * Outcomes a person files: the form (a first outcome, or a correction) and the timer that
 * completes a person-handled call as other when none is filed in time.
 */
export function callOutcomes(deps: {
  stores: Stores
  leads: LeadCallSide
  clock: Clock
  scheduler: Scheduler
  steps: CallSteps
}) {
  const { stores, clock, steps } = deps
  const calls = stores.calls
  const timers = new Map<string, () => void>()

  return {
    /** Arms the outcome timer of a call waiting for a person's outcome (no-op for others). */
    arm(row: CallRow): void {
      if (row.outcomeDueAt === null) return
      timers.get(row.id)?.()
      timers.set(row.id, deps.scheduler.at(row.outcomeDueAt, () => {
        timers.delete(row.id)
        const current = calls.get(row.id)
        if (!current || current.outcome !== null) return
        stores.transaction(() =>
          steps.settle(current, 'other', outcomeLabel(steps.org(current.orgId).outcomeLabels, 'other'), 'No outcome was filed within 10 minutes of the call.'),
        )
      }))
    },

    /**
     * Admin POST /calls/{id}/outcome: a person files the outcome of a call they handled, or
     * corrects one (call.completed again, same id, newer `updated`, revision 2, 3...).
     */
    file(callId: string, input: { outcome?: string; outcome_label?: string; note?: string | null }): CallRow {
      const row = calls.get(callId)
      if (!row) throw notFound('No such call')
      if ((input.outcome === undefined) === (input.outcome_label === undefined)) {
        throw invalid('Send either outcome or outcome_label.', 'outcome')
      }
      if (row.status !== 'ended') throw new ApiError('lead_busy', 'The call is still up; file the outcome once it has ended.')
      const labels = steps.org(row.orgId).outcomeLabels
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
      timers.get(row.id)?.()
      timers.delete(row.id)
      return stores.transaction(() => {
        if (row.outcome === null) return steps.settle(row, outcome, label, note)
        const corrected = steps.update(row, { outcome, outcomeLabel: label, note })
        if (outcome === 'dnc') steps.listNumber(row, 'outcome')
        // The lead follows the corrected outcome while this is still its latest call and no
        // new call is up; otherwise only its last outcome is corrected.
        const lead = stores.leads.get(row.leadId)
        const latest = calls.recentForLead(row.leadId, 1)[0]?.id === row.id
        if (lead && latest && lead.status !== 'dialing' && lead.status !== 'on_call') {
          deps.leads.callEnded(row.leadId, { outcome, label, endedAt: row.ended ?? clock.now(), callbackAt: row.callbackAt })
        } else {
          stores.leads.annotate(row.leadId, { lastOutcome: outcome, lastOutcomeLabel: label, updated: clock.now() })
        }
        return steps.complete(corrected)
      })
    },
  }
}

export type CallOutcomes = ReturnType<typeof callOutcomes>
