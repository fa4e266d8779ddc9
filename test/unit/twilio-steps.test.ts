import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import type { CallEvents, CallReport } from '../../src/telephony/carrier'
import { initialCarrierState, type CallbackStep, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { MAX_TRANSCRIPT_LINES, NOBODY_TOOK_CALLBACK_MS, runStep, tellEnded, type RestAction } from '../../src/telephony/twilio/callback-steps'

setDefaultTimeout(60_000)

// The Twilio carrier's callback steps (issue 18, item 5): each signed callback applied to a
// call's saved state, pure. What the call service is told, what TwiML answers, what REST work follows.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const BASE = 'https://dialer.example.com'
const CALL = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
const SID = `CA${'1'.repeat(32)}`

const plan = (over: Partial<CallPlan> = {}): CallPlan => ({
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', agentName: 'Alex Rivera', machineDetection: true, record: true,
  bridge: [
    { id: 'sdr-1', name: 'Alex Rivera', role: 'sdr', phone: '+13125550150' },
    { id: null, name: 'Sam Chen', role: 'closer', phone: '+13125550151' },
  ] as CallPlan['bridge'],
  voicemail: { say: 'Hi from Acme Roofing.' },
  ...over,
})

type Told = [string, ...unknown[]]

function recorder(): { events: CallEvents; told: Told[] } {
  const told: Told[] = []
  return {
    told,
    events: {
      answered: (_, by) => told.push(['answered', by]),
      intent: () => told.push(['intent']),
      handover: (_, person) => told.push(['handover', person?.name ?? null, person?.role ?? null]),
      ended: (_, report) => told.push(['ended', report]),
      transcribed: (_, lines) => told.push(['transcribed', ...lines.map((l) => `${l.speaker}:${l.name}:${l.text}`)]),
      recorded: () => told.push(['recorded']),
    },
  }
}

interface Callback {
  step: CallbackStep
  leg?: number
  params: Record<string, string>
}

const status = (CallStatus: string, extra: Record<string, string> = {}): Callback => ({ step: 'status', params: { CallSid: SID, CallStatus, ...extra } })
const amd = (AnsweredBy: string): Callback => ({ step: 'amd', params: { CallSid: SID, AnsweredBy } })
const step = (name: CallbackStep, leg?: number, params: Record<string, string> = {}): Callback => ({ step: name, leg, params: { CallSid: SID, ...params } })
const line = (seq: number, track = 'inbound_track', text = `line ${seq}`): Callback => step('transcription', undefined, {
  TranscriptionEvent: 'transcription-content', SequenceId: String(seq), Track: track, Final: 'true',
  TranscriptionData: JSON.stringify({ transcript: text, confidence: 0.9 }), Timestamp: new Date(NOW).toISOString(),
})
const recording = (sid = `RE${'2'.repeat(32)}`): Callback => step('recording', undefined, { RecordingSid: sid, RecordingStatus: 'completed' })

function drive(callbacks: Callback[], p: CallPlan = plan()) {
  const { events, told } = recorder()
  let state: CarrierState = initialCarrierState(p)
  const twiml: (string | null)[] = []
  const actions: RestAction[] = []
  for (const cb of callbacks) {
    const result = runStep({ callId: CALL, plan: p, publicUrl: BASE, now: NOW, events }, state, cb.step, cb.leg ?? null, cb.params)
    state = result.state
    twiml.push(result.twiml)
    actions.push(...result.actions)
  }
  return { state, told, twiml, actions, ended: told.filter((t) => t[0] === 'ended').map((t) => t[1] as CallReport) }
}

describe('a person answers', () => {
  test('AMD human: answered person, redirected to the bridge, the SDR takes it; the end waits for the recording', () => {
    const r = drive([status('initiated'), status('ringing'), status('in-progress'), step('answer'), amd('human'), step('bridge'), step('leg-answered', 0), status('completed', { CallDuration: '95' })])
    expect(r.told.slice(0, 2)).toEqual([['answered', 'person'], ['handover', 'Alex Rivera', 'sdr']])
    // The answer holds for detection; the bridge rings the SDR's phone.
    expect(r.twiml[3]).toContain('<Pause')
    expect(r.twiml[5]).toContain('+13125550150')
    expect(r.actions).toContainEqual({ type: 'redirect', step: 'bridge' })
    expect(r.actions).toContainEqual({ type: 'wait-for-recording' })
    expect(r.ended).toEqual([])
    expect(r.state.pendingEnd).toMatchObject({ outcome: null, durationSeconds: 95 })
    // The recording comes: downloaded, then (in the carrier) the end is told with it.
    const withRecording = drive([status('in-progress'), amd('human'), step('leg-answered', 0), status('completed', { CallDuration: '95' }), recording()])
    expect(withRecording.actions).toContainEqual({ type: 'download-recording', recordingSid: `RE${'2'.repeat(32)}` })
    const { events, told } = recorder()
    const after = tellEnded({ callId: CALL, events }, { ...withRecording.state, recorded: true }, withRecording.state.pendingEnd!)
    expect(after.reported).toBe(true)
    expect(told).toEqual([['ended', expect.objectContaining({ outcome: null, durationSeconds: 95, recorded: true })]])
  })

  test.each(['human', 'unknown'])('AnsweredBy %s is a person', (by) => {
    expect(drive([status('in-progress'), amd(by)]).told[0]).toEqual(['answered', 'person'])
  })

  test('the SDR does not pick up, the closer does', () => {
    const r = drive([status('in-progress'), amd('human'), step('bridge'), step('leg-action', 0, { DialCallStatus: 'no-answer' }), step('leg-answered', 1)])
    expect(r.twiml[3]).toContain('+13125550151')
    expect(r.told).toContainEqual(['handover', 'Sam Chen', 'closer'])
  })

  test('nobody picks up: the nobody-took message and a callback 2 hours later', () => {
    const r = drive([
      status('in-progress'), amd('human'), step('bridge'),
      step('leg-action', 0, { DialCallStatus: 'busy' }), step('leg-action', 1, { DialCallStatus: 'no-answer' }),
      status('completed', { CallDuration: '50' }),
    ], plan({ record: false }))
    expect(r.twiml[4]).toContain('<Say')
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'callback', callbackAt: NOW + NOBODY_TOOK_CALLBACK_MS })])
    expect(r.told.some((t) => t[0] === 'handover')).toBe(false)
  })

  test('the lead hangs up before anyone takes it: hung_up', () => {
    const r = drive([status('in-progress'), amd('human'), step('bridge'), status('completed', { CallDuration: '12' })], plan({ record: false }))
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'hung_up', durationSeconds: 12 })])
  })

  test('no machine detection: the SDR who picks up is handed the call even when the in-progress status comes late', () => {
    const r = drive([step('answer'), step('leg-answered', 0), status('in-progress'), status('completed', { CallDuration: '60' })], plan({ machineDetection: false, record: false }))
    expect(r.told.filter((t) => t[0] !== 'ended')).toEqual([['answered', 'person'], ['handover', 'Alex Rivera', 'sdr']])
    expect(r.ended).toEqual([expect.objectContaining({ outcome: null, durationSeconds: 60 })])
  })

  test('a leg callback after the lead hung up, while the end waits for the recording: the SDR took it, the report follows', () => {
    const r = drive([status('in-progress'), amd('human'), step('bridge'), status('completed', { CallDuration: '70' }), step('leg-answered', 0)])
    expect(r.told).toContainEqual(['handover', 'Alex Rivera', 'sdr'])
    expect(r.state.pendingEnd).toMatchObject({ outcome: null, durationSeconds: 70 })
  })

  test('a leg callback after the end was told changes nothing (what was reported stands)', () => {
    const r = drive([status('in-progress'), amd('human'), step('bridge'), status('completed', { CallDuration: '12' }), step('leg-answered', 0), step('leg-action', 0, { DialCallStatus: 'completed' })], plan({ record: false }))
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'hung_up' })])
    expect(r.told.some((t) => t[0] === 'handover')).toBe(false)
  })

  test('no machine detection: the answer bridges at once and never waits for AMD', () => {
    const r = drive([status('in-progress'), step('answer')], plan({ machineDetection: false }))
    expect(r.told[0]).toEqual(['answered', 'person'])
    expect(r.twiml[1]).toContain('<Dial')
    expect(r.actions.filter((a) => a.type === 'redirect')).toEqual([])
  })
})

