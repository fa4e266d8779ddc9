import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallEvents, CallReport } from '../../src/telephony/carrier'
import { bridgeTwiml, initialCarrierState, voicemailTwiml, type CallbackStep, type CallPlan } from '../../src/telephony/twilio/call-plan'
import { runStep, type RestAction } from '../../src/telephony/twilio/callback-steps'
import { abandonTwiml, ABANDONED_NOTE, DNC_NOTE, OPT_OUT_PROMPT, OPTED_OUT_MESSAGE, seatJoinTwiml } from '../../src/telephony/twilio/conference-steps'
import type { SeatPort } from '../../src/telephony/ports'

setDefaultTimeout(60_000)

// Power and predictive lead calls on Twilio (src/telephony/twilio/conference-steps.ts), pure: the
// answer claims a waiting seat and joins its conference, else the abandon message with 9 to opt out.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const BASE = 'https://dialer.example.com'
const CALL = 'call-1'
const CAMPAIGN = 'camp-1'
const SID = `CA${'a'.repeat(32)}`
const HEAD = '<?xml version="1.0" encoding="UTF-8"?>'
const HANGUP = `${HEAD}<Response><Hangup/></Response>`
const ROOM = 'seat-s1'
const SEAT_PERSON = { id: 'sdr-9', name: 'Sid Seated', role: 'sdr' } as const
const MESSAGE = 'This is Acme Roofing returning your request. Call us back at 212 555 0100.'

const plan = (over: Partial<CallPlan> = {}): CallPlan => ({
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', campaignName: 'Spring Roofing', agentName: 'Owner Olsen',
  machineDetection: true, record: false, bridge: [{ id: 'sdr-1', name: 'Alex Rivera', role: 'sdr', phone: '+13125550150' }],
  voicemail: { say: 'Hi, this is Acme Roofing.' }, dialMode: 'power', abandonMessage: { say: MESSAGE }, campaignId: CAMPAIGN, ...over,
})

interface Callback { step: CallbackStep; params: Record<string, string> }
const cb = (step: CallbackStep, params: Record<string, string> = {}): Callback => ({ step, params: { CallSid: SID, ...params } })
const ANSWER = cb('answer')
const IN_PROGRESS = cb('status', { CallStatus: 'in-progress' })
const HUMAN = cb('amd', { AnsweredBy: 'human' })
const MACHINE = cb('amd', { AnsweredBy: 'machine_end_beep' })
const COMPLETED = cb('status', { CallStatus: 'completed', CallDuration: '42' })
const optout = (Digits?: string) => cb('optout', Digits === undefined ? {} : { Digits })

/** Runs callbacks in order against a board with `waiting` seats; every call the steps make is logged in order. */
function drive(callbacks: Callback[], options: { plan?: CallPlan; waiting?: number; seats?: boolean } = {}) {
  const p = options.plan ?? plan()
  const log: string[] = []
  const ended: CallReport[] = []
  const claims: unknown[][] = []
  let waiting = options.waiting ?? 1
  const seats: SeatPort = {
    claim: (campaignId, leadCallId, at) => {
      claims.push([campaignId, leadCallId, at])
      if (waiting === 0) return null
      waiting--
      log.push('claim')
      return { seatId: 's1', conference: ROOM, person: { ...SEAT_PERSON } }
    },
    release: (leadCallId) => {
      expect(leadCallId).toBe(CALL)
      waiting++
      log.push('release')
    },
  }
  const events: CallEvents = {
    answered: (_, by) => void log.push(`answered:${by}`), intent: () => {}, transcribed: () => {}, recorded: () => {},
    handover: (_, person) => void log.push(`handover:${person?.name}`),
    ended: (_, report) => void (ended.push(report), log.push('ended')),
    connected: () => void log.push('connected'),
    personAnswered: () => void log.push('personAnswered'),
  }
  let state = initialCarrierState(p)
  const twiml: (string | null)[] = []
  const actions: RestAction[] = []
  for (const c of callbacks) {
    const result = runStep({ callId: CALL, plan: p, publicUrl: BASE, now: NOW, events, seats: options.seats === false ? undefined : seats }, state, c.step, null, c.params)
    state = result.state
    twiml.push(result.twiml)
    actions.push(...result.actions)
  }
  return { state, twiml, actions, log, ended, claims, waiting, count: (entry: string) => log.filter((l) => l === entry).length }
}

