import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Dialer } from '../../src/domain/calls/dialer'
import { ANSWER_LOOKAHEAD_MS, WINDOW_MS } from '../../src/domain/calls/pacing'
import { FakeClock } from '../../src/jobs/clock'
import { FakeScheduler } from '../../src/jobs/scheduler'

setDefaultTimeout(60_000)

// The dialer's use of pacing (src/domain/calls/dialer.ts): live lines of a power or predictive
// campaign on a carrier where people sit are paced by its waiting seats and 30-day ledger;
// test-mode lines, bridge campaigns, campaigns with an AI seat and organizations the AI answers
// for dial up to `lines`.

const START = Date.UTC(2026, 2, 2, 15)

function world(options: { mode: 'bridge' | 'power' | 'predictive'; lines?: number; waiting?: number; onCall?: number; seated?: boolean; window?: { answered: number; abandoned: number }; aiAgent?: boolean }) {
  const clock = new FakeClock(START)
  const campaign = { id: 'camp', orgId: 'org', status: 'active', lines: options.lines ?? 10, sdrs: [{ id: 'sdr-1', name: 'Alex' }], dialMode: options.mode, maxAbandonRate: 0.03,
    aiAgent: options.aiAgent ? { kind: 'stream', url: 'wss://agent.example.com/stream', parameters: {}, first_audio_ms: 2000, disclosure: { say: 'An AI assistant.' } } : null }
  const seats = { waiting: options.waiting ?? 0, onCall: options.onCall ?? 0 }
  const asked: { since: number }[] = []
  let nextLead = 0
  const dials: boolean[] = []
  const dialer = new Dialer({
    stores: {
      campaigns: { get: () => campaign },
      leads: { get: (id: string) => ({ id, status: 'queued', queueKey: 1 }) },
      ledger: {
        counts: (_: string, since: number) => {
          asked.push({ since })
          // Answered calls only in the part of the window every answer of a line dialed now still sees.
          const window = options.window ?? { answered: 0, abandoned: 0 }
          return since === START - WINDOW_MS + ANSWER_LOOKAHEAD_MS ? { answered: window.answered, abandoned: 0 } : { answered: 0, abandoned: window.abandoned }
        },
      },
    } as never,
    queues: { take: (_: string, livemode: boolean) => ({ id: `${livemode ? 'live' : 'test'}-${++nextLead}`, key: 1 }), nonEmpty: () => [] } as never,
    leads: { atDial: () => true } as never,
    calls: { start: (lead: { id: string }) => void dials.push(lead.id.startsWith('live')) } as never,
    handleTimes: { forget: () => {} } as never,
    clock,
    scheduler: new FakeScheduler(clock),
    seats: { waiting: () => seats.waiting, onCall: () => seats.onCall },
    seatedCarrier: () => options.seated ?? true,
  }, true)
  const live = () => dials.filter(Boolean).length
  return { dialer, seats, dials, live, asked }
}

describe('Dialer pacing', () => {
  const rows: [string, Parameters<typeof world>[0], number][] = [
    ['bridge: every line, no seat needed', { mode: 'bridge', lines: 4 }, 4],
    ['power, no seat waiting: nothing', { mode: 'power' }, 0],
    ['power: one line per waiting seat', { mode: 'power', waiting: 3 }, 3],
    ['power: never past lines', { mode: 'power', waiting: 3, lines: 2 }, 2],
    // Two seats on a call: of 10 lines, 2 are theirs; the lead lines without a seat go up to the 3 waiting.
    ['power: seats on a call hold lines of their own', { mode: 'power', waiting: 3, onCall: 2 }, 3],
    ['predictive without history: as power', { mode: 'predictive', waiting: 2 }, 2],
    ['predictive with room: more lines than seats', { mode: 'predictive', waiting: 2, lines: 50, window: { answered: 10_000, abandoned: 0 } }, 6],
    ['predictive at the bound: one line per seat', { mode: 'predictive', waiting: 2, window: { answered: 10_000, abandoned: 300 } }, 2],
    ['power on an organization the AI answers for (the simulator): every line', { mode: 'power', lines: 4, seated: false }, 4],
    // The agent answers every person at once: nobody waits for a seat, so its lines are the bridge's.
    ['power with an AI seat, no seat waiting: every line', { mode: 'power', lines: 4, aiAgent: true }, 4],
    ['predictive with an AI seat, at the bound: every line', { mode: 'predictive', lines: 5, waiting: 1, aiAgent: true, window: { answered: 10_000, abandoned: 300 } }, 5],
  ]
  for (const [name, options, expected] of rows) {
    test(name, () => {
      const w = world(options)
      w.dialer.pump('camp', true)
      expect(w.live()).toBe(expected)
    })
  }

  test('test-mode lines of a power campaign dial as today (the simulator answers them)', () => {
    const w = world({ mode: 'power', lines: 3 })
    w.dialer.pump('camp', false)
    expect(w.dials).toEqual([false, false, false])
  })

  test('a seat that starts waiting lets one more lead be dialed; a line freed without a seat waiting dials none', () => {
    const w = world({ mode: 'power', waiting: 1 })
    w.dialer.pump('camp', true)
    expect(w.live()).toBe(1)
    // The lead answered and took the seat: it is on a call, none waits.
    w.seats.waiting = 0
    w.seats.onCall = 1
    w.dialer.pump('camp', true)
    expect(w.live()).toBe(1)
    w.seats.waiting = 1
    w.dialer.pump('camp', true)
    expect(w.live()).toBe(2)
    // The first call ends and its seat waits again: one more line.
    w.seats.onCall = 0
    w.seats.waiting = 2
    w.dialer.lineFree('camp', true)
    expect(w.live()).toBe(3)
  })

  test('predictive reads abandoned calls over 30 days and answered ones over the part later answers still see', () => {
    const w = world({ mode: 'predictive', waiting: 1, window: { answered: 10_000, abandoned: 0 } })
    w.dialer.pump('camp', true)
    expect(w.asked.map((a) => a.since).sort()).toEqual([START - WINDOW_MS, START - WINDOW_MS + ANSWER_LOOKAHEAD_MS])
    const power = world({ mode: 'power', waiting: 1 })
    power.dialer.pump('camp', true)
    expect(power.asked).toEqual([])
  })

  test('an AI-seated predictive campaign reads neither seats nor the ledger; a line freed dials the next lead', () => {
    const w = world({ mode: 'predictive', lines: 2, aiAgent: true, window: { answered: 10_000, abandoned: 0 } })
    w.dialer.pump('camp', true)
    expect(w.live()).toBe(2)
    expect(w.asked).toEqual([])
    w.dialer.lineFree('camp', true)
    expect(w.live()).toBe(3)
  })
})
