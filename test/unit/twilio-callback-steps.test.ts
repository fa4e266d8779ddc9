import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import type { CallEvents, CallReport } from '../../src/telephony/carrier'
import { initialCarrierState, NOBODY_TOOK_MESSAGE, type CallbackStep, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { MAX_TRANSCRIPT_LINES, NOBODY_TOOK_CALLBACK_MS, runStep, type RestAction } from '../../src/telephony/twilio/callback-steps'

setDefaultTimeout(60_000)

// Issue 18: the Twilio carrier's callback steps (src/telephony/twilio/callback-steps.ts), pure.
// Every callback Twilio may send, in or out of order, once or replayed: what the call service
// is told, which REST work follows, and the state kept with the call.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const BASE = 'https://dialer.example.com'
const CALL = 'call-1'
const SID = `CA${'a'.repeat(32)}`
const SDR = { id: 'sdr-1', name: 'Alex Rivera', role: 'sdr', phone: '+13125550150' } as const
const CLOSER = { id: null, name: 'Sam Chen', role: 'closer', phone: '+13125550151' } as const

const plan = (over: Partial<CallPlan> = {}): CallPlan => ({
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', agentName: 'Owner Olsen',
  machineDetection: true, record: false, bridge: [{ ...SDR }, { ...CLOSER }], voicemail: { say: 'Hi from Acme Roofing.' }, ...over,
})

type Told = { kind: 'answered'; by: string } | { kind: 'handover'; person: unknown } | { kind: 'ended'; report: CallReport } | { kind: 'line'; text: string } | { kind: 'other' }

function recorder(): { events: CallEvents; told: Told[] } {
  const told: Told[] = []
  return {
    told,
    events: {
      answered: (_, by) => void told.push({ kind: 'answered', by }),
      intent: () => void told.push({ kind: 'other' }),
      handover: (_, person) => void told.push({ kind: 'handover', person }),
      ended: (_, report) => void told.push({ kind: 'ended', report }),
      transcribed: (_, lines) => void told.push(...lines.map((l) => ({ kind: 'line' as const, text: `${l.speaker}|${l.name}|${l.text}|${l.at}` }))),
      recorded: () => void told.push({ kind: 'other' }),
    },
  }
}

interface Callback { step: CallbackStep; leg: number | null; params: Record<string, string> }
const cb = (step: CallbackStep, params: Record<string, string> = {}, leg: number | null = null): Callback => ({ step, leg, params: { CallSid: SID, ...params } })
const status = (CallStatus: string, extra: Record<string, string> = {}) => cb('status', { CallStatus, ...extra })
const amd = (AnsweredBy: string) => cb('amd', { AnsweredBy })
const legAnswered = (leg: number) => cb('leg-answered', {}, leg)
const legAction = (leg: number, DialCallStatus: string) => cb('leg-action', { DialCallStatus }, leg)
const line = (seq: string, track = 'inbound_track', text = `line ${seq}`, extra: Record<string, string> = {}) => cb('transcription', {
  TranscriptionEvent: 'transcription-content', SequenceId: seq, Track: track, Final: 'true',
  TranscriptionData: JSON.stringify({ transcript: text }), Timestamp: new Date(NOW - 1_000).toISOString(), ...extra,
})

/** Mirrors TwilioCarrier.act: a redirect claims the call (routed) unless it is routed or over. */
function claimRedirects(state: CarrierState, actions: RestAction[]): CarrierState {
  const redirect = actions.some((a) => a.type === 'redirect')
  return redirect && !state.routed && state.life.stage !== 'ended' ? { ...state, routed: true } : state
}

function drive(callbacks: Callback[], p: CallPlan = plan()) {
  const { events, told } = recorder()
  let state = initialCarrierState(p)
  const twiml: (string | null)[] = []
  const actions: RestAction[] = []
  for (const c of callbacks) {
    const result = runStep({ callId: CALL, plan: p, publicUrl: BASE, now: NOW, events }, state, c.step, c.leg, c.params)
    state = claimRedirects(result.state, result.actions)
    twiml.push(result.twiml)
    actions.push(...result.actions)
  }
  const ended = told.flatMap((t) => (t.kind === 'ended' ? [t.report] : []))
  const answered = told.flatMap((t) => (t.kind === 'answered' ? [t.by] : []))
  const handovers = told.flatMap((t) => (t.kind === 'handover' ? [t.person] : []))
  return { state, told, twiml, actions, ended, answered, handovers }
}

describe('CallStatus on a fresh call (machine detection on)', () => {
  test.each([
    ['queued', [], [], 'dialing'],
    ['initiated', [], [], 'dialing'],
    ['ringing', [], [], 'ringing'],
    // AsyncAmd: who answered is only known from the AMD callback.
    ['in-progress', [], [], 'in-progress'],
    // completed means answered: with no AMD result it was a person who hung up before anyone took it.
    ['completed', ['person'], [{ outcome: 'hung_up', durationSeconds: 42 }], 'ended'],
    ['busy', [], [{ outcome: 'busy', note: 'The line was busy.', durationSeconds: 0 }], 'ended'],
    ['no-answer', [], [{ outcome: 'no_answer', note: 'No answer.', durationSeconds: 0 }], 'ended'],
    ['failed', [], [{ outcome: 'failed', durationSeconds: 0 }], 'ended'],
    ['canceled', [], [{ outcome: 'no_answer', note: 'The call was canceled before it was answered.', durationSeconds: 0 }], 'ended'],
  ])('%s: answered %j, ended %j, stage %s', (callStatus, answered, ended, stage) => {
    const r = drive([status(callStatus, { CallDuration: '42' })])
    expect(r.answered).toEqual(answered)
    expect(r.ended).toEqual(ended.map((e) => expect.objectContaining({ voicemailDelivered: false, callbackAt: null, ...e })))
    expect(r.state.life.stage).toBe(stage as CarrierState['life']['stage'])
    expect(r.state.reported).toBe(ended.length > 0)
  })

  test('without machine detection in-progress is a person at once, and the bridge needs no redirect', () => {
    const r = drive([status('in-progress')], plan({ machineDetection: false }))
    expect(r.answered).toEqual(['person'])
    expect(r.actions).toEqual([])
  })
})

describe('AnsweredBy', () => {
  test.each([
    ['human', 'person', { type: 'redirect', step: 'bridge' }, 'hung_up'],
    ['unknown', 'person', { type: 'redirect', step: 'bridge' }, 'hung_up'],
    ['machine_start', 'machine', { type: 'redirect', step: 'voicemail' }, 'voicemail'],
    ['machine_end_beep', 'machine', { type: 'redirect', step: 'voicemail' }, 'voicemail'],
    ['machine_end_silence', 'machine', { type: 'redirect', step: 'voicemail' }, 'voicemail'],
    ['machine_end_other', 'machine', { type: 'redirect', step: 'voicemail' }, 'voicemail'],
    // A fax gets no voicemail: hung up, and no voice number (a wrong number).
    ['fax', 'machine', { type: 'hang-up' }, 'wrong_number'],
  ])('%s -> answered_by %s, then %j; ended without more: %s', (by, party, action, outcome) => {
    for (const answer of [[status('in-progress'), amd(by)], [status('in-progress', { AnsweredBy: by })]]) {
      const r = drive([...answer, status('completed', { CallDuration: '30' })])
      expect(r.answered).toEqual([party])
      expect(r.actions).toEqual([action as RestAction])
      expect(r.ended).toEqual([expect.objectContaining({ outcome, voicemailDelivered: false, durationSeconds: 30 })])
    }
  })

  test('an AnsweredBy Twilio does not send is no answer at all', () => {
    const r = drive([status('in-progress'), amd('robot'), amd('')])
    expect(r.answered).toEqual([])
    expect(r.state.life.answeredBy).toBeNull()
  })

  test.each([
    ['the drop played to its end', true, 'Voicemail left.'],
    ['the machine hung up during the drop', false, 'An answering machine picked up; the voicemail did not play to its end.'],
  ])('voicemail left only when the drop completed: %s', (_, completed, note) => {
    const r = drive([status('in-progress'), amd('machine_end_beep'), cb('voicemail'), ...(completed ? [cb('voicemail-done')] : []), status('completed', { CallDuration: '25' })])
    expect(r.twiml[2]).toContain('Hi from Acme Roofing.')
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'voicemail', voicemailDelivered: completed, note })])
  })

  test('voicemail-done changes nothing for a person, or before any answer', () => {
    for (const answer of [[], [amd('human')]]) {
      const r = drive([status('in-progress'), ...answer, cb('voicemail-done'), status('completed', { CallDuration: '9' })])
      expect(r.state.life.voicemailLeft).toBe(false)
      expect(r.ended).toEqual([expect.objectContaining({ voicemailDelivered: false, outcome: 'hung_up' })])
    }
  })
})

