import type { Database } from 'bun:sqlite'
import type { Db } from '../client'
import { dialDecisions } from '../schema'

export type DialDecisionRow = typeof dialDecisions.$inferSelect
export type NewDialDecision = typeof dialDecisions.$inferInsert

/** How many decisions a lead keeps (the contactability reply shows them all). */
export const DECISIONS_KEPT = 20

/**
 * Dial decisions. A `deferred` decision is a row here, written inside the caller's unit of
 * work, so it commits with the lead change it explains. A `dialed` decision is the lead's call
 * itself (calls.started), read from the calls table: a row per call cost the dialer a tenth of
 * its throughput (docs/decisions.md) and would only copy what the call row already says.
 */
export function decisionStore(_db: Db, sqlite: Database) {
  const insert = sqlite.query<never, [string, string, number, string, number, string, string, number | null]>(
    'INSERT INTO dial_decisions (id, org_id, livemode, lead_id, at, rule_id, outcome, until) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  // Keeps the newest DECISIONS_KEPT deferrals of the lead (its calls are kept with the calls).
  const prune = sqlite.query<never, [string, string, number]>(
    'DELETE FROM dial_decisions WHERE lead_id = ? AND id NOT IN ' +
      '(SELECT id FROM dial_decisions WHERE lead_id = ? ORDER BY at DESC, id DESC LIMIT ?)',
  )
  const count = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM dial_decisions WHERE lead_id = ?')
  // "No flood": the same deferral (rule and until) already written since the lead's last call started.
  const sameDeferral = sqlite.query<{ one: number }, [string, string, number | null, string]>(
    'SELECT 1 AS one FROM dial_decisions WHERE lead_id = ? AND rule_id = ? AND until IS ? ' +
      'AND at >= coalesce((SELECT max(started) FROM calls WHERE lead_id = ?), 0) LIMIT 1',
  )
  // Deferrals and calls, newest first: at equal instants a call comes after the deferral row by id order.
  const latest = sqlite.query<
    { id: string; at: number; rule_id: string | null; outcome: 'dialed' | 'deferred'; until: number | null },
    [string, string, number]
  >(
    'SELECT id, at, rule_id, outcome, until FROM (' +
      'SELECT id, at, rule_id, outcome, until FROM dial_decisions WHERE lead_id = ? ' +
      "UNION ALL SELECT id, started AS at, NULL AS rule_id, 'dialed' AS outcome, NULL AS until FROM calls WHERE lead_id = ?" +
      ') ORDER BY at DESC, id DESC LIMIT ?',
  )

  return {
    /**
     * Records a deferral by one rule unless the lead is already deferred by that rule with the
     * same `until` since its last call started (one decision per lead, rule and deferral).
     * Returns whether it wrote.
     */
    recordDeferred(row: Omit<NewDialDecision, 'outcome'> & { ruleId: string }): boolean {
      if (sameDeferral.get(row.leadId, row.ruleId, row.until ?? null, row.leadId) !== null) return false
      insert.run(row.id, row.orgId, row.livemode ? 1 : 0, row.leadId, row.at, row.ruleId, 'deferred', row.until ?? null)
      // Prune only when over the limit: most writes skip the DELETE's subquery.
      if (count.get(row.leadId)!.n > DECISIONS_KEPT) prune.run(row.leadId, row.leadId, DECISIONS_KEPT)
      return true
    },
    /** The lead's decisions, newest first (at most `limit`): its deferrals and its calls (dialed). */
    forLead(leadId: string, limit = DECISIONS_KEPT): { at: number; ruleId: string | null; outcome: 'dialed' | 'deferred'; until: number | null }[] {
      return latest.all(leadId, leadId, limit).map((r) => ({ at: r.at, ruleId: r.rule_id, outcome: r.outcome, until: r.until }))
    },
  }
}

export type DecisionStore = ReturnType<typeof decisionStore>
