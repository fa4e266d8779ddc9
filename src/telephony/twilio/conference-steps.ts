import type { Voicemail } from '../call-values'
import type { CallReport } from '../carrier'
import {
  callbackUrl, HOLD_SECONDS, noticeTwiml, owesNotice, transcriptionOf, voicemailTwiml,
  type CallPlan, type CarrierState, type SeatedCall,
} from './call-plan'
import type { Effect, Party, TwilioEvent } from './lifecycle'
import type { StepContext, StepResult } from './step-types'
import { hangup, holdForDetection, joinConference, messageGather, say } from './twiml'

/**
 * Power and predictive calls on Twilio (dial_mode, docs/telephony.md): the representative is
 * there first. At the answer the lead claims a waiting seat and joins its conference at once (no
 * silent hold for detection); when none waits, the campaign's abandon message plays at once in a
 * one-digit Gather where 9 puts the number on the Do Not Call list. Detection still runs: a
 * machine is moved out to the voicemail drop and its seat waits again, as it does when the lead
 * leaves. Pure but for the seat port and the call events, all inside the callback's transaction.
 */

export const isSeated = (plan: CallPlan): boolean => plan.dialMode === 'power' || plan.dialMode === 'predictive'

/** Said after the abandon message, inside its Gather: whatever the message says, the lead learns the key. */
export const OPT_OUT_PROMPT = 'To stop these calls, press 9.'
export const OPTED_OUT_MESSAGE = 'You will not be called again. Goodbye.'
/** Seconds the lead has to press 9 once the message ends. */
export const OPT_OUT_SECONDS = 5
/** Only for a call planned without a message (campaign rules require one for power and predictive). */
const FALLBACK_MESSAGE: Voicemail = { say: 'Sorry, nobody is free to take your call right now. We will call you back.' }

export const DNC_NOTE = 'No seat was free when the lead answered; they heard the abandon message and pressed 9: the number is on the Do Not Call list.'
export const ABANDONED_NOTE = 'No seat was free when the lead answered; they heard the abandon message and a callback was booked.'

type Apply = (ctx: StepContext, state: CarrierState, event: TwilioEvent, twimlReply: boolean) => StepResult

/** The lead's leg joins the seat's room; transcription starts with it unless the recording notice is owed (nothing is transcribed before it). */
export function seatJoinTwiml(publicUrl: string, callId: string, plan: CallPlan, state: CarrierState, conference: string): string {
  return joinConference(conference, owesNotice(plan, state) ? undefined : transcriptionOf(publicUrl, callId))
}

/** The abandon message, then the opt-out prompt, in a one-digit Gather posting to 'optout'. */
export function abandonTwiml(publicUrl: string, callId: string, plan: CallPlan): string {
  const message = plan.abandonMessage ?? FALLBACK_MESSAGE
  const verb = 'audio_url' in message ? { audioUrl: message.audio_url } : { say: message.say }
  return messageGather(verb, OPT_OUT_PROMPT, callbackUrl(publicUrl, callId, 'optout'), OPT_OUT_SECONDS)
}

/** A machine's TwiML, as the voicemail step gives it (the notice first where it is owed). */
function machineTwiml(ctx: StepContext, state: CarrierState): string {
  return owesNotice(ctx.plan, state) && ctx.plan.voicemail ? noticeTwiml(ctx.publicUrl, ctx.callId, ctx.plan) : voicemailTwiml(ctx.publicUrl, ctx.callId, ctx.plan)
}

function twimlOf(ctx: StepContext, state: CarrierState, seated: SeatedCall): string {
  switch (seated.stage) {
    case 'joined':
      return seatJoinTwiml(ctx.publicUrl, ctx.callId, ctx.plan, state, seated.conference!)
    case 'message':
      return abandonTwiml(ctx.publicUrl, ctx.callId, ctx.plan)
    case 'voicemail':
      return machineTwiml(ctx, state)
    case 'left':
      return hangup()
  }
}

function handOver(ctx: StepContext, seated: SeatedCall): SeatedCall {
  if (seated.handedOver || !seated.person) return seated
  ctx.events.handover(ctx.callId, seated.person)
  return { ...seated, handedOver: true }
}

/**
 * The answer (the call's `Url`): a waiting seat is claimed and the lead joins its conference (the
 * connection, and the handover once the party is known to be a person), else the abandon
 * message. A repeated fetch gets the same TwiML and claims nothing twice.
 */
