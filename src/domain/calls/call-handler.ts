import type { CallRow } from '../../db/stores/call-store'

/** The one carrier with an AI assistant on its calls; every other carrier rings people first. */
const AI_CARRIER = 'simulator'

/**
 * Who took a call, as the console names it: the SDR or closer who took it; the AI assistant
 * only where one talked to the lead (an answered call of the simulator); else null, nobody.
 * `handled_by` keeps naming the AI assistant on the others (the API's Call is unchanged).
 */
export function handlerOf(row: Pick<CallRow, 'handledBy' | 'carrier' | 'answered'>): string | null {
  if (row.handledBy.role !== 'ai') return row.handledBy.name
  return row.carrier === AI_CARRIER && row.answered !== null ? row.handledBy.name : null
}
