import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallEvents, CallReport } from '../../src/telephony/carrier'
import type { SeatControl } from '../../src/telephony/media-stream/contract'
import { readStreamToken } from '../../src/telephony/media-stream/stream-token'
import { AI_NAME, streamUrlOf, takebackText } from '../../src/telephony/twilio/ai-seat-steps'
import { initialCarrierState, type CallbackStep, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { NOBODY_TOOK_CALLBACK_MS, runStep, type RestAction } from '../../src/telephony/twilio/callback-steps'
import { OPTED_OUT_MESSAGE } from '../../src/telephony/twilio/conference-steps'
import { applyControl, applyFailure } from '../../src/telephony/twilio/seat-controls'
import { CALLBACK_NOTE, HUNG_UP_NOTE, OPT_OUT_NOTE_DTMF, onSeatNext, seatInterrupted } from '../../src/telephony/twilio/seat-next-steps'
import type { SeatPort } from '../../src/telephony/ports'

setDefaultTimeout(60_000)

// The AI seat's steps on Twilio (src/telephony/twilio/ai-seat-steps.ts, seat-controls.ts,
// seat-next-steps.ts), pure: the seat's TwiML for a person, the agent's decisions, the TwiML after
// the stream and the call's report.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const BASE = 'https://dialer.example.com'
const CALL = 'call-ai-1'
const ORG = 'org-1'
const SID = `CA${'a'.repeat(32)}`
const KEY = new Uint8Array(32).fill(7)
const HEAD = '<?xml version="1.0" encoding="UTF-8"?>'
const HANGUP = `${HEAD}<Response><Hangup/></Response>`
const DISCLOSURE = 'Hi, this is an automated assistant calling for Acme Roofing.'
const SDR = { id: 'sdr-1', name: 'Alex Rivera', role: 'sdr' as const, phone: '+13125550150' }

const plan = (over: Partial<CallPlan> = {}): CallPlan => ({
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', campaignName: 'Spring Roofing', agentName: 'Owner Olsen',
  machineDetection: false, record: false, bridge: [SDR], voicemail: { say: 'Hi from Acme.' }, dialMode: 'bridge', campaignId: 'camp-1',
  ai: { url: 'wss://agent.example.com/media', parameters: { behaviour: 'x' }, firstAudioMs: 2000, disclosure: { say: DISCLOSURE }, leadId: 'lead-1', orgName: 'Acme Roofing' },
  ...over,
})

type Op =
  | { step: CallbackStep; params?: Record<string, string>; leg?: number }
  | { admit: true }
  | { control: SeatControl }
  | { failed: 'unreachable' | 'silent' | 'dropped' }

const cb = (step: CallbackStep, params: Record<string, string> = {}, leg?: number): Op => ({ step, params, leg })
const COMPLETED = cb('status', { CallStatus: 'completed', CallDuration: '40' })
const ADMIT: Op = { admit: true }
const control = (c: SeatControl): Op => ({ control: c })

function drive(ops: Op[], p: CallPlan = plan(), options: { waiting?: number } = {}) {
  const told: unknown[][] = []
  const ended: CallReport[] = []
  const controls: unknown[] = []
  let waiting = options.waiting ?? 0
  let claims = 0
  const seats: SeatPort = {
    claim: () => (claims++, waiting > 0 ? (waiting--, { seatId: 's1', conference: 'seat-s1', person: { id: 'sdr-9', name: 'Sid Seated', role: 'sdr' } }) : null),
    release: () => {},
  }
  const events: CallEvents = {
    answered: (_, by) => void told.push(['answered', by]),
    intent: (_, excerpt, confidence) => void told.push(['intent', excerpt, confidence]),
    handover: (_, person) => void told.push(['handover', person?.name]),
    ended: (_, report) => void (ended.push(report), told.push(['ended'])),
    transcribed: (_, lines) => void told.push(['transcribed', ...lines.map((l) => `${l.speaker}:${l.name}:${l.text}`)]),
    recorded: () => {},
    connected: (_, at) => void told.push(['connected', at]),
    personAnswered: () => void told.push(['personAnswered']),
  }
  let state: CarrierState = initialCarrierState(p)
  const twiml: (string | null)[] = []
  const actions: RestAction[] = []
  for (const op of ops) {
    if ('admit' in op) {
      state = { ...state, seat: { ...state.seat!, stage: 'streaming', streamStarted: true } }
    } else if ('control' in op) {
      const out = applyControl({ callId: CALL, plan: p, now: NOW, events }, state, op.control)
      controls.push(out.result)
      state = out.state
    } else if ('failed' in op) {
      state = applyFailure(p, state, op.failed) ?? state
    } else {
      const r = runStep({ callId: CALL, orgId: ORG, plan: p, publicUrl: BASE, now: NOW, events, seats, streamKey: KEY }, state, op.step, op.leg ?? null, { CallSid: SID, ...op.params })
      state = r.state
      twiml.push(r.twiml)
      actions.push(...r.actions)
    }
  }
  return { state, told, twiml, actions, ended, controls, claims: () => claims }
}

const tokenOf = (twiml: string): string => /name="dialer_stream_token" value="([^"]+)"/.exec(twiml)![1]!