export function onSeatedAnswer(ctx: StepContext, before: CarrierState, apply: Apply): StepResult {
  if (before.seated) return { state: before, twiml: twimlOf(ctx, before, before.seated), actions: [] }
  // Redirected already by a machine's result that came first: that redirect takes the call.
  if (before.routed) return { state: before, twiml: holdForDetection({ pauseSeconds: HOLD_SECONDS }), actions: [] }
  // Without detection whoever answers is a person the moment Twilio fetches this TwiML.
  const state = !ctx.plan.machineDetection && before.life.answeredBy === null && before.life.stage !== 'ended'
    ? apply(ctx, before, { kind: 'status', callStatus: 'in-progress', callDuration: null, answeredBy: null }, false).state
    : before
  const served: CarrierState = { ...state, routed: true, answerServed: true }
  if (state.life.stage === 'ended') return { state: served, twiml: hangup(), actions: [] }
  if (state.life.answeredBy === 'machine') return { state: served, twiml: machineTwiml(ctx, state), actions: [] }
  const seat = ctx.plan.campaignId ? (ctx.seats?.claim(ctx.plan.campaignId, ctx.callId, ctx.now) ?? null) : null
  if (!seat) {
    const seated: SeatedCall = { stage: 'message', seatId: null, conference: null, person: null, handedOver: false, optedOut: false }
    return { state: { ...served, seated }, twiml: abandonTwiml(ctx.publicUrl, ctx.callId, ctx.plan), actions: [] }
  }
  ctx.events.connected?.(ctx.callId, ctx.now)
  let seated: SeatedCall = { stage: 'joined', seatId: seat.seatId, conference: seat.conference, person: seat.person, handedOver: false, optedOut: false }
  // A person already (detection off, or its result came first): the handover now; else at the result.
  if (state.life.answeredBy === 'person') seated = handOver(ctx, seated)
  return { state: { ...served, seated }, twiml: seatJoinTwiml(ctx.publicUrl, ctx.callId, ctx.plan, state, seat.conference), actions: [] }
}

/** The Gather's action: 9 opts the lead out (told with the call's end); any other digit, or a call not hearing the message, hangs up and changes nothing. */
export function onOptOut(ctx: StepContext, state: CarrierState, digits: string | undefined): StepResult {
  const seated = state.seated
  if (seated?.optedOut) return { state, twiml: say(OPTED_OUT_MESSAGE), actions: [] }
  if (!seated || seated.stage !== 'message' || digits !== '9' || state.life.stage === 'ended' || state.reported) return { state, twiml: hangup(), actions: [] }
  return { state: { ...state, seated: { ...seated, optedOut: true } }, twiml: say(OPTED_OUT_MESSAGE), actions: [] }
}

/** The party is known: a person in the seat's room is the seat's handover; a machine there frees the seat. */
export function onSeatedParty(ctx: StepContext, state: CarrierState, by: Party): StepResult {
  const seated = state.seated
  if (seated?.stage !== 'joined') return { state, twiml: null, actions: [] }
  if (by === 'person') return { state: { ...state, seated: handOver(ctx, seated) }, twiml: null, actions: [] }
  ctx.seats?.release(ctx.callId, ctx.now)
  return { state: { ...state, seated: { ...seated, stage: 'left' } }, twiml: null, actions: [] }
}

/**
 * Lifecycle effects a seated call answers its own way (null: as any call): it has no bridge, and
 * a machine is moved out of the room or the message to the voicemail drop by new TwiML.
 */
export function onSeatedEffect(ctx: StepContext, state: CarrierState, effect: Effect): StepResult | null {
  switch (effect.type) {
    case 'bridge':
    case 'next-leg':
    case 'handover':
    case 'nobody-took':
      return { state, twiml: null, actions: [] }
    case 'drop-voicemail': {
      const seated = state.seated
      // Not answered yet: the usual redirect to the voicemail step.
      if (!seated) return null
      if (seated.stage === 'voicemail' || seated.optedOut) return { state, twiml: null, actions: [] }
      const next: CarrierState = { ...state, seated: { ...seated, stage: 'voicemail' } }
      return { state: next, twiml: null, actions: [{ type: 'twiml', twiml: machineTwiml(ctx, next) }] }
    }
    default:
      return null
  }
}

/** The lead's call ended while in the seat's room: the seat waits again. */
export function seatLeft(ctx: StepContext, state: CarrierState): CarrierState {
  if (state.seated?.stage !== 'joined') return state
  ctx.seats?.release(ctx.callId, ctx.now)
  return { ...state, seated: { ...state.seated, stage: 'left' } }
}

/** How a seated call a person answered ended (null: as any call: a machine, a fax, a lead who hung up in the room unknown). */
export function seatedReport(plan: CallPlan, state: CarrierState, base: CallReport, callbackAt: number): CallReport | null {
  const seated = state.seated
  if (!isSeated(plan) || !seated) return null
  // Only a person presses 9 at the message: the opt-out stands whatever detection said after.
  if (seated.optedOut) return { ...base, outcome: 'dnc', optOut: true, dncSource: 'outcome', note: DNC_NOTE }
  if (state.life.answeredBy === 'machine') return null
  // The seat's person took the call: they file the outcome.
  if (seated.handedOver) return base
  if (seated.stage === 'message') return { ...base, outcome: 'callback', note: ABANDONED_NOTE, callbackAt }
  return null
}
