import type { LeadRow } from '../../db/stores/lead-store'
import { iso, isoOrNull } from '../../jobs/clock'
import type { Principal } from '../access/permissions'
import type { BlockReason } from '../calling-rules/contract'
import type { ConsentEvidence, Contactability } from './contactability-shape'
import type { LeadCore } from './lead-core'
import type { leadReads } from './lead-reads'
import type { NationalRegistry } from '../dnc/national-registry'
import { registryBlocks } from '../dnc/registry-blocks'
import type { LeadRules } from './lead-rules'

/** Why a rule blocks: the engine's reasons, and the national registry or a state's list (a number listed, no consent). */
export type ContactabilityReason = BlockReason | 'national_registry' | 'state_registry'

/** The consent as received plus when it was stored and its hash (null for a consent stored before evidence was kept). */
export function consentEvidence(lead: Pick<LeadRow, 'consent' | 'consentRecordedAt' | 'consentSha256'>): ConsentEvidence | null {
  if (!lead.consent) return null
  return { ...lead.consent, recorded_at: isoOrNull(lead.consentRecordedAt), evidence_sha256: lead.consentSha256 }
}

/** Reads only: the answer is the engine's verdict at the service clock's now, plus the lead's recorded decisions. */
export function leadContactability(core: LeadCore, reads: ReturnType<typeof leadReads>, rules: LeadRules, registry: Pick<NationalRegistry, 'isListed' | 'stateListing'>) {
  const { stores, clock } = core.deps
  return {
    contactability(principal: Principal, id: string): Contactability {
      const lead = reads.visibleLead(principal, id)
      const campaign = core.campaignOf(lead.campaignId)
      const now = clock.now()
      const reach = rules.reachOf(lead)
      const verdict = rules.verdict(lead, campaign, now, { reach, withHistory: true })
      const blockedBy: Contactability['blocked_by'] = verdict.blockedBy.map((b) => ({ rule_id: b.rule_id, reason: b.reason, until: isoOrNull(b.until) }))
      // The registries bind without end: no call until the lead carries consent.
      const registries = registryBlocks(registry, lead, () => reach.states)
      for (const b of registries) blockedBy.push({ ...b, until: null })
      const listed = registries.length > 0
      const allowed = verdict.allowed && !listed
      return {
        lead_id: lead.id,
        allowed_now: allowed,
        next_allowed_at: listed ? null : isoOrNull(verdict.nextAllowedAt),
        states: [...reach.states],
        zones: [...reach.zones],
        calls_last_24h: verdict.callsLast24h,
        rules: verdict.rules,
        blocked_by: blockedBy,
        decisions: stores.decisions.forLead(lead.id).map((d) => ({
          at: iso(d.at), rule_id: d.ruleId, outcome: d.outcome, until: isoOrNull(d.until),
          // Said only of a deferral the unlisted exchange's other zones caused (computed on read: the row keeps no reason).
          ...(d.outcome === 'deferred' && d.ruleId !== null && rules.guessCaused(reach, campaign, d.ruleId, d.at, verdict.rules) ? { reason: 'exchange_unknown' as const } : {}),
        })),
        notes: [...reach.notes],
        rules_version: rules.engine.rulesVersion,
        consent: consentEvidence(lead),
        livemode: lead.livemode,
      }
    },
  }
}
