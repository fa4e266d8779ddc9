import type { CallReport } from '../carrier'
import {
  answerTwiml, bridgeTwiml, HOLD_SECONDS, nobodyTookTwiml, noticeTwiml, owesNotice, TWIML_STEPS, voicemailTwiml,
  type CallbackStep, type CallPlan, type CarrierState,
} from './call-plan'
import { isSeated, onOptOut, onSeatedAnswer, onSeatedEffect, onSeatedParty, seatedReport, seatLeft } from './conference-steps'
import { onAnnounced, recordingAskedFor } from './consent-steps'
import { apply, eventFromAmdCallback, eventFromDialAction, eventFromStatusCallback, type Effect, type TwilioEvent } from './lifecycle'
import { lateRing } from './late-ring'
import { onKeypress, onWhisper } from './press-one-steps'
import { closeSeat, onAiAnswer, onAiEffect, onSeatStep } from './ai-seat-steps'
import { aiReport, onSeatNext } from './seat-next-steps'
import { MAX_TRANSCRIPT_LINES, onTranscription } from './transcription-steps'
import type { RestAction, StepContext, StepResult } from './step-types'
import { hangup, holdForDetection } from './twiml'

/**
 * One verified callback applied to a call's state, as a pure step plus calls into the call
 * service (`CallEvents`, each idempotent): which state to save, which TwiML to answer with,
 * and what to ask of Twilio once the change is durable. Runs inside the callback's transaction.
 */

export type { RestAction, StepContext, StepResult }
export { MAX_TRANSCRIPT_LINES }

/** A lead who answered and found nobody is called back this much later (the simulator's scenario 14). */
export const NOBODY_TOOK_CALLBACK_MS = 2 * 3_600_000

export function runStep(ctx: StepContext, before: CarrierState, step: CallbackStep, leg: number | null, params: Record<string, string>): StepResult {
  // A call that rings after the lead's window closed goes no further.
  const gate = lateRing(ctx, before, step, params)
  if ('reply' in gate) return gate.reply
  const state = stampAnswer(ctx, gate.state, step, params)
  switch (step) {
    case 'answer': {
      // Power and predictive: a waiting seat's conference, else the abandon message (conference-steps.ts).
      // An AI seat takes every person's answer first: the dial mode applies at its handover.
      if (isSeated(ctx.plan) && !ctx.plan.ai) return onSeatedAnswer(ctx, state, applyEvent)
      // Already redirected by the AMD result: a late answer fetch must not start the bridge twice.
      if (state.routed) return { state, twiml: holdForDetection({ pauseSeconds: HOLD_SECONDS }), actions: [] }
      // Without detection the answer is a person the moment Twilio fetches this TwiML: the bridge's
      // leg callbacks must not wait for an in-progress status callback that may come late or never.
      const known = !ctx.plan.machineDetection && state.life.answeredBy === null && state.life.stage !== 'ended'
        ? applyEvent(ctx, state, { kind: 'status', callStatus: 'in-progress', callDuration: null, answeredBy: null }, false)
        : null
      const current = known?.state ?? state
      if (ctx.plan.ai) return onAiAnswer(ctx, current)
      const answer = answerTwiml(ctx.publicUrl, ctx.callId, ctx.plan, current)
      return { state: { ...current, routed: answer.routed, answerServed: true }, twiml: answer.twiml, actions: [] }
    }
    case 'bridge':
      if (owesNotice(ctx.plan, state)) return { state, twiml: noticeTwiml(ctx.publicUrl, ctx.callId, ctx.plan), actions: [] }
      return { state, twiml: bridgeTwiml(ctx.publicUrl, ctx.callId, ctx.plan, state.life.currentLeg, false) ?? nobodyTookTwiml(), actions: [] }
    case 'voicemail':
      if (owesNotice(ctx.plan, state) && ctx.plan.voicemail) return { state, twiml: noticeTwiml(ctx.publicUrl, ctx.callId, ctx.plan), actions: [] }
      return { state, twiml: voicemailTwiml(ctx.publicUrl, ctx.callId, ctx.plan), actions: [] }
    case 'announced':
      return onAnnounced(ctx, state)
    case 'seat':
      return onSeatStep(ctx, state)
    case 'seat-next':
      return onSeatNext(ctx, state)
    case 'whisper':
      return onWhisper(ctx, state, leg)
    case 'keypress':
      return onKeypress(ctx, state, leg, params.Digits, applyEvent)
    case 'optout':
      return onOptOut(ctx, state, params.Digits)
    case 'recording':
      return onRecording(ctx, state, params)
    case 'transcription':
      return { state: onTranscription(ctx, state, params), twiml: null, actions: [] }
    default: {
      const event = eventOf(step, leg, params)
      const result = event ? applyEvent(ctx, state, event, TWIML_STEPS.has(step)) : { state, twiml: null, actions: [] }
      // A TwiML request always gets TwiML: one that changes nothing (a stale leg, the end of the drop) hangs up.
      if (TWIML_STEPS.has(step) && result.twiml === null) result.twiml = hangup()
      return result
    }
  }
}

