import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { parseTwiml } from '../emulators/twilio/emulator-twiml'
import { bridgeLeg, escapeXml, hangup, holdForDetection, say, startTranscription, voicemailDrop } from '../../src/telephony/twilio/twiml'

setDefaultTimeout(60_000)

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>'
const T = { statusCallbackUrl: 'https://d.example.com/twilio/calls/c1/transcription?x=1&y=2' }
const TRANSCRIPTION =
  '<Start><Transcription statusCallbackUrl="https://d.example.com/twilio/calls/c1/transcription?x=1&amp;y=2" statusCallbackMethod="POST" track="both_tracks" inboundTrackLabel="lead" outboundTrackLabel="agent" languageCode="en-US" partialResults="false"/></Start>'

describe('escapeXml', () => {
  test('escapes the five XML characters and drops ones XML cannot carry', () => {
    expect(escapeXml(`<a href="x">Tom & Jerry's</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt;')
    expect(escapeXml('bell\u0007 nul\u0000 tab\tok ☎ 😀')).toBe('bell nul tab\tok ☎ 😀')
  })
})

describe('bridge', () => {
  const leg = (index: number, extra = {}) =>
    bridgeLeg({
      phones: ['+12125550101', '+12125550102', '+13125550199'],
      index,
      callerId: '+13125550111',
      timeoutSeconds: 15,
      actionUrl: (i) => `https://d.example.com/twilio/calls/c1/dial?leg=${i}&sig=a"b`,
      ...extra,
    })

  test('the first leg starts transcription, greets, then dials the first SDR', () => {
    expect(leg(0, { transcription: T, greeting: 'Connecting you now & thanks.' })).toBe(
      `${HEAD}<Response>${TRANSCRIPTION}<Say>Connecting you now &amp; thanks.</Say>` +
        '<Dial action="https://d.example.com/twilio/calls/c1/dial?leg=0&amp;sig=a&quot;b" method="POST" callerId="+13125550111" timeout="15" answerOnBridge="true"><Number>+12125550101</Number></Dial></Response>',
    )
  })

  test('later legs ring the next person with their own timeout and action index', () => {
    expect(leg(2, { transcription: T })).toBe(
      `${HEAD}<Response><Dial action="https://d.example.com/twilio/calls/c1/dial?leg=2&amp;sig=a&quot;b" method="POST" callerId="+13125550111" timeout="15" answerOnBridge="true"><Number>+13125550199</Number></Dial></Response>`,
    )
  })

  test('with a leg status URL the <Number> reports the pickup', () => {
    expect(leg(1, { legStatusUrl: (i: number) => `https://d.example.com/twilio/calls/c1/leg?leg=${i}` })).toContain(
      '<Number statusCallbackEvent="answered" statusCallback="https://d.example.com/twilio/calls/c1/leg?leg=1" statusCallbackMethod="POST">+12125550102</Number>',
    )
  })

  test('past the last person there is no leg', () => {
    expect(leg(3)).toBeNull()
  })
})

describe('voicemail drop, detection hold, say, hangup', () => {
  test('<Play> a recording then hang up', () => {
    expect(voicemailDrop({ audioUrl: 'https://cdn.example.com/vm.mp3?a=1&b=2' })).toBe(
      `${HEAD}<Response><Play>https://cdn.example.com/vm.mp3?a=1&amp;b=2</Play><Hangup/></Response>`,
    )
  })

  test('<Say> a message then hang up', () => {
    expect(voicemailDrop({ say: 'Hi <name>, call us back at 212 555 0100.' })).toBe(
      `${HEAD}<Response><Say>Hi &lt;name&gt;, call us back at 212 555 0100.</Say><Hangup/></Response>`,
    )
  })

  test('with a done URL the drop ends in a <Redirect> there', () => {
    expect(voicemailDrop({ say: 'Bye.' }, 'https://d.example.com/twilio/calls/c1/voicemail-done?a=1&b=2')).toBe(
      `${HEAD}<Response><Say>Bye.</Say><Redirect method="POST">https://d.example.com/twilio/calls/c1/voicemail-done?a=1&amp;b=2</Redirect></Response>`,
    )
  })

  test('hold while AMD decides, with transcription', () => {
    expect(holdForDetection({ pauseSeconds: 30, transcription: T })).toBe(`${HEAD}<Response>${TRANSCRIPTION}<Pause length="30"/></Response>`)
    expect(holdForDetection({ pauseSeconds: 5 })).toBe(`${HEAD}<Response><Pause length="5"/></Response>`)
  })

  test('start transcription alone, with a language', () => {
    expect(startTranscription({ ...T, languageCode: 'es-US' })).toBe(TRANSCRIPTION.replace('en-US', 'es-US'))
  })

  test('say and hangup', () => {
    expect(say('Goodbye.')).toBe(`${HEAD}<Response><Say>Goodbye.</Say><Hangup/></Response>`)
    expect(say('Hold on.', 'nothing')).toBe(`${HEAD}<Response><Say>Hold on.</Say></Response>`)
    expect(hangup()).toBe(`${HEAD}<Response><Hangup/></Response>`)
  })
})

describe("the emulator's TwiML reader reads back what the builders write", () => {
  test('attributes and text are unescaped; malformed documents are refused', () => {
    const doc = parseTwiml(
      bridgeLeg({ phones: ['+12125550101'], index: 0, callerId: '+13125550111', timeoutSeconds: 15, actionUrl: () => 'https://d.example.com/dial?a=1&b="2"', transcription: T, greeting: "Tom & Jerry's <call>" })!,
    )
    expect(doc.children.map((c) => c.name)).toEqual(['Start', 'Say', 'Dial'])
    expect(doc.children[0]!.children[0]!.attrs.statusCallbackUrl).toBe(T.statusCallbackUrl)
    expect(doc.children[1]!.text).toBe("Tom & Jerry's <call>")
    expect(doc.children[2]!.attrs).toEqual({ action: 'https://d.example.com/dial?a=1&b="2"', method: 'POST', callerId: '+13125550111', timeout: '15', answerOnBridge: 'true' })
    expect(doc.children[2]!.children[0]!.text).toBe('+12125550101')
    for (const bad of ['<Response><Say>hi</Response>', '<Say>hi</Say>', '<Response>&amp</Response><', 'text']) expect(() => parseTwiml(bad)).toThrow()
  })
})
