import type { CallFilter, CallRow, CallViewRow, ListedCall } from '../../db/stores/call-store'
import type { Stores } from '../../db/stores'
import { notFound } from '../../errors'
import { inScope, type Principal } from '../access/permissions'
import { adminCallView, callView } from './call-view'

type Filter = Omit<CallFilter, 'orgId' | 'livemode' | 'campaignIds'>

/** Reading calls: one call a principal may see, lists and pages of them, their views and transcripts. */
export function callReads(deps: { calls: Stores['calls'] }) {
  const { calls } = deps
  return {
    view: (row: CallRow) => callView(row, calls.lead(row.leadId)),

    /** The operator's read of any call (admin API), else 404. */
    adminView(id: string) {
      const row = calls.get(id)
      if (!row) throw notFound('No such call')
      return adminCallView(row, calls.lead(row.leadId))
    },

    /** Views of a page of calls, their leads read in one query. */
    views(rows: CallViewRow[]) {
      const leadsById = calls.leadsOf(rows.map((r) => r.leadId))
      return rows.map((row) => callView(row, leadsById.get(row.leadId)))
    },

    visible(principal: Principal, id: string): CallRow {
      const row = calls.get(id)
      if (!row || row.orgId !== principal.orgId || row.livemode !== principal.livemode || !inScope(principal, row.campaignId)) {
        throw notFound('No such call')
      }
      return row
    },

    /** Newest first, each call with its lead's fields (shown with `listedView`). */
    list(principal: Principal, filter: Filter, limit: number): ListedCall[] {
      return calls.list(scopeFilter(principal, filter), limit)
    },

    listedView: (row: ListedCall) => callView(row, row.lead ?? undefined),

    page(principal: Principal, filter: Filter & { status?: string }, offset: number, limit: number) {
      return calls.page({ ...scopeFilter(principal, filter), status: filter.status }, offset, limit)
    },

    transcript: (row: CallRow) => calls.transcript(row.id),
  }
}

function scopeFilter(principal: Principal, filter: Filter): CallFilter {
  return {
    ...filter,
    orgId: principal.orgId,
    livemode: principal.livemode,
    campaignIds: principal.campaignIds ? [...principal.campaignIds] : null,
  }
}
