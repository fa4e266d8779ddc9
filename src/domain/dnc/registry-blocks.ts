import { NATIONAL_REGISTRY_RULE } from '../leads/lead-rules'
import type { NationalRegistry } from './national-registry'
import { stateDncRule } from './state-registries'

/** A Do Not Call registry holding a lead's number: the national one, or a state's list (rule "TX-dnc"). */
export interface RegistryBlock {
  rule_id: string
  reason: 'national_registry' | 'state_registry'
}

/**
 * The registries that bar calling a lead (dial time, contactability): the national registry,
 * then the list of each of the lead's states (`statesOf`: contactability's `states`) that holds
 * the number. None when the lead carries consent (prior express written consent lifts both).
 */
export function registryBlocks(
  registry: Pick<NationalRegistry, 'isListed' | 'stateListing'>,
  lead: { phone: string; consent: unknown },
  statesOf: () => readonly string[],
): RegistryBlock[] {
  if (lead.consent) return []
  const blocks: RegistryBlock[] = registry.isListed(lead.phone) ? [{ rule_id: NATIONAL_REGISTRY_RULE, reason: 'national_registry' }] : []
  for (const state of registry.stateListing(lead.phone, statesOf)) blocks.push({ rule_id: stateDncRule(state), reason: 'state_registry' })
  return blocks
}
