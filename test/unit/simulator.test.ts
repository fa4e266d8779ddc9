import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { FakeClock } from '../../src/jobs/clock'
import { FakeScheduler } from '../../src/jobs/scheduler'
import type { AnsweredBy, CallEvents, CallReport, DialRequest } from '../../src/telephony/carrier'
import { scenarioFor, SimulatedCarrier } from '../../src/telephony/simulator/simulated-carrier'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * The built-in carrier (DESIGN.md "Telephony"): the scenario comes from the last two digits of
 * the number (others: a fixed pick seeded by the call id), each call plays a script on the
 * service clock with its times divided by DIALER_SIM_SPEED.
 */

const START = Date.UTC(2026, 0, 5, 15, 0, 0)
const S = 1000

type Seen =
  | { at: number; kind: 'answered'; id: string; by: AnsweredBy }
  | { at: number; kind: 'intent'; id: string; excerpt: string; confidence: number }
  | { at: number; kind: 'handover'; id: string }
  | { at: number; kind: 'ended'; id: string; report: CallReport }

/** What the simulator ignores: a real carrier's caller ID, detection and bridge. */
const DIAL_EXTRAS = { orgId: 'org-1', callerId: null, machineDetection: true, onAnswer: { bridge: [], voicemail: null } }

function setup(speed = 1, start = START) {
  const clock = new FakeClock(start)
  const scheduler = new FakeScheduler(clock)
  const carrier = new SimulatedCarrier({ clock, scheduler, speed })
  const seen: Seen[] = []
  const events: CallEvents = {
    answered: (id, by) => void seen.push({ at: clock.now(), kind: 'answered', id, by }),
    intent: (id, excerpt, confidence) => void seen.push({ at: clock.now(), kind: 'intent', id, excerpt, confidence }),
    handover: (id) => void seen.push({ at: clock.now(), kind: 'handover', id }),
    ended: (id, report) => void seen.push({ at: clock.now(), kind: 'ended', id, report }),
    transcribed: () => {},
    recorded: () => {},
  }
  const dial = (to: string, more: Partial<DialRequest> = {}) =>
    carrier.dial(
      { ...DIAL_EXTRAS, callId: 'call-1', to, livemode: true, record: true, leadName: 'Jordan Lee', agentName: 'Alex Rivera', leadZone: 'America/New_York', ...more },
      events,
    )
  return { clock, scheduler, carrier, seen, dial }
}

const INTENT = 'Yes, that sounds good. Can someone walk me through the pricing?'
const GREETING = 'Hi, this is the assistant calling about your request. Is now a good time?'

const endOf = (seen: Seen[]) => {
  const last = seen.at(-1)
  if (!last || last.kind !== 'ended') throw new Error(`no end: ${JSON.stringify(seen)}`)
  return last
}

describe('scenarioFor', () => {
  test.each(Array.from({ length: 16 }, (_, i) => String(i).padStart(2, '0')))('a number ending in %s plays scenario %s', (nn) => {
    expect(scenarioFor(`+1212555${'20'}${nn}`, 'any-call')).toBe(nn)
    expect(scenarioFor(`+1415555${'01'}${nn}`, 'another-call')).toBe(nn)
  })

  // The mix for every other number, as DESIGN.md describes it (realistic contact rates).
  const MIX: [string, number][] = [
    ['02', 45], ['03', 8], ['04', 14], ['05', 3], ['01', 14], ['13', 3], ['09', 3], ['06', 3], ['00', 4], ['14', 1], ['08', 2],
  ]
  // The mix laid out as 100 slots, one per percent; the call id's hash picks a slot.
  const SLOTS = MIX.flatMap(([scenario, share]) => Array<string>(share).fill(scenario))
  const pick = (callId: string) => SLOTS[createHash('sha256').update(callId).digest().readUInt32BE(0) % 100] ?? '02'

  test('other numbers: a fixed pick seeded by the call id', () => {
    for (const id of ['a', 'b', 'call-1', 'call-2', '01a2038d-6c65-75f7-8432-80e8e6c1f68e']) {
      expect(scenarioFor('+12125552016', id)).toBe(pick(id))
      // Same call id, same scenario, whatever the other digits.
      expect(scenarioFor('+12125559999', id)).toBe(scenarioFor('+13125554477', id))
    }
  })

  test('other numbers follow the contact-rate mix', () => {
    const counts = new Map<string, number>()
    const n = 20_000
    for (let i = 0; i < n; i++) {
      const s = scenarioFor('+12125552099', `call-${i}`)
      counts.set(s, (counts.get(s) ?? 0) + 1)
    }
    expect([...counts.keys()].sort()).toEqual(MIX.map(([s]) => s).sort())
    for (const [scenario, share] of MIX) {
      const percent = ((counts.get(scenario) ?? 0) / n) * 100
      expect(Math.abs(percent - share)).toBeLessThan(1.5)
    }
  })
})

