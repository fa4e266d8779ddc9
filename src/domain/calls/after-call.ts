import type { Outcome } from '../outcomes'

/** Outcomes after which the lead is tried again (DESIGN.md "Retries"). */
const RETRIED: readonly Outcome[] = ['no_answer', 'busy', 'voicemail', 'failed']
/** Outcomes that count toward retiring the number (three in a row). */
const FAILING: readonly Outcome[] = ['failed', 'wrong_number']
export const RETIRE_AFTER = 3

export type NextLeadState =
  | { status: 'scheduled'; dueAt: number; reason: 'retry_after_outcome'; nextDialAt: number }
  | { status: 'callback_scheduled'; callbackAt: number }
  | { status: 'done' }
  | { status: 'out_of_queue' }

export interface AfterCall {
  next: NextLeadState
  /** failed / wrong_number outcomes in a row, this call included. */
  failStreak: number
  retire: boolean
}

/**
 * Where a lead goes once a call's outcome is known: a retry `retry_minutes` after the call
 * ended while attempts remain, the booked callback, out of the queue on dnc, else done. The
 * lead's due time is then the first instant the calling rules allow (lead-calls.ts callEnded).
 * Three failed or wrong_number outcomes in a row retire the number in the campaign.
 */
export function afterCall(input: {
  outcome: Outcome
  attempts: number
  maxAttempts: number
  retryMinutes: number
  endedAt: number
  failStreak: number
  callbackAt: number | null
  /** The carrier failed the call (its limit, an outage): the number is not at fault, so the streak stands. */
  carrierFault?: boolean
}): AfterCall {
  const failStreak = input.carrierFault ? input.failStreak : FAILING.includes(input.outcome) ? input.failStreak + 1 : 0
  const retire = failStreak >= RETIRE_AFTER
  if (input.outcome === 'dnc') return { next: { status: 'out_of_queue' }, failStreak, retire: false }
  if (retire) return { next: { status: 'done' }, failStreak, retire }
  if (input.outcome === 'callback' && input.callbackAt !== null) {
    return { next: { status: 'callback_scheduled', callbackAt: input.callbackAt }, failStreak, retire }
  }
  if (RETRIED.includes(input.outcome) && input.attempts < input.maxAttempts) {
    const at = input.endedAt + input.retryMinutes * 60_000
    return { next: { status: 'scheduled', dueAt: at, reason: 'retry_after_outcome', nextDialAt: at }, failStreak, retire }
  }
  return { next: { status: 'done' }, failStreak, retire }
}