describe('the bridge', () => {
  test('a leg answered is the handover to that person (id, name, role): the call is theirs to file', () => {
    const r = drive([status('in-progress'), amd('human'), cb('bridge'), legAnswered(0), status('completed', { CallDuration: '95' })])
    expect(r.twiml[2]).toContain(SDR.phone)
    expect(r.handovers).toEqual([{ id: 'sdr-1', name: 'Alex Rivera', role: 'sdr' }])
    expect(r.ended).toEqual([expect.objectContaining({ outcome: null, durationSeconds: 95 })])
  })

  test('the SDR does not pick up: the closer is rung and takes it (a closer has no id)', () => {
    const r = drive([status('in-progress'), amd('human'), cb('bridge'), legAction(0, 'no-answer'), legAnswered(1), legAction(1, 'completed')])
    expect(r.twiml[3]).toContain(CLOSER.phone)
    expect(r.handovers).toEqual([{ id: null, name: 'Sam Chen', role: 'closer' }])
    // The bridge is over once the closer's leg ends: hang up.
    expect(r.twiml[5]).toContain('<Hangup')
  })

  test('a leg answered for a leg not ringing now (stale or ahead) is no handover', () => {
    const r = drive([status('in-progress'), amd('human'), legAnswered(1), legAction(0, 'busy'), legAnswered(0)])
    expect(r.handovers).toEqual([])
  })

  test('nobody took: the nobody-took message, then outcome callback two hours on', () => {
    const r = drive([status('in-progress'), amd('human'), cb('bridge'), legAction(0, 'busy'), legAction(1, 'no-answer'), status('completed', { CallDuration: '50' })])
    expect(r.twiml[4]).toContain(NOBODY_TOOK_MESSAGE)
    expect(r.state.nobodyTook).toBe(true)
    expect(r.handovers).toEqual([])
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'callback', callbackAt: NOW + NOBODY_TOOK_CALLBACK_MS })])
  })

  test('nobody to bridge to: the message goes by REST at the AMD result, and the call is a callback', () => {
    const r = drive([status('in-progress'), amd('unknown'), cb('answer'), status('completed', { CallDuration: '15' })], plan({ bridge: [] }))
    expect(r.actions).toEqual([{ type: 'twiml', twiml: expect.stringContaining(NOBODY_TOOK_MESSAGE) }])
    // The answer fetch after it must not start anything: the call is already routed.
    expect(r.twiml[2]).toContain('<Pause')
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'callback' })])
  })

  test('a recorded call that ends answered waits for its recording before the service is told', () => {
    const r = drive([status('in-progress'), amd('human'), legAnswered(0), status('completed', { CallDuration: '60' })], plan({ record: true }))
    expect(r.ended).toEqual([])
    expect(r.actions).toContainEqual({ type: 'wait-for-recording' })
    expect(r.state.pendingEnd).toMatchObject({ outcome: null, durationSeconds: 60 })
  })
})

