import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { leadLinesAllowed, predictiveExtra, PREDICTIVE_MAX_RATIO, type PacingInput } from '../../src/domain/calls/pacing'

setDefaultTimeout(60_000)

// The pacing controller (src/domain/calls/pacing.ts): lead lines allowed per dial mode, and the
// predictive ratio that falls as the 30-day abandonment rate nears the campaign's bound.

const input = (over: Partial<PacingInput>): PacingInput => ({
  mode: 'predictive', lines: 100, waitingSeats: 4, leadLinesUp: 0, window: { answered: 10_000, abandoned: 0 }, maxAbandonRate: 0.03, ...over,
})

describe('leadLinesAllowed', () => {
  const rows: [string, Partial<PacingInput>, number][] = [
    ['bridge: the campaign lines, seats or not', { mode: 'bridge', lines: 5, waitingSeats: 0 }, 5],
    ['power: one line per waiting seat', { mode: 'power', lines: 10, waitingSeats: 3 }, 3],
    ['power: never more than lines', { mode: 'power', lines: 2, waitingSeats: 6 }, 2],
    ['power: no seat waiting, no line', { mode: 'power', waitingSeats: 0 }, 0],
    ['predictive: no seat waiting, no line', { waitingSeats: 0 }, 0],
    ['predictive: no abandonment, a long history: the full ratio', { waitingSeats: 4 }, 4 * PREDICTIVE_MAX_RATIO],
    ['predictive: never more than lines', { waitingSeats: 4, lines: 6 }, 6],
    ['predictive: no history yet: one line per seat', { window: { answered: 0, abandoned: 0 } }, 4],
  ]
  for (const [name, over, expected] of rows) test(name, () => expect(leadLinesAllowed(input(over))).toBe(expected))
})

describe('predictiveExtra', () => {
  // 10,000 answered at 3 %: room for 300 abandoned calls.
  const rows: [string, PacingInput['window'], number, number][] = [
    ['rate 0: seats x (ratio - 1)', { answered: 10_000, abandoned: 0 }, 0.03, 8],
    ['rate at half the bound: half the extra', { answered: 10_000, abandoned: 150 }, 0.03, 4],
    ['rate at three quarters: a quarter', { answered: 10_000, abandoned: 225 }, 0.03, 2],
    ['rate at the bound: none (one line per seat)', { answered: 10_000, abandoned: 300 }, 0.03, 0],
    ['rate past the bound: none', { answered: 10_000, abandoned: 400 }, 0.03, 0],
    ['a lower bound counts against its own rate', { answered: 10_000, abandoned: 100 }, 0.01, 0],
    ['a lower bound with room', { answered: 10_000, abandoned: 25 }, 0.01, 6],
    // 3 % of 300 is 9 abandonments: 4 seats take 4 of them as worst case, 5 lines may be extra; no more than the ratio allows (8).
    ['the budget in calls limits it: 300 answered, none abandoned', { answered: 300, abandoned: 0 }, 0.03, 5],
    ['budget 9, 2 abandoned: 7 - 4 seats = 3 extra (the ratio allows 6)', { answered: 300, abandoned: 2 }, 0.03, 3],
    ['budget exactly the seats: none', { answered: 300, abandoned: 5 }, 0.03, 0],
    ['a budget below the seats: none, never negative', { answered: 100, abandoned: 0 }, 0.03, 0],
    // 0.0096 * 625 is 5.999999999999999 in floating point: six whole calls of budget, 4 for the seats, 2 extra.
    ['a budget a rounding error below a whole call counts it', { answered: 625, abandoned: 0 }, 0.0096, 2],
  ]
  for (const [name, window, rate, expected] of rows) {
    test(name, () => expect(predictiveExtra(input({ window, maxAbandonRate: rate }))).toBe(expected))
  }

  test('every line without a seat, as abandoned, keeps the window at or under its bound', () => {
    for (let answered = 0; answered <= 2_000; answered += 7) {
      for (const abandoned of [0, 1, 5, 20, 60]) {
        for (const waitingSeats of [1, 2, 5, 13]) {
          for (const rate of [0.03, 0.02, 0.005]) {
            const window = { answered, abandoned }
            const allowed = leadLinesAllowed(input({ waitingSeats, window, maxAbandonRate: rate }))
            expect(allowed).toBeGreaterThanOrEqual(waitingSeats)
            // Lines beyond the seats are only given while every unseated line could be abandoned within the bound.
            if (allowed > waitingSeats) expect(abandoned + allowed).toBeLessThanOrEqual(rate * answered + 1e-9)
          }
        }
      }
    }
  })

  test('the ratio never rises as the rate nears the bound', () => {
    let last = Infinity
    for (let abandoned = 0; abandoned <= 320; abandoned++) {
      const extra = predictiveExtra(input({ window: { answered: 10_000, abandoned } }))
      expect(extra).toBeLessThanOrEqual(last)
      last = extra
    }
    expect(last).toBe(0)
  })
})
