import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import {
  apply,
  type Effect,
  eventFromAmdCallback,
  eventFromDialAction,
  eventFromStatusCallback,
  initialState,
  type LifecycleState,
  outcomeOf,
  partyOf,
  type TwilioEvent,
} from '../../src/telephony/twilio/lifecycle'

setDefaultTimeout(60_000)

const status = (callStatus: string, callDuration?: number): TwilioEvent => ({ kind: 'status', callStatus, callDuration: callDuration ?? null })
const amd = (answeredBy: string): TwilioEvent => ({ kind: 'amd', answeredBy })
const dial = (leg: number, dialCallStatus: string): TwilioEvent => ({ kind: 'dial-result', leg, dialCallStatus })

function run(events: TwilioEvent[], options = { amdExpected: true, legs: 2 }): { state: LifecycleState; effects: Effect[] } {
  let state = initialState(options)
  const effects: Effect[] = []
  for (const event of events) {
    const step = apply(state, event)
    state = step.state
    effects.push(...step.effects)
  }
  return { state, effects }
}

describe('AnsweredBy and CallStatus mapping', () => {
  test.each([
    ['human', 'person'],
    ['unknown', 'person'],
    ['machine_start', 'machine'],
    ['machine_end_beep', 'machine'],
    ['machine_end_silence', 'machine'],
    ['machine_end_other', 'machine'],
    ['fax', 'machine'],
    ['robot', null],
    ['', null],
  ])('AnsweredBy %p -> %p', (answeredBy, party) => {
    expect(partyOf(answeredBy)).toBe(party as 'person' | 'machine' | null)
  })

  test.each([
    ['completed', 'completed'],
    ['busy', 'busy'],
    ['no-answer', 'no_answer'],
    ['canceled', 'no_answer'],
    ['failed', 'failed'],
    ['queued', null],
    ['initiated', null],
    ['ringing', null],
    ['in-progress', null],
  ])('CallStatus %p -> outcome %p', (callStatus, outcome) => {
    expect(outcomeOf(callStatus)).toBe(outcome as null)
  })
})

describe('call paths (table)', () => {
  const cases: [string, TwilioEvent[], Effect[], { amdExpected: boolean; legs: number }?][] = [
    ['no answer', [status('initiated'), status('ringing'), status('no-answer')], [{ type: 'ringing' }, { type: 'ended', outcome: 'no_answer', durationSeconds: 0, carrierStatus: 'no-answer' }]],
    ['busy', [status('initiated'), status('busy')], [{ type: 'ended', outcome: 'busy', durationSeconds: 0, carrierStatus: 'busy' }]],
    ['failed', [status('failed')], [{ type: 'ended', outcome: 'failed', durationSeconds: 0, carrierStatus: 'failed' }]],
    [
      'person; first SDR takes it',
      [status('initiated'), status('ringing'), status('in-progress'), amd('human'), { kind: 'leg-answered', leg: 0 }, dial(0, 'completed'), status('completed', 95)],
      [
        { type: 'ringing' },
        { type: 'answered', by: 'person' },
        { type: 'bridge' },
        { type: 'handover', leg: 0 },
        { type: 'hang-up' },
        { type: 'ended', outcome: 'completed', durationSeconds: 95, carrierStatus: 'completed' },
      ],
    ],
    [
      'person; first SDR misses, the closer takes it (leg callback lost)',
      [status('ringing'), status('in-progress'), amd('unknown'), dial(0, 'no-answer'), dial(1, 'completed'), status('completed', 60)],
      [
        { type: 'ringing' },
        { type: 'answered', by: 'person' },
        { type: 'bridge' },
        { type: 'next-leg', leg: 1 },
        { type: 'handover', leg: 1 },
        { type: 'hang-up' },
        { type: 'ended', outcome: 'completed', durationSeconds: 60, carrierStatus: 'completed' },
      ],
    ],
    [
      'person; nobody picks up',
      [status('ringing'), status('in-progress'), amd('human'), dial(0, 'busy'), dial(1, 'no-answer'), status('completed', 50)],
      [
        { type: 'ringing' },
        { type: 'answered', by: 'person' },
        { type: 'bridge' },
        { type: 'next-leg', leg: 1 },
        { type: 'nobody-took' },
        { type: 'ended', outcome: 'completed', durationSeconds: 50, carrierStatus: 'completed' },
      ],
    ],
    [
      'machine; voicemail dropped to the end',
      [status('ringing'), status('in-progress'), amd('machine_end_beep'), { kind: 'voicemail-done' }, status('completed', 35)],
      [
        { type: 'ringing' },
        { type: 'answered', by: 'machine' },
        { type: 'drop-voicemail' },
        { type: 'voicemail-left' },
        { type: 'ended', outcome: 'completed', durationSeconds: 35, carrierStatus: 'completed' },
      ],
    ],
    [
      'machine; hung up before the drop finished: no voicemail.left',
      [status('in-progress'), amd('machine_end_silence'), status('completed', 9)],
      [{ type: 'answered', by: 'machine' }, { type: 'drop-voicemail' }, { type: 'ended', outcome: 'completed', durationSeconds: 9, carrierStatus: 'completed' }],
    ],
    ['fax: hang up', [status('in-progress'), amd('fax')], [{ type: 'answered', by: 'machine' }, { type: 'hang-up' }]],
    [
      'without AMD, in-progress is a person at once',
      [status('ringing'), status('in-progress'), amd('machine_end_beep')],
      [{ type: 'ringing' }, { type: 'answered', by: 'person' }, { type: 'bridge' }],
      { amdExpected: false, legs: 1 },
    ],
    [
      'AMD never came: completed tells a person answered, no bridge',
      [status('in-progress'), status('completed', 12)],
      [{ type: 'answered', by: 'person' }, { type: 'ended', outcome: 'completed', durationSeconds: 12, carrierStatus: 'completed' }],
    ],
    [
      'a person with no SDRs to ring: nobody took it',
      [status('in-progress'), amd('human')],
      [{ type: 'answered', by: 'person' }, { type: 'nobody-took' }],
      { amdExpected: true, legs: 0 },
    ],
  ]
  for (const [name, events, effects, options] of cases) {
    test(name, () => {
      expect(run(events, options).effects).toEqual(effects)
    })
  }
})

