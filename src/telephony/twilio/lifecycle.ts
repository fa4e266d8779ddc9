/**
 * Twilio's callbacks mapped onto our call lifecycle, as a pure state machine: `apply(state,
 * event)` gives the next state and what the service must do. Twilio may send a callback twice,
 * late, or out of order (status, AMD and dial callbacks travel separately), so every step is
 * idempotent and a call never moves backwards: 'ringing' after 'in-progress' or after
 * 'completed' changes nothing, and the first answer (person or machine) is final.
 */

export type Party = 'person' | 'machine'

/** Our outcome for a call Twilio ended; 'completed' means answered, the bridge or voicemail decides the rest. */
export type CarrierOutcome = 'completed' | 'no_answer' | 'busy' | 'failed'

export type TwilioEvent =
  /**
   * StatusCallback: CallStatus, CallDuration (on completed), AnsweredBy (only with synchronous AMD).
   * `unreachable`: looked up after the fact, and Twilio never got the call's TwiML from us.
   */
  | { kind: 'status'; callStatus: string; callDuration?: number | null; answeredBy?: string | null; unreachable?: boolean }
  /** AsyncAmdStatusCallback: AnsweredBy. */
  | { kind: 'amd'; answeredBy: string }
  /** A bridge leg's <Number> status callback said the SDR (or closer) picked up. */
  | { kind: 'leg-answered'; leg: number }
  /** A bridge leg's <Dial> action: DialCallStatus. */
  | { kind: 'dial-result'; leg: number; dialCallStatus: string }
  /** The voicemail TwiML reached its end (its <Redirect> after the <Play>/<Say>). */
  | { kind: 'voicemail-done' }

export type Effect =
  | { type: 'ringing' }
  | { type: 'answered'; by: Party }
  /** Answer the call with the first bridge leg. */
  | { type: 'bridge' }
  /** Redirect the call to the voicemail drop. */
  | { type: 'drop-voicemail' }
  /** End the call (a fax, or the bridge is over). */
  | { type: 'hang-up' }
  | { type: 'handover'; leg: number }
  | { type: 'next-leg'; leg: number }
  /** Every SDR and closer was rung and nobody picked up. */
  | { type: 'nobody-took' }
  | { type: 'voicemail-left' }
  /** `unreachable`: Twilio ended an answered call because it could not fetch our TwiML (the service was down). */
  | { type: 'ended'; outcome: CarrierOutcome; durationSeconds: number; carrierStatus: string; unreachable?: true }

export interface LifecycleState {
  stage: 'dialing' | 'ringing' | 'in-progress' | 'ended'
  /** AsyncAmd runs: a person is only known once AnsweredBy arrives. */
  amdExpected: boolean
  answeredBy: Party | null
  /** People in the bridge (SDRs then closers). */
  legs: number
  currentLeg: number
  handoverLeg: number | null
  bridgeOver: boolean
  voicemailLeft: boolean
  /** A leg is taken only by pressing 1 (its keypress step); absent on calls placed before, where answering took it. */
  pressOne?: boolean
  /** AnsweredBy fax: a voice campaign cannot reach this line (absent on rows saved before it was kept). */
  fax?: boolean
  outcome: CarrierOutcome | null
  durationSeconds: number | null
}

export function initialState(options: { amdExpected: boolean; legs: number; pressOne?: boolean }): LifecycleState {
  return {
    ...(options.pressOne ? { pressOne: true } : {}),
    stage: 'dialing',
    amdExpected: options.amdExpected,
    answeredBy: null,
    legs: options.legs,
    currentLeg: 0,
    handoverLeg: null,
    bridgeOver: false,
    voicemailLeft: false,
    outcome: null,
    durationSeconds: null,
  }
}

/** AnsweredBy: human and unknown are a person (Twilio says unknown when it cannot tell; a person may be there). */
export function partyOf(answeredBy: string | null | undefined): Party | null {
  switch (answeredBy) {
    case 'human':
    case 'unknown':
      return 'person'
    case 'machine_start':
    case 'machine_end_beep':
    case 'machine_end_silence':
    case 'machine_end_other':
    case 'fax':
      return 'machine'
    default:
      return null
  }
}

/** Terminal CallStatus to our outcome. canceled is our own hang-up while it rang: no answer, not a carrier failure. */
export function outcomeOf(callStatus: string): CarrierOutcome | null {
  switch (callStatus) {
    case 'completed':
      return 'completed'
    case 'busy':
      return 'busy'
    case 'no-answer':
    case 'canceled':
      return 'no_answer'
    case 'failed':
      return 'failed'
    default:
      return null
  }
}

const RANK = { dialing: 0, ringing: 1, 'in-progress': 2, ended: 3 } as const

export interface Step {
  state: LifecycleState
  effects: Effect[]
}

export function apply(state: LifecycleState, event: TwilioEvent): Step {
  switch (event.kind) {
    case 'status':
      return onStatus(state, event)
    case 'amd':
      return answer(state, event.answeredBy, [])
    case 'leg-answered':
      return onLegAnswered(state, event.leg)
    case 'dial-result':
      return onDialResult(state, event.leg, event.dialCallStatus)
    case 'voicemail-done':
      if (state.answeredBy !== 'machine' || state.voicemailLeft) return { state, effects: [] }
      return { state: { ...state, voicemailLeft: true }, effects: [{ type: 'voicemail-left' }] }
  }
}

