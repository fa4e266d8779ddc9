import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { CALLER, standIn, twimlOf } from '../emulators/twilio/stand-in'

setDefaultTimeout(60_000)

/**
 * Issue 28 item 8: the emulator's <Dial><Conference> and Conferences/Participants API
 * (twilio.com/docs/voice/twiml/conference, /docs/voice/api/conference-resource,
 * /docs/voice/api/conference-participant-resource), and its record of when a lead first heard a
 * person in a room: only an unmuted person who is not coaching someone else counts.
 */

const s = standIn(20)
afterAll(() => s.stop())

const ROOM_EVENTS = 'start end join leave mute modify'
const sit = (room: string) =>
  twimlOf(`<Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true" beep="false" waitUrl="" statusCallback="${s.base}/rooms/${room}/events" statusCallbackEvent="${ROOM_EVENTS}">${room}</Conference></Dial><Hangup/>`)
const join = (room: string) => twimlOf(`<Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="false" beep="false">${room}</Conference></Dial><Hangup/>`)
const eventsOf = (room: string) => s.got.filter((g) => g.path === `/rooms/${room}/events`).map((g) => g.params)

/** A seat's leg: a person's phone (the /seats/ path) presses its key at the Gather and, on 1, sits in `room`. */
async function seat(phone: string, room: string): Promise<string> {
  s.answer(`${room}-prompt`, twimlOf(`<Gather input="dtmf" numDigits="1" timeout="5" action="${s.base}/seats/${room}/${room}-sit"><Say>Press 1 to sit.</Say></Gather><Hangup/>`))
  s.answer(`${room}-sit`, (params) => (params.Digits === '1' ? sit(room) : twimlOf('<Hangup/>')))
  return s.place(phone, `/seats/${room}/${room}-prompt`)
}

describe('a seat waits in its room and a lead joins it', () => {
  test('the lead hears the seat at once; the room starts, is listed by name, and ends when the seat leaves', async () => {
    const seatSid = await seat('+13125550111', 'seat-a')
    await s.until(() => s.emulator.conference('seat-a')?.status === 'in-progress')
    const room = s.emulator.conference('seat-a')!
    expect(s.emulator.calls.get(seatSid)!.role).toBe('person')
    expect(s.emulator.calls.get(seatSid)!.pressed).toEqual(['1'])
    expect(s.emulator.heardAt(seatSid)!.firstHeard).toBeNull()

    s.emulator.script('+12125551000', { hangUpAfter: 3 })
    s.answer('lead-a', join('seat-a'))
    const leadSid = await s.place('+12125551000', '/calls/a/lead-a', { Timeout: '30' })
    await s.emulator.settled(leadSid)
    const heard = s.emulator.heardAt(leadSid)!
    expect(heard.personAnswered).toBe(true)
    expect(heard.firstHeard?.kind).toBe('person')
    expect(heard.waited!).toBeGreaterThanOrEqual(0)
    expect(heard.waited!).toBeLessThan(2)
    expect(heard.timeout).toBe(30)
    // The lead's leaving does not end the room: the seat waits on.
    expect(room.status).toBe('in-progress')
    expect(room.log.map((e) => [e.event, e.callSid])).toEqual([
      ['participant-join', seatSid], ['conference-start', seatSid], ['participant-join', leadSid], ['participant-leave', leadSid],
    ])

    const running = await s.rest('GET', 'Conferences.json?FriendlyName=seat-a&Status=in-progress')
    expect((running.body.conferences as { sid: string }[]).map((c) => c.sid)).toEqual([room.sid])
    const done = await s.rest('GET', 'Conferences.json?FriendlyName=seat-a&Status=completed')
    expect(done.body.conferences).toEqual([])

    expect((await s.rest('POST', `Calls/${seatSid}.json`, { Status: 'completed' })).status).toBe(200)
    await s.emulator.settled(seatSid)
    expect(room.status).toBe('completed')
    expect(room.reasonEnded).toBe('participant-with-end-conference-on-exit-left')
    const events = eventsOf('seat-a')
    expect(events.map((e) => e.StatusCallbackEvent)).toEqual(['participant-join', 'conference-start', 'participant-join', 'participant-leave', 'participant-leave', 'conference-end'])
    for (const e of events) expect([e.ConferenceSid, e.FriendlyName, e.AccountSid]).toEqual([room.sid, 'seat-a', room.accountSid])
    expect(events[0]!).toMatchObject({ CallSid: seatSid, EndConferenceOnExit: 'true', StartConferenceOnEnter: 'true', Muted: 'false', Coaching: 'false' })
    expect(events.at(-1)!).toMatchObject({ ReasonConferenceEnded: 'participant-with-end-conference-on-exit-left', CallSidEndingConference: seatSid })
    expect(s.badSignatures).toEqual([])
  })

  test('a seat phone ending 13 presses 2 and one ending 14 (a voicemail box) presses nothing: neither sits', async () => {
    const other = await seat('+13125550113', 'seat-b')
    const box = await seat('+13125550114', 'seat-c')
    await Promise.all([s.emulator.settled(other), s.emulator.settled(box)])
    expect(s.emulator.calls.get(other)!.pressed).toEqual(['2'])
    expect(s.emulator.calls.get(box)!.pressed).toBeUndefined()
    expect(s.emulator.calls.get(box)!.party).toBe('machine_end_beep')
    expect(s.got.filter((g) => g.path === '/seats/seat-c/seat-c-sit')).toEqual([])
    expect(s.got.find((g) => g.path === '/seats/seat-b/seat-b-sit')?.params.Digits).toBe('2')
    expect([s.emulator.conference('seat-b'), s.emulator.conference('seat-c')]).toEqual([null, null])
  })
})

