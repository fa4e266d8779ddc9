import type { Stores } from '../../db/stores'
import { invalid, notFound } from '../../errors'
import type { Clock } from '../../jobs/clock'
import { localDateOf, zonedTime } from '../calling-hours/calling-window'
import type { AbandonmentReport } from './abandonment-shape'

/** The window's length when none is asked for: the rule's 30 days. */
export const REPORT_DAYS_DEFAULT = 30
export const REPORT_DAYS_MAX = 90
/** Ids listed at most (the newest). */
export const REPORT_IDS_MAX = 1_000

/**
 * A campaign's abandonment record (the records the rule asks a caller to keep): its live
 * person-answered and abandoned calls over the last `days` calendar days of the organization's
 * zone, today included, day by day. A call counts on the day of its answer.
 */
export function abandonmentReport(deps: { stores: Pick<Stores, 'campaigns' | 'orgs' | 'ledger'>; clock: Clock }) {
  const { stores, clock } = deps
  return {
    report(campaignId: string, days: number = REPORT_DAYS_DEFAULT): AbandonmentReport {
      if (!Number.isInteger(days) || days < 1 || days > REPORT_DAYS_MAX) throw invalid(`days must be a whole number from 1 to ${REPORT_DAYS_MAX}.`, 'days')
      const campaign = stores.campaigns.get(campaignId)
      if (!campaign) throw notFound('No such campaign.')
      const zone = stores.orgs.get(campaign.orgId)!.timezone
      const today = localDateOf(zone, clock.now())
      // Day k's local midnight (k = 0: the window's first day); `days` is tomorrow's, the end.
      const midnight = (k: number) => zonedTime(zone, { ...today, d: today.d - days + 1 + k }, '00:00')
      const byDay: AbandonmentReport['by_day'] = []
      let answered = 0
      let abandoned = 0
      for (let k = 0; k < days; k++) {
        const day = stores.ledger.between(campaignId, midnight(k), midnight(k + 1))
        answered += day.answered
        abandoned += day.abandoned
        const date = new Date(Date.UTC(today.y, today.m - 1, today.d - days + 1 + k)).toISOString().slice(0, 10)
        byDay.push({ date, answered_by_person: day.answered, abandoned: day.abandoned })
      }
      return {
        campaign_id: campaignId,
        days,
        answered_by_person: answered,
        abandoned,
        rate: answered === 0 ? 0 : Math.round((abandoned / answered) * 10_000) / 10_000,
        by_day: byDay,
        abandoned_call_ids: stores.ledger.abandonedIds(campaignId, midnight(0), midnight(days), REPORT_IDS_MAX),
      }
    },
  }
}

export type AbandonmentReports = ReturnType<typeof abandonmentReport>
