import type { Stores } from '../../db/stores'
import type { CallEvents } from '../../telephony/carrier'
import type { AiUsage } from '../../telephony/call-values'
import type { CallSteps } from './call-steps'
import { addUsage } from '../usage/ai-cost'

/**
 * What a carrier tells of a call's AI seat (src/telephony/media-stream/): that its agent's
 * stream started, and when the agent's first audio came. Each kept once, in one transaction;
 * a repeat, or a call already ended, changes nothing. A built-in agent's usage is summed and the
 * seat's time kept once, also on a call that has just ended (its stream closes after the call).
 */
export function aiSeatEvents(deps: { stores: Pick<Stores, 'calls' | 'transaction'>; update: CallSteps['update'] }): Required<Pick<CallEvents, 'seated' | 'agentAudio' | 'aiUsage' | 'aiSeatTime'>> {
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

    aiUsage(callId: string, usage: AiUsage): void {
      stores.transaction(() => {
        const row = stores.calls.get(callId)
        if (row) update(row, { aiUsage: addUsage(row.aiUsage, usage) })
      })
    },

    aiSeatTime(callId: string, seconds: number): void {
      const row = stores.calls.get(callId)
      if (!row || row.aiSeconds !== null || !Number.isFinite(seconds)) return
      stores.transaction(() => update(row, { aiSeconds: Math.max(0, seconds) }))
    },
  }
}
