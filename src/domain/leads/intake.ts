import type { LeadRow, NewLead } from '../../db/stores/lead-store'
import { ApiError, itemErrorBody } from '../../errors'
import { iso } from '../../jobs/clock'
import type { Principal } from '../access/permissions'
import { newId } from '../ids'
import { checkIntake, type IntakeContext } from './intake-checks'
import { emptyToNull, type LeadCore } from './lead-core'
import { consentColumns, type LeadInput } from './lead-input'
import type { BatchResult, IntakeReply } from './lead-shape'
import { eventLead, queuePosition, waitFor } from './lead-view'

export interface IntakeOutcome {
  reply: IntakeReply
  /** 201 for a new lead, 200 for a dry run or a re-queue. */
  created: boolean
}

/** POST /leads and POST /leads/batch: the checks (intake-checks.ts), the write, the reply. */
export function leadIntake(core: LeadCore) {
  const { stores, clock } = core.deps
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

  /** Writes an accepted lead (inside the caller's transaction); returns its row. */
  function write(principal: Principal, input: LeadInput, p: IntakeContext): { row: LeadRow; requeued: boolean } {
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
        ...(input.consent !== undefined ? consentColumns(input.consent, now) : {}),
        ...(input.external_id !== undefined && before.externalId === null ? { externalId: input.external_id } : {}),
      }
      Object.assign(changes, core.placementChanges(p.placement, { callNow: p.callNow, queuedAt: now }))
      if (p.callNow) changes.callRequestedBy = principal.keyId
      const row = core.save(before, changes)
      if (p.callNow) leads.insertCallRequest({ id: newId(), leadId: row.id, keyId: principal.keyId, at: now })
      core.emit('lead.queued', row)
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
      ...(input.consent !== undefined ? consentColumns(input.consent, now) : { consent: null }),
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
    Object.assign(fresh, core.placementChanges(p.placement, { callNow: p.callNow, queuedAt: now }))
    const row = leads.insert(fresh)
    core.follow(null, row)
    // Both events carry the same lead: built and serialized once.
    const object = { ...eventLead(row, { calls: [] }) }
    const objectJson = JSON.stringify(object)
    core.emitObject('lead.created', row, object, objectJson)
    core.emitObject('lead.queued', row, object, objectJson)
    return { row, requeued: false }
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
        const { row, requeued } = stores.transaction(() => write(principal, input, prepared))
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
      type Taken = { index: number; written: { row: LeadRow; requeued: boolean } }
      const results = stores.transaction(() =>
        items.map(({ input, error }, index): BatchResult | Taken => {
          const at = `leads[${index}].`
          try {
            if (error) throw error
            const prepared = checkIntake(core, principal, input, at, seen)
            const written = options.dryRun ? null : write(principal, input, prepared)
            const id = written?.row.id ?? null
            seen.set(`p:${prepared.campaign.id}:${prepared.e164}`, id)
            if (input.external_id !== undefined) seen.set(`x:${prepared.campaign.id}:${input.external_id}`, id)
            return written ? { index, written } : { index, ok: true, lead: dryReply(principal, input, prepared) }
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
        'written' in result ? { index: result.index, ok: true, lead: intakeReply(result.written.row, result.written.requeued) } : result,
      )
    },
  }
}
