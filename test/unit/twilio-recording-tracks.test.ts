import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallEvents, CallReport } from '../../src/telephony/carrier'
import { initialCarrierState, type CallbackStep, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { runStep, type RestAction } from '../../src/telephony/twilio/callback-steps'
import { TRACK_LABELS } from '../../src/telephony/twilio/twiml'

setDefaultTimeout(60_000)

// A recording Twilio never made (RecordingStatus absent or failed) ends the call's wait for it at
// once; transcription lines are read whether Track names the track or carries our label for it.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const CALL = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
const SID = `CA${'1'.repeat(32)}`
const REC = `RE${'2'.repeat(32)}`

const plan: CallPlan = {
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', agentName: 'Owner', machineDetection: true, record: true,
  bridge: [{ id: 'sdr-1', name: 'Alex Rivera', role: 'sdr', phone: '+13125550150' }] as CallPlan['bridge'],
  voicemail: null,
}

interface Callback { step: CallbackStep; leg?: number; params: Record<string, string> }
const cb = (step: CallbackStep, params: Record<string, string> = {}, leg?: number): Callback => ({ step, leg, params: { CallSid: SID, ...params } })
const status = (CallStatus: string, extra: Record<string, string> = {}) => cb('status', { CallStatus, ...extra })
const recording = (RecordingStatus: string) => cb('recording', { RecordingSid: REC, RecordingStatus })
const line = (seq: number, Track: string, text: string) => cb('transcription', {
  TranscriptionEvent: 'transcription-content', SequenceId: String(seq), Track, Final: 'true', TranscriptionData: JSON.stringify({ transcript: text }),
})
const answered = [status('in-progress'), cb('amd', { AnsweredBy: 'human' }), cb('leg-answered', {}, 0)]

function drive(callbacks: Callback[]) {
  const ended: CallReport[] = []
  const lines: string[] = []
  const events: CallEvents = {
    answered: () => {}, intent: () => {}, handover: () => {}, recorded: () => {},
    ended: (_, report) => ended.push(report),
    transcribed: (_, told) => lines.push(...told.map((l) => `${l.speaker}:${l.name}:${l.text}`)),
  }
  let state: CarrierState = initialCarrierState(plan)
  const actions: RestAction[] = []
  for (const c of callbacks) {
    const r = runStep({ callId: CALL, plan, publicUrl: 'https://dialer.example.com', now: NOW, events }, state, c.step, c.leg ?? null, c.params)
    state = r.state
    actions.push(...r.actions)
  }
  // The bridge's redirect (AMD said human) is not what these tests are about.
  return { state, ended, lines, actions: actions.filter((a) => a.type !== 'redirect') }
}

describe('a recording Twilio did not make', () => {
  test.each(['absent', 'failed'])('%s after the end: the waiting call is told at once, without a recording', (fate) => {
    const r = drive([...answered, status('completed', { CallDuration: '40' }), recording(fate)])
    expect(r.actions).toEqual([{ type: 'wait-for-recording' }])
    expect(r.ended).toEqual([expect.objectContaining({ outcome: null, recorded: false, durationSeconds: 40 })])
    expect(r.state).toMatchObject({ reported: true, pendingEnd: null, recordingAbsent: true, recordingSid: null })
  })

  test.each(['absent', 'failed'])('%s before the final status (callbacks out of order): the end does not wait at all', (fate) => {
    const r = drive([...answered, recording(fate), status('completed', { CallDuration: '40' })])
    expect(r.actions).toEqual([])
    expect(r.ended).toEqual([expect.objectContaining({ recorded: false, durationSeconds: 40 })])
    expect(r.state.reported).toBe(true)
  })

  test('twice, or after the end was told: told once', () => {
    const r = drive([...answered, status('completed', { CallDuration: '40' }), recording('absent'), recording('absent'), recording('failed')])
    expect(r.ended).toHaveLength(1)
  })

  test('after a completed recording: ignored (that one is downloaded)', () => {
    const r = drive([...answered, status('completed', { CallDuration: '40' }), recording('completed'), recording('absent')])
    expect(r.actions).toEqual([{ type: 'wait-for-recording' }, { type: 'download-recording', recordingSid: REC }])
    expect(r.ended).toEqual([])
    expect(r.state.recordingAbsent).toBeUndefined()
  })

  test('in-progress (not subscribed, but harmless) changes nothing', () => {
    const r = drive([...answered, status('completed', { CallDuration: '40' }), recording('in-progress')])
    expect(r.ended).toEqual([])
    expect(r.state.pendingEnd).not.toBeNull()
  })
})

describe('transcription tracks', () => {
  test('inbound_track and our inbound label are the lead; outbound_track and our outbound label the person on our side', () => {
    const r = drive([...answered,
      line(1, 'inbound_track', 'one'), line(2, TRACK_LABELS.inbound, 'two'), line(3, 'outbound_track', 'three'), line(4, TRACK_LABELS.outbound, 'four'),
      line(5, 'someone_else', 'dropped'), line(6, 'Lead', 'dropped too')])
    expect(r.lines).toEqual(['lead:Jordan Lee:one', 'lead:Jordan Lee:two', 'agent:Alex Rivera:three', 'agent:Alex Rivera:four'])
  })

  test('the labels are the ones our <Transcription> gives', () => {
    expect(TRACK_LABELS).toEqual({ inbound: 'lead', outbound: 'agent' })
  })
})
