/**
 * How the emulated model behaves in a session: a list of turns, one per response it makes (the
 * client's `response.create`, or the automatic one after the lead stops speaking under server VAD),
 * and what the lead is heard to say. A session's script is chosen by a `[script:<name>]` marker in
 * the instructions of its first `session.update`, else by the model name (`?model=`), else
 * `default`; tests may add or replace scripts with `RealtimeEmulator.start({ scripts })`.
 */

/** Usage figures for one response.done, as the GA reference names them (RealtimeResponseUsage). */
export interface ScriptUsage {
  input_text_tokens: number
  input_audio_tokens: number
  input_cached_tokens: number
  output_text_tokens: number
  output_audio_tokens: number
}

export interface FunctionCallScript {
  name: string
  /** An object (sent as JSON) or a raw string (sent as is: for bad-argument tests). */
  arguments: Record<string, unknown> | string | (() => Record<string, unknown> | string)
}

export interface Turn {
  /** Spoken (audio deltas + transcript); no audio when absent. */
  say?: string
  /** Audio length; default 15 characters a second, at least 1 s (as the Twilio emulator times <Say>). */
  audioMs?: number
  /** A function call after what is said (a second output item). Several: one item each. */
  calls?: FunctionCallScript[]
  /** The response ends `failed` with a rate-limit error in status_details (nothing is said). */
  fail?: 'rate_limit'
  /** An `error` event of type server_error instead of a response (the socket stays open). */
  serverError?: boolean
  /** The server closes the socket instead of responding (code 1011). */
  close?: boolean
  /** Replaces the computed usage figures. */
  usage?: Partial<ScriptUsage>
}

export interface RealtimeScript {
  turns: Turn[]
  /** The lead's input transcriptions, one per speech segment the VAD finds; default "(the lead speaks N)". */
  leadSays?: string[]
  /** After the turns run out: respond with nothing said (default), or close the socket. */
  afterTurns?: 'silence' | 'close'
}

const DAY_MS = 24 * 3600 * 1000
const GREETING = 'Hi, this is Ava calling from Acme Solar. Is now a good time for a quick question?'

/** The built-in scripts. */
export const BUILT_IN_SCRIPTS: Record<string, RealtimeScript> = {
  default: { turns: [{ say: GREETING }] },
  interested: {
    leadSays: ['Yes, I would love to hear about solar panels for my house.'],
    turns: [
      { say: GREETING },
      { calls: [{ name: 'mark_interested', arguments: { excerpt: 'Yes, I would love to hear about solar panels', confidence: 0.92, summary: 'Homeowner, wants a quote for rooftop solar.' } }] },
      { say: 'Wonderful, let me connect you with a specialist now.' },
    ],
  },
  callback: {
    leadSays: ['I am busy right now, call me tomorrow.'],
    turns: [
      { say: GREETING },
      { calls: [{ name: 'book_callback', arguments: () => ({ at: new Date(Date.now() + DAY_MS).toISOString() }) }] },
      { say: 'No problem, I will call you back tomorrow. Goodbye.' },
    ],
  },
  opt_out: {
    leadSays: ['Take me off your list.'],
    turns: [
      { say: GREETING },
      { calls: [{ name: 'opt_out', arguments: {} }] },
      { say: 'Understood, you will not be called again. Goodbye.' },
    ],
  },
  not_interested: {
    leadSays: ['No thanks, not interested.'],
    turns: [
      { say: GREETING },
      { calls: [{ name: 'end_call', arguments: { outcome: 'not_interested', note: 'Lead declined politely.' } }] },
      { say: 'Thanks for your time. Goodbye.' },
    ],
  },
  /** A long first turn for barge-in: the lead's speech interrupts it. */
  long_talk: {
    leadSays: ['Sorry, can I stop you there?'],
    turns: [
      { say: `${GREETING} We are offering free home assessments this month, and most homeowners in your area save a good part of their electricity bill once the panels are up, with no money down and nothing to pay until the system is running.`, audioMs: 12_000 },
      { say: 'Of course, go ahead.' },
    ],
  },
  /** The second response fails as a rate limit would. */
  rate_limit: { turns: [{ say: GREETING }, { fail: 'rate_limit' }] },
  /** After the greeting, the lead's turn gets a server_error event. */
  server_error: { turns: [{ say: GREETING }, { serverError: true }] },
  /** After the greeting, the lead's turn closes the session. */
  session_closed: { turns: [{ say: GREETING }, { close: true }] },
  /** A model that keeps calling functions (the client caps them). */
  flood: {
    turns: [{ say: GREETING }, ...Array.from({ length: 30 }, () => ({ calls: [{ name: 'end_call', arguments: 'not json' }] }))],
  },
}

/** `[script:name]` in the instructions, else the model name, else `default`. */
export function scriptNameFor(instructions: string | undefined, model: string, scripts: Record<string, RealtimeScript>): string {
  const marker = /\[script:([a-z0-9_-]+)\]/i.exec(instructions ?? '')
  if (marker && scripts[marker[1]!]) return marker[1]!
  if (scripts[model]) return model
  return 'default'
}