describe('duplicates and out-of-order events change nothing', () => {
  const cases: [string, TwilioEvent[], TwilioEvent][] = [
    ['ringing after in-progress', [status('ringing'), status('in-progress')], status('ringing')],
    ['ringing after completed', [status('ringing'), status('in-progress'), amd('human'), status('completed', 30)], status('ringing')],
    ['in-progress after completed', [status('in-progress'), amd('human'), status('completed', 30)], status('in-progress')],
    ['a second completed', [status('in-progress'), amd('human'), status('completed', 30)], status('completed', 99)],
    ['busy after no-answer', [status('no-answer')], status('busy')],
    ['a second AMD result', [status('in-progress'), amd('human')], amd('machine_end_beep')],
    ['AMD after completed', [status('in-progress'), status('completed', 3)], amd('machine_end_beep')],
    ['a duplicate dial result', [status('in-progress'), amd('human'), dial(0, 'no-answer')], dial(0, 'no-answer')],
    ['a dial result for a leg not rung', [status('in-progress'), amd('human')], dial(1, 'completed')],
    ['a dial result on a machine', [status('in-progress'), amd('machine_end_beep')], dial(0, 'completed')],
    ['a leg answer after the bridge ended', [status('in-progress'), amd('human'), dial(0, 'completed')], { kind: 'leg-answered', leg: 0 }],
    ['a second voicemail-done', [status('in-progress'), amd('machine_end_other'), { kind: 'voicemail-done' }], { kind: 'voicemail-done' }],
    ['voicemail-done on a person', [status('in-progress'), amd('human')], { kind: 'voicemail-done' }],
    ['an unknown status', [status('ringing')], status('exploded')],
    ['queued after ringing', [status('ringing')], status('queued')],
  ]
  for (const [name, before, extra] of cases) {
    test(name, () => {
      const { state } = run(before)
      expect(apply(state, extra)).toEqual({ state, effects: [] })
    })
  }

  test('property: replaying any event a second time anywhere adds no effect', () => {
    const events = fc.constantFrom<TwilioEvent>(
      status('initiated'), status('ringing'), status('in-progress'), status('completed', 40), status('no-answer'), status('busy'),
      amd('human'), amd('machine_end_beep'), amd('fax'), dial(0, 'no-answer'), dial(0, 'completed'), dial(1, 'completed'),
      { kind: 'leg-answered', leg: 0 }, { kind: 'voicemail-done' },
    )
    fc.assert(
      fc.property(fc.array(events, { maxLength: 12 }), fc.nat(), (list, at) => {
        const once = run(list)
        // Deliver each event, then the one at `at` again right after itself.
        const i = list.length ? at % list.length : 0
        const twice = run(list.length ? [...list.slice(0, i + 1), list[i]!, ...list.slice(i + 1)] : [])
        expect(twice.effects).toEqual(once.effects)
        expect(twice.state).toEqual(once.state)
        // Never more than one answer and one end.
        expect(once.effects.filter((e) => e.type === 'answered').length).toBeLessThanOrEqual(1)
        expect(once.effects.filter((e) => e.type === 'ended').length).toBeLessThanOrEqual(1)
      }),
      { numRuns: 1000 },
    )
  })
})

describe('reading callbacks', () => {
  test('status callback', () => {
    expect(eventFromStatusCallback({ CallSid: 'CA1', CallStatus: 'completed', CallDuration: '42' })).toEqual({ kind: 'status', callStatus: 'completed', callDuration: 42, answeredBy: null })
    expect(eventFromStatusCallback({ CallStatus: 'in-progress', AnsweredBy: 'human' })).toEqual({ kind: 'status', callStatus: 'in-progress', callDuration: null, answeredBy: 'human' })
    expect(eventFromStatusCallback({ CallStatus: 'completed', CallDuration: '-1' })).toEqual({ kind: 'status', callStatus: 'completed', callDuration: null, answeredBy: null })
    expect(eventFromStatusCallback({ CallSid: 'CA1' })).toBeNull()
  })

  test('AMD callback and dial action', () => {
    expect(eventFromAmdCallback({ AnsweredBy: 'machine_end_beep', MachineDetectionDuration: '4200' })).toEqual(amd('machine_end_beep'))
    expect(eventFromAmdCallback({ AnsweredBy: 'robot' })).toBeNull()
    expect(eventFromDialAction(1, { DialCallStatus: 'no-answer' })).toEqual(dial(1, 'no-answer'))
    expect(eventFromDialAction(-1, { DialCallStatus: 'completed' })).toBeNull()
    expect(eventFromDialAction(0, {})).toBeNull()
  })
})