describe('out of order', () => {
  test('completed before the answer and the AMD result: a person, told once; the late ones change nothing', () => {
    const r = drive([status('ringing'), status('completed', { CallDuration: '20' }), status('in-progress'), amd('machine_end_beep'), status('ringing')])
    expect(r.answered).toEqual(['person'])
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'hung_up', durationSeconds: 20 })])
    // No voicemail is dropped on a call that is over.
    expect(r.actions).toEqual([])
    expect(r.state.life).toMatchObject({ stage: 'ended', answeredBy: 'person', outcome: 'completed' })
  })

  test('AMD after completed for a machine answer told synchronously keeps the first answer', () => {
    const r = drive([status('completed', { CallDuration: '7', AnsweredBy: 'machine_start' }), amd('human')])
    expect(r.answered).toEqual(['machine'])
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'voicemail', voicemailDelivered: false })])
  })

  test('a busy after completed (or the reverse) is not a second end', () => {
    expect(drive([status('completed', { CallDuration: '3' }), status('busy')]).ended).toHaveLength(1)
    expect(drive([status('busy'), status('completed', { CallDuration: '3' })]).ended).toEqual([expect.objectContaining({ outcome: 'busy' })])
  })
})

describe('transcription lines', () => {
  const p = plan({ machineDetection: false })

  test('stored once per SequenceId (first text wins); partial, bad and non-content events skipped', () => {
    const r = drive([
      status('in-progress'), line('1'), line('1', 'inbound_track', 'again'), line('2', 'outbound_track', 'Hi, Alex here'),
      line('3', 'inbound_track', 'partial', { Final: 'false' }), line('4', 'both_tracks'), line('5', 'inbound_track', '  '),
      line('x'), line('6', 'inbound_track', 'x', { TranscriptionData: 'not json' }), line('7', 'inbound_track', 'x', { TranscriptionEvent: 'transcription-started' }),
    ], p)
    const at = NOW - 1_000
    expect(r.told.filter((t) => t.kind === 'line')).toEqual([
      { kind: 'line', text: `lead|Jordan Lee|line 1|${at}` },
      // Our side while the bridge rings the SDR: the SDR's name.
      { kind: 'line', text: `agent|Alex Rivera|Hi, Alex here|${at}` },
    ])
    expect(r.state.transcriptSeqs).toEqual(['1', '2'])
  })

  test('a timestamp far from now is replaced by now; a lead without a name is "Lead"', () => {
    const r = drive([status('in-progress'), line('1', 'inbound_track', 'hello', { Timestamp: '2020-01-01T00:00:00Z' })], plan({ leadName: null }))
    expect(r.told).toContainEqual({ kind: 'line', text: `lead|Lead|hello|${NOW}` })
  })

  test(`capped at ${MAX_TRANSCRIPT_LINES} lines a call`, () => {
    const r = drive([status('in-progress'), ...Array.from({ length: MAX_TRANSCRIPT_LINES + 3 }, (_, i) => line(String(i + 1)))], p)
    expect(r.told.filter((t) => t.kind === 'line')).toHaveLength(MAX_TRANSCRIPT_LINES)
    expect(r.state.transcriptLines).toBe(MAX_TRANSCRIPT_LINES)
    expect(r.state.transcriptSeqs).not.toContain(String(MAX_TRANSCRIPT_LINES + 1))
  })
})

