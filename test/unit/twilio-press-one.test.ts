import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallEvents, CallReport } from '../../src/telephony/carrier'
import { briefingText, bridgeTwiml, initialCarrierState, PRESS_ONE_SECONDS, whisperTwiml, type CallbackStep, type CallPlan } from '../../src/telephony/twilio/call-plan'
import { runStep } from '../../src/telephony/twilio/callback-steps'
import { parseTwiml } from '../emulators/twilio/emulator-twiml'

setDefaultTimeout(60_000)

// Press 1 to take the call: each person the bridge rings hears a briefing on their own leg and
// only the digit 1 makes them the handover (src/telephony/twilio/press-one-steps.ts), pure.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const BASE = 'https://dialer.example.com'
const CALL = 'call-1'
const SID = `CA${'a'.repeat(32)}`
const LEG_SID = `CA${'b'.repeat(32)}`
const HEAD = '<?xml version="1.0" encoding="UTF-8"?>'
const HANGUP = `${HEAD}<Response><Hangup/></Response>`
const CONNECT = `${HEAD}<Response/>`
const SDR = { id: 'sdr-1', name: 'Alex Rivera', role: 'sdr', phone: '+13125550150' } as const
const CLOSER = { id: null, name: 'Sam Chen', role: 'closer', phone: '+13125550151' } as const

const plan = (over: Partial<CallPlan> = {}): CallPlan => ({
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', campaignName: 'Spring Roofing', agentName: 'Owner Olsen',
  machineDetection: true, record: false, bridge: [{ ...SDR }, { ...CLOSER }], voicemail: null, ...over,
})

interface Callback { step: CallbackStep; leg: number | null; params: Record<string, string> }
const cb = (step: CallbackStep, params: Record<string, string> = {}, leg: number | null = null): Callback => ({ step, leg, params: { CallSid: SID, ...params } })
// Sent from the person's own leg: CallSid is the leg, ParentCallSid the lead's call.
const whisper = (leg: number) => cb('whisper', { CallSid: LEG_SID, ParentCallSid: SID }, leg)
const keypress = (leg: number, Digits?: string) => cb('keypress', { CallSid: LEG_SID, ParentCallSid: SID, ...(Digits === undefined ? {} : { Digits }) }, leg)
const legAction = (leg: number, DialCallStatus: string) => cb('leg-action', { DialCallStatus }, leg)
const PERSON: Callback[] = [cb('status', { CallStatus: 'in-progress' }), cb('amd', { AnsweredBy: 'human' }), cb('bridge')]

function drive(callbacks: Callback[], p: CallPlan = plan()) {
  const handovers: unknown[] = []
  const ended: CallReport[] = []
  const events: CallEvents = {
    answered: () => {}, intent: () => {}, transcribed: () => {}, recorded: () => {},
    handover: (_, person) => void handovers.push(person),
    ended: (_, report) => void ended.push(report),
  }
  let state = initialCarrierState(p)
  const twiml: (string | null)[] = []
  for (const c of callbacks) {
    const result = runStep({ callId: CALL, plan: p, publicUrl: BASE, now: NOW, events }, state, c.step, c.leg, c.params)
    state = result.state
    twiml.push(result.twiml)
  }
  return { state, twiml, handovers, ended, last: twiml[twiml.length - 1] }
}

describe('the TwiML', () => {
  test('each leg dials <Number url> to the whisper step (signed like every callback), no answered status callback', () => {
    const xml = bridgeTwiml(BASE, CALL, plan(), 1, false)!
    expect(xml).toBe(
      `${HEAD}<Response><Dial action="${BASE}/twilio/calls/${CALL}/leg-action?leg=1" method="POST" callerId="+12125550100" timeout="20" answerOnBridge="true">` +
        `<Number url="${BASE}/twilio/calls/${CALL}/whisper?leg=1" method="POST">+13125550151</Number></Dial></Response>`,
    )
  })

  test('the whisper: the lead and the campaign inside a one-digit Gather posting to keypress, then Hangup', () => {
    expect(whisperTwiml(BASE, CALL, plan(), 0)).toBe(
      `${HEAD}<Response><Gather input="dtmf" numDigits="1" timeout="${PRESS_ONE_SECONDS}" action="${BASE}/twilio/calls/${CALL}/keypress?leg=0" method="POST">` +
        '<Say>Call from Jordan Lee for Spring Roofing. Press 1 to take the call.</Say></Gather><Hangup/></Response>',
    )
  })

  test('names are escaped and cut: at most 15 s of speech (2.5 words a second)', () => {
    const long = 'Bartholomew '.repeat(30)
    const text = briefingText(plan({ leadName: long, campaignName: `<${long}&>` }))
    expect(text.split(/\s+/).length).toBeLessThanOrEqual(37)
    expect(text.length).toBeLessThan(180)
    const say = parseTwiml(whisperTwiml(BASE, CALL, plan({ campaignName: 'A & B <C>' }), 0)).children[0]!.children[0]!
    expect(say.text).toBe('Call from Jordan Lee for A & B <C>. Press 1 to take the call.')
    expect(briefingText(plan({ leadName: null, campaignName: undefined }))).toBe('Call from a lead. Press 1 to take the call.')
  })
})