describe('SimulatedCarrier: steps on the clock', () => {
  test('scenario 00 at speed 1: answer 6 s, intent 25 s, handover 35 s, end 95 s', async () => {
    const { scheduler, seen, dial } = setup()
    dial('+12125552000')
    // Nothing happens until the clock moves.
    expect(seen).toEqual([])
    await scheduler.advanceTo(START + 300 * S)
    expect(seen.map((e) => [e.kind, (e.at - START) / S])).toEqual([
      ['answered', 6], ['intent', 25], ['handover', 35], ['ended', 95],
    ])
    expect(seen[0]).toMatchObject({ id: 'call-1', by: 'person' })
    expect(seen[1]).toMatchObject({ excerpt: INTENT, confidence: 0.92 })
    expect(endOf(seen).report).toEqual({
      outcome: 'interested',
      note: 'Interested; the SDR took the call and set next steps.',
      voicemailDelivered: false,
      callbackAt: null,
      optOut: false,
      durationSeconds: 89,
      transcript: [
        { speaker: 'ai', name: 'AI assistant', text: GREETING, at: START + 7 * S },
        { speaker: 'lead', name: 'Jordan Lee', text: INTENT, at: START + 25 * S },
        { speaker: 'agent', name: 'Alex Rivera', text: 'Happy to help, let me walk you through it.', at: START + 36 * S },
      ],
      recorded: true,
    })
  })

  test('only steps due by the clock have fired', async () => {
    const { scheduler, seen, dial } = setup()
    dial('+12125552000')
    await scheduler.advanceTo(START + 24 * S)
    expect(seen.map((e) => e.kind)).toEqual(['answered'])
    await scheduler.advanceTo(START + 35 * S)
    expect(seen.map((e) => e.kind)).toEqual(['answered', 'intent', 'handover'])
    await scheduler.advanceTo(START + 94 * S)
    expect(seen).toHaveLength(3)
    await scheduler.advanceTo(START + 95 * S)
    expect(seen.map((e) => e.kind)).toEqual(['answered', 'intent', 'handover', 'ended'])
  })

  test('speed 2: every step at half the time (transcript times too)', async () => {
    const { scheduler, seen, dial } = setup(2)
    dial('+12125552000')
    await scheduler.advanceTo(START + 300 * S)
    expect(seen.map((e) => [e.kind, e.at - START])).toEqual([
      ['answered', 3000], ['intent', 12_500], ['handover', 17_500], ['ended', 47_500],
    ])
    expect(endOf(seen).report.transcript.map((l) => l.at - START)).toEqual([3500, 12_500, 18_000])
  })

  test('speed 0.02: fifty times slower', async () => {
    const { scheduler, seen, dial } = setup(0.02)
    dial('+12125552002')
    await scheduler.advanceTo(START + 1499 * S)
    expect(seen).toEqual([])
    await scheduler.advanceTo(START + 1500 * S)
    expect(seen.map((e) => [e.kind, (e.at - START) / S])).toEqual([['ended', 1500]])
  })

  // Possible defect: at a speed other than 1 the call lasts (end - answer) / speed on the
  // clock, but the reported duration stays the scripted one (89 s at speed 2 for a call
  // answered at +3 s and ended at +47.5 s), so a call's duration_seconds disagrees with its
  // own answered/ended times and usage minutes count time that did not pass
  // (DESIGN.md: "Durations are scaled by DIALER_SIM_SPEED").
  test('speed 2: the reported duration is the time the call was up (45 s, not 89 s)', async () => {
    const { scheduler, seen, dial } = setup(2)
    dial('+12125552000')
    await scheduler.advanceTo(START + 300 * S)
    expect(endOf(seen).report.durationSeconds).toBe(45)
  })

  const table: [string, { steps: [string, number][]; by?: AnsweredBy; outcome: string | null; duration: number; recorded: boolean; lines: number; extra?: Partial<CallReport> }][] = [
    ['01', { steps: [['answered', 5], ['ended', 45]], by: 'person', outcome: 'not_interested', duration: 40, recorded: true, lines: 2 }],
    ['02', { steps: [['ended', 30]], outcome: 'no_answer', duration: 0, recorded: false, lines: 0 }],
    ['03', { steps: [['ended', 2]], outcome: 'busy', duration: 0, recorded: false, lines: 0 }],
    ['04', { steps: [['answered', 8], ['ended', 35]], by: 'machine', outcome: 'voicemail', duration: 27, recorded: true, lines: 1, extra: { voicemailDelivered: true } }],
    ['05', { steps: [['ended', 1]], outcome: 'failed', duration: 0, recorded: false, lines: 0 }],
    ['06', { steps: [['answered', 5], ['ended', 50]], by: 'person', outcome: 'callback', duration: 45, recorded: true, lines: 2, extra: { callbackAt: Date.UTC(2026, 0, 6, 15, 0, 0) } }],
    ['07', { steps: [['answered', 5], ['ended', 20]], by: 'person', outcome: 'dnc', duration: 15, recorded: true, lines: 2, extra: { optOut: true } }],
    ['08', { steps: [['answered', 5], ['ended', 30]], by: 'person', outcome: 'wrong_number', duration: 25, recorded: true, lines: 2 }],
    ['09', { steps: [['answered', 5], ['ended', 12]], by: 'person', outcome: 'hung_up', duration: 7, recorded: true, lines: 2 }],
    ['10', { steps: [['answered', 5], ['ended', 20]], by: 'unknown', outcome: 'screened', duration: 15, recorded: true, lines: 2 }],
    ['11', { steps: [['answered', 5], ['ended', 30]], by: 'person', outcome: 'language_barrier', duration: 25, recorded: true, lines: 2 }],
    ['12', { steps: [['answered', 5], ['ended', 30]], by: 'person', outcome: 'not_qualified', duration: 25, recorded: true, lines: 2 }],
    ['13', { steps: [['answered', 5], ['ended', 30]], by: 'person', outcome: 'undetermined', duration: 25, recorded: true, lines: 2 }],
    ['14', { steps: [['answered', 5], ['intent', 20], ['ended', 50]], by: 'person', outcome: 'callback', duration: 45, recorded: true, lines: 2, extra: { callbackAt: START + 50 * S + 2 * 3_600_000 } }],
    ['15', { steps: [['answered', 5], ['intent', 20], ['handover', 28], ['ended', 88]], by: 'person', outcome: null, duration: 83, recorded: true, lines: 3 }],
  ]

  test.each(table)('scenario %s', async (nn, want) => {
    const { scheduler, seen, dial } = setup()
    dial(`+1212555${'20'}${nn}`)
    await scheduler.advanceTo(START + 600 * S)
    expect(seen.map((e): [string, number] => [e.kind, (e.at - START) / S])).toEqual(want.steps)
    const answered = seen.find((e) => e.kind === 'answered')
    expect(answered && answered.kind === 'answered' ? answered.by : undefined).toBe(want.by)
    const { report } = endOf(seen)
    expect(report).toMatchObject({
      outcome: want.outcome,
      durationSeconds: want.duration,
      recorded: want.recorded,
      voicemailDelivered: false,
      callbackAt: null,
      optOut: false,
      ...want.extra,
    })
    expect(report.transcript).toHaveLength(want.lines)
  })

  test('an unrecorded organization: recorded false even when answered', async () => {
    const { scheduler, seen, dial } = setup()
    dial('+12125552001', { record: false })
    await scheduler.advanceTo(START + 60 * S)
    expect(endOf(seen).report.recorded).toBe(false)
  })

  test('a lead with no name is "Lead" in the transcript', async () => {
    const { scheduler, seen, dial } = setup()
    dial('+12125552001', { leadName: null })
    await scheduler.advanceTo(START + 60 * S)
    expect(endOf(seen).report.transcript.map((l) => l.name)).toEqual(['AI assistant', 'Lead'])
  })

  test('scenario 06 books 10:00 the next calendar day in the lead zone', async () => {
    // Monday 22:00 in New York is already Tuesday 03:00 UTC: the next calendar day in the
    // lead's zone is Tuesday, so 10:00 New York = 15:00 UTC Tuesday (not Wednesday).
    const late = Date.UTC(2026, 0, 6, 3, 0, 0)
    const ny = setup(1, late)
    ny.dial('+12125552006')
    await ny.scheduler.advanceTo(late + 60 * S)
    expect(endOf(ny.seen).report.callbackAt).toBe(Date.UTC(2026, 0, 6, 15, 0, 0))

    const la = setup()
    la.dial('+14155552006', { leadZone: 'America/Los_Angeles' })
    await la.scheduler.advanceTo(START + 60 * S)
    expect(endOf(la.seen).report.callbackAt).toBe(Date.UTC(2026, 0, 6, 18, 0, 0))
  })

  test('several calls play side by side, each on its own script', async () => {
    const { carrier, scheduler, seen } = setup()
    const events: CallEvents = {
      answered: () => {},
      intent: () => {},
      handover: () => {},
      ended: (id, report) => void seen.push({ at: scheduler.clock.now(), kind: 'ended', id, report }),
      transcribed: () => {},
      recorded: () => {},
    }
    const base = { ...DIAL_EXTRAS, livemode: true, record: true, leadName: null, agentName: 'A', leadZone: 'America/New_York' }
    carrier.dial({ ...base, callId: 'slow', to: '+12125552000' }, events)
    carrier.dial({ ...base, callId: 'fast', to: '+12125552005' }, events)
    carrier.dial({ ...base, callId: 'mid', to: '+12125552002' }, events)
    await scheduler.advanceTo(START + 200 * S)
    expect(seen.map((e) => [e.id, (e.at - START) / S])).toEqual([['fast', 1], ['mid', 30], ['slow', 95]])
  })
})

