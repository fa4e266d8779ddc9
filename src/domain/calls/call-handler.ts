import type { CallRow } from '../../db/stores/call-store'

/** The carrier whose AI assistant talks on every answered call (a simulation). */
const SIMULATED_AI_CARRIER = 'simulator'

/**
 * Who took a call, as the console names it: the SDR or closer who took it; the AI assistant
 * only where one talked to the lead (an answered call of the simulator, or a call put on the
 * campaign's AI seat); else null, nobody. `handled_by` keeps naming the AI assistant on the
 * others (the API's Call is unchanged).
 */
export function handlerOf(row: Pick<CallRow, 'handledBy' | 'carrier' | 'answered' | 'aiSeated'>): string | null {
  if (row.handledBy.role !== 'ai') return row.handledBy.name
  const talked = row.aiSeated || (row.carrier === SIMULATED_AI_CARRIER && row.answered !== null)
  return talked ? row.handledBy.name : null
}