describe('the TwiML', () => {
  test('the join: transcription, then <Dial><Conference> the seat\u2019s room (starts it, does not end it, no beep), then Hangup', () => {
    const p = plan()
    expect(seatJoinTwiml(BASE, CALL, p, initialCarrierState(p), ROOM)).toBe(
      `${HEAD}<Response><Start><Transcription statusCallbackUrl="${BASE}/twilio/calls/${CALL}/transcription" statusCallbackMethod="POST" track="both_tracks" ` +
        'inboundTrackLabel="lead" outboundTrackLabel="agent" languageCode="en-US" partialResults="false"/></Start>' +
        `<Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="false" beep="false">${ROOM}</Conference></Dial><Hangup/></Response>`,
    )
  })

  test('the abandon message: the message and the opt-out prompt inside a one-digit Gather posting to optout, then Hangup', () => {
    expect(abandonTwiml(BASE, CALL, plan())).toBe(
      `${HEAD}<Response><Gather input="dtmf" numDigits="1" timeout="5" action="${BASE}/twilio/calls/${CALL}/optout" method="POST">` +
        `<Say>${MESSAGE}</Say><Say>${OPT_OUT_PROMPT}</Say></Gather><Hangup/></Response>`,
    )
    expect(abandonTwiml(BASE, CALL, plan({ abandonMessage: { audio_url: 'https://cdn.example.com/a.mp3?x=1&y=2' } }))).toContain(
      '<Play>https://cdn.example.com/a.mp3?x=1&amp;y=2</Play><Say>',
    )
  })
})

describe('a seat waits: the lead joins its room at the answer', () => {
  // Twilio sends the status, AMD and TwiML requests in any order, some twice.
  test.each([
    ['answer, in-progress, human, completed', [ANSWER, IN_PROGRESS, HUMAN, COMPLETED]],
    ['in-progress and human before the answer fetch', [IN_PROGRESS, HUMAN, ANSWER, COMPLETED]],
    ['no detection result ever (completed says who)', [ANSWER, IN_PROGRESS, COMPLETED]],
    ['every callback twice', [ANSWER, IN_PROGRESS, IN_PROGRESS, HUMAN, HUMAN, COMPLETED, COMPLETED]],
    ['completed before the AMD callback', [ANSWER, COMPLETED, HUMAN]],
  ])('%s: connected at the join, the seat person is the handover once, the seat released once at the end', (_, callbacks) => {
    const r = drive(callbacks)
    expect(r.twiml[callbacks.indexOf(ANSWER)]).toBe(seatJoinTwiml(BASE, CALL, plan(), initialCarrierState(plan()), ROOM))
    expect(r.claims).toEqual([[CAMPAIGN, CALL, NOW]])
    expect(r.count('connected')).toBe(1)
    expect(r.count(`handover:${SEAT_PERSON.name}`)).toBe(1)
    expect(r.count('release')).toBe(1)
    expect(r.waiting).toBe(1)
    // The party is told before the handover (time to handover runs from it), both before the end.
    const order = r.log.filter((l) => l !== 'personAnswered' && l !== 'claim')
    expect(order.indexOf('answered:person')).toBeLessThan(order.indexOf(`handover:${SEAT_PERSON.name}`))
    expect(order.indexOf(`handover:${SEAT_PERSON.name}`)).toBeLessThan(order.indexOf('ended'))
    expect(r.ended).toHaveLength(1)
    expect(r.ended[0]!.outcome).toBeNull()
    expect(r.actions).toEqual([])
  })

  test('with detection on, the handover waits for a person: the join comes first (no silent hold)', () => {
    const r = drive([ANSWER])
    expect(r.log).toEqual(['claim', 'connected'])
    expect(drive([ANSWER, HUMAN]).log).toEqual(['claim', 'connected', 'answered:person', 'personAnswered', `handover:${SEAT_PERSON.name}`])
  })

  test('without detection, whoever answers is a person at once: answered, then the join and the handover', () => {
    const r = drive([ANSWER], { plan: plan({ machineDetection: false }) })
    expect(r.log).toEqual(['answered:person', 'personAnswered', 'claim', 'connected', `handover:${SEAT_PERSON.name}`])
  })

  test('a repeated answer fetch gets the same TwiML and claims nothing twice', () => {
    const r = drive([ANSWER, ANSWER])
    expect(r.twiml[1]).toBe(r.twiml[0])
    expect(r.claims).toHaveLength(1)
  })

  test('a machine in the room: moved out to the voicemail drop by new TwiML, the seat released, never the handover', () => {
    const r = drive([ANSWER, IN_PROGRESS, MACHINE, MACHINE])
    expect(r.log).toEqual(['claim', 'connected', 'answered:machine', 'release'])
    expect(r.actions).toEqual([{ type: 'twiml', twiml: voicemailTwiml(BASE, CALL, plan()) }])
    expect(r.state.seated?.stage).toBe('voicemail')
    const done = drive([ANSWER, IN_PROGRESS, MACHINE, cb('voicemail-done'), COMPLETED])
    expect(done.count('release')).toBe(1)
    expect(done.ended[0]).toMatchObject({ outcome: 'voicemail', voicemailDelivered: true })
  })

  test('a machine known before the answer fetch: the voicemail drop, no seat claimed', () => {
    const r = drive([IN_PROGRESS, MACHINE, ANSWER])
    expect(r.claims).toEqual([])
    expect(r.actions).toEqual([{ type: 'redirect', step: 'voicemail' }])
  })

  test('transcript lines of our side carry the seat person\u2019s name', () => {
    const lines: string[] = []
    const p = plan()
    let state = drive([ANSWER, HUMAN]).state
    const events = { answered() {}, intent() {}, handover() {}, ended() {}, recorded() {}, transcribed: (_: string, l: { name: string }[]) => void lines.push(...l.map((x) => x.name)) } as CallEvents
    state = runStep({ callId: CALL, plan: p, publicUrl: BASE, now: NOW, events }, state, 'transcription', null, {
      CallSid: SID, TranscriptionEvent: 'transcription-content', SequenceId: '1', Track: 'outbound_track', TranscriptionData: JSON.stringify({ transcript: 'Hi Jordan' }),
    }).state
    expect(lines).toEqual([SEAT_PERSON.name])
  })
})

