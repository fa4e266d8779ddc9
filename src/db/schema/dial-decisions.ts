/** Dial decisions: why the dialer called a lead or deferred it, the last 20 per lead. */
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { orgs } from './access'
import { leads } from './leads'

export const dialDecisions = sqliteTable(
  'dial_decisions',
  {
    /** uuid v7 */
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    livemode: integer('livemode', { mode: 'boolean' }).notNull(),
    leadId: text('lead_id').notNull().references(() => leads.id),
    /** unix ms, service clock */
    at: integer('at').notNull(),
    /** The blocking rule (calling-rules id, or national-dnc-registry); null for a call dialed. */
    ruleId: text('rule_id'),
    outcome: text('outcome', { enum: ['dialed', 'deferred'] }).notNull(),
    /** When the rule stops blocking (unix ms), or null (dialed, or no end within the horizon). */
    until: integer('until'),
  },
  // Every read and the pruning are by lead, newest first.
  (t) => [index('dial_decisions_lead').on(t.leadId, t.at, t.id)],
)