// A call as Twilio could report it: callbacks each with the ones that must come first (a leg's
// callbacks only after the TwiML that rang it, the drop's end after the drop, ...).
interface Node { callback: Callback; after: number[] }

const ANSWERED_BY = ['human', 'unknown', 'machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other', 'fax'] as const
const DIAL_STATUS = ['completed', 'answered', 'busy', 'no-answer', 'failed', 'canceled'] as const

const unansweredArb = fc.record({ kind: fc.constant('unanswered' as const), final: fc.constantFrom('busy', 'no-answer', 'failed', 'canceled') })
const answeredArb = fc.record({
  kind: fc.constant('answered' as const),
  by: fc.constantFrom(...ANSWERED_BY),
  dials: fc.array(fc.record({ status: fc.constantFrom(...DIAL_STATUS), legCallback: fc.boolean() }), { maxLength: 3 }),
  dropCompleted: fc.boolean(),
  lines: fc.array(fc.record({ seq: fc.integer({ min: 1, max: 6 }), outbound: fc.boolean() }), { maxLength: 5 }),
  recording: fc.boolean(),
  duration: fc.integer({ min: 0, max: 600 }),
})
const callArb = fc.record({
  machineDetection: fc.boolean(),
  record: fc.boolean(),
  legs: fc.integer({ min: 0, max: 3 }),
  // Answered calls have the most to replay.
  fate: fc.oneof({ arbitrary: unansweredArb, weight: 1 }, { arbitrary: answeredArb, weight: 4 }),
  ringing: fc.boolean(),
})

type GeneratedCall = typeof callArb extends fc.Arbitrary<infer T> ? T : never

