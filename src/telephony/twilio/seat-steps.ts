import type { SeatLegRecord } from '../ports'
import { hangup, pressOne, seatConference } from './twiml'

/**
 * A seat's own leg on Twilio (docs/telephony.md "Seats"): the person's phone is called, hears the
 * campaign's name inside a one-digit `<Gather>` (twilio.com/docs/voice/twiml/gather); 1 puts them
 * in their room `seat-<id>` (waiting), anything else or nothing hangs up (not_accepted). The
 * call's status callback ends the seat when the leg is over; the room's start gives its SID.
 */
export const SEAT_PREFIX = '/twilio/seats/'
export const SEAT_STEPS = ['answer', 'sit', 'status', 'conference'] as const
export type SeatStep = (typeof SEAT_STEPS)[number]

/** Seconds a seat's phone rings before Twilio gives up (no_answer). */
export const SEAT_RING_SECONDS = 30
/** Seconds after the prompt to press 1. */
export const SIT_SECONDS = 8

export const seatUrl = (publicUrl: string, seatId: string, step: SeatStep): string => `${publicUrl}${SEAT_PREFIX}${seatId}/${step}`

/** What the carrier keeps of a seat's leg (the seat row's carrier_state). */
export interface SeatLegState {
  /** The person's phone answered (the prompt was fetched, or Twilio said in-progress). */
  answered?: boolean
}

export type SeatMove = { kind: 'sat' } | { kind: 'ended'; reason: 'hung_up' | 'no_answer' | 'not_accepted' | 'failed' }

export interface SeatStepResult {
  twiml: string | null
  state: SeatLegState
  conferenceSid?: string
  move: SeatMove | null
}

const CONFERENCE_SID = /^CF[0-9a-fA-F]{32}$/
const OVER = new Set(['completed', 'busy', 'no-answer', 'failed', 'canceled'])

export const sitPrompt = (campaignName: string): string =>
  `This is the dialer for ${campaignName || 'your campaign'}. Press 1 to take your seat and wait for leads.`

/** One callback of a seat's leg, already checked (signature, account, CallSid): the reply and what changes. */
export function runSeatStep(publicUrl: string, leg: SeatLegRecord, step: SeatStep, params: Record<string, string>, conferenceSid = CONFERENCE_SID): SeatStepResult {
  const state = (leg.carrierState ?? {}) as SeatLegState
  const room = () => seatConference(`seat-${leg.seatId}`, seatUrl(publicUrl, leg.seatId, 'conference'))
  const same = (twiml: string | null): SeatStepResult => ({ twiml, state, move: null })
  switch (step) {
    case 'answer':
      if (leg.state === 'ended') return same(hangup())
      // A seat already sitting (a repeated request) goes back to its room.
      if (leg.state !== 'calling') return same(room())
      return { twiml: pressOne(sitPrompt(leg.campaignName), seatUrl(publicUrl, leg.seatId, 'sit'), SIT_SECONDS), state: { ...state, answered: true }, move: null }
    case 'sit': {
      if (leg.state === 'ended') return same(hangup())
      // The same keypress again: the same room, nothing changes.
      if (leg.state !== 'calling') return same(params.Digits === '1' ? room() : hangup())
      if (params.Digits === '1') return { twiml: room(), state, move: { kind: 'sat' } }
      return { twiml: hangup(), state, move: { kind: 'ended', reason: 'not_accepted' } }
    }
    case 'status': {
      const status = params.CallStatus ?? ''
      const answered = state.answered === true || status === 'in-progress'
      const next = answered === (state.answered === true) ? state : { ...state, answered }
      if (!OVER.has(status) || leg.state === 'ended') return { twiml: null, state: next, move: null }
      const reason = status === 'failed' ? 'failed'
        : status !== 'completed' ? 'no_answer'
          : leg.state !== 'calling' ? 'hung_up'
            : answered ? 'not_accepted' : 'no_answer'
      return { twiml: null, state: next, move: { kind: 'ended', reason } }
    }
    case 'conference': {
      const sid = params.ConferenceSid ?? ''
      const ours = params.FriendlyName === undefined || params.FriendlyName === `seat-${leg.seatId}`
      if (params.StatusCallbackEvent === 'conference-start' && conferenceSid.test(sid) && ours) return { twiml: null, state, conferenceSid: sid, move: null }
      return same(null)
    }
  }
}
