import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { afterCall, RETIRE_AFTER } from '../../src/domain/calls/after-call'
import { OUTCOMES, type Outcome } from '../../src/domain/outcomes'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Where a lead goes once a call's outcome is known (DESIGN.md "Retries": after no_answer,
 * busy, voicemail, failed the lead is scheduled `retry_minutes` later until `max_attempts`,
 * then done; three failed/wrong_number outcomes in a row retire the number; spec "Lead
 * status": a callback books callback_scheduled, dnc takes the lead out of the queue).
 */

const ENDED = Date.UTC(2026, 0, 5, 15, 1, 30)
const MINUTE = 60_000
const CALLBACK_AT = Date.UTC(2026, 0, 6, 15, 0, 0)

const base = {
  attempts: 1,
  maxAttempts: 3,
  retryMinutes: 60,
  endedAt: ENDED,
  failStreak: 0,
  callbackAt: null as number | null,
}

const RETRIED: Outcome[] = ['no_answer', 'busy', 'voicemail', 'failed']
const FINAL: Outcome[] = ['interested', 'not_interested', 'wrong_number', 'hung_up', 'screened', 'language_barrier', 'not_qualified', 'undetermined', 'other']

describe('afterCall: outcomes x attempts (max_attempts 3, retry_minutes 60)', () => {
  test('the outcome lists cover every outcome word', () => {
    expect([...RETRIED, ...FINAL, 'callback', 'dnc'].sort()).toEqual([...OUTCOMES].sort())
  })

  const retryRows: [Outcome, number][] = RETRIED.flatMap((o) => [1, 2].map((a): [Outcome, number] => [o, a]))
  test.each(retryRows)('%s after attempt %i: scheduled retry_after_outcome 60 minutes after the call ended', (outcome, attempts) => {
    const result = afterCall({ ...base, outcome, attempts })
    const at = ENDED + 60 * MINUTE
    expect(result.next).toEqual({ status: 'scheduled', dueAt: at, reason: 'retry_after_outcome', nextDialAt: at })
    expect(result.retire).toBe(false)
  })

  const lastRows: [Outcome, number][] = RETRIED.flatMap((o) => [3, 4].map((a): [Outcome, number] => [o, a]))
  test.each(lastRows)('%s after attempt %i (max reached): done', (outcome, attempts) => {
    expect(afterCall({ ...base, outcome, attempts }).next).toEqual({ status: 'done' })
  })

  const finalRows: [Outcome, number][] = FINAL.flatMap((o) => [1, 2, 3].map((a): [Outcome, number] => [o, a]))
  test.each(finalRows)('%s after attempt %i: done, never retried', (outcome, attempts) => {
    expect(afterCall({ ...base, outcome, attempts }).next).toEqual({ status: 'done' })
  })

  test.each([1, 2, 3, 5])('callback with a booked time after attempt %i: callback_scheduled at that time', (attempts) => {
    const result = afterCall({ ...base, outcome: 'callback', attempts, callbackAt: CALLBACK_AT })
    expect(result.next).toEqual({ status: 'callback_scheduled', callbackAt: CALLBACK_AT })
    expect(result.retire).toBe(false)
  })

  test('callback with no booked time: done', () => {
    expect(afterCall({ ...base, outcome: 'callback', callbackAt: null }).next).toEqual({ status: 'done' })
  })

  test.each([1, 2, 3])('dnc after attempt %i: out_of_queue', (attempts) => {
    expect(afterCall({ ...base, outcome: 'dnc', attempts })).toEqual({ next: { status: 'out_of_queue' }, failStreak: 0, retire: false })
  })

  test('a booked callback time is ignored for other outcomes', () => {
    expect(afterCall({ ...base, outcome: 'interested', callbackAt: CALLBACK_AT }).next).toEqual({ status: 'done' })
    expect(afterCall({ ...base, outcome: 'no_answer', callbackAt: CALLBACK_AT }).next.status).toBe('scheduled')
  })

  test('retry_minutes and max_attempts come from the input', () => {
    const result = afterCall({ ...base, outcome: 'busy', attempts: 4, maxAttempts: 5, retryMinutes: 15 })
    expect(result.next).toEqual({ status: 'scheduled', dueAt: ENDED + 15 * MINUTE, reason: 'retry_after_outcome', nextDialAt: ENDED + 15 * MINUTE })
    expect(afterCall({ ...base, outcome: 'busy', attempts: 1, maxAttempts: 1 }).next).toEqual({ status: 'done' })
  })
})

describe('afterCall: fail streak and retiring the number', () => {
  test('three in a row', () => {
    expect(RETIRE_AFTER).toBe(3)
  })

  test.each([
    ['failed', 0, 1, false],
    ['failed', 1, 2, false],
    ['failed', 2, 3, true],
    ['wrong_number', 0, 1, false],
    ['wrong_number', 1, 2, false],
    ['wrong_number', 2, 3, true],
    ['failed', 5, 6, true],
  ] as [Outcome, number, number, boolean][])('%s with %i before: streak %i, retire %p', (outcome, before, after, retire) => {
    const result = afterCall({ ...base, outcome, failStreak: before, attempts: 1, maxAttempts: 10 })
    expect(result.failStreak).toBe(after)
    expect(result.retire).toBe(retire)
  })

  test.each([...RETRIED.filter((o) => o !== 'failed'), ...FINAL.filter((o) => o !== 'wrong_number'), 'callback', 'dnc'] as Outcome[])(
    '%s breaks the streak',
    (outcome) => {
      const result = afterCall({ ...base, outcome, failStreak: 2, callbackAt: outcome === 'callback' ? CALLBACK_AT : null })
      expect(result.failStreak).toBe(0)
      expect(result.retire).toBe(false)
    },
  )

  test('a retired number ends the lead even with attempts left', () => {
    const result = afterCall({ ...base, outcome: 'failed', attempts: 3, maxAttempts: 10, failStreak: 2 })
    expect(result).toEqual({ next: { status: 'done' }, failStreak: 3, retire: true })
  })

  test('failed below the streak limit is still retried', () => {
    const result = afterCall({ ...base, outcome: 'failed', attempts: 2, maxAttempts: 10, failStreak: 1 })
    expect(result.next).toEqual({ status: 'scheduled', dueAt: ENDED + 60 * MINUTE, reason: 'retry_after_outcome', nextDialAt: ENDED + 60 * MINUTE })
    expect(result).toMatchObject({ failStreak: 2, retire: false })
  })

  test('mixed failed and wrong_number count together', () => {
    let streak = 0
    const seen: boolean[] = []
    for (const outcome of ['failed', 'wrong_number', 'failed'] as Outcome[]) {
      const result = afterCall({ ...base, outcome, failStreak: streak, maxAttempts: 10 })
      streak = result.failStreak
      seen.push(result.retire)
    }
    expect(seen).toEqual([false, false, true])
    expect(streak).toBe(3)
  })
})
