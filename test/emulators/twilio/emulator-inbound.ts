import type { CallEngine } from './emulator-calls'
import type { Script } from './emulator-scenarios'
import type { EmulatedCall } from './emulator-types'

/**
 * A call coming in to one of the account's numbers (twilio.com/docs/usage/webhooks/voice-webhooks):
 * Twilio posts the incoming-call webhook to the number's voice URL (signed; CallSid, AccountSid,
 * From, To, CallStatus `ringing`, ApiVersion, Direction `inbound`, Caller, Called, and the
 * geographic FromCountry/ToCountry), answers, and runs the TwiML it gets back. The caller is
 * played from the scenario table by the last two digits of From (a lead: they hang up after the
 * scenario's talk time) unless the test scripts the number (Script.role, hangUpAfter, press).
 */

export interface CallInOptions {
  from: string
  /** One of the account's numbers. */
  to: string
  /** The number's voice URL (the webhook). */
  url: string
  /** The account (default: the emulator's first). */
  accountSid?: string
  /** The number's status callback (completed only unless `events` says more). */
  statusCallback?: string
  events?: string[]
}

const country = (phone: string) => (phone.startsWith('+1') ? 'US' : '')

export async function callIn(engine: CallEngine, account: { sid: string; authToken: string }, script: Script, options: CallInOptions, keep: (call: EmulatedCall) => void): Promise<EmulatedCall> {
  const call = engine.newCall({
    accountSid: account.sid, authToken: account.authToken, to: options.to, from: options.from, url: options.url, twiml: null,
    statusCallback: options.statusCallback ?? null, events: new Set(options.events ?? ['completed']), amd: null, amdCallback: null,
    record: false, recordingCallback: null, recordingEvents: new Set(), script, timeout: 60, direction: 'inbound',
  })
  keep(call)
  // Who calls in talks for as long as the scenario's call lasts after its answer.
  const plan = call.plan
  if (call.script.hangUpAfter === undefined && Number.isFinite(plan.endAt)) call.script = { ...call.script, hangUpAfter: plan.endAt - (plan.answerAt ?? 0) }
  call.status = 'ringing'
  const doc = await engine.fetchTwiml(call, 'incoming', options.url, { FromCountry: country(options.from), ToCountry: country(options.to) })
  if (doc === null || call.endedAt !== null) return call
  await engine.answered(call, call.script.answeredBy ?? plan.answeredBy ?? 'human')
  void engine.run(call, doc, call.gen)
  return call
}