describe('a machine answers', () => {
  test('a fax: answered machine, hung up (no voicemail to leave on a fax), a wrong number', () => {
    const r = drive([status('in-progress'), amd('fax'), status('completed', { CallDuration: '5' })], plan({ record: false }))
    expect(r.told[0]).toEqual(['answered', 'machine'])
    expect(r.actions).toEqual([{ type: 'hang-up' }])
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'wrong_number', note: 'A fax machine answered; the call was ended.', voicemailDelivered: false })])
  })

  test.each(['machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other'])('%s: answered machine, the voicemail is dropped', (by) => {
    const r = drive([status('in-progress'), amd(by), step('voicemail'), step('voicemail-done'), status('completed', { CallDuration: '30' })], plan({ record: false }))
    expect(r.told[0]).toEqual(['answered', 'machine'])
    expect(r.actions).toContainEqual({ type: 'redirect', step: 'voicemail' })
    expect(r.twiml[2]).toContain('Hi from Acme Roofing.')
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'voicemail', voicemailDelivered: true })])
  })

  test('the machine hangs up during the drop: outcome voicemail, no voicemail.left', () => {
    const r = drive([status('in-progress'), amd('machine_end_beep'), step('voicemail'), status('completed', { CallDuration: '8' })], plan({ record: false }))
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'voicemail', voicemailDelivered: false })])
  })

  test('an audio_url voicemail is played', () => {
    const r = drive([status('in-progress'), amd('machine_end_beep'), step('voicemail')], plan({ voicemail: { audio_url: 'https://cdn.example.com/vm.mp3?a=1&b=2' } }))
    expect(r.twiml[2]).toContain('<Play>https://cdn.example.com/vm.mp3?a=1&amp;b=2</Play>')
  })
})

