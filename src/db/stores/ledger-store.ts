import type { Database } from 'bun:sqlite'

/**
 * The abandonment ledger's reads (calls.answered_at, connected_at, abandoned): live calls a
 * person answered, by campaign and answer time (index calls_ledger).
 */
export function ledgerStore(sqlite: Database) {
  const counts = sqlite.query<{ answered: number; abandoned: number | null }, [string, number]>(
    'SELECT count(*) AS answered, sum(abandoned) AS abandoned FROM calls WHERE campaign_id = ? AND answered_at >= ? AND answered_at IS NOT NULL AND livemode = 1',
  )
  return {
    /** Person-answered live calls of a campaign answered at or after `since`, and how many of them were abandoned. */
    counts(campaignId: string, since: number): { answered: number; abandoned: number } {
      const row = counts.get(campaignId, since)
      return { answered: row?.answered ?? 0, abandoned: row?.abandoned ?? 0 }
    },
  }
}