/** The first sign Twilio answered (the answer fetch, else in-progress) is the ledger's answer time. */
function stampAnswer(ctx: StepContext, state: CarrierState, step: CallbackStep, params: Record<string, string>): CarrierState {
  if (state.answeredAt !== undefined) return state
  const answered = step === 'answer' || (step === 'status' && params.CallStatus === 'in-progress')
  return answered ? { ...state, answeredAt: ctx.now } : state
}

/** A call as Twilio's REST API describes it (GET Calls/{Sid}.json). */
export interface LookedUpCall {
  status: string
  durationSeconds: number | null
  answeredBy: string | null
}

/**
 * A looked-up call (restart, watchdog) as a status event. Answered, yet our answer TwiML was
 * never fetched (or, on rows that do not record it, no second was talked): Twilio could not
 * reach the service and ended the call itself, which is a failure, not a lead who hung up.
 */
export function lookupEvent(state: CarrierState, call: LookedUpCall): TwilioEvent {
  const silent = (call.durationSeconds ?? 0) === 0
  const unreachable = state.answerServed === false || (state.answerServed === undefined && silent)
  return { kind: 'status', callStatus: call.status, callDuration: call.durationSeconds, answeredBy: call.answeredBy, unreachable }
}

function eventOf(step: CallbackStep, leg: number | null, params: Record<string, string>): TwilioEvent | null {
  switch (step) {
    case 'status':
      return eventFromStatusCallback(params)
    case 'amd':
      return eventFromAmdCallback(params)
    case 'leg-answered':
      return leg === null ? null : { kind: 'leg-answered', leg }
    case 'leg-action':
      return leg === null ? null : eventFromDialAction(leg, params)
    case 'voicemail-done':
      return { kind: 'voicemail-done' }
    default:
      return null
  }
}

/** Applies a lifecycle event and turns its effects into call-service events, TwiML and REST work. */
export function applyEvent(ctx: StepContext, state: CarrierState, event: TwilioEvent, twimlReply: boolean): StepResult {
  // The end was told already: a leg callback that comes later cannot change what was reported.
  if ((event.kind === 'leg-answered' || event.kind === 'dial-result') && state.reported) return { state, twiml: twimlReply ? hangup() : null, actions: [] }
  const step = apply(state.life, event)
  let next: CarrierState = { ...state, life: step.state }
  let twiml: string | null = null
  const actions: RestAction[] = []
  for (const effect of step.effects) {
    const out = onEffect(ctx, next, effect, twimlReply)
    next = out.state
    if (out.twiml !== null) twiml = out.twiml
    actions.push(...out.actions)
  }
  // A leg callback after the lead hung up, while the end waits for its recording (Twilio sends the
  // Dial's callbacks and the call's final status in either order): the waiting report follows it.
  if ((event.kind === 'leg-answered' || event.kind === 'dial-result') && next.life.stage === 'ended' && next.pendingEnd && !next.reported) {
    const redone = reportOf(ctx, next, { type: 'ended', outcome: 'completed', durationSeconds: next.pendingEnd.durationSeconds, carrierStatus: 'completed' })
    next = { ...next, pendingEnd: { ...redone, endedAt: next.pendingEnd.endedAt ?? redone.endedAt } }
  }
  return { state: next, twiml, actions }
}

const waitsForRecording = (ctx: StepContext, state: CarrierState): boolean =>
  ctx.plan.record && state.life.answeredBy !== null && !state.recorded && state.recordingAbsent !== true && recordingAskedFor(ctx.plan, state)

function onEffect(ctx: StepContext, state: CarrierState, effect: Effect, twimlReply: boolean): StepResult {
  const { events, callId, plan } = ctx
  const none = { state, twiml: null, actions: [] }
  const seated = plan.ai ? onAiEffect(ctx, state, effect) : isSeated(plan) ? onSeatedEffect(ctx, state, effect) : null
  if (seated) return seated
  switch (effect.type) {
    case 'ringing':
    case 'voicemail-left':
      // The call is ringing from the dial on (call.started); voicemail.left goes with the end.
      return none
    case 'answered':
      events.answered(callId, effect.by)
      // The ledger: a person, from the moment Twilio answered (detection decides some seconds later).
      if (effect.by === 'person') events.personAnswered?.(callId, state.answeredAt ?? ctx.now)
      return isSeated(plan) ? onSeatedParty(ctx, state, effect.by) : none
    case 'bridge':
      // Without detection the answer's TwiML bridges at once; with it, the AMD result redirects the call.
      return plan.machineDetection && !state.routed ? { state, twiml: null, actions: [{ type: 'redirect', step: 'bridge' }] } : none
    case 'drop-voicemail':
      return state.routed ? none : { state, twiml: null, actions: [{ type: 'redirect', step: 'voicemail' }] }
    case 'hang-up':
      return twimlReply ? { state, twiml: hangup(), actions: [] } : { state, twiml: null, actions: [{ type: 'hang-up' }] }
    case 'handover': {
      const person = plan.bridge[effect.leg]
      if (person) events.handover(callId, { id: person.id, name: person.name, role: person.role })
      return none
    }
    case 'next-leg':
      return { state, twiml: bridgeTwiml(ctx.publicUrl, callId, plan, effect.leg, false), actions: [] }
    case 'nobody-took': {
      const next = { ...state, nobodyTook: true }
      if (twimlReply) return { state: next, twiml: nobodyTookTwiml(), actions: [] }
      return state.routed ? { state: next, twiml: null, actions: [] } : { state: { ...next, routed: true }, twiml: null, actions: [{ type: 'twiml', twiml: nobodyTookTwiml() }] }
    }
    case 'ended':
      return onEnded(ctx, closeSeat(ctx, isSeated(plan) ? seatLeft(ctx, state) : state), effect)
  }
}

