import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { normalizeTranscription, telnyxUrlOf, texmlOf } from '../../src/telephony/telnyx/markup'
import { bridgeLeg, connectStream, holdForDetection } from '../../src/telephony/twilio/twiml'

setDefaultTimeout(60_000)

// The engine's TwiML as TeXML: URLs under /telnyx/, the stream in RTP/PCMU, TeXML's transcription attributes.

const PUBLIC = 'https://dialer.example.com'

describe('texmlOf', () => {
  test('the AI seat: the stream is bidirectional RTP/PCMU at /telnyx/streams, its action under /telnyx/', () => {
    const twiml = connectStream({ disclosure: { say: 'An AI assistant.' }, streamUrl: 'wss://dialer.example.com/twilio/streams', actionUrl: `${PUBLIC}/twilio/calls/c1/seat-next`, parameters: { dialer_stream_token: 't' } })
    expect(texmlOf(twiml, PUBLIC)).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>An AI assistant.</Say><Connect action="https://dialer.example.com/telnyx/calls/c1/seat-next" method="POST">' +
        '<Stream url="wss://dialer.example.com/telnyx/streams" codec="PCMU" bidirectionalMode="rtp" bidirectionalCodec="PCMU"><Parameter name="dialer_stream_token" value="t"/></Stream></Connect></Response>',
    )
  })

  test('a bridge leg: no answerOnBridge; transcription with transcriptionCallback, the lead\u2019s track', () => {
    const twiml = bridgeLeg({
      phones: ['+13125550150'], index: 0, callerId: '+14155550100', timeoutSeconds: 20,
      actionUrl: (i) => `${PUBLIC}/twilio/calls/c1/leg-action?leg=${i}`, screenUrl: (i) => `${PUBLIC}/twilio/calls/c1/whisper?leg=${i}`,
      transcription: { statusCallbackUrl: `${PUBLIC}/twilio/calls/c1/transcription` },
    })!
    const texml = texmlOf(twiml, PUBLIC)
    expect(texml).toContain('<Start><Transcription transcriptionCallback="https://dialer.example.com/telnyx/calls/c1/transcription" transcriptionTracks="inbound"/></Start>')
    expect(texml).toContain('<Dial action="https://dialer.example.com/telnyx/calls/c1/leg-action?leg=0" method="POST" callerId="+14155550100" timeout="20">')
    expect(texml).toContain('<Number url="https://dialer.example.com/telnyx/calls/c1/whisper?leg=0" method="POST">+13125550150</Number>')
    expect(texml).not.toContain('/twilio/')
  })

  test('text that is not one of the service\u2019s URLs is left alone', () => {
    const twiml = holdForDetection({ pauseSeconds: 40 })
    expect(texmlOf(twiml, PUBLIC)).toBe(twiml)
    expect(telnyxUrlOf(`${PUBLIC}/twilio/seats/s1/answer`, PUBLIC)).toBe(`${PUBLIC}/telnyx/seats/s1/answer`)
    expect(telnyxUrlOf('https://elsewhere.example/twilio/x', PUBLIC)).toBe('https://elsewhere.example/twilio/x')
  })
})

describe('normalizeTranscription', () => {
  test('a TeXML line becomes a final content line of the lead, numbered by its call and text', () => {
    const line = normalizeTranscription({ CallSid: 'v3:a', Transcript: 'Yes, I am interested.', IsFinal: 'true', Confidence: '0.9' })
    expect(line).toMatchObject({ TranscriptionEvent: 'transcription-content', Final: 'true', Track: 'inbound_track', TranscriptionData: JSON.stringify({ transcript: 'Yes, I am interested.' }) })
    expect(line.SequenceId).toMatch(/^\d{1,9}$/)
    expect(normalizeTranscription({ CallSid: 'v3:a', Transcript: 'Yes, I am interested.' }).SequenceId).toBe(line.SequenceId)
    expect(normalizeTranscription({ CallSid: 'v3:a', Transcript: 'No.' }).SequenceId).not.toBe(line.SequenceId)
    expect(normalizeTranscription({ CallSid: 'v3:a', Transcript: 'hm', IsFinal: 'false' }).Final).toBe('false')
    const other = { CallSid: 'v3:a', CallStatus: 'ringing' }
    expect(normalizeTranscription(other)).toBe(other)
  })
})
