import type { Stores } from '../../db/stores'
import type { CallEvents } from '../../telephony/carrier'
import type { CallSteps } from './call-steps'

/**
 * What a carrier tells of a call's AI seat (src/telephony/media-stream/): that its agent's
 * stream started, and when the agent's first audio came. Each kept once, in one transaction;
 * a repeat, or a call already ended, changes nothing.
 */
export function aiSeatEvents(deps: { stores: Pick<Stores, 'calls' | 'transaction'>; update: CallSteps['update'] }): Required<Pick<CallEvents, 'seated' | 'agentAudio'>> {
  const { stores, update } = deps
  return {
    seated(callId: string): void {
      const row = stores.calls.get(callId)
      if (!row || row.aiSeated || row.status === 'ended') return
      stores.transaction(() => update(row, { aiSeated: true }))
    },

    agentAudio(callId: string, ms: number): void {
      const row = stores.calls.get(callId)
      if (!row || row.aiFirstAudioMs !== null || !Number.isFinite(ms)) return
      stores.transaction(() => update(row, { aiFirstAudioMs: Math.max(0, Math.round(ms)) }))
    },
  }
}