function nodesOf(call: GeneratedCall): { nodes: Node[]; plan: CallPlan } {
  const p = plan({ machineDetection: call.machineDetection, record: call.record, bridge: [SDR, CLOSER, { ...SDR, id: 'sdr-2', name: 'Pat Kim' }].slice(0, call.legs) })
  const nodes: Node[] = []
  const add = (callback: Callback, after: number[] = []) => nodes.push({ callback, after }) - 1
  add(status('initiated'))
  if (call.ringing) add(status('ringing'))
  const fate = call.fate
  if (fate.kind === 'unanswered') {
    add(status(fate.final))
    return { nodes, plan: p }
  }
  const inProgress = add(status('in-progress'))
  const answer = add(cb('answer'))
  add(status('completed', { CallDuration: String(fate.duration) }))
  for (const l of fate.lines) add(line(String(l.seq), l.outbound ? 'outbound_track' : 'inbound_track'), [answer])
  if (fate.recording && call.record) add(cb('recording', { RecordingSid: `RE${'b'.repeat(32)}`, RecordingStatus: 'completed' }))
  const person = !call.machineDetection || fate.by === 'human' || fate.by === 'unknown'
  if (!person) {
    const result = add(amd(fate.by))
    if (fate.by !== 'fax') {
      const drop = add(cb('voicemail'), [result])
      if (fate.dropCompleted) add(cb('voicemail-done'), [drop])
    }
    return { nodes, plan: p }
  }
  // Without detection the answer fetch starts the bridge but only in-progress tells the lifecycle
  // a person answered (a leg callback before it is dropped), so the legs come after it here.
  // With detection the AMD result does both.
  let rang = call.machineDetection ? add(cb('bridge'), [add(amd(fate.by))]) : answer
  const firstLeg = call.machineDetection ? [rang] : [answer, inProgress]
  for (const [leg, dial] of fate.dials.slice(0, call.legs).entries()) {
    const after = leg === 0 ? firstLeg : [rang]
    if (dial.legCallback) add(legAnswered(leg), after)
    rang = add(legAction(leg, dial.status), after)
    if (dial.status === 'completed' || dial.status === 'answered') break
  }
  return { nodes, plan: p }
}

/** A random order of the nodes that keeps each after the ones it needs. */
function ordered(nodes: Node[], picks: number[]): Callback[] {
  const done = new Set<number>()
  const out: Callback[] = []
  for (let turn = 0; out.length < nodes.length; turn++) {
    const ready = nodes.flatMap((n, i) => (!done.has(i) && n.after.every((a) => done.has(a)) ? [i] : []))
    const pick = ready[(picks[turn % picks.length] ?? 0) % ready.length]!
    done.add(pick)
    out.push(nodes[pick]!.callback)
  }
  return out
}

/** Each callback again, some time after its original (replays may land anywhere later). */
function replayed(once: Callback[], lags: number[], ties: number[]): Callback[] {
  const slots = once.flatMap((c, i) => [
    { at: i, tie: -1, c },
    { at: i + ((lags[i] ?? 0) % (once.length - i)), tie: ties[i] ?? 0, c },
  ])
  return slots.sort((a, b) => a.at - b.at || a.tie - b.tie).map((s) => s.c)
}

/**
 * `routed` only guards a live call's TwiML: an answer fetch replayed after the end (never a real
 * Twilio request) marks an ended call routed, which changes nothing any more.
 */
const comparable = (state: CarrierState) => (state.life.stage === 'ended' ? { ...state, routed: null } : state)

describe('property: replayed callbacks', () => {
  test('every callback applied twice (each replay after its original) tells and keeps exactly what once does', () => {
    fc.assert(
      fc.property(
        callArb,
        fc.array(fc.nat(), { minLength: 1, maxLength: 30 }),
        fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
        fc.array(fc.nat({ max: 1_000 }), { minLength: 30, maxLength: 30 }),
        (call, picks, lags, ties) => {
          const { nodes, plan: p } = nodesOf(call)
          const order = ordered(nodes, picks)
          const once = drive(order, p)
          const twice = drive(replayed(order, lags, ties), p)
          expect(twice.told).toEqual(once.told)
          expect(comparable(twice.state)).toEqual(comparable(once.state))
          // REST work (redirects, hang-ups, downloads, the recording wait) is not asked twice either.
          expect(twice.actions).toEqual(once.actions)
          for (const r of [once, twice]) {
            expect(r.answered.length).toBeLessThanOrEqual(1)
            // The end is told once, or held once for the recording.
            const ends = r.ended.length + r.actions.filter((a) => a.type === 'wait-for-recording').length
            expect(ends).toBe(1)
          }
        },
      ),
      { numRuns: 500 },
    )
  })
})
