import { logger } from '../../log'
import type { CarrierMetrics } from '../ports'
import type { CarrierState } from './call-plan'

/**
 * What the Twilio carrier tells operators about its callbacks: /metrics counters (calls by final
 * status, callbacks by step, refusals, time to answer) and the log line of a refused one.
 */

export type RefusalReason = 'unknown_call' | 'signature' | 'account'

/** A URL as logged: user:password@ in it, if any, left out. */
export const withoutUserInfo = (url: string): string => url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@?#]*@/i, '$1').slice(0, 500)

/**
 * A refused callback (403), logged with the URL its signature was checked against
 * (DIALER_PUBLIC_URL plus the path: what Twilio must have signed), never the signature or a token.
 */
export function refuseCallback(metrics: CarrierMetrics | undefined, input: { callId: string; step: string; url: string }, reason: RefusalReason): { status: 403; twiml: null } {
  metrics?.refused(reason)
  logger.warn('twilio_callback_refused', { call_id: input.callId.slice(0, 64), step: input.step, reason, url: withoutUserInfo(input.url) })
  return { status: 403, twiml: null }
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