describe('the keypress step', () => {
  test('1: the leg is bridged (empty TwiML) and only then is it the handover; the leg ending ends the call', () => {
    const before = drive([...PERSON, whisper(0)])
    expect(before.handovers).toEqual([])
    expect(before.last).toBe(whisperTwiml(BASE, CALL, plan(), 0))
    const r = drive([...PERSON, whisper(0), keypress(0, '1')])
    expect(r.last).toBe(CONNECT)
    expect(r.handovers).toEqual([{ id: 'sdr-1', name: 'Alex Rivera', role: 'sdr' }])
    expect(r.state.life.handoverLeg).toBe(0)
    const done = drive([...PERSON, whisper(0), keypress(0, '1'), legAction(0, 'completed'), cb('status', { CallStatus: 'completed', CallDuration: '60' })])
    expect(done.twiml[5]).toBe(HANGUP)
    expect(done.handovers).toHaveLength(1)
    expect(done.ended[0]!.outcome).toBeNull()
  })

  test.each([
    ['no digit (the Gather timed out, or a voicemail box)', undefined],
    ['another digit', '2'],
    ['an empty digit', ''],
  ])('%s: that leg hangs up, never the handover; its Dial ending completed rings the next person', (_, digits) => {
    const r = drive([...PERSON, whisper(0), ...(digits === undefined ? [] : [keypress(0, digits)]), legAction(0, 'completed')])
    if (digits !== undefined) expect(r.twiml[4]).toBe(HANGUP)
    expect(r.handovers).toEqual([])
    expect(r.state.life.currentLeg).toBe(1)
    expect(r.last).toBe(bridgeTwiml(BASE, CALL, plan(), 1, false))
    // The closer presses 1: theirs.
    const next = drive([...PERSON, whisper(0), legAction(0, 'completed'), whisper(1), keypress(1, '1')])
    expect(next.last).toBe(CONNECT)
    expect(next.handovers).toEqual([{ id: null, name: 'Sam Chen', role: 'closer' }])
  })

  test('nobody presses 1: nobody took, the lead gets the message and a callback, handled by nobody', () => {
    const r = drive([...PERSON, keypress(0, '2'), legAction(0, 'completed'), legAction(1, 'answered'), cb('status', { CallStatus: 'completed', CallDuration: '50' })])
    expect(r.handovers).toEqual([])
    expect(r.state.nobodyTook).toBe(true)
    expect(r.ended[0]!.outcome).toBe('callback')
  })

  test('replayed: 200 with the same answer, nothing changes', () => {
    const once = drive([...PERSON, keypress(0, '1')])
    const twice = drive([...PERSON, keypress(0, '1'), keypress(0, '1')])
    expect(twice.last).toBe(CONNECT)
    expect(twice.handovers).toHaveLength(1)
    expect(twice.state).toEqual(once.state)
  })

  test('for another leg than the current one, or after the handover: hung up, nothing changes', () => {
    const ahead = drive([...PERSON, keypress(1, '1')])
    expect(ahead.last).toBe(HANGUP)
    expect(ahead.handovers).toEqual([])
    expect(ahead.state).toEqual(drive(PERSON).state)
    const stale = drive([...PERSON, legAction(0, 'no-answer'), keypress(0, '1')])
    expect(stale.last).toBe(HANGUP)
    expect(stale.handovers).toEqual([])
    const after = drive([...PERSON, keypress(0, '1'), keypress(1, '1'), whisper(1)])
    expect(after.twiml.slice(-2)).toEqual([HANGUP, HANGUP])
    expect(after.handovers).toHaveLength(1)
    const ended = drive([...PERSON, cb('status', { CallStatus: 'completed', CallDuration: '9' }), keypress(0, '1')])
    expect(ended.last).toBe(HANGUP)
    expect(ended.handovers).toEqual([])
  })

  test('a whisper for a leg not ringing now hangs up before it says anything', () => {
    expect(drive([...PERSON, whisper(1)]).last).toBe(HANGUP)
    expect(drive([cb('status', { CallStatus: 'ringing' }), whisper(0)]).last).toBe(HANGUP)
  })

  test('a call placed before press 1 (no pressOne in its state) still counts an answered leg as the handover', () => {
    const p = plan()
    const old = initialCarrierState(p)
    delete old.life.pressOne
    const events: CallEvents = { answered: () => {}, intent: () => {}, transcribed: () => {}, recorded: () => {}, handover: () => {}, ended: () => {} }
    let state = old
    for (const c of [...PERSON, legAction(0, 'completed')]) state = runStep({ callId: CALL, plan: p, publicUrl: BASE, now: NOW, events }, state, c.step, c.leg, c.params).state
    expect(state.life.handoverLeg).toBe(0)
  })
})
