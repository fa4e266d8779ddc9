import type { CampaignRow } from '../../db/stores/campaign-store'
import type { LeadRow } from '../../db/stores/lead-store'
import type { Stores } from '../../db/stores'
import type { CallingRulesEngine, LeadReach, Verdict } from '../calling-rules/contract'
import { campaignIsAutomated, type AutomatedFields } from '../campaigns/automated'

const DAY_MS = 24 * 3_600_000

/** The lead fields the calling rules read. */
export type RulesLead = Pick<LeadRow, 'phone' | 'address' | 'orgId' | 'livemode'>
/** The campaign fields the calling rules read: its window, and whether its calls are automated. */
export type RulesCampaign = Pick<CampaignRow, 'callingHoursStart' | 'callingHoursEnd'> & AutomatedFields

/** The decision rule id of a number found on the national registry at dial time. */
export const NATIONAL_REGISTRY_RULE = 'national-dnc-registry'

/**
 * The calling rules as a lead meets them: its reach (area code, address, the
 * organization's zone), the calls that count toward caps (loaded only when a cap applies:
 * intake mostly skips the query), and the engine's verdict at `now`.
 */
export function leadRulesOf(stores: Stores, engine: CallingRulesEngine) {
  function reachOf(lead: RulesLead): LeadReach {
    return engine.reachOf(lead.phone, lead.address, stores.orgs.get(lead.orgId)!.timezone)
  }

  /**
   * `withHistory`: load the last 24 hours of calls even when no cap applies (calls_last_24h is shown).
   * `hoursOnly`: no call history, so caps never block (the window-end margin's second look).
   */
  function verdict(
    lead: RulesLead,
    campaign: RulesCampaign,
    now: number,
    opts: { reach?: LeadReach; withHistory?: boolean; hoursOnly?: boolean } = {},
  ): Verdict {
    const reach = opts.reach ?? reachOf(lead)
    const automated = campaignIsAutomated(campaign)
    const capped = !opts.hoursOnly && engine.needsCallHistory(reach, automated)
    const window = Math.max(capped ? engine.historyWindowMs(reach, automated) : 0, opts.withHistory ? DAY_MS : 0)
    const callTimes = window > 0 ? stores.calls.callStartsToNumber(lead.orgId, lead.livemode, lead.phone, now - window) : []
    return engine.evaluate({ reach, campaignWindow: { start: campaign.callingHoursStart, end: campaign.callingHoursEnd }, callTimes, now, automated })
  }

  /**
   * Whether a deferral by `ruleId` at `at` came only from the zones guessed for an unlisted
   * exchange: the rule would not have blocked in the lead's other zones. Caps do not depend on
   * zones; a lead with no other zone owes every zone rule's block to the guess.
   */
  function guessCaused(reach: LeadReach, campaign: RulesCampaign, ruleId: string, at: number, rules: Verdict['rules']): boolean {
    const guessed = reach.guessedZones
    const rule = rules.find((r) => r.id === ruleId)
    if (!guessed || guessed.length === 0 || !rule || rule.kind === 'cap') return false
    const zones = reach.zones.filter((zone) => !guessed.includes(zone))
    if (zones.length === 0) return true
    const known: LeadReach = { country: reach.country, states: reach.states, zones, notes: reach.notes }
    const campaignWindow = { start: campaign.callingHoursStart, end: campaign.callingHoursEnd }
    return !engine.evaluate({ reach: known, campaignWindow, callTimes: [], now: at, automated: campaignIsAutomated(campaign) }).blockedBy.some((b) => b.rule_id === ruleId)
  }

  return { engine, reachOf, verdict, guessCaused }
}

export type LeadRules = ReturnType<typeof leadRulesOf>
