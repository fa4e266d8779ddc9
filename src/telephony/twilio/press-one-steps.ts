import type { CarrierState } from './call-plan'
import { whisperTwiml } from './call-plan'
import type { StepContext, StepResult } from './step-types'
import { connectLeg, hangup } from './twiml'

/**
 * Press 1 to take the call: the person a bridge leg rings hears a briefing on their own leg
 * ('whisper', the `<Number url>`), and only the digit 1 ('keypress', the Gather's action) puts
 * the lead through and makes them the handover. A voicemail box, silence or another key never
 * does: that leg hangs up unbridged and the Dial's action moves on to the next person.
 */

type Apply = (ctx: StepContext, state: CarrierState, event: { kind: 'leg-answered'; leg: number }, twimlReply: boolean) => StepResult

/** This leg is the one the bridge is ringing now, and nobody has taken the call yet. */
function ringing(state: CarrierState, leg: number | null): leg is number {
  const life = state.life
  return leg !== null && !state.reported && life.stage !== 'ended' && life.answeredBy === 'person' && life.handoverLeg === null && !life.bridgeOver && leg === life.currentLeg
}

export function onWhisper(ctx: StepContext, state: CarrierState, leg: number | null): StepResult {
  // A stale leg (the bridge moved on, or someone took the call) is hung up before it hears anything.
  if (!ringing(state, leg)) return { state, twiml: hangup(), actions: [] }
  return { state, twiml: whisperTwiml(ctx.publicUrl, ctx.callId, ctx.plan, leg, state.seat?.summary), actions: [] }
}

export function onKeypress(ctx: StepContext, state: CarrierState, leg: number | null, digits: string | undefined, apply: Apply): StepResult {
  // The accepted leg's keypress again (a replay): the same answer, nothing changes.
  if (leg !== null && digits === '1' && state.life.handoverLeg === leg) return { state, twiml: connectLeg(), actions: [] }
  if (digits !== '1' || !ringing(state, leg)) return { state, twiml: hangup(), actions: [] }
  const result = apply(ctx, state, { kind: 'leg-answered', leg }, true)
  const accepted = result.state.life.handoverLeg === leg
  // The lead is put through now: the ledger's connection.
  if (accepted) ctx.events.connected?.(ctx.callId, ctx.now)
  return { ...result, twiml: accepted ? connectLeg() : hangup() }
}