describe('calls nobody answers', () => {
  test.each([
    ['no-answer', 'no_answer'],
    ['busy', 'busy'],
    ['failed', 'failed'],
    ['canceled', 'no_answer'],
  ])('CallStatus %s ends as %s, told at once (nothing to record)', (callStatus, outcome) => {
    const r = drive([status('initiated'), status('ringing'), status(callStatus)])
    expect(r.ended).toEqual([expect.objectContaining({ outcome, voicemailDelivered: false })])
    expect(r.told.some((t) => t[0] === 'answered')).toBe(false)
  })
})

describe('out of order and repeated callbacks', () => {
  test('completed before the AMD result: the late AMD changes nothing', () => {
    const r = drive([status('in-progress'), status('completed', { CallDuration: '20' }), amd('machine_end_beep')], plan({ record: false }))
    expect(r.ended).toHaveLength(1)
    expect(r.told.filter((t) => t[0] === 'answered')).toEqual([['answered', 'person']])
  })

  test('the answer fetch after the AMD result bridges at once (the redirect then finds it routed); one after the redirect pauses', () => {
    const early = drive([status('in-progress'), amd('human'), step('answer')])
    expect(early.state.routed).toBe(true)
    expect(early.twiml[2]).toContain('<Dial')
    // The redirect ran first (the carrier marks the call routed when it claims it): no second bridge.
    const { events } = recorder()
    const p = plan()
    const routed = { ...drive([status('in-progress'), amd('human')]).state, routed: true }
    const late = runStep({ callId: CALL, plan: p, publicUrl: BASE, now: NOW, events }, routed, 'answer', null, { CallSid: SID })
    expect(late.twiml).toContain('<Pause')
    expect(late.twiml).not.toContain('<Dial')
  })

  test('transcription lines: stored once by SequenceId, lead or agent by track, bad ones dropped', () => {
    const r = drive([
      status('in-progress'), amd('human'), step('leg-answered', 0),
      line(1), line(1), line(2, 'outbound_track', 'Hi, Alex here'), line(3, 'unknown_track'), line(4, 'inbound_track', '   '),
      step('transcription', undefined, { TranscriptionEvent: 'transcription-content', SequenceId: '5', Track: 'inbound_track', Final: 'false', TranscriptionData: '{"transcript":"partial"}' }),
      step('transcription', undefined, { TranscriptionEvent: 'transcription-content', SequenceId: 'x', Track: 'inbound_track', TranscriptionData: '{"transcript":"bad seq"}' }),
    ])
    expect(r.told.filter((t) => t[0] === 'transcribed')).toEqual([
      ['transcribed', 'lead:Jordan Lee:line 1'],
      ['transcribed', 'agent:Alex Rivera:Hi, Alex here'],
    ])
  })

  test(`at most ${MAX_TRANSCRIPT_LINES} lines a call`, () => {
    const r = drive([status('in-progress'), ...Array.from({ length: MAX_TRANSCRIPT_LINES + 5 }, (_, i) => line(i + 1))])
    expect(r.told.filter((t) => t[0] === 'transcribed')).toHaveLength(MAX_TRANSCRIPT_LINES)
  })

  test('a second recording callback does not download again', () => {
    const r = drive([status('in-progress'), recording(), recording(`RE${'3'.repeat(32)}`)])
    expect(r.actions.filter((a) => a.type === 'download-recording')).toHaveLength(1)
  })

  // Every callback Twilio may send for one call, in an order it could send them.
  const SCRIPTS: Callback[][] = [
    [status('initiated'), status('ringing'), status('in-progress'), step('answer'), amd('human'), step('bridge'), step('leg-answered', 0), line(1), line(2, 'outbound_track'), status('completed', { CallDuration: '95' }), recording()],
    [status('initiated'), status('ringing'), status('in-progress'), step('answer'), amd('machine_end_beep'), step('voicemail'), step('voicemail-done'), status('completed', { CallDuration: '30' }), recording()],
    [status('initiated'), status('ringing'), status('in-progress'), amd('human'), step('bridge'), step('leg-action', 0, { DialCallStatus: 'no-answer' }), step('leg-action', 1, { DialCallStatus: 'busy' }), status('completed', { CallDuration: '40' })],
    [status('initiated'), status('ringing'), status('busy')],
    [status('ringing'), status('no-answer')],
  ]

  test('property: each callback delivered twice (a replay comes after its original) tells the call service exactly what once does', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...SCRIPTS.keys()),
        fc.boolean(),
        fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
        (script, record, delays) => {
          const callbacks = SCRIPTS[script]!
          const once = drive(callbacks, plan({ record }))
          // Each original is followed, some callbacks later, by its replay.
          const slots: { at: number; cb: Callback }[] = []
          callbacks.forEach((cb, i) => {
            slots.push({ at: i * 100, cb })
            slots.push({ at: i * 100 + 1 + (delays[i]! % 250), cb })
          })
          slots.sort((a, b) => a.at - b.at)
          const twice = drive(slots.map((s) => s.cb), plan({ record }))
          // Replays after later callbacks may meet a state that moved on; what the service is told must not change.
          expect(twice.told).toEqual(once.told)
          expect(twice.state.reported).toBe(once.state.reported)
          expect(twice.state.life.stage).toBe(once.state.life.stage)
          expect(twice.told.filter((t) => t[0] === 'answered').length).toBeLessThanOrEqual(1)
          expect(twice.told.filter((t) => t[0] === 'ended').length).toBeLessThanOrEqual(1)
          expect(twice.actions.filter((a) => a.type === 'download-recording').length).toBe(once.actions.filter((a) => a.type === 'download-recording').length)
        },
      ),
      { numRuns: 300 },
    )
  })
})
