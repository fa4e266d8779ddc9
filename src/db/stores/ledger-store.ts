import type { Database } from 'bun:sqlite'

/**
 * The abandonment ledger's reads (calls.answered_at, connected_at, abandoned): live calls a
 * person answered, by campaign and answer time (index calls_ledger).
 */
export function ledgerStore(sqlite: Database) {
  const counts = sqlite.query<{ answered: number; abandoned: number | null }, [string, number]>(
    'SELECT count(*) AS answered, sum(abandoned) AS abandoned FROM calls WHERE campaign_id = ? AND answered_at >= ? AND answered_at IS NOT NULL AND livemode = 1',
  )
  const between = sqlite.query<{ answered: number; abandoned: number | null }, [string, number, number]>(
    'SELECT count(*) AS answered, sum(abandoned) AS abandoned FROM calls WHERE campaign_id = ? AND answered_at >= ? AND answered_at < ? AND answered_at IS NOT NULL AND livemode = 1',
  )
  const abandonedIds = sqlite.query<{ id: string }, [string, number, number, number]>(
    'SELECT id FROM calls WHERE campaign_id = ? AND answered_at >= ? AND answered_at < ? AND answered_at IS NOT NULL AND livemode = 1 AND abandoned = 1 ORDER BY answered_at DESC, id DESC LIMIT ?',
  )
  return {
    /** Person-answered live calls of a campaign answered at or after `since`, and how many of them were abandoned. */
    counts(campaignId: string, since: number): { answered: number; abandoned: number } {
      const row = counts.get(campaignId, since)
      return { answered: row?.answered ?? 0, abandoned: row?.abandoned ?? 0 }
    },
    /** The same, answered in [from, to). */
    between(campaignId: string, from: number, to: number): { answered: number; abandoned: number } {
      const row = between.get(campaignId, from, to)
      return { answered: row?.answered ?? 0, abandoned: row?.abandoned ?? 0 }
    },
    /** The abandoned ones answered in [from, to), newest answer first, at most `limit`. */
    abandonedIds(campaignId: string, from: number, to: number, limit: number): string[] {
      return abandonedIds.all(campaignId, from, to, limit).map((r) => r.id)
    },
  }
}
