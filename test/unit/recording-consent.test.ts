import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { callingRules } from '../../src/domain/calling-rules'
import { recordingConsentOf } from '../../src/domain/calls/recording-consent'
import { FakeClock } from '../../src/jobs/clock'
import { FakeScheduler } from '../../src/jobs/scheduler'
import { DEFAULT_RECORDING_NOTICE } from '../../src/telephony/call-values'
import type { CallEvents, CallReport, DialRequest } from '../../src/telephony/carrier'
import { SimulatedCarrier } from '../../src/telephony/simulator/simulated-carrier'
import { answerTwiml, initialCarrierState, type CallbackStep, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { runStep, type RestAction } from '../../src/telephony/twilio/callback-steps'
import { TwilioRestClient } from '../../src/telephony/twilio/rest-client'

setDefaultTimeout(60_000)

// Recording consent (issue 27, item 3): where a state of the lead requires every party's consent
// the call starts unrecorded, the notice plays after the answer and recording starts only after it.

const NOW = Date.parse('2026-03-02T18:00:00Z')
const BASE = 'https://dialer.example.com'
const CALL = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
const SID = `CA${'1'.repeat(32)}`
const ANNOUNCED_URL = `${BASE}/twilio/calls/${CALL}/announced`
const CA_CONSENT = { requiredBy: ['CA'], notice: { say: DEFAULT_RECORDING_NOTICE } }

const plan = (over: Partial<CallPlan> = {}): CallPlan => ({
  to: '+14155550123', from: '+14155550100', leadName: 'Jordan Lee', agentName: 'Alex Rivera', machineDetection: false, record: true,
  bridge: [{ id: 'sdr-1', name: 'Alex Rivera', role: 'sdr', phone: '+13125550150' }] as CallPlan['bridge'],
  voicemail: { say: 'Hi from Acme Roofing.' },
  ...over,
})

function drive(steps: { step: CallbackStep; params?: Record<string, string> }[], p: CallPlan) {
  const told: [string, ...unknown[]][] = []
  const events: CallEvents = {
    answered: (_, by) => told.push(['answered', by]), intent: () => {}, handover: () => {}, transcribed: () => {}, recorded: () => {},
    ended: (_, report) => told.push(['ended', report]),
    announced: (_, at) => told.push(['announced', at]),
  }
  let state: CarrierState = initialCarrierState(p)
  const twiml: (string | null)[] = []
  const actions: RestAction[] = []
  for (const s of steps) {
    const result = runStep({ callId: CALL, plan: p, publicUrl: BASE, now: NOW, events }, state, s.step, null, { CallSid: SID, ...s.params })
    state = result.state
    twiml.push(result.twiml)
    actions.push(...result.actions)
  }
  return { state, told, twiml, actions }
}

describe('which calls need the notice', () => {
  const of = (phone: string, address: string | null = null, recordingEnabled = true, notice: { say: string } | { audio_url: string } | null = null) =>
    recordingConsentOf(callingRules, { phone, address, orgTimezone: 'America/New_York', recordingEnabled, notice })

  test('a California number: required by CA, the default sentence said', () => {
    const consent = of('+14155550123')
    expect(consent?.stored).toEqual({ required_by: ['CA'], announced_at: null, method: 'say' })
    expect(consent?.carrier).toEqual({ requiredBy: ['CA'], notice: { say: 'This call may be recorded.' } })
  })

  test('one-party states (NY, TX) need none; nor does an organization that does not record', () => {
    expect(of('+12125550123')).toBeNull()
    expect(of('+12145550123')).toBeNull()
    expect(of('+14155550123', null, false)).toBeNull()
  })

  test('the address counts too: a New York number living in Pennsylvania; the campaign notice and its method are kept', () => {
    const consent = of('+12125550123', '100 Main St, Philadelphia, PA 19103', true, { audio_url: 'https://cdn.example.com/notice.mp3' })
    expect(consent?.stored).toEqual({ required_by: ['PA'], announced_at: null, method: 'audio_url' })
    expect(consent?.carrier.notice).toEqual({ audio_url: 'https://cdn.example.com/notice.mp3' })
  })
})

describe('TwiML: notice first in all-party states, as today elsewhere', () => {
  test('a one-party call bridges at once with transcription', () => {
    const { twiml } = answerTwiml(BASE, CALL, plan(), initialCarrierState(plan()))
    expect(twiml).toContain('<Transcription')
    expect(twiml).toContain('<Dial')
    expect(twiml).not.toContain('/announced')
  })

  test('an all-party call says the notice, then redirects to announced; nothing is transcribed or dialed before it', () => {
    const p = plan({ consent: CA_CONSENT })
    const { twiml } = answerTwiml(BASE, CALL, p, initialCarrierState(p))
    expect(twiml).toBe(`<?xml version="1.0" encoding="UTF-8"?><Response><Say>This call may be recorded.</Say><Redirect method="POST">${ANNOUNCED_URL}</Redirect></Response>`)
  })

  test('an audio notice is played; with detection the hold starts no transcription', () => {
    const p = plan({ consent: { requiredBy: ['CA'], notice: { audio_url: 'https://cdn.example.com/n.mp3' } } })
    expect(answerTwiml(BASE, CALL, p, initialCarrierState(p)).twiml).toContain('<Play>https://cdn.example.com/n.mp3</Play>')
    const amd = { ...p, machineDetection: true }
    const hold = answerTwiml(BASE, CALL, amd, initialCarrierState(amd)).twiml
    expect(hold).toContain('<Pause')
    expect(hold).not.toContain('<Transcription')
    // A one-party call's hold still transcribes.
    const plain = plan({ machineDetection: true })
    expect(answerTwiml(BASE, CALL, plain, initialCarrierState(plain)).twiml).toContain('<Transcription')
  })
})

describe('the announced step', () => {
  test('the notice ended: announced told, recording asked for once, the bridge starts with transcription', () => {
    const r = drive([{ step: 'answer' }, { step: 'announced' }, { step: 'announced' }], plan({ consent: CA_CONSENT }))
    expect(r.twiml[0]).toContain('<Say>This call may be recorded.</Say>')
    expect(r.twiml[1]).toContain('<Dial')
    expect(r.twiml[1]).toContain('<Transcription')
    expect(r.actions).toEqual([{ type: 'start-recording' }])
    expect(r.told.filter((t) => t[0] === 'announced')).toEqual([['announced', NOW]])
    expect(r.state.announcedAt).toBe(NOW)
  })

  test('with detection: AMD human redirects to bridge, which says the notice first; a machine hears it before the voicemail', () => {
    const p = plan({ consent: CA_CONSENT, machineDetection: true })
    const person = drive([{ step: 'status', params: { CallStatus: 'in-progress' } }, { step: 'answer' }, { step: 'amd', params: { AnsweredBy: 'human' } }, { step: 'bridge' }, { step: 'announced' }], p)
    expect(person.twiml[3]).toContain('/announced')
    expect(person.twiml[4]).toContain('<Dial')
    const machine = drive([{ step: 'status', params: { CallStatus: 'in-progress' } }, { step: 'answer' }, { step: 'amd', params: { AnsweredBy: 'machine_end_beep' } }, { step: 'voicemail' }, { step: 'announced' }], p)
    expect(machine.twiml[3]).toContain('/announced')
    expect(machine.twiml[4]).toContain('Hi from Acme Roofing.')
    expect(machine.actions).toContainEqual({ type: 'start-recording' })
  })

  test('a lead who hangs up during the notice: nothing recorded, the end waits for no recording', () => {
    const r = drive([{ step: 'answer' }, { step: 'status', params: { CallStatus: 'completed', CallDuration: '1' } }], plan({ consent: CA_CONSENT }))
    expect(r.actions).not.toContainEqual({ type: 'wait-for-recording' })
    expect(r.actions).not.toContainEqual({ type: 'start-recording' })
    expect(r.told.some((t) => t[0] === 'ended')).toBe(true)
  })

  test('after the notice the end waits for the recording, as a one-party call does', () => {
    const r = drive([{ step: 'answer' }, { step: 'announced' }, { step: 'status', params: { CallStatus: 'completed', CallDuration: '30' } }], plan({ consent: CA_CONSENT }))
    expect(r.actions).toContainEqual({ type: 'wait-for-recording' })
    expect(r.told.some((t) => t[0] === 'ended')).toBe(false)
  })

  test('announced on a call without consent rules, or after its end, hangs up and starts nothing', () => {
    const r = drive([{ step: 'answer' }, { step: 'announced' }], plan())
    expect(r.twiml[1]).toContain('<Hangup/>')
    expect(r.actions).toEqual([])
  })
})

describe('Twilio REST: start recording a live call', () => {
  test('POST .../Calls/{Sid}/Recordings.json with the callback and its events space-separated', async () => {
    const seen: { url: string; body: string }[] = []
    const client = new TwilioRestClient({ accountSid: `AC${'a'.repeat(32)}`, authToken: 't', apiBaseUrl: 'https://api.twilio.test' }, {
      fetch: async (url, init) => {
        seen.push({ url, body: String(init.body) })
        return Response.json({ sid: `RE${'2'.repeat(32)}`, status: 'in-progress' }, { status: 201 })
      },
    })
    const result = await client.startRecording(SID, { statusCallback: `${BASE}/twilio/calls/${CALL}/recording`, events: ['completed', 'absent'] })
    expect(result).toEqual({ ok: true, value: { sid: `RE${'2'.repeat(32)}` } })
    expect(seen[0]!.url).toBe(`https://api.twilio.test/2010-04-01/Accounts/AC${'a'.repeat(32)}/Calls/${SID}/Recordings.json`)
    const form = new URLSearchParams(seen[0]!.body)
    expect(form.get('RecordingStatusCallback')).toBe(`${BASE}/twilio/calls/${CALL}/recording`)
    expect(form.get('RecordingStatusCallbackMethod')).toBe('POST')
    expect(form.getAll('RecordingStatusCallbackEvent')).toEqual(['completed absent'])
    expect(await client.startRecording('nope', { statusCallback: BASE, events: [] })).toMatchObject({ ok: false, error: { kind: 'rejected' } })
  })
})

describe('the simulator mirrors it', () => {
  const START = Date.parse('2026-03-02T15:00:00Z')
  function run(request: Partial<DialRequest>) {
    const clock = new FakeClock(START)
    const scheduler = new FakeScheduler(clock)
    const carrier = new SimulatedCarrier({ clock, scheduler, speed: 1 })
    const seen: { kind: string; at: number; report?: CallReport }[] = []
    carrier.dial({
      callId: 'call-1', orgId: 'org-1', to: '+14155550101', livemode: false, record: true, leadName: 'Jordan Lee', agentName: 'Alex Rivera',
      leadZone: 'America/Los_Angeles', callerId: null, machineDetection: true, onAnswer: { bridge: [], voicemail: null }, ...request,
    }, {
      answered: () => void seen.push({ kind: 'answered', at: clock.now() }), intent: () => {}, handover: () => {}, transcribed: () => {}, recorded: () => {},
      ended: (_, report) => void seen.push({ kind: 'ended', at: clock.now(), report }),
      announced: (_, at) => void seen.push({ kind: 'announced', at }),
    })
    return { scheduler, seen }
  }

  test('answer, then the notice (26 characters: 1.7 s), then the call is recorded', async () => {
    const { scheduler, seen } = run({ consent: CA_CONSENT })
    await scheduler.advanceTo(START + 120_000)
    expect(seen.map((s) => s.kind)).toEqual(['answered', 'announced', 'ended'])
    expect(seen[1]!.at - seen[0]!.at).toBe(Math.round((DEFAULT_RECORDING_NOTICE.length / 15) * 1000))
    expect(seen[2]!.report?.recorded).toBe(true)
  })

  test('without consent rules nothing is announced; an organization that does not record records nothing', async () => {
    const plain = run({})
    await plain.scheduler.advanceTo(START + 120_000)
    expect(plain.seen.map((s) => s.kind)).toEqual(['answered', 'ended'])
    const off = run({ record: false, consent: CA_CONSENT })
    await off.scheduler.advanceTo(START + 120_000)
    expect(off.seen.map((s) => s.kind)).toEqual(['answered', 'ended'])
    expect(off.seen[1]!.report?.recorded).toBe(false)
  })
})