describe('SimulatedCarrier: hangUp', () => {
  test('cancels the steps still to come', async () => {
    const { carrier, scheduler, seen, dial } = setup()
    dial('+12125552000')
    await scheduler.advanceTo(START + 10 * S)
    expect(seen.map((e) => e.kind)).toEqual(['answered'])
    carrier.hangUp('call-1')
    await scheduler.advanceTo(START + 600 * S)
    expect(seen.map((e) => e.kind)).toEqual(['answered'])
  })

  test('before anything happened: nothing ever fires', async () => {
    const { carrier, scheduler, seen, dial } = setup()
    dial('+12125552002')
    carrier.hangUp('call-1')
    await scheduler.advanceTo(START + 600 * S)
    expect(seen).toEqual([])
  })

  test('only the named call; an unknown or finished call is a no-op', async () => {
    const { carrier, scheduler, seen } = setup()
    const events: CallEvents = {
      answered: (id) => void seen.push({ at: 0, kind: 'answered', id, by: 'person' }),
      intent: () => {},
      handover: () => {},
      ended: (id, report) => void seen.push({ at: 0, kind: 'ended', id, report }),
      transcribed: () => {},
      recorded: () => {},
    }
    const base = { ...DIAL_EXTRAS, livemode: false, record: true, leadName: null, agentName: 'A', leadZone: 'America/New_York' }
    carrier.dial({ ...base, callId: 'a', to: '+12125550101' }, events)
    carrier.dial({ ...base, callId: 'b', to: '+12125550101' }, events)
    carrier.hangUp('a')
    carrier.hangUp('nope')
    await scheduler.advanceTo(START + 600 * S)
    expect(seen.map((e) => [e.kind, e.id])).toEqual([['answered', 'b'], ['ended', 'b']])
    expect(() => carrier.hangUp('b')).not.toThrow()
  })
})

describe('SimulatedCarrier: recording audio', () => {
  test('a WAV file (RIFF, 8 kHz 8-bit mono, one second)', () => {
    const { carrier } = setup()
    const wav = carrier.recording({ id: 'x', durationSeconds: 40 })
    expect(wav).not.toBeNull()
    const bytes = wav!
    const text = (from: number, to: number) => String.fromCharCode(...bytes.slice(from, to))
    expect(text(0, 4)).toBe('RIFF')
    expect(text(8, 12)).toBe('WAVE')
    expect(text(12, 16)).toBe('fmt ')
    expect(text(36, 40)).toBe('data')
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    expect(view.getUint32(4, true)).toBe(36 + 8000)
    expect(view.getUint16(22, true)).toBe(1)
    expect(view.getUint32(24, true)).toBe(8000)
    expect(view.getUint16(34, true)).toBe(8)
    expect(view.getUint32(40, true)).toBe(8000)
    expect(bytes.length).toBe(44 + 8000)
  })

  test.each([null, 0])('no recording for a call of duration %p', (durationSeconds) => {
    const { carrier } = setup()
    expect(carrier.recording({ id: 'x', durationSeconds })).toBeNull()
  })
})
