import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { daytimeStart } from './daytime-clock'
import { twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Recording consent (issue 27, item 3) on the service as shipped (DIALER_TEST_BINARY, started
 * from an empty folder) against the Twilio emulator over loopback. A California lead (all-party
 * consent) is called without Record=true, hears the notice after the answer, and only then is the
 * recording started through the Call Recordings API; the call reads recording_consent with
 * required_by ["CA"] and announced_at. New York and Texas leads (one-party) record from the start
 * as before. The emulator plays calls 50 times faster than real time; scenario 00: a person
 * answers and is bridged to the SDR.
 */
const ADMIN = 'dat_twilio_consent_0123456789abcdef012'
const SID = `AC${'c7'.repeat(16)}`
const TOKEN = 'f'.repeat(32)
const ZONES = ['America/Los_Angeles', 'America/Chicago', 'America/New_York']

describe('recording consent through Twilio, as shipped', () => {
  const service = twilioService({ prefix: 'dialer-twilio-consent-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: 50 })
  const { emulator, json, admin, start, callOf, addLead } = service

  /** The emulator's call to `to`, and what it was asked and sent for it. */
  function emulated(to: string) {
    const call = [...emulator.calls.values()].find((c) => c.to === to)!
    const create = emulator.received.find((r) => r.method === 'POST' && r.path.endsWith('/Calls.json') && r.params.To === to)!
    const recordings = emulator.received.filter((r) => r.path.endsWith(`/Calls/${call.sid}/Recordings.json`))
    const twiml = emulator.callbacksFor(call.sid).filter((c) => c.kind === 'twiml' || c.kind === 'redirect')
    return { call, create, recordings, twiml }
  }

  beforeAll(async () => {
    await start()
    await service.clockAt(daytimeStart(Date.now(), ZONES))
    await service.seedOrg({ name: 'West coast roofs', lines: 4, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }] })
  }, 40_000)

  afterAll(() => service.close())

  test('a California lead: created unrecorded, the default notice after the answer, then the recording started on the live call', async () => {
    const phone = '+14155552100'
    const leadId = await addLead(phone)
    const done = await callOf(leadId, (c) => c.status === 'ended' && c.recording_available)
    const { call, create, recordings, twiml } = emulated(phone)
    // No Record=true at create, and no recording callback asked for there.
    expect(create.params.Record).toBe('false')
    expect(create.params.RecordingStatusCallback).toBeUndefined()
    // The answer holds for detection (nothing transcribed yet); a person then hears the notice and
    // a redirect to announced; the bridge and transcription come only after it.
    const at = twiml.findIndex((t) => t.body.includes('<Say>This call may be recorded.</Say>'))
    expect(at).toBeGreaterThan(0)
    expect(twiml[at]!.body).toContain(`/twilio/calls/${done.id}/announced`)
    expect(twiml.slice(0, at + 1).some((t) => t.body.includes('<Dial') || t.body.includes('<Transcription'))).toBe(false)
    expect(twiml[at + 1]!.url).toContain('/announced')
    expect(twiml[at + 1]!.body).toContain('<Dial')
    expect(twiml[at + 1]!.body).toContain('<Transcription')
    // The Call Recordings API, once, accepted, with its callback and events.
    expect(recordings.map((r) => r.status)).toEqual([201])
    expect(recordings[0]!.params.RecordingStatusCallback).toBe(`${service.base}/twilio/calls/${done.id}/recording`)
    expect(String(recordings[0]!.params.RecordingStatusCallbackEvent).split(' ')).toContain('completed')
    // The emulator's own record: the recording began after the notice had ended.
    const notice = call.spoken!.find((s) => s.text === 'This call may be recorded.')!
    expect(call.liveRecording!.startedAt).toBeGreaterThanOrEqual(notice.endedAt)
    expect(emulator.sent.filter((s) => s.status !== 200).map((s) => `${s.kind} ${s.status}`)).toEqual([])
    // The admin read: the Call object plus carrier and recording_consent.
    const read = await admin('GET', `/calls/${done.id}`)
    expect(read.status).toBe(200)
    expect(read.body.data).toMatchObject({ id: done.id, carrier: 'twilio', recording_available: true, recording_consent: { required_by: ['CA'], method: 'say' } })
    const announced = Date.parse(read.body.data.recording_consent.announced_at)
    expect(announced).toBeGreaterThanOrEqual(Date.parse(read.body.data.answered))
    // The same through the CLI.
    expect(json(['call', 'get', done.id]).recording_consent.required_by).toEqual(['CA'])
  })

  test("the campaign's own notice (set with the CLI) is what the lead hears", async () => {
    const updated = json(['campaign', 'update', service.campaignId, '--recording-notice', '{"say":"Acme records this call for quality."}'])
    expect(updated.recording_notice).toEqual({ say: 'Acme records this call for quality.' })
    const phone = '+13105552100'
    const leadId = await addLead(phone)
    const done = await callOf(leadId, (c) => c.status === 'ended' && c.recording_available)
    const { call, twiml, recordings } = emulated(phone)
    expect(twiml.some((t) => t.body.includes('<Say>Acme records this call for quality.</Say>'))).toBe(true)
    expect(recordings).toHaveLength(1)
    expect(call.liveRecording!.startedAt).toBeGreaterThanOrEqual(call.spoken!.find((s) => s.text.startsWith('Acme records'))!.endedAt)
    expect((await admin('GET', `/calls/${done.id}`)).body.data.recording_consent.required_by).toEqual(['CA'])
    json(['campaign', 'update', service.campaignId, '--recording-notice', 'null'])
  })

  test('New York and Texas leads (one-party) record from the start, with no notice', async () => {
    for (const phone of ['+12125552300', '+12145552300']) {
      const leadId = await addLead(phone)
      const done = await callOf(leadId, (c) => c.status === 'ended' && c.recording_available)
      const { create, recordings, twiml } = emulated(phone)
      expect(create.params.Record).toBe('true')
      expect(recordings).toEqual([])
      expect(twiml.some((t) => t.body.includes('/announced'))).toBe(false)
      expect(twiml[0]!.body).toContain('<Transcription')
      expect(twiml.some((t) => t.body.includes('<Dial'))).toBe(true)
      const read = await admin('GET', `/calls/${done.id}`)
      expect(read.status).toBe(200)
      expect(read.body.data.recording_consent).toBeNull()
    }
  })
})
