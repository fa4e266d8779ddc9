import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ACCOUNT, CALLER, standIn, twimlOf } from '../emulators/twilio/stand-in'

setDefaultTimeout(60_000)

/**
 * Issue 28 item 8: what the emulator records about a lead's first seconds (a message on its own
 * leg, a person bridged after press 1, nothing), the lead's own <Gather> keypress
 * (twilio.com/docs/voice/twiml/gather), the Timeout each call was created with, and incoming
 * calls (twilio.com/docs/usage/webhooks/voice-webhooks).
 */

const s = standIn(20)
afterAll(() => s.stop())

const MESSAGE = twimlOf(`<Gather input="dtmf" numDigits="1" timeout="5" action="${s.base}/calls/m/optout" method="POST"><Say>Sorry, nobody is free.</Say><Say>To stop these calls, press 9.</Say></Gather><Hangup/>`)

describe('a message on the lead\u2019s leg', () => {
  test('a lead scripted to press 9 hears the message from its start and presses 9 at the Gather', async () => {
    s.emulator.script('+12125553000', { press: '9' })
    s.answer('message-9', MESSAGE)
    s.answer('optout', twimlOf('<Say>You will not be called again.</Say><Hangup/>'))
    const sid = await s.place('+12125553000', '/calls/m/message-9', { Timeout: '20' })
    await s.emulator.settled(sid)
    const heard = s.emulator.heardAt(sid)!
    expect(heard.firstHeard?.kind).toBe('message')
    expect(heard.waited!).toBeLessThan(2)
    expect(heard.timeout).toBe(20)
    expect(s.emulator.calls.get(sid)!.pressed).toEqual(['9'])
    expect(s.got.find((g) => g.path === '/calls/m/optout' && g.params.CallSid === sid)?.params.Digits).toBe('9')
    expect(s.emulator.calls.get(sid)!.spoken?.map((x) => x.text)).toEqual(['Sorry, nobody is free.', 'To stop these calls, press 9.', 'You will not be called again.'])
  })

  test('a lead not scripted presses nothing: the Gather times out and the next verb runs', async () => {
    s.answer('message-none', MESSAGE)
    const sid = await s.place('+12125553100', '/calls/m/message-none')
    await s.emulator.settled(sid)
    expect(s.emulator.calls.get(sid)!.pressed).toBeUndefined()
    expect(s.got.filter((g) => g.path === '/calls/m/optout' && g.params.CallSid === sid)).toEqual([])
    expect(s.emulator.heardAt(sid)!.firstHeard?.kind).toBe('message')
    // Twilio's default Timeout when the create names none.
    expect(s.emulator.timeouts().get(sid)).toBe(60)
  })
})

describe('silence and a person bridged after press 1', () => {
  test('a lead held in a <Pause> has heard nothing; one bridged to a person who pressed 1 heard them at the bridge', async () => {
    s.answer('hold', twimlOf('<Pause length="3"/><Hangup/>'))
    const silent = await s.place('+12125553200', '/calls/h/hold')
    s.answer('bridge', twimlOf(`<Dial timeout="15"><Number url="${s.base}/legs/b/screen">+13125550111</Number></Dial><Hangup/>`))
    s.answer('screen', twimlOf(`<Gather numDigits="1" timeout="5" action="${s.base}/legs/b/take"><Say>Press 1.</Say></Gather><Hangup/>`))
    s.answer('take', twimlOf(''))
    s.emulator.script('+12125553300', { hangUpAfter: 8 })
    const bridged = await s.place('+12125553300', '/calls/b/bridge')
    await Promise.all([s.emulator.settled(silent), s.emulator.settled(bridged)])
    expect(s.emulator.heardAt(silent)!.firstHeard).toBeNull()
    expect(s.emulator.heardAt(silent)!.personAnswered).toBe(true)
    const heard = s.emulator.heardAt(bridged)!
    expect(heard.firstHeard?.kind).toBe('person')
    // Ringing (2 s) and the press-1 prompt (1 s) come first: the lead waited for the person.
    expect(heard.waited!).toBeGreaterThanOrEqual(3)
    expect(s.emulator.calls.get(bridged)!.legs?.[0]).toMatchObject({ key: '1', bridged: true })
  })

  test('a machine-answered call is recorded as not answered by a person', async () => {
    s.emulator.script('+12125553404', { answeredBy: 'machine_end_beep', hangUpAfter: 4 })
    s.answer('drop', twimlOf('<Say>Hi, this is Acme.</Say><Hangup/>'))
    const sid = await s.place('+12125553404', '/calls/v/drop')
    await s.emulator.settled(sid)
    expect(s.emulator.heardAt(sid)).toMatchObject({ party: 'machine_end_beep', personAnswered: false })
    expect(s.emulator.heardAt('CA-unknown')).toBeNull()
  })
})

describe('incoming calls', () => {
  test('callIn posts the signed incoming-call webhook and runs the TwiML it gets back', async () => {
    s.answer('incoming', twimlOf('<Say>Thanks for calling Acme.</Say><Hangup/>'))
    const call = await s.emulator.callIn({ from: '+12125553500', to: CALLER, url: `${s.base}/voice/incoming`, statusCallback: `${s.base}/voice/status` })
    await s.emulator.settled(call.sid)
    const hook = s.got.find((g) => g.path === '/voice/incoming' && g.params.CallSid === call.sid)!
    expect(hook.params).toMatchObject({ AccountSid: ACCOUNT.sid, From: '+12125553500', To: CALLER, CallStatus: 'ringing', Direction: 'inbound', ApiVersion: '2010-04-01', Caller: '+12125553500', Called: CALLER })
    expect(call.direction).toBe('inbound')
    expect(call.status).toBe('completed')
    expect(s.emulator.heardAt(call.sid)!.firstHeard?.kind).toBe('message')
    expect(s.got.find((g) => g.path === '/voice/status' && g.params.CallSid === call.sid)?.params).toMatchObject({ CallStatus: 'completed', Direction: 'inbound' })
    const fetched = await s.rest('GET', `Calls/${call.sid}.json`)
    expect(fetched.body).toMatchObject({ direction: 'inbound', from: '+12125553500', status: 'completed' })
    expect(s.emulator.timeouts().has(call.sid)).toBe(false)
    expect(s.badSignatures).toEqual([])
  })
})
