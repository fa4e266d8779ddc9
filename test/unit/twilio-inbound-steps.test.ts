import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallEvents } from '../../src/telephony/carrier'
import type { SeatPort } from '../../src/telephony/ports'
import { addParticipant, findConference } from '../../src/telephony/twilio/conference-client'
import { answerIncoming } from '../../src/telephony/twilio/inbound-steps'
import { TwilioRestClient } from '../../src/telephony/twilio/rest-client'

setDefaultTimeout(60_000)

// An incoming call from a known lead (src/telephony/twilio/inbound-steps.ts), pure: a waiting seat
// takes it (conference), else the press-1 bridge; and the Conferences/Participants requests a
// supervisor needs (conference-client.ts), against a recording fetch.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const BASE = 'https://dialer.example.com'
const OPENED = {
  kind: 'lead' as const, callId: 'call-in-1', campaignId: 'camp-1', leadName: 'Jordan Lee', campaignName: 'Spring roofs', agentName: 'Alex Rivera',
  bridge: [{ id: 'sdr-1', name: 'Alex Rivera', role: 'sdr' as const, phone: '+13125550150' }],
}
const CALL = { from: '+12125552021', to: '+12125550100' }
const PARAMS = { CallSid: `CA${'a'.repeat(32)}`, From: CALL.from, To: CALL.to, CallStatus: 'ringing', Direction: 'inbound' }

function run(waiting: boolean) {
  const log: string[] = []
  const events = {
    answered: (_id: string, by: string) => log.push(`answered:${by}`),
    handover: (_id: string, person?: { name: string }) => log.push(`handover:${person?.name}`),
    connected: () => log.push('connected'),
    personAnswered: () => log.push('personAnswered'),
    ringing: () => true,
  } as unknown as CallEvents
  const seats: SeatPort = {
    claim: (campaignId, leadCallId) => {
      log.push(`claim:${campaignId}:${leadCallId}`)
      return waiting ? { seatId: 's1', conference: 'seat-s1', person: { id: 'sdr-9', name: 'Sid Seated', role: 'sdr' } } : null
    },
    release: () => log.push('release'),
  }
  return { log, result: answerIncoming({ publicUrl: BASE, now: NOW, events, seats }, OPENED, CALL, PARAMS) }
}

describe('an incoming call from a known lead', () => {
  test('a waiting seat: claimed once, the caller joins its conference, connected and handed over to the seat person', () => {
    const { log, result } = run(true)
    expect(result.plan).toMatchObject({ to: CALL.from, from: CALL.to, dialMode: 'power', machineDetection: false, record: false, campaignId: 'camp-1' })
    expect(result.twiml).toContain('<Conference startConferenceOnEnter="true" endConferenceOnExit="false" beep="false">seat-s1</Conference>')
    expect(result.state.seated).toMatchObject({ stage: 'joined', seatId: 's1', handedOver: true })
    expect(log.filter((l) => l.startsWith('claim'))).toEqual(['claim:camp-1:call-in-1'])
    expect(log).toContain('connected')
    expect(log).toContain('handover:Sid Seated')
  })

  test('no seat waits: the press-1 bridge to the campaign people, never the abandon message', () => {
    const { log, result } = run(false)
    expect(result.plan.dialMode).toBe('bridge')
    expect(result.twiml).toContain(`<Number url="${BASE}/twilio/calls/call-in-1/whisper?leg=0" method="POST">+13125550150</Number>`)
    expect(result.twiml).not.toContain('Gather')
    expect(result.state.seated).toBeUndefined()
    expect(log).not.toContain('connected')
    expect(log.some((l) => l.startsWith('handover'))).toBe(false)
  })
})

describe('the conference client', () => {
  const ACCOUNT = { accountSid: `AC${'1'.repeat(32)}`, authToken: 'f'.repeat(32), apiBaseUrl: 'https://api.example.test' }
  const CONF = `CF${'2'.repeat(32)}`
  const LEG = `CA${'3'.repeat(32)}`
  function client(reply: unknown, status = 200) {
    const sent: { url: string; method: string; body: URLSearchParams }[] = []
    const fetch = async (url: string, init: RequestInit) => {
      sent.push({ url, method: init.method!, body: new URLSearchParams((init.body as string | undefined) ?? '') })
      return new Response(JSON.stringify(reply), { status, headers: { 'content-type': 'application/json' } })
    }
    return { sent, rest: new TwilioRestClient(ACCOUNT, { fetch }) }
  }
  const fields = (body: URLSearchParams) => Object.fromEntries(body.entries())

  test('listen is Muted, whisper coaches the seat leg, barge neither; none ends, starts or beeps the room', async () => {
    for (const [mode, expected] of [['listen', { Muted: 'true' }], ['whisper', { Coaching: 'true', CallSidToCoach: LEG }], ['barge', {}]] as const) {
      const { sent, rest } = client({ call_sid: `CA${'4'.repeat(32)}`, conference_sid: CONF })
      const added = await addParticipant(rest, CONF, { from: '+12125550100', to: '+13125550160', mode, coach: LEG, timeoutSeconds: 30 })
      expect(added).toEqual({ ok: true, value: { callSid: `CA${'4'.repeat(32)}` } })
      expect(sent[0]!.url).toBe(`${ACCOUNT.apiBaseUrl}/2010-04-01/Accounts/${ACCOUNT.accountSid}/Conferences/${CONF}/Participants.json`)
      expect(fields(sent[0]!.body)).toEqual({ From: '+12125550100', To: '+13125550160', Beep: 'false', StartConferenceOnEnter: 'false', EndConferenceOnExit: 'false', Timeout: '30', ...expected })
    }
  })

  test('a bad conference SID or a whisper without a leg is refused unsent; Twilio errors come back classified', async () => {
    const { sent, rest } = client({ code: 20404, message: 'not found' }, 404)
    expect((await addParticipant(rest, 'seat-1', { from: 'a', to: 'b', mode: 'listen', coach: null, timeoutSeconds: 30 })).ok).toBe(false)
    expect((await addParticipant(rest, CONF, { from: 'a', to: 'b', mode: 'whisper', coach: null, timeoutSeconds: 30 })).ok).toBe(false)
    expect(sent).toHaveLength(0)
    const failed = await addParticipant(rest, CONF, { from: 'a', to: 'b', mode: 'barge', coach: null, timeoutSeconds: 30 })
    expect(failed).toEqual({ ok: false, error: { kind: 'rejected', status: 404, code: 20404, message: 'not found' } })
  })

  test('findConference: the running room of that FriendlyName, or null', async () => {
    const found = client({ conferences: [{ sid: CONF, friendly_name: 'seat-s1', status: 'in-progress' }] })
    expect(await findConference(found.rest, 'seat-s1')).toEqual({ ok: true, value: CONF })
    expect(found.sent[0]!.url).toBe(`${ACCOUNT.apiBaseUrl}/2010-04-01/Accounts/${ACCOUNT.accountSid}/Conferences.json?FriendlyName=seat-s1&Status=in-progress`)
    expect(await findConference(client({ conferences: [] }).rest, 'seat-s1')).toEqual({ ok: true, value: null })
  })
})
