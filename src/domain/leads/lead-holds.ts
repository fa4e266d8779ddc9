import type { CampaignRow } from '../../db/stores/campaign-store'
import type { CampaignStatus } from '../campaigns/campaign-service'
import type { LeadRow } from '../../db/stores/lead-store'
import type { LeadCore } from './lead-core'
import type { ScheduledReason } from './placement'

// Queue keys below this are priority class 0 (call_now); their value is the time the lead was put in line.
const CALL_NOW_CLASS_END = 2 ** 44

/**
 * Leads waiting as a whole: held and placed again for a paused campaign or a spend cap, the
 * late sweep, and the boot restore of the queues.
 */
export function leadHolds(core: LeadCore) {
  const { stores, queues, clock } = core.deps
  const leads = stores.leads
  const { save } = core

  /** A lead held while it was waiting for a time keeps that wait when it is placed again. */
  const placeAgain = (lead: LeadRow, campaign: CampaignRow) => {
    const notBefore = lead.dueAt !== null && lead.dueReason ? { at: lead.dueAt, reason: lead.dueReason as ScheduledReason } : null
    save(lead, core.placementChanges(core.placementFor(lead, campaign, notBefore), lead))
  }

  return {
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
          placeAgain(lead, campaign)
        }
      })
    },

    /**
     * Pausing holds the campaign's waiting leads; starting again places them, in their old order
     * (inside the status change's transaction).
     */
    campaignStatusChanged(campaign: CampaignRow, previous: CampaignStatus): void {
      if (campaign.status === 'paused' || campaign.status === 'draft') {
        const reason = campaign.status === 'paused' ? 'campaign_paused' : 'campaign_not_started'
        for (const lead of leads.inStatuses(campaign.id, null, ['queued', 'scheduled'])) {
          save(lead, { status: 'held', queueKey: null, heldReason: reason })
        }
      } else if (campaign.status === 'active' && previous !== 'active') {
        for (const lead of leads.inStatuses(campaign.id, null, ['held'])) {
          if (lead.heldReason === 'spend_cap_reached' && core.deps.spendCap.capReached(campaign, lead.livemode)) continue
          placeAgain(lead, campaign)
        }
      }
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
        const limit = core.campaignOf(campaignId).lateMinutes * 60_000
        for (const entry of queues.entries(campaignId, livemode)) {
          if (entry.key >= CALL_NOW_CLASS_END || entry.key + limit > now) break
          overdue.push(entry)
        }
      }
      let marked = 0
      for (const entry of overdue) {
        const lead = leads.get(entry.id)
        if (!lead || lead.late || lead.status !== 'queued' || lead.queueKey !== entry.key) continue
        stores.transaction(() => core.emit('lead.late', save(lead, { late: true })))
        marked++
      }
      return marked
    },

    /** Boot: the queues from SQLite, and the timer for the next scheduled lead. */
    restore(): number {
      const count = queues.rebuild(leads.queuedInOrder())
      core.promoteDue()
      return count
    },
  }
}
