import type { LeadRow } from '../../db/stores/lead-store'
import { ApiError, itemErrorBody } from '../../errors'
import { iso } from '../../jobs/clock'
import type { Principal } from '../access/permissions'
import { checkIntake, type IntakeContext } from './intake-checks'
import type { LeadCore } from './lead-core'
import type { LeadInput } from './lead-input'
import type { BatchResult, IntakeReply } from './lead-shape'
import { queuePosition, waitFor } from './lead-view'
import { API_LEADS, type LeadWriter } from './lead-writer'

export interface IntakeOutcome {
  reply: IntakeReply
  /** 201 for a new lead, 200 for a dry run or a re-queue. */
  created: boolean
}

/** POST /leads and POST /leads/batch: the checks (intake-checks.ts), the write (lead-writer.ts), the reply. */
export function leadIntake(core: LeadCore, writer: LeadWriter) {
  const { stores } = core.deps
  const leads = stores.leads

  function dryReply(principal: Principal, input: LeadInput, p: IntakeContext): IntakeReply {
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

  /** The reply for a lead written by intake (or POST /calls), read after its transaction committed. */
  function intakeReply(written: LeadRow, requeued: boolean): IntakeReply {
    let row = written
    let place = core.placeOf(row)
    // Queued when written but out of line now: a free line took it once it joined the queue.
    if (row.status === 'queued' && place === null) {
      row = leads.get(row.id) ?? row
      place = core.placeOf(row)
    }
    return {
      id: row.id,
      external_id: row.externalId,
      status: row.status as IntakeReply['status'],
      call_now: row.callNow,
      ...queuePosition(row, place, waitFor(core, row, place)),
      dry_run: false,
      ...(requeued ? { requeued: true as const } : {}),
      livemode: row.livemode,
    }
  }

  function takeLeadAllowance(principal: Principal, count: number): void {
    const taken = core.deps.newLeads.tryAdd(principal.keyId, count, principal.leadsPerMinute)
    if (!taken.allowed) {
      throw new ApiError('lead_rate_limited', `This key may add ${principal.leadsPerMinute} leads a minute.`, { retryAfter: taken.retryAfter })
    }
  }

  return {
    intakeReply,

    /** POST /leads (and the older campaign path): one lead, every check, one transaction. */
    intake(principal: Principal, input: LeadInput, options: { dryRun: boolean }): IntakeOutcome {
      if (options.dryRun) return { reply: dryReply(principal, input, checkIntake(core, principal, input, '')), created: false }
      try {
        takeLeadAllowance(principal, 1)
        const prepared = checkIntake(core, principal, input, '')
        const row = stores.transaction(() => writer.write(principal, input, prepared, API_LEADS))
        const requeued = prepared.existing !== undefined
        return { reply: intakeReply(row, requeued), created: !requeued }
      } catch (error) {
        if (error instanceof ApiError) core.deps.onRefused(error.code)
        throw error
      }
    },

    /**
     * POST /leads/batch: each lead on its own (a failing lead does not stop the others),
     * results in order, all in one transaction. The whole batch counts toward the key's
     * new-leads limit up front and is refused whole when it does not fit.
     */
    intakeBatch(principal: Principal, items: { input: LeadInput; error?: ApiError }[], options: { dryRun: boolean }): BatchResult[] {
      if (!options.dryRun) {
        try {
          takeLeadAllowance(principal, items.length)
        } catch (error) {
          if (error instanceof ApiError) core.deps.onRefused(error.code)
          throw error
        }
      }
      const seen = new Map<string, string | null>()
      type Taken = { index: number; written: LeadRow; requeued: boolean }
      const results = stores.transaction(() =>
        items.map(({ input, error }, index): BatchResult | Taken => {
          const at = `leads[${index}].`
          try {
            if (error) throw error
            const prepared = checkIntake(core, principal, input, at, seen)
            const written = options.dryRun ? null : writer.write(principal, input, prepared, API_LEADS)
            const id = written?.id ?? null
            seen.set(`p:${prepared.campaign.id}:${prepared.e164}`, id)
            if (input.external_id !== undefined) seen.set(`x:${prepared.campaign.id}:${input.external_id}`, id)
            return written ? { index, written, requeued: prepared.existing !== undefined } : { index, ok: true, lead: dryReply(principal, input, prepared) }
          } catch (failure) {
            if (!(failure instanceof ApiError)) throw failure
            // Items the body schema refused never reached intake; they are not counted.
            if (!options.dryRun && !error) core.deps.onRefused(failure.code)
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
        'written' in result ? { index: result.index, ok: true, lead: intakeReply(result.written, result.requeued) } : result,
      )
    },
  }
}