function onEnded(ctx: StepContext, state: CarrierState, ended: Extract<Effect, { type: 'ended' }>): StepResult {
  const report = reportOf(ctx, state, ended)
  // An answered, recorded call waits (briefly) for its recording, so call.completed can carry it.
  if (ended.outcome === 'completed' && !state.reported && waitsForRecording(ctx, state)) {
    return { state: { ...state, pendingEnd: report }, twiml: null, actions: [{ type: 'wait-for-recording' }] }
  }
  return { state: tellEnded(ctx, state, report), twiml: null, actions: [] }
}

/** Tells the call service the call ended (once). */
export function tellEnded(ctx: Pick<StepContext, 'callId' | 'events'>, state: CarrierState, report: CallReport): CarrierState {
  if (state.reported) return state
  ctx.events.ended(ctx.callId, { ...report, recorded: state.recorded })
  return { ...state, pendingEnd: null, reported: true }
}

function reportOf(ctx: StepContext, state: CarrierState, ended: Extract<Effect, { type: 'ended' }>): CallReport {
  const base: CallReport = {
    outcome: null, note: null, voicemailDelivered: false, callbackAt: null, optOut: false,
    durationSeconds: ended.durationSeconds, transcript: [], recorded: state.recorded, endedAt: ctx.now,
  }
  switch (ended.outcome) {
    case 'no_answer':
      return { ...base, outcome: 'no_answer', note: ended.carrierStatus === 'canceled' ? 'The call was canceled before it was answered.' : 'No answer.' }
    case 'busy':
      return { ...base, outcome: 'busy', note: 'The line was busy.' }
    case 'failed':
      if (ended.unreachable) {
        const note = `${ctx.label ?? 'Twilio'} ended the call while the service was unreachable: it answered, but the call\u2019s instructions could not be fetched.`
        return { ...base, outcome: 'failed', note, carrierFault: 'unavailable' }
      }
      return { ...base, outcome: 'failed', note: `${ctx.label ?? 'Twilio'} could not connect the call (CallStatus failed).` }
    case 'completed':
      break
  }
  const ai = aiReport(ctx, state, base, NOBODY_TOOK_CALLBACK_MS)
  if (ai) return ai
  const seated = seatedReport(ctx.plan, state, base, ctx.now + NOBODY_TOOK_CALLBACK_MS)
  if (seated) return seated
  const life = state.life
  // A fax line is no one's voice number: as a wrong number (three in a row retire it).
  if (life.fax) return { ...base, outcome: 'wrong_number', note: 'A fax machine answered; the call was ended.' }
  if (life.answeredBy === 'machine') {
    const note = life.voicemailLeft
      ? 'Voicemail left.'
      : ctx.plan.voicemail ? 'An answering machine picked up; the voicemail did not play to its end.' : 'An answering machine picked up; the campaign has no voicemail to leave.'
    return { ...base, outcome: 'voicemail', note, voicemailDelivered: life.voicemailLeft }
  }
  // A person: the one who took the call files the outcome (or it becomes other after 10 minutes).
  if (life.handoverLeg !== null) return base
  if (state.nobodyTook) {
    return { ...base, outcome: 'callback', note: 'The lead answered and nobody on the campaign picked up; a callback was booked.', callbackAt: ctx.now + NOBODY_TOOK_CALLBACK_MS }
  }
  return { ...base, outcome: 'hung_up', note: 'The lead hung up before anyone took the call.' }
}

function onRecording(ctx: StepContext, state: CarrierState, params: Record<string, string>): StepResult {
  const sid = params.RecordingSid ?? ''
  // Twilio made no recording (absent: nothing was heard; failed): a call waiting for one is told now, without it.
  if (params.RecordingStatus === 'absent' || params.RecordingStatus === 'failed') {
    if (state.recordingSid !== null || state.recorded) return { state, twiml: null, actions: [] }
    const next: CarrierState = { ...state, recordingAbsent: true }
    return { state: next.pendingEnd ? tellEnded(ctx, next, next.pendingEnd) : next, twiml: null, actions: [] }
  }
  if (params.RecordingStatus !== 'completed' || !(ctx.recordingSid ?? /^RE[0-9a-fA-F]{32}$/).test(sid) || state.recordingSid !== null) return { state, twiml: null, actions: [] }
  return { state: { ...state, recordingSid: sid }, twiml: null, actions: [{ type: 'download-recording', recordingSid: sid }] }
}
