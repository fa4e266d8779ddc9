import type { CallEvents } from '../carrier'
import { TWIML_STEPS, type CallbackStep, type CarrierState } from './call-plan'
import { apply, eventFromStatusCallback } from './lifecycle'
import { hangup } from './twiml'

/**
 * Twilio may ring a call long after it was created: calls created faster than the account's
 * calls per second wait in `queued` (docs/telephony.md). The first sign that a call reached the
 * lead (the ringing status; else the answer: its TwiML fetch, the in-progress status or the
 * AMD result) asks the service whether the lead may still be called (CallEvents.ringing). When
 * not, the service has already ended the call; here it is cancelled at Twilio and never
 * connected: `Status=canceled` while it rings, `completed` once answered (Twilio's OpenAPI
 * document: canceled "will not affect calls already in progress"), and the answer's TwiML hangs up.
 */

/** What a late ring asks of Twilio's REST API. */
export type LateRingAction = { type: 'cancel' } | { type: 'hang-up' }

export interface LateRingReply {
  state: CarrierState
  twiml: string | null
  actions: LateRingAction[]
}

/** The step stops here (`reply`), or goes on with `state`. */
export type LateRingGate = { reply: LateRingReply } | { state: CarrierState }

export function lateRing(ctx: { callId: string; events: CallEvents }, state: CarrierState, step: CallbackStep, params: Record<string, string>): LateRingGate {
  if (state.windowClosed) return step === 'recording' ? { state } : { reply: afterClose(state, step, params) }
  if (state.windowChecked || !ctx.events.ringing) return { state }
  const signal = signalOf(step, params)
  if (signal === null) return { state }
  if (ctx.events.ringing(ctx.callId)) return { state: { ...state, windowChecked: true } }
  // The service was told the end (ringing answered false): nothing is told again.
  const closed: CarrierState = { ...state, windowChecked: true, windowClosed: true, reported: true }
  if (step === 'answer') return { reply: { state: { ...closed, answerServed: true, routed: true }, twiml: hangup(), actions: [] } }
  return { reply: { state: closed, twiml: TWIML_STEPS.has(step) ? hangup() : null, actions: [{ type: signal === 'ringing' ? 'cancel' : 'hang-up' }] } }
}

function signalOf(step: CallbackStep, params: Record<string, string>): 'ringing' | 'answered' | null {
  if (step === 'answer' || step === 'amd') return 'answered'
  if (step !== 'status') return null
  if (params.CallStatus === 'ringing') return 'ringing'
  if (params.CallStatus === 'in-progress') return 'answered'
  return null
}

/**
 * After the close: TwiML hangs up, status callbacks only move the call to its end (so its row
 * closes), AMD and bridge callbacks change nothing. A recording (a second of an answered call)
 * is handled as usual.
 */
function afterClose(state: CarrierState, step: CallbackStep, params: Record<string, string>): LateRingReply {
  if (TWIML_STEPS.has(step)) return { state, twiml: hangup(), actions: [] }
  const event = step === 'status' ? eventFromStatusCallback(params) : null
  return { state: event ? { ...state, life: apply(state.life, event).state } : state, twiml: null, actions: [] }
}
