/** The emulator's call scenarios, by the last two digits of To (mirrors the simulator's table). */

/** Every AnsweredBy Twilio's AMD sends (twilio.com/docs/voice/answering-machine-detection). */
export const ANSWERED_BY = ['human', 'unknown', 'machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other', 'fax'] as const
export type AnsweredBy = (typeof ANSWERED_BY)[number]

/** What a test may change for calls to one number, besides its scenario. */
export interface Script {
  answeredBy?: AnsweredBy
  /** The recording callback's RecordingStatus (absent and failed are sent only to calls that subscribed to absent). */
  recording?: 'completed' | 'absent' | 'failed'
  /**
   * Who answers this number: a lead (the scenario table, the default) or one of the
   * organization's people (a seat or a supervisor: personPlan). Unset, a call whose Url is a
   * seat's callback (a path with /seats/) is a person's.
   */
  role?: 'lead' | 'person'
  /** The key this phone presses at a one-digit <Gather> on its own leg (a lead presses none unless told, e.g. '9'; people by keyFor). */
  press?: string | null
  /** The party hangs up this many emulated seconds after the answer (instead of the plan's time). */
  hangUpAfter?: number
  /** Keys the lead presses during a <Connect><Stream>: [emulated seconds after the stream's start, digit] (instead of the plan's). */
  streamDigits?: [number, string][]
}

export interface Plan {
  answerAt?: number
  answeredBy?: AnsweredBy
  /** When the lead (or machine) hangs up, or when the unanswered call ends. */
  endAt: number
  terminal?: 'no-answer' | 'busy' | 'failed'
  lines: [number, string][]
  /** Keys pressed during a <Connect><Stream> (sent as `dtmf` messages): [emulated seconds after the stream's start, digit]. */
  streamDigits?: [number, string][]
}

const INTENT = 'Yes, that sounds good. Can someone walk me through the pricing?'
const person = (endAt: number, text: string, answeredBy: Plan['answeredBy'] = 'human'): Plan => ({ answerAt: 5, answeredBy, endAt, lines: [[10, text]] })

/** Mirrors the simulator's table (src/telephony/simulator/simulated-carrier.ts); whether an SDR takes the call is up to the SDR's own number. */
export const PLANS: Record<string, Plan> = {
  '00': { answerAt: 6, answeredBy: 'human', endAt: 95, lines: [[25, INTENT]] },
  '01': person(45, 'No thanks, I am not interested.'),
  '02': { endAt: 30, terminal: 'no-answer', lines: [] },
  '03': { endAt: 2, terminal: 'busy', lines: [] },
  // A machine records until the drop hangs up; the beep (end of greeting) comes 5 s after it answers.
  '04': { answerAt: 8, answeredBy: 'machine_end_beep', endAt: 120, lines: [] },
  '05': { endAt: 1, terminal: 'failed', lines: [] },
  '06': person(50, 'Not now, can you call me back tomorrow at 10?'),
  // Asks to stop; on a stream it also presses 9 two seconds in (the opt-out key).
  '07': { ...person(20, 'Stop calling me. Take me off your list.'), streamDigits: [[2, '9']] },
  '08': person(30, 'You have the wrong number.'),
  '09': person(12, '(hangs up)'),
  '10': person(20, 'Who is calling and why?', 'unknown'),
  '11': person(30, 'No hablo inglés.'),
  '12': person(30, 'I rent, I do not own the house.'),
  '13': person(30, 'Hmm, maybe, I am not sure.'),
  '14': { answerAt: 5, answeredBy: 'human', endAt: 50, lines: [[20, INTENT]] },
  '15': { answerAt: 5, answeredBy: 'human', endAt: 88, lines: [[20, INTENT]] },
}

/**
 * A person's phone answering a call the service placed (a seat's leg, a supervisor's phone), by
 * its last two digits as SDR legs are: 02 no answer, 03 busy, 05 failed, 14 a voicemail box
 * (AMD says machine_end_beep), anything else a person who answers after 2 s and stays on the line
 * until the call is ended.
 */
export function personPlan(phone: string): Plan {
  const digits = phone.slice(-2)
  if (digits === '02') return { endAt: 30, terminal: 'no-answer', lines: [] }
  if (digits === '03') return { endAt: 1, terminal: 'busy', lines: [] }
  if (digits === '05') return { endAt: 1, terminal: 'failed', lines: [] }
  return { answerAt: 2, answeredBy: digits === '14' ? 'machine_end_beep' : 'human', endAt: Number.POSITIVE_INFINITY, lines: [] }
}

/** How long AMD takes to decide, by result (DetectMessageEnd waits for the beep on a machine). */
export const DETECTION: Record<string, number> = { human: 2, unknown: 4, machine_start: 3, machine_end_beep: 5, machine_end_silence: 6, machine_end_other: 5, fax: 3 }
