/**
 * Whether a campaign's calls are automated for the calling rules: they play a prerecorded
 * message or an artificial voice (an AI voice is one, FCC 24-17). The one place that decides it;
 * every evaluation of the calling rules passes its answer as `automated`.
 */
import type { CampaignRow } from '../../db/stores/campaign-store'

/** The campaign fields the decision reads. */
export type AutomatedFields = Pick<CampaignRow, 'automatedVoice' | 'aiAgent'>

/** An AI seat speaks with an artificial voice to every person who answers: automated whatever automated_voice says. */
export function campaignIsAutomated(campaign: AutomatedFields): boolean {
  return campaign.automatedVoice === true || campaign.aiAgent !== null
}
