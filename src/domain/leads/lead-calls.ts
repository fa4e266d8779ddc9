import type { Person } from '../../db/schema'
import type { CampaignRow } from '../../db/stores/campaign-store'
import type { LeadRow, NewLead } from '../../db/stores/lead-store'
import { ApiError } from '../../errors'
import { iso } from '../../jobs/clock'
import type { Principal } from '../access/permissions'
import { afterCall } from '../calls/after-call'
import { zonesForPhone } from '../calling-hours/lead-zones'
import { newId } from '../ids'
import type { Outcome } from '../outcomes'
import { classifyPhone } from '../phone/phone-number'
import { callsLeftToday, nationalRegistryRefusal, testCallsRefusal } from './intake-checks'
import type { leadIntake } from './intake'
import type { LeadCore } from './lead-core'
import type { leadReads } from './lead-reads'
import { registryBlocks } from '../dnc/registry-blocks'
import { stateRegistryRefusal } from '../dnc/state-registries'
import type { CallNowReply } from './lead-shape'
import { dialVerdict } from './window-margin'
import { refusesTollFree, tollFreeRefusal } from './toll-free'

/**
 * A lead and its calls: what the dialer and the call service tell the lead (inside their
 * transactions), and POST /calls.
 */
export function leadCalls(core: LeadCore, reads: ReturnType<typeof leadReads>, intake: ReturnType<typeof leadIntake>) {
  const { stores, clock } = core.deps
  const leads = stores.leads
  const { save } = core

  return {
    /** The head of a queue is being dialed: one more attempt, for `owner` (the call row is its `dialed` decision). */
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
      return save(lead, core.placementChanges(core.placementFor(lead, core.campaignOf(lead.campaignId)), lead))
    },

    /**
     * The dialer took `lead` off the queue at `now`: may it be dialed? The calling rules are
     * evaluated again at this instant (a lead can wait in line past closing, or past a cap);
     * a blocked lead is scheduled again with one decision per blocking rule. A number put on
     * the national registry or its state's list since intake, with no consent, leaves the queue
     * (out reason dnc) with a decision per list. The window must also stay open for the margin
     * after `now` (window-margin.ts). Returns true when it may be dialed (beginCall records that decision).
     */
    atDial(lead: LeadRow, campaign: CampaignRow, now: number): boolean {
      const listed = registryBlocks(core.deps.registry, lead, () => core.rules.reachOf(lead).states)
      if (listed.length > 0) {
        stores.transaction(() => {
          for (const { rule_id } of listed) {
            stores.decisions.recordDeferred({ id: newId(), orgId: lead.orgId, livemode: lead.livemode, leadId: lead.id, at: now, ruleId: rule_id, until: null })
          }
          save(lead, { status: 'out_of_queue', outReason: 'dnc', queueKey: null, dueAt: null, dueReason: null, heldReason: null, callbackAt: null })
        })
        return false
      }
      // The window must stay open for the margin too: the carrier may ring the call later.
      const verdict = dialVerdict(core.rules, lead, campaign, now, core.marginMs)
      if (verdict.allowed) return true
      stores.transaction(() => {
        core.recordDeferrals(lead, lead.id, verdict, now)
        save(lead, core.placementChanges(core.placementFor(lead, campaign, undefined, { verdict }), lead))
      })
      return false
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
    callEnded(leadId: string, call: { outcome: Outcome; label: string; endedAt: number; callbackAt: number | null; carrierFault?: boolean }): LeadRow | undefined {
      const lead = leads.get(leadId)
      if (!lead) return undefined
      if (lead.status === 'out_of_queue') return save(lead, {})
      const campaign = core.campaignOf(lead.campaignId)
      const result = afterCall({
        outcome: call.outcome,
        attempts: lead.attempts,
        maxAttempts: campaign.maxAttempts,
        retryMinutes: campaign.retryMinutes,
        endedAt: call.endedAt,
        failStreak: lead.failStreak,
        callbackAt: call.callbackAt,
        carrierFault: call.carrierFault,
      })
      const base: Partial<NewLead> = { lastOutcome: call.outcome, lastOutcomeLabel: call.label, failStreak: result.failStreak, callNow: false, late: false }
      if (result.retire) core.deps.campaigns.retireNumber(lead.campaignId, lead.phone, lead.livemode, 'repeated_failures')
      const next = result.next
      switch (next.status) {
        case 'scheduled': {
          // The retry waits for the calling rules at the instant it comes (a cap, the hours).
          const due = core.callableAfter(lead, campaign, { at: next.dueAt, reason: next.reason })
          return save(lead, { ...base, status: 'scheduled', queueKey: null, dueAt: due.at, dueReason: due.reason, nextDialAt: due.at })
        }
        case 'callback_scheduled': {
          // Due at the first lawful instant at or after the booked time; dueReason says why when later.
          const due = core.callableAfter(lead, campaign, { at: next.callbackAt, reason: null })
          const row = save(lead, { ...base, status: 'callback_scheduled', queueKey: null, callbackAt: next.callbackAt, dueAt: due.at, dueReason: due.reason })
          const zone = zonesForPhone(row.phone, stores.orgs.get(row.orgId)!.timezone)[0]!
          core.emit('callback.booked', row, { callback: { at: iso(next.callbackAt), timezone: zone } })
          return row
        }
        case 'done':
          return save(lead, { ...base, status: 'done', queueKey: null, dueAt: null, dueReason: null, nextDialAt: null })
        case 'out_of_queue':
          return save(lead, { ...base, status: 'out_of_queue', queueKey: null, dueAt: null, dueReason: null, nextDialAt: null, outReason: lead.outReason ?? 'dnc' })
      }
    },

    /**
     * POST /calls: the lead goes to the front of its campaign's queue (overriding a retry or
     * next-dial wait, never the calling rules or a paused campaign); 3 a day per lead. A lead
     * the rules block is scheduled for their next allowed instant (still ahead of the rest then).
     */
    callNow(principal: Principal, body: { lead_id?: string; external_id?: string; campaign_id?: string }): CallNowReply {
      const lead = reads.resolveLead(principal, body)
      const campaign = core.campaignOf(lead.campaignId)
      if (campaign.status === 'completed') throw new ApiError('campaign_closed', 'The campaign is completed.')
      const scope = { orgId: lead.orgId, livemode: lead.livemode }
      if (core.deps.dnc.isListed(scope, lead.phone)) throw new ApiError('on_dnc_list', 'This number is on the Do Not Call list.')
      if (!lead.consent && core.deps.registry.isListed(lead.phone)) throw nationalRegistryRefusal(null)
      const state = lead.consent ? undefined : core.deps.registry.stateListing(lead.phone, () => core.rules.reachOf(lead).states)[0]
      if (state) throw stateRegistryRefusal(state, null)
      if (core.deps.campaigns.isRetired(campaign.id, lead.livemode, lead.phone)) {
        throw new ApiError('number_retired', 'This number was retired in the campaign after repeated failed calls.')
      }
      const phone = classifyPhone(lead.phone)
      if (phone.kind === 'international' || phone.kind === 'premium') {
        throw new ApiError('number_not_allowed', 'This number is not dialed.', { extras: { reason: phone.kind === 'premium' ? 'premium' : 'international' } })
      }
      if (refusesTollFree(core.deps.tollFree, lead.phone)) throw tollFreeRefusal(null)
      if (lead.status === 'dialing' || lead.status === 'on_call') throw new ApiError('lead_busy', 'The lead is being dialed or is on a call now.')
      if (lead.status === 'out_of_queue' && lead.outReason === 'taken_out') {
        throw new ApiError('lead_taken_out_of_queue', 'A person took this lead out of the dialing queue; the API does not overrule that.')
      }
      const busy = testCallsRefusal(core, principal)
      if (busy) throw busy
      const left = callsLeftToday(core, lead.id) - 1
      const now = clock.now()
      const row = stores.transaction(() => {
        leads.insertCallRequest({ id: newId(), leadId: lead.id, keyId: principal.keyId, at: now })
        // Blocked by the rules: scheduled for their next allowed instant, the deferral recorded.
        const placement = core.placementFor(lead, campaign, undefined, { record: { leadId: lead.id } })
        return save(lead, {
          ...core.placementChanges(placement, { callNow: true, queuedAt: now }, 0),
          callNow: true,
          queuedAt: now,
          callRequestedBy: principal.keyId,
          callbackAt: null,
          nextDialAt: null,
          outReason: null,
          late: false,
        })
      })
      const reply = intake.intakeReply(leads.get(row.id) ?? row, false)
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
  }
}