describe('no seat waits: the abandon message at once, 9 opts out', () => {
  test('the answer plays the message (never connected, no handover)', () => {
    const r = drive([ANSWER, IN_PROGRESS, HUMAN], { waiting: 0 })
    expect(r.twiml[0]).toBe(abandonTwiml(BASE, CALL, plan()))
    expect(r.log).toEqual(['answered:person', 'personAnswered'])
    expect(drive([ANSWER], { seats: false }).twiml[0]).toBe(abandonTwiml(BASE, CALL, plan()))
  })

  test('9: the goodbye, and the end reports outcome dnc, opted out, DNC source outcome', () => {
    const r = drive([ANSWER, HUMAN, optout('9'), COMPLETED], { waiting: 0 })
    expect(r.twiml[2]).toBe(`${HEAD}<Response><Say>${OPTED_OUT_MESSAGE}</Say><Hangup/></Response>`)
    expect(r.ended).toHaveLength(1)
    expect(r.ended[0]).toMatchObject({ outcome: 'dnc', optOut: true, dncSource: 'outcome', note: DNC_NOTE })
  })

  test('9 replayed: 200 with the same answer, nothing changes', () => {
    const once = drive([ANSWER, HUMAN, optout('9')], { waiting: 0 })
    const twice = drive([ANSWER, HUMAN, optout('9'), optout('9')], { waiting: 0 })
    expect(twice.twiml[3]).toBe(twice.twiml[2])
    expect(twice.state).toEqual(once.state)
  })

  test.each([
    ['no key (the Gather timed out)', [] as Callback[]],
    ['another key', [optout('5')]],
    ['an empty digit', [optout('')]],
  ])('%s: hung up, a callback is booked, never DNC', (_, keys) => {
    const r = drive([ANSWER, HUMAN, ...keys, COMPLETED], { waiting: 0 })
    for (const t of r.twiml.slice(2, 2 + keys.length)) expect(t).toBe(HANGUP)
    expect(r.ended[0]).toMatchObject({ outcome: 'callback', optOut: false, note: ABANDONED_NOTE, callbackAt: NOW + 2 * 3_600_000 })
    expect(r.ended[0]!.dncSource).toBeUndefined()
  })

  test('a machine hearing the message is moved to the voicemail drop', () => {
    const r = drive([ANSWER, MACHINE, cb('voicemail-done'), COMPLETED], { waiting: 0 })
    expect(r.actions).toEqual([{ type: 'twiml', twiml: voicemailTwiml(BASE, CALL, plan()) }])
    expect(r.ended[0]).toMatchObject({ outcome: 'voicemail', optOut: false })
  })

  test('a keypress for a call not hearing the message (in a seat\u2019s room, a bridge call, after the end): hung up, nothing changes', () => {
    const joined = drive([ANSWER, HUMAN])
    const pressed = drive([ANSWER, HUMAN, optout('9')])
    expect(pressed.twiml[2]).toBe(HANGUP)
    expect(pressed.state).toEqual(joined.state)
    const bridge = plan({ dialMode: 'bridge' })
    const b = drive([ANSWER, HUMAN, optout('9')], { plan: bridge })
    expect(b.twiml[2]).toBe(HANGUP)
    expect(b.state).toEqual(drive([ANSWER, HUMAN], { plan: bridge }).state)
    const late = drive([ANSWER, COMPLETED, optout('9')], { waiting: 0 })
    expect(late.twiml[2]).toBe(HANGUP)
    expect(late.ended).toHaveLength(1)
    expect(late.ended[0]!.outcome).toBe('callback')
  })
})

test('a call planned before dial modes (no dialMode) is a bridge call: the answer rings its people, claims no seat', () => {
  const old = plan({ machineDetection: false })
  delete old.dialMode
  const r = drive([ANSWER], { plan: old })
  expect(r.claims).toEqual([])
  expect(r.twiml[0]).toBe(bridgeTwiml(BASE, CALL, old, 0, true))
})
