import { openSeat } from './ai-seat-steps'
import { afterNoticeTwiml, type CallPlan, type CarrierState } from './call-plan'
import type { StepContext, StepResult } from './step-types'
import { hangup } from './twiml'

/**
 * Where a state of the lead requires every party's consent (CallPlan.consent): the call was
 * created unrecorded, the notice plays after the answer (call-plan.ts noticeTwiml), and its
 * `<Redirect>` lands here. Only then is recording asked for (RestAction start-recording:
 * POST .../Calls/{Sid}/Recordings.json), so nothing is recorded before the notice has ended.
 */

/**
 * The notice played to its end: recording may start now, and the call goes on to the bridge or
 * the voicemail. Once: a repeated request gets the same TwiML and starts nothing.
 */
export function onAnnounced(ctx: StepContext, state: CarrierState): StepResult {
  if (!ctx.plan.consent || state.life.stage === 'ended') return { state, twiml: hangup(), actions: [] }
  if (state.announcedAt !== undefined) return afterNotice(ctx, state)
  const next: CarrierState = { ...state, announcedAt: ctx.now }
  ctx.events.announced?.(ctx.callId, ctx.now)
  const after = afterNotice(ctx, next)
  return { ...after, actions: [...after.actions, { type: 'start-recording' }] }
}

/** Whether a recording was asked for: always without consent rules, else only once the notice played. */
export const recordingAskedFor = (plan: CallPlan, state: CarrierState): boolean => !plan.consent || state.announcedAt !== undefined

/** A person on an AI-seated campaign is served the seat next (transcription starts with it); any other call goes on as planned. */
function afterNotice(ctx: StepContext, state: CarrierState): StepResult {
  if (ctx.plan.ai && state.life.answeredBy === 'person') return openSeat(ctx, state, true)
  return { state, twiml: afterNoticeTwiml(ctx.publicUrl, ctx.callId, ctx.plan, state), actions: [] }
}
