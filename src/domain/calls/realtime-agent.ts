import type { Stores } from '../../db/stores'
import { logger } from '../../log'
import type { CarrierPorts } from '../../telephony/ports'
import { agentKeyContext } from '../campaigns/ai-agent-check'
import type { SecretBox } from '../secrets/secret-box'

/**
 * What a built-in agent's stream needs when it starts (CarrierPorts.realtimeAgentOf): the
 * campaign's API key opened, and the instructions rendered for this call at its start. Null when
 * the call or the key is gone, or the key does not open (the secret key changed): the seat then
 * takes the call back. The key is never logged, only that it did not open.
 */
export function realtimeAgentOf(deps: { stores: Pick<Stores, 'calls' | 'campaigns'>; secrets: SecretBox }): NonNullable<CarrierPorts['realtimeAgentOf']> {
  return (callId) => {
    const call = deps.stores.calls.get(callId)
    const campaign = call ? deps.stores.campaigns.get(call.campaignId) : undefined
    if (!call || !campaign || campaign.aiAgent?.kind !== 'openai_realtime' || campaign.aiAgentKey === null) return null
    try {
      return { apiKey: deps.secrets.open(campaign.aiAgentKey, agentKeyContext(campaign.id)), instructions: call.aiInstructions ?? '' }
    } catch (error) {
      logger.error('ai_agent_key_unreadable', { campaign_id: campaign.id, call_id: callId, error: error instanceof Error ? error.name : 'unknown' })
      return null
    }
  }
}