function onStatus(state: LifecycleState, event: Extract<TwilioEvent, { kind: 'status' }>): Step {
  const s = event.callStatus
  if (s === 'queued' || s === 'initiated') return { state, effects: [] }
  if (s === 'ringing') {
    if (RANK[state.stage] >= RANK.ringing) return { state, effects: [] }
    return { state: { ...state, stage: 'ringing' }, effects: [{ type: 'ringing' }] }
  }
  if (s === 'in-progress') {
    if (RANK[state.stage] >= RANK['in-progress']) return { state, effects: [] }
    const next: LifecycleState = { ...state, stage: 'in-progress' }
    // Without AMD (or with a synchronous AnsweredBy) the answer is known now; with AsyncAmd it waits for the AMD callback.
    if (event.answeredBy) return answer(next, event.answeredBy, [])
    if (!state.amdExpected) return answer(next, 'human', [])
    return { state: next, effects: [] }
  }
  const outcome = outcomeOf(s)
  if (outcome === null || state.stage === 'ended') return { state, effects: [] }
  // Answered, but nobody was there to say what to do: no person or machine was heard, the call failed.
  if (outcome === 'completed' && event.unreachable && state.answeredBy === null && partyOf(event.answeredBy) === null) {
    const durationSeconds = Math.max(0, Math.floor(event.callDuration ?? 0))
    return {
      state: { ...state, stage: 'ended', outcome: 'failed', durationSeconds },
      effects: [{ type: 'ended', outcome: 'failed', durationSeconds, carrierStatus: s, unreachable: true }],
    }
  }
  let step: Step = { state, effects: [] }
  // Twilio's 'completed' means the call was answered: if no answer was told yet (AMD never came), it was a person.
  if (outcome === 'completed' && state.answeredBy === null) step = answer({ ...state, stage: 'in-progress' }, event.answeredBy ?? 'unknown', [], false)
  const durationSeconds = outcome === 'completed' ? Math.max(0, Math.floor(event.callDuration ?? 0)) : 0
  return {
    state: { ...step.state, stage: 'ended', outcome, durationSeconds },
    effects: [...step.effects, { type: 'ended', outcome, durationSeconds, carrierStatus: s }],
  }
}

/** The first AnsweredBy decides; later ones (a duplicate AMD callback, a sync value after async) change nothing. */
function answer(state: LifecycleState, answeredBy: string, effects: Effect[], act = true): Step {
  const party = partyOf(answeredBy)
  if (party === null || state.answeredBy !== null || state.stage === 'ended') return { state, effects }
  const next: LifecycleState = { ...state, answeredBy: party, stage: 'in-progress', ...(answeredBy === 'fax' ? { fax: true } : {}) }
  const out: Effect[] = [...effects, { type: 'answered', by: party }]
  if (act) {
    if (party === 'person') out.push(state.legs > 0 ? { type: 'bridge' } : { type: 'nobody-took' })
    else if (answeredBy === 'fax') out.push({ type: 'hang-up' })
    else out.push({ type: 'drop-voicemail' })
  }
  return { state: party === 'person' && state.legs === 0 ? { ...next, bridgeOver: true } : next, effects: out }
}

function onLegAnswered(state: LifecycleState, leg: number): Step {
  if (state.answeredBy !== 'person' || state.handoverLeg !== null || state.bridgeOver || leg !== state.currentLeg) return { state, effects: [] }
  return { state: { ...state, handoverLeg: leg }, effects: [{ type: 'handover', leg }] }
}

function onDialResult(state: LifecycleState, leg: number, dialCallStatus: string): Step {
  if (state.answeredBy !== 'person' || state.bridgeOver || leg !== state.currentLeg) return { state, effects: [] }
  // With press 1 an answered leg nobody took (no key, another key, a voicemail box) is not a handover: the next person is tried.
  const taken = state.pressOne ? state.handoverLeg === leg : true
  if (taken && (dialCallStatus === 'completed' || dialCallStatus === 'answered')) {
    // The person took the call and the bridge has ended: handover (if its own callback was lost), then hang up.
    const effects: Effect[] = state.handoverLeg === null ? [{ type: 'handover', leg }] : []
    return { state: { ...state, handoverLeg: state.handoverLeg ?? leg, bridgeOver: true }, effects: [...effects, { type: 'hang-up' }] }
  }
  if (state.handoverLeg !== null) return { state: { ...state, bridgeOver: true }, effects: [{ type: 'hang-up' }] }
  if (leg + 1 < state.legs) return { state: { ...state, currentLeg: leg + 1 }, effects: [{ type: 'next-leg', leg: leg + 1 }] }
  return { state: { ...state, bridgeOver: true }, effects: [{ type: 'nobody-took' }] }
}

/** Reads a callback's form parameters into an event; null when they are not one we know. */
export function eventFromStatusCallback(params: Record<string, string | undefined>): TwilioEvent | null {
  if (!params.CallStatus) return null
  const duration = params.CallDuration !== undefined && /^\d+$/.test(params.CallDuration) ? Number(params.CallDuration) : null
  return { kind: 'status', callStatus: params.CallStatus, callDuration: duration, answeredBy: params.AnsweredBy ?? null }
}

export function eventFromAmdCallback(params: Record<string, string | undefined>): TwilioEvent | null {
  return params.AnsweredBy && partyOf(params.AnsweredBy) ? { kind: 'amd', answeredBy: params.AnsweredBy } : null
}

export function eventFromDialAction(leg: number, params: Record<string, string | undefined>): TwilioEvent | null {
  return params.DialCallStatus && Number.isInteger(leg) && leg >= 0 ? { kind: 'dial-result', leg, dialCallStatus: params.DialCallStatus } : null
}