describe('the seat is served to a person', () => {
  test('detection off: the disclosure, transcription, then <Connect><Stream> with the call\'s token; connected now', () => {
    const r = drive([cb('answer')])
    const token = tokenOf(r.twiml[0]!)
    expect(r.twiml[0]).toBe(`${HEAD}<Response><Say>${DISCLOSURE}</Say><Start><Transcription statusCallbackUrl="${BASE}/twilio/calls/${CALL}/transcription" statusCallbackMethod="POST" track="both_tracks" inboundTrackLabel="lead" outboundTrackLabel="agent" languageCode="en-US" partialResults="false"/></Start>`
      + `<Connect action="${BASE}/twilio/calls/${CALL}/seat-next" method="POST"><Stream url="wss://dialer.example.com/twilio/streams"><Parameter name="dialer_stream_token" value="${token}"/></Stream></Connect></Response>`)
    expect(readStreamToken(KEY, token, NOW)).toEqual({ callId: CALL, orgId: ORG })
    expect(r.told).toEqual([['answered', 'person'], ['personAnswered'], ['connected', NOW]])
    expect(r.state.seat).toMatchObject({ stage: 'waiting', streamStarted: false, decision: null })
    expect(r.state.routed).toBe(true)
  })

  test.each([
    ['https://dialer.example.com', 'wss://dialer.example.com/twilio/streams'],
    ['http://127.0.0.1:8080/', 'ws://127.0.0.1:8080/twilio/streams'],
    ['https://dialer.example.com:8443/base', 'wss://dialer.example.com:8443/twilio/streams'],
  ])('the stream URL of %s is %s', (publicUrl, url) => {
    expect(streamUrlOf(publicUrl)).toBe(url)
  })

  test('an audio disclosure is played', () => {
    const r = drive([cb('answer')], plan({ ai: { ...plan().ai!, disclosure: { audio_url: 'https://cdn.example.com/ai.mp3' } } }))
    expect(r.twiml[0]).toContain('<Play>https://cdn.example.com/ai.mp3</Play>')
  })

  test('detection on: the hold, then the AMD result redirects to the seat (no second transcription); connected at the seat', () => {
    const r = drive([cb('answer'), cb('amd', { AnsweredBy: 'human' }), cb('seat')], plan({ machineDetection: true }))
    expect(r.twiml[0]).toContain('<Pause')
    expect(r.actions).toEqual([{ type: 'redirect', step: 'seat' }])
    expect(r.twiml[2]).toContain('<Connect action=')
    expect(r.twiml[2]).not.toContain('<Transcription')
    expect(r.told.filter((t) => t[0] === 'connected')).toHaveLength(1)
  })

  test('detection on, a machine: the voicemail drop as on any call, no seat', () => {
    const r = drive([cb('answer'), cb('amd', { AnsweredBy: 'machine_end_beep' }), cb('voicemail'), cb('voicemail-done'), COMPLETED], plan({ machineDetection: true }))
    expect(r.actions).toContainEqual({ type: 'redirect', step: 'voicemail' })
    expect(r.state.seat).toBeUndefined()
    expect(r.ended[0]).toMatchObject({ outcome: 'voicemail', voicemailDelivered: true })
  })

  test('the recording notice is owed: it plays first, the seat follows at announced (transcription with it)', () => {
    const p = plan({ record: true, consent: { requiredBy: ['CA'], notice: { say: 'This call may be recorded.' } } })
    const r = drive([cb('answer'), cb('announced')], p)
    expect(r.twiml[0]).toContain('This call may be recorded.')
    expect(r.twiml[0]).not.toContain('<Connect')
    expect(r.twiml[1]).toContain('<Transcription')
    expect(r.twiml[1]).toContain('<Connect action=')
    expect(r.actions).toEqual([{ type: 'start-recording' }])
  })

  test('power mode: the answer claims no seat (the AI answers at once)', () => {
    const r = drive([cb('answer')], plan({ dialMode: 'power' }), { waiting: 1 })
    expect(r.claims()).toBe(0)
    expect(r.twiml[0]).toContain('<Connect action=')
  })

  test('a repeated answer before the stream started serves the seat again; after, it hangs up', () => {
    const r = drive([cb('answer'), cb('seat'), ADMIT, cb('seat')])
    expect(r.twiml[1]).toContain('<Connect action=')
    expect(r.twiml[2]).toBe(HANGUP)
    expect(r.told.filter((t) => t[0] === 'connected')).toHaveLength(1)
  })

  test('no stream key: the call is taken back at once', () => {
    const p = plan()
    const events = { answered() {}, intent() {}, handover() {}, ended() {}, transcribed() {}, recorded() {} } as CallEvents
    const r = runStep({ callId: CALL, orgId: ORG, plan: p, publicUrl: BASE, now: NOW, events }, initialCarrierState(p), 'answer', null, { CallSid: SID })
    expect(r.twiml).toBe(`${HEAD}<Response><Say>${takebackText('Acme Roofing')}</Say><Hangup/></Response>`)
    expect(r.state.seat?.decision).toEqual({ kind: 'takeback', why: 'unreachable' })
  })
})

