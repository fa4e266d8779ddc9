import type { Database } from 'bun:sqlite'
import type { Db } from '../client'
import { dialDecisions } from '../schema'

export type DialDecisionRow = typeof dialDecisions.$inferSelect
export type NewDialDecision = typeof dialDecisions.$inferInsert

/** How many decisions a lead keeps (the contactability reply shows them all). */
export const DECISIONS_KEPT = 20

/**
 * Dial decisions (issue 17). Writes run inside the caller's unit of work (the dialer's or the
 * request's transaction), so a decision and the lead change it explains commit together.
 */
export function decisionStore(_db: Db, sqlite: Database) {
  const insert = sqlite.query<never, [string, string, number, string, number, string | null, string, number | null]>(
    'INSERT INTO dial_decisions (id, org_id, livemode, lead_id, at, rule_id, outcome, until) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  )
  // Keeps the newest DECISIONS_KEPT of the lead.
  const prune = sqlite.query<never, [string, string, number]>(
    'DELETE FROM dial_decisions WHERE lead_id = ? AND id NOT IN ' +
      '(SELECT id FROM dial_decisions WHERE lead_id = ? ORDER BY at DESC, id DESC LIMIT ?)',
  )
  const count = sqlite.query<{ n: number }, [string]>('SELECT count(*) AS n FROM dial_decisions WHERE lead_id = ?')
  // "No flood": the same deferral (rule and until) already written since the lead was last dialed.
  const sameDeferral = sqlite.query<{ one: number }, [string, string, number | null, string]>(
    "SELECT 1 AS one FROM dial_decisions WHERE lead_id = ? AND rule_id = ? AND outcome = 'deferred' AND until IS ? " +
      "AND at >= coalesce((SELECT max(at) FROM dial_decisions WHERE lead_id = ? AND outcome = 'dialed'), 0) LIMIT 1",
  )
  const latest = sqlite.query<
    { id: string; org_id: string; livemode: number; lead_id: string; at: number; rule_id: string | null; outcome: 'dialed' | 'deferred'; until: number | null },
    [string, number]
  >('SELECT id, org_id, livemode, lead_id, at, rule_id, outcome, until FROM dial_decisions WHERE lead_id = ? ORDER BY at DESC, id DESC LIMIT ?')

  function write(row: NewDialDecision): void {
    insert.run(row.id, row.orgId, row.livemode ? 1 : 0, row.leadId, row.at, row.ruleId ?? null, row.outcome, row.until ?? null)
    // Prune only when over the limit: most writes skip the DELETE's subquery.
    if (count.get(row.leadId)!.n > DECISIONS_KEPT) prune.run(row.leadId, row.leadId, DECISIONS_KEPT)
  }

  return {
    /** Records a call dialed (call it inside the unit of work that starts the call). */
    recordDialed(row: Omit<NewDialDecision, 'outcome' | 'ruleId' | 'until'>): void {
      write({ ...row, outcome: 'dialed', ruleId: null, until: null })
    },
    /**
     * Records a deferral by one rule unless the lead is already deferred by that rule with the
     * same `until` since it was last dialed (one decision per lead, rule and deferral).
     * Returns whether it wrote.
     */
    recordDeferred(row: Omit<NewDialDecision, 'outcome'> & { ruleId: string }): boolean {
      if (sameDeferral.get(row.leadId, row.ruleId, row.until ?? null, row.leadId) !== null) return false
      write({ ...row, outcome: 'deferred' })
      return true
    },
    /** The lead's decisions, newest first (at most DECISIONS_KEPT). */
    forLead(leadId: string, limit = DECISIONS_KEPT): DialDecisionRow[] {
      return latest.all(leadId, limit).map((r) => ({
        id: r.id, orgId: r.org_id, livemode: r.livemode === 1, leadId: r.lead_id, at: r.at, ruleId: r.rule_id, outcome: r.outcome, until: r.until,
      }))
    },
  }
}

export type DecisionStore = ReturnType<typeof decisionStore>