describe('participants added through the API', () => {
  test('a muted person and one coaching someone else are not heard; unmuted, they are', async () => {
    s.emulator.script('+12125552000', { hangUpAfter: 120 })
    s.answer('lead-d', join('room-d'))
    const leadSid = await s.place('+12125552000', '/calls/d/lead-d')
    await s.until(() => s.emulator.conference('room-d')?.status === 'in-progress')
    const room = s.emulator.conference('room-d')!

    const refused = await s.rest('POST', `Conferences/${room.sid}/Participants.json`, { From: CALLER, To: '+13125550171', Coaching: 'true' })
    expect([refused.status, refused.body.code]).toEqual([400, 20001])
    const stranger = await s.rest('POST', `Conferences/${room.sid}/Participants.json`, { From: CALLER, To: '+13125550171', CallSidToCoach: `CA${'0'.repeat(32)}` })
    expect(stranger.status).toBe(400)
    expect((await s.rest('POST', `Conferences/CF${'0'.repeat(32)}/Participants.json`, { From: CALLER, To: '+13125550171' })).body.code).toBe(20404)
    expect((await s.rest('POST', `Conferences/${room.sid}/Participants.json`, { From: CALLER })).body.code).toBe(21201)

    const muted = await s.rest('POST', `Conferences/${room.sid}/Participants.json`, {
      From: CALLER, To: '+13125550171', Muted: 'true', StatusCallback: `${s.base}/people/p1/status`, StatusCallbackEvent: 'initiated ringing answered completed',
    })
    expect(muted.status).toBe(201)
    expect(muted.body).toMatchObject({ conference_sid: room.sid, status: 'queued', muted: true, coaching: false })
    const p1 = muted.body.call_sid as string
    await s.until(() => room.participants.some((p) => p.call.sid === p1 && p.status === 'connected'))
    const coach = await s.rest('POST', `Conferences/${room.sid}/Participants.json`, { From: CALLER, To: '+13125550172', Coaching: 'true', CallSidToCoach: p1 })
    expect(coach.body).toMatchObject({ coaching: true, call_sid_to_coach: p1, muted: false })
    const p2 = coach.body.call_sid as string
    await s.until(() => room.participants.some((p) => p.call.sid === p2 && p.status === 'connected'))
    await Bun.sleep(100)
    expect(s.emulator.heardAt(leadSid)!.firstHeard).toBeNull()

    const listed = await s.rest('GET', `Conferences/${room.sid}/Participants.json`)
    expect((listed.body.participants as { call_sid: string }[]).map((p) => p.call_sid).sort()).toEqual([leadSid, p1, p2].sort())
    const unmuted = await s.rest('POST', `Conferences/${room.sid}/Participants/${p1}.json`, { Muted: 'false' })
    expect(unmuted.body.muted).toBe(false)
    expect(s.emulator.heardAt(leadSid)!.firstHeard?.kind).toBe('person')

    // The room ended through the API: everyone in it leaves, and the API participants' calls end.
    expect((await s.rest('POST', `Conferences/${room.sid}.json`, { Status: 'completed' })).body.status).toBe('completed')
    await Promise.all([leadSid, p1, p2].map((sid) => s.emulator.settled(sid)))
    expect(room.reasonEnded).toBe('conference-ended-via-api')
    expect([leadSid, p1, p2].map((sid) => s.emulator.calls.get(sid)!.status)).toEqual(['completed', 'completed', 'completed'])
    const own = s.got.filter((g) => g.path === '/people/p1/status').map((g) => g.params.CallStatus)
    expect(own).toEqual(['initiated', 'ringing', 'in-progress', 'completed'])
    expect(s.emulator.calls.get(p1)!.direction).toBe('outbound-api')
    expect(s.badSignatures).toEqual([])
  })

  test('a participant named by FriendlyName makes the room; DELETE takes it out', async () => {
    const made = await s.rest('POST', 'Conferences/room-e/Participants.json', { From: CALLER, To: '+13125550181', EndConferenceOnExit: 'false', StartConferenceOnEnter: 'true' })
    expect(made.status).toBe(201)
    const room = s.emulator.conference('room-e')!
    expect(made.body.conference_sid).toBe(room.sid)
    const sid = made.body.call_sid as string
    await s.until(() => room.status === 'in-progress')
    expect((await s.rest('GET', `Conferences/${room.sid}/Participants/${sid}.json`)).body.status).toBe('connected')
    expect((await s.rest('DELETE', `Conferences/${room.sid}/Participants/${sid}.json`)).status).toBe(204)
    await s.emulator.settled(sid)
    expect(room.status).toBe('completed')
    expect(room.reasonEnded).toBe('last-participant-kicked')
    expect((await s.rest('GET', `Conferences/${room.sid}.json`)).body).toMatchObject({ sid: room.sid, friendly_name: 'room-e', status: 'completed' })
  })
})