const interested = control({ event: 'dialer.interested', excerpt: 'Yes, send someone', confidence: 0.9, summary: 'Wants a roof quote this week.' })

describe('the agent decides; seat-next carries it out; the report', () => {
  test.each<[string, Op[], string, Partial<CallReport>]>([
    ['callback', [control({ event: 'dialer.callback', at: NOW + 86_400_000 })], HANGUP, { outcome: 'callback', callbackAt: NOW + 86_400_000, note: CALLBACK_NOTE }],
    ['callback in the past is now', [control({ event: 'dialer.callback', at: NOW - 5_000 })], HANGUP, { outcome: 'callback', callbackAt: NOW }],
    ['opt_out (agent)', [control({ event: 'dialer.opt_out', via: 'agent' })], `${HEAD}<Response><Say>${OPTED_OUT_MESSAGE}</Say><Hangup/></Response>`, { outcome: 'dnc', optOut: true, dncSource: 'ai' }],
    ['opt_out (the lead pressed 9)', [control({ event: 'dialer.opt_out', via: 'dtmf' })], `${HEAD}<Response><Say>${OPTED_OUT_MESSAGE}</Say><Hangup/></Response>`, { outcome: 'dnc', optOut: true, dncSource: 'ai', note: OPT_OUT_NOTE_DTMF }],
    ['end', [control({ event: 'dialer.end', outcome: 'not_interested', note: 'Has a roofer.' })], HANGUP, { outcome: 'not_interested', note: 'Has a roofer.', optOut: false }],
    ['silent agent', [{ failed: 'silent' }], `${HEAD}<Response><Say>${takebackText('Acme Roofing')}</Say><Hangup/></Response>`, { outcome: 'callback', callbackAt: NOW + NOBODY_TOOK_CALLBACK_MS }],
    ['no decision, the stream ended', [], `${HEAD}<Response><Say>${takebackText('Acme Roofing')}</Say><Hangup/></Response>`, { outcome: 'callback', callbackAt: NOW + NOBODY_TOOK_CALLBACK_MS }],
  ])('%s', (_, middle, next, report) => {
    const r = drive([cb('answer'), ADMIT, ...middle, cb('seat-next'), COMPLETED])
    expect(r.twiml[1]).toBe(next)
    expect(r.ended).toEqual([expect.objectContaining(report)])
    expect(r.state.seat?.stage).toBe('over')
  })

  test('a later decision changes nothing (applied false); transcript lines still come', () => {
    const r = drive([cb('answer'), ADMIT, control({ event: 'dialer.callback', at: NOW }), control({ event: 'dialer.opt_out', via: 'agent' }), control({ event: 'dialer.transcript', speaker: 'ai', text: 'Bye!' })])
    expect(r.controls).toEqual([{ applied: true, endsStream: true }, { applied: false, endsStream: false }, { applied: true, endsStream: false }])
    expect(r.state.seat?.decision).toEqual({ kind: 'callback', at: NOW })
  })

  test('controls before the stream started, or after the call ended, change nothing', () => {
    const r = drive([cb('answer'), control({ event: 'dialer.opt_out', via: 'agent' }), ADMIT, COMPLETED, control({ event: 'dialer.opt_out', via: 'agent' })])
    expect(r.controls).toEqual([{ applied: false, endsStream: false }, { applied: false, endsStream: false }])
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'hung_up', note: HUNG_UP_NOTE })])
  })

  test('interested, bridge mode: intent; the press-1 bridge whose briefing reads the summary; the SDR takes it and files', () => {
    const r = drive([cb('answer'), ADMIT, interested, cb('seat-next'), cb('whisper', {}, 0), cb('keypress', { Digits: '1' }, 0), COMPLETED])
    expect(r.told).toContainEqual(['intent', 'Yes, send someone', 0.9])
    expect(r.twiml[1]).toContain(`<Number url="${BASE}/twilio/calls/${CALL}/whisper?leg=0"`)
    expect(r.twiml[1]).not.toContain('<Transcription')
    expect(r.twiml[2]).toContain('Call from Jordan Lee for Spring Roofing. The assistant says: Wants a roof quote this week. Press 1 to take the call.')
    expect(r.told).toContainEqual(['handover', 'Alex Rivera'])
    expect(r.ended).toEqual([expect.objectContaining({ outcome: null })])
  })

  test('interested, power mode with a seat waiting: its room, its person is the handover; a repeat claims nothing', () => {
    const r = drive([cb('answer'), ADMIT, interested, cb('seat-next'), cb('seat-next')], plan({ dialMode: 'power' }), { waiting: 1 })
    expect(r.twiml[1]).toContain('<Conference')
    expect(r.twiml[1]).toContain('seat-s1')
    expect(r.twiml[2]).toBe(r.twiml[1])
    expect(r.claims()).toBe(1)
    expect(r.told.filter((t) => t[0] === 'handover')).toEqual([['handover', 'Sid Seated']])
  })

  test('interested, predictive with no seat free: the press-1 bridge', () => {
    const r = drive([cb('answer'), ADMIT, interested, cb('seat-next')], plan({ dialMode: 'predictive' }))
    expect(r.claims()).toBe(1)
    expect(r.twiml[1]).toContain('<Dial')
  })

  test('interested, nobody on the campaign: the nobody-took message and a callback', () => {
    const r = drive([cb('answer'), ADMIT, interested, cb('seat-next'), COMPLETED], plan({ bridge: [] }))
    expect(r.twiml[1]).toContain('Everyone on our team is busy')
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'callback', callbackAt: NOW + NOBODY_TOOK_CALLBACK_MS })])
  })

  test('the lead hangs up with no decision: hung_up', () => {
    const r = drive([cb('answer'), ADMIT, COMPLETED])
    expect(r.ended).toEqual([expect.objectContaining({ outcome: 'hung_up', note: HUNG_UP_NOTE })])
  })
})

