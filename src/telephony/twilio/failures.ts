import type { CallReport } from '../carrier'
import type { TwilioFailure } from './rest-client'

/** A call Twilio never placed (or lost) ends failed, with a note the call's page shows. */
export function failedReport(note: string, fault: CallReport['carrierFault']): CallReport {
  return { outcome: 'failed', note, voicemailDelivered: false, callbackAt: null, optOut: false, durationSeconds: 0, transcript: [], recorded: false, carrierFault: fault }
}

/** What a failed REST request to Twilio tells the call's note. */
export function noteOf(failure: TwilioFailure, label = 'Twilio'): string {
  const code = failure.code !== null ? ` (error ${failure.code})` : failure.status !== null ? ` (HTTP ${failure.status})` : ''
  const what = failure.kind === 'throttled' ? `${label} is at its limit of calls (429); the lead is tried again later`
    : failure.kind === 'rejected' ? `${label} refused the call` : `${label} could not be reached`
  return `${what}${code}: ${failure.message}`.slice(0, 500)
}
