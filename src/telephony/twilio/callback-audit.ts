import { logger } from '../../log'
import type { CarrierMetrics } from '../ports'
import type { CarrierState } from './call-plan'
import { formParams, validateTwilioRequest } from './signature'

/**
 * What the Twilio carrier tells operators about its callbacks: /metrics counters (calls by final
 * status, callbacks by step, refusals, time to answer) and the log line of a refused one.
 */

export type RefusalReason = 'unknown_call' | 'signature' | 'account' | 'stale'

/** A URL as logged: user:password@ in it, if any, left out. */
export const withoutUserInfo = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#]*@/i, '$1').slice(0, 500)

/**
 * A refused callback (403), logged with the URL its signature was checked against
 * (DIALER_PUBLIC_URL plus the path: what Twilio must have signed), never the signature or a token.
 */
export function refuseCallback(
  metrics: CarrierMetrics | undefined, input: { callId: string; step: string; url: string }, reason: RefusalReason, carrier = 'twilio',
): { status: 403; twiml: null } {
  metrics?.refused(reason)
  logger.warn(`${carrier}_callback_refused`, { call_id: input.callId.slice(0, 64), step: input.step, reason, url: withoutUserInfo(input.url) })
  return { status: 403, twiml: null }
}

/**
 * A callback's form fields (the first of each name) once its X-Twilio-Signature checks out
 * with the account's token over `url` and its AccountSid, if sent, is the account's; else why not.
 * Every Twilio route (calls, seats' legs, incoming calls) checks through here.
 */
export function verifiedParams(
  account: { accountSid: string; authToken: string }, input: { url: string; body: string; signature: string | null },
): { params: Record<string, string> } | { refused: 'signature' | 'account' } {
  const multi = formParams(input.body)
  if (!validateTwilioRequest(account.authToken, input.signature, input.url, multi)) return { refused: 'signature' }
  const params: Record<string, string> = {}
  for (const [name, value] of Object.entries(multi)) params[name] = Array.isArray(value) ? (value[0] ?? '') : value
  if (params.AccountSid !== undefined && params.AccountSid !== account.accountSid) return { refused: 'account' }
  return { params }
}

/** Counts a call's end at Twilio once: the step (or look-up) that moved it to ended, by Twilio's status. */
export function countEnd(metrics: CarrierMetrics | undefined, before: CarrierState, after: CarrierState, status: string | undefined): void {
  if (before.life.stage !== 'ended' && after.life.stage === 'ended') metrics?.callEnded(status ?? 'completed')
}

/** Runs `work` (one callback) and observes how long it took. */
export function timed<T>(metrics: CarrierMetrics | undefined, work: () => T): T {
  const started = performance.now()
  try {
    return work()
  } finally {
    metrics?.callbackSeconds((performance.now() - started) / 1000)
  }
}