const line = (seq: number, track: string, text: string): Op => cb('transcription', {
  TranscriptionEvent: 'transcription-content', SequenceId: String(seq), Track: track, Final: 'true',
  TranscriptionData: JSON.stringify({ transcript: text }), Timestamp: new Date(NOW - 1000).toISOString(),
})

describe('transcripts during the seat', () => {
  test('the agent sent none: Twilio\'s lines are held and told at the seat\'s end, the outbound track as the AI', () => {
    const r = drive([cb('answer'), ADMIT, line(1, 'outbound_track', 'Hello!'), line(2, 'inbound_track', 'Hi.'), control({ event: 'dialer.end', outcome: 'not_interested', note: null })])
    expect(r.told.filter((t) => t[0] === 'transcribed')).toEqual([])
    const after = drive([cb('answer'), ADMIT, line(1, 'outbound_track', 'Hello!'), line(2, 'inbound_track', 'Hi.'), cb('seat-next')])
    expect(after.told.filter((t) => t[0] === 'transcribed')).toEqual([['transcribed', `ai:${AI_NAME}:Hello!`, 'lead:Jordan Lee:Hi.']])
  })

  test('the agent sent its own: those in order, Twilio\'s of the seat dropped (also late ones)', () => {
    const r = drive([
      cb('answer'), ADMIT, line(1, 'outbound_track', 'Hello!'),
      control({ event: 'dialer.transcript', speaker: 'ai', text: 'Hello from the agent' }), control({ event: 'dialer.transcript', speaker: 'lead', text: 'Hi agent' }),
      cb('seat-next'), line(2, 'inbound_track', 'late seat line'),
    ])
    expect(r.told.filter((t) => t[0] === 'transcribed')).toEqual([
      ['transcribed', `ai:${AI_NAME}:Hello from the agent`], ['transcribed', 'lead:Jordan Lee:Hi agent'],
    ])
  })

  test('the lead hangs up during the seat: held lines are told with the end', () => {
    const r = drive([cb('answer'), ADMIT, line(1, 'inbound_track', 'Not now.'), COMPLETED])
    expect(r.told.slice(-2)).toEqual([['transcribed', 'lead:Jordan Lee:Not now.'], ['ended']])
  })
})

describe('a restart with the seat in progress', () => {
  test('a streaming seat is interrupted; seat-next with restart takes it back, a made decision stands', () => {
    const r = drive([cb('answer'), ADMIT])
    expect(seatInterrupted(r.state)).toBe(true)
    const events = { answered() {}, intent() {}, handover() {}, ended() {}, transcribed() {}, recorded() {} } as CallEvents
    const ctx = { callId: CALL, orgId: ORG, plan: plan(), publicUrl: BASE, now: NOW, events, streamKey: KEY }
    const taken = onSeatNext(ctx, applyFailure(plan(), r.state, 'restart')!, 'restart')
    expect(taken.twiml).toContain(takebackText('Acme Roofing'))
    expect(taken.state.seat?.decision).toEqual({ kind: 'takeback', why: 'restart' })
    expect(seatInterrupted(taken.state)).toBe(false)
    const decided = applyControl(ctx, r.state, { event: 'dialer.opt_out', via: 'agent' }).state
    expect(applyFailure(plan(), decided, 'restart')).toBeNull()
    expect(drive([cb('answer')]).state.seat && seatInterrupted(drive([cb('answer')]).state)).toBe(false)
  })
})
