import type { LeadRow, NewLead } from '../../db/stores/lead-store'
import type { Principal } from '../access/permissions'
import { newId } from '../ids'
import type { IntakeContext } from './intake-checks'
import { emptyToNull, type LeadCore } from './lead-core'
import { consentColumns, type LeadInput } from './lead-input'
import { eventLead } from './lead-view'
import { dialVerdict } from './window-margin'

/**
 * What differs between the ways a lead comes in. All else is the same for every source: the
 * row's columns, its place, the dial queue and the due timer once the transaction commits.
 */
export interface LeadSource {
  /** The row's lead_source: only 'api' leads count toward a campaign's waiting API leads. */
  readonly leadSource: 'api' | 'import'
  /** lead.created and lead.queued (lead.queued alone for a re-queue). The spec: CSV imports send none. */
  readonly events: boolean
  /** call_now honoured (ahead in line, the request recorded); an imported lead is never called now. */
  readonly callNow: boolean
}

/** POST /leads, a batch item, the older campaign path. */
export const API_LEADS: LeadSource = { leadSource: 'api', events: true, callNow: true }
/** A CSV import (admin API, CLI, console). */
export const IMPORTED_LEADS: LeadSource = { leadSource: 'import', events: false, callNow: false }

/** What the intake checks found that the write needs (intake-checks.ts). */
export type CheckedLead = Pick<IntakeContext, 'campaign' | 'e164' | 'existing' | 'callNow' | 'placement'>

/** The one place a lead's row is written when it comes in: intake (intake.ts) and CSV imports (lead-import.ts). */
export function leadWriter(core: LeadCore) {
  const { stores, clock } = core.deps
  const leads = stores.leads

  /** A lead sent again once quiet long enough: queued afresh with what was sent. */
  function requeue(principal: Principal, input: LeadInput, checked: CheckedLead, before: LeadRow, callNow: boolean, source: LeadSource): LeadRow {
    const now = clock.now()
    const changes: Partial<NewLead> = {
      callNow,
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
    Object.assign(changes, core.placementChanges(checked.placement, { callNow, queuedAt: now }))
    if (callNow) changes.callRequestedBy = principal.keyId
    const row = core.save(before, changes)
    if (callNow) leads.insertCallRequest({ id: newId(), leadId: row.id, keyId: principal.keyId, at: now })
    if (source.events) core.emit('lead.queued', row)
    return row
  }

  function insert(principal: Principal, input: LeadInput, checked: CheckedLead, callNow: boolean, source: LeadSource): LeadRow {
    const now = clock.now()
    const fresh: NewLead = {
      id: newId(),
      orgId: principal.orgId,
      campaignId: checked.campaign.id,
      livemode: principal.livemode,
      externalId: input.external_id ?? null,
      phone: checked.e164,
      name: emptyToNull(input.name),
      email: emptyToNull(input.email),
      address: emptyToNull(input.address),
      fields: input.fields ?? {},
      consent: null,
      leadSource: source.leadSource,
      owner: null,
      addedByKeyId: principal.keyId,
      callRequestedBy: callNow ? principal.keyId : null,
      callNow,
      queuedAt: now,
      lastPostedAt: now,
      created: now,
      updated: now,
      status: 'new',
    }
    if (input.consent !== undefined) Object.assign(fresh, consentColumns(input.consent, now))
    Object.assign(fresh, core.placementChanges(checked.placement, { callNow, queuedAt: now }))
    const row = leads.insert(fresh)
    core.follow(null, row)
    if (source.events) {
      // Both events carry the same lead: built and serialized once.
      const object = { ...eventLead(row, { calls: [] }) }
      const objectJson = JSON.stringify(object)
      core.emitObject('lead.created', row, object, objectJson)
      core.emitObject('lead.queued', row, object, objectJson)
    }
    return row
  }

  /**
   * A lead scheduled because a zone guessed for its unlisted exchange is outside the hours:
   * the reply says only outside_calling_hours, so those deferrals are recorded (contactability
   * marks them exchange_unknown); so are the rules that close within the window-end margin when
   * the rules alone allow now. Other intake deferrals are not recorded: the reply says why.
   */
  function noteWhyScheduled(row: LeadRow, campaign: CheckedLead['campaign']): void {
    if (row.status !== 'scheduled' || row.dueReason !== 'outside_calling_hours') return
    const reach = core.rules.reachOf(row)
    const now = clock.now()
    const verdict = core.rules.verdict(row, campaign, now, { reach })
    // The rules allow now, so the window-end margin decided: its closing rules are recorded, or nothing would say why.
    if (verdict.allowed) {
      core.recordDeferrals(row, row.id, dialVerdict(core.rules, row, campaign, now, core.marginMs), now)
      return
    }
    if (!reach.guessedZones) return
    const caused = verdict.blockedBy.filter((b) => core.rules.guessCaused(reach, campaign, b.rule_id, now, verdict.rules))
    if (caused.length > 0) core.recordDeferrals(row, row.id, { blockedBy: caused }, now)
  }

  return {
    /**
     * Writes a lead that passed its checks, inside the caller's transaction: a new lead, or
     * `checked.existing` re-queued. Returns its row.
     */
    write(principal: Principal, input: LeadInput, checked: CheckedLead, source: LeadSource): LeadRow {
      const callNow = source.callNow && checked.callNow
      const row = checked.existing ? requeue(principal, input, checked, checked.existing, callNow, source) : insert(principal, input, checked, callNow, source)
      noteWhyScheduled(row, checked.campaign)
      return row
    },
  }
}

export type LeadWriter = ReturnType<typeof leadWriter>
