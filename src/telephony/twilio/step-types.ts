/** The shapes a callback step works with (callback-steps.ts runs them; consent-steps.ts and late-ring.ts add steps). */
import type { CallEvents } from '../carrier'
import type { SeatPort } from '../ports'
import type { CallPlan, CarrierState } from './call-plan'
import type { LateRingAction } from './late-ring'

/** Work for Twilio's REST API after the callback's change is durable. */
export type RestAction =
  | { type: 'redirect'; step: 'bridge' | 'voicemail' | 'seat' }
  | { type: 'twiml'; twiml: string }
  | { type: 'hang-up' }
  | { type: 'download-recording'; recordingSid: string }
  | { type: 'wait-for-recording' }
  /** The recording notice has played: record the call from now on (POST .../Calls/{Sid}/Recordings.json). */
  | { type: 'start-recording' }
  /** Status=canceled: a queued or ringing call the lead may no longer get (late-ring.ts). */
  | LateRingAction

export interface StepContext {
  callId: string
  plan: CallPlan
  publicUrl: string
  now: number
  events: CallEvents
  /** power/predictive: the seats a lead's answer claims and its leaving releases (absent: none waits). */
  seats?: SeatPort
  /** The call's organization: an AI seat's stream token names it. */
  orgId?: string
  /** Signs the AI seat's stream tokens (absent: a seat cannot be served; the call is taken back). */
  streamKey?: Uint8Array
  /** The carrier's name in notes (absent: Twilio). */
  label?: string
  /** Its recordings' ids (absent: Twilio's RE…). */
  recordingSid?: RegExp
}

export interface StepResult {
  state: CarrierState
  twiml: string | null
  actions: RestAction[]
}
