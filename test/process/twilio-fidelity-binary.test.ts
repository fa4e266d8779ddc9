import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { basic } from '../harness'
import type { AnsweredBy } from '../emulators/twilio/emulator-scenarios'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'
import { CALLER, ny, twilioService, type TwilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Twilio's callbacks as they really come, on the service as shipped (DIALER_TEST_BINARY in an
 * empty folder) against the emulator over loopback: every AnsweredBy and DialCallStatus, a
 * recording Twilio never made, callbacks shuffled and repeated, track labels in transcription
 * callbacks; and the carrier in operation: the recording deleted at Twilio once stored, the
 * carrier counters in /metrics, a refused signature logged with its URL, the loopback
 * DIALER_PUBLIC_URL warned about.
 */
const ADMIN = 'dat_twilio_fidelity_0123456789abcdef01'
const SID = `AC${'f2'.repeat(16)}`
const TOKEN = 'f'.repeat(32)

async function setUp(service: TwilioService): Promise<{ orgId: string; legsCampaignId: string }> {
  await service.start()
  const orgId = service.json(['org', 'create', '--name', 'Acme Roofing', '--plan-requests-per-minute', '100000']).id
  const tokenFile = `${service.work.path}/twilio-token`
  await Bun.write(tokenFile, `${TOKEN}\n`)
  const set = service.cli(['org', 'carrier', orgId, '--twilio', '--account-sid', SID, '--auth-token-file', tokenFile, '--caller-id', CALLER, '--api-base-url', service.emulator.url])
  expect(set.code).toBe(0)
  const campaign = await service.admin('POST', `/orgs/${orgId}/campaigns`, {
    name: 'Spring roofs', status: 'active', lines: 4,
    sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }], closers: [{ name: 'Sam Chen', phone: '+13125550151' }],
    voicemail: { say: 'Hi, this is Acme Roofing returning your request.' },
  })
  expect(campaign.status).toBe(201)
  service.campaignId = campaign.body.data.id
  // The emulator's people by their last two digits: 02 no answer, 03 busy, 05 failed, 06 canceled, 09 answers (DialCallStatus answered).
  const legs = await service.admin('POST', `/orgs/${orgId}/campaigns`, {
    name: 'Every leg', status: 'active', lines: 2,
    sdrs: [{ name: 'No Answer', phone: '+13125550202' }, { name: 'Busy Line', phone: '+13125550203' }, { name: 'Failed Line', phone: '+13125550205' }],
    closers: [{ name: 'Canceled Line', phone: '+13125550206' }, { name: 'Robin Park', phone: '+13125550209' }],
  })
  expect(legs.status).toBe(201)
  const key = service.json(['key', 'create', '--org', orgId, '--name', 'live', '--mode', 'live', '--requests-per-minute', '100000', '--burst', '100000'])
  service.auth = basic(key.id, key.secret)
  return { orgId, legsCampaignId: legs.body.data.id }
}

const eventsOf = async (service: TwilioService, callId: string): Promise<string[]> => {
  const events = await service.api('GET', '/events?limit=100')
  return (events.body.data as any[]).filter((e) => e.data.object.id === callId).map((e) => e.type)
}

describe('Twilio fidelity and operation, through the service as shipped', () => {
  const service = twilioService({ prefix: 'dialer-twilio-fidelity-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: 50, callTimeoutMs: 15_000 })
  const { emulator, api, callOf, addLead } = service
  let legsCampaignId = ''

  beforeAll(async () => {
    legsCampaignId = (await setUp(service)).legsCampaignId
  }, 40_000)

  afterAll(() => service.close())

  test('a recording Twilio never made (RecordingStatus absent) closes the call at once, without a recording', async () => {
    const to = ny('01', 31)
    emulator.script(to, { recording: 'absent' })
    const leadId = await addLead(to)
    const up = await callOf(leadId, (c) => c.status === 'in_progress')
    const sid = [...emulator.calls.values()].find((c) => c.to === to)!.sid
    await emulator.settled(sid)
    const endedAt = Date.now()
    // The service waits up to 60 s for a recording that is due; an absent one must not make it wait.
    const call = await callOf(leadId, (c) => c.id === up.id && c.status === 'ended', 10_000)
    expect(Date.now() - endedAt).toBeLessThan(5_000)
    expect(call.recording_available).toBe(false)
    expect(call.handled_by.name).toBe('Alex Rivera')
    const create = emulator.received.find((r) => r.method === 'POST' && r.params.To === to)!
    expect(create.params.RecordingStatusCallbackEvent).toEqual(['completed', 'absent'])
    expect(emulator.callbacksFor(sid).filter((c) => c.kind === 'recording').map((c) => [c.params.RecordingStatus, c.status])).toEqual([['absent', 200]])
  })

  test('every AnsweredBy: a person is bridged, a machine gets the voicemail, a fax is a wrong number', async () => {
    const expected: Record<AnsweredBy, (call: any, events: string[]) => void> = {
      human: (c) => expect(c.handled_by).toMatchObject({ name: 'Alex Rivera', role: 'sdr' }),
      unknown: (c) => expect(c.handled_by).toMatchObject({ name: 'Alex Rivera', role: 'sdr' }),
      machine_start: (c, e) => expect([c.outcome, e.includes('voicemail.left')]).toEqual(['voicemail', true]),
      machine_end_beep: (c, e) => expect([c.outcome, e.includes('voicemail.left')]).toEqual(['voicemail', true]),
      machine_end_silence: (c, e) => expect([c.outcome, e.includes('voicemail.left')]).toEqual(['voicemail', true]),
      machine_end_other: (c, e) => expect([c.outcome, e.includes('voicemail.left')]).toEqual(['voicemail', true]),
      fax: (c, e) => expect([c.outcome, c.note, e.includes('voicemail.left')]).toEqual(['wrong_number', 'A fax machine answered; the call was ended.', false]),
    }
    const leads = await Promise.all(Object.keys(expected).map(async (by, i) => {
      const to = ny('01', 40 + i)
      emulator.script(to, { answeredBy: by as AnsweredBy })
      return { by: by as AnsweredBy, to, leadId: await addLead(to) }
    }))
    for (const { by, to, leadId } of leads) {
      const call = await callOf(leadId, (c) => c.status === 'ended' && (c.outcome !== null || c.handled_by !== null), 20_000)
      const sent = emulator.callbacksFor([...emulator.calls.values()].find((c) => c.to === to)!.sid)
      expect(sent.find((s) => s.kind === 'amd')?.params.AnsweredBy).toBe(by)
      expected[by](call, await eventsOf(service, call.id))
    }
  })

  test('every DialCallStatus on the bridge: no-answer, busy, failed and canceled ring the next person; answered is a handover', async () => {
    const to = ny('00', 32)
    const r = await api('POST', '/leads', { campaign_id: legsCampaignId, phone: to, name: 'Jordan Lee' })
    expect(r.status).toBe(201)
    const call = await callOf(r.body.data.id, (c) => c.status === 'ended' && c.handled_by !== null, 20_000)
    expect(call.handled_by).toMatchObject({ name: 'Robin Park', role: 'closer' })
    const sid = [...emulator.calls.values()].find((c) => c.to === to)!.sid
    await emulator.settled(sid)
    const statuses = emulator.callbacksFor(sid).filter((c) => c.kind === 'action').map((c) => c.params.DialCallStatus)
    expect(statuses).toEqual(['no-answer', 'busy', 'failed', 'canceled', 'answered'])
    // And completed, the usual end of a bridged leg, with a recording: downloaded, then deleted at Twilio.
  })

  test('the recording is downloaded, stored, then deleted at Twilio: no copy stays there', async () => {
    const to = ny('00', 33)
    const leadId = await addLead(to)
    const call = await callOf(leadId, (c) => c.status === 'ended' && c.recording_available, 20_000)
    const emulated = [...emulator.calls.values()].find((c) => c.to === to)!
    expect(emulator.callbacksFor(emulated.sid).filter((c) => c.kind === 'action').map((c) => c.params.DialCallStatus)).toEqual(['completed'])
    const deadline = Date.now() + 5_000
    while (!emulator.deletedRecordings.has(emulated.recordingSid!) && Date.now() < deadline) await Bun.sleep(50)
    expect(emulator.deletedRecordings.has(emulated.recordingSid!)).toBe(true)
    const deletes = emulator.received.filter((r) => r.method === 'DELETE')
    expect(deletes.find((r) => r.path.endsWith(`/Recordings/${emulated.recordingSid}.json`))).toMatchObject({ accountSid: SID, status: 204 })
    const atTwilio = await fetch(`${emulator.url}/2010-04-01/Accounts/${SID}/Recordings/${emulated.recordingSid}.wav`, { headers: { authorization: `Basic ${btoa(`${SID}:${TOKEN}`)}` } })
    expect(atTwilio.status).toBe(404)
    // The service's own copy still plays.
    const link = await api('GET', `/calls/${call.id}/recording`)
    expect(link.status).toBe(200)
    expect((await fetch(link.body.data.url)).status).toBe(200)
  })

  test('a refused signature is logged with the URL it was checked against (no signature, no token) and counted', async () => {
    const leadId = await addLead(ny('03', 34))
    const call = await callOf(leadId, (c) => c.status === 'ended')
    const url = `${service.base}/twilio/calls/${call.id}/status`
    const params = { AccountSid: SID, CallSid: `CA${'0'.repeat(32)}`, CallStatus: 'busy' }
    const forgedSignature = signTwilioRequest('0'.repeat(32), url, params)
    const forged = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': forgedSignature },
      body: new URLSearchParams(params).toString(),
    })
    expect(forged.status).toBe(403)
    await Bun.sleep(200)
    const line = service.output().split('\n').find((l) => l.includes('twilio_callback_refused') && l.includes(call.id))
    expect(line).toBeDefined()
    const logged = JSON.parse(line!)
    expect(logged).toMatchObject({ level: 'warn', reason: 'signature', step: 'status', url })
    expect(line).not.toContain(forgedSignature)
    expect(line).not.toContain(TOKEN)

    const metrics = await fetch(`${service.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })
    expect(metrics.status).toBe(200)
    const text = await metrics.text()
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
    expect(value('dialer_carrier_callbacks_refused_total{reason="signature"}')).toBeGreaterThanOrEqual(1)
    expect(value('dialer_carrier_calls_total{status="busy"}')).toBeGreaterThanOrEqual(1)
    expect(value('dialer_carrier_calls_total{status="completed"}')).toBeGreaterThanOrEqual(3)
    expect(value('dialer_carrier_callbacks_total{step="status"}')).toBeGreaterThanOrEqual(4)
    expect(value('dialer_carrier_callbacks_total{step="amd"}')).toBeGreaterThanOrEqual(7)
    expect(value('dialer_carrier_callbacks_total{step="recording"}')).toBeGreaterThanOrEqual(2)
    expect(text).toContain('# TYPE dialer_carrier_callback_seconds histogram')
    expect(value('dialer_carrier_callback_seconds_count')).toBeGreaterThan(10)
    expect(value('dialer_carrier_callback_seconds_bucket{le="+Inf"}')).toBe(value('dialer_carrier_callback_seconds_count'))
  })

  test('a loopback DIALER_PUBLIC_URL is warned about once: at the first Twilio dial, then at start when an organization uses Twilio', async () => {
    const warnings = () => service.output().split('\n').filter((l) => l.includes('twilio_public_url_loopback'))
    expect(warnings()).toHaveLength(1)
    expect(JSON.parse(warnings()[0]!)).toMatchObject({ level: 'warn', public_url: service.base })
    await service.stop('SIGTERM')
    await service.start()
    expect(warnings()).toHaveLength(1)
  })
})

describe('callbacks shuffled and repeated, track labels: one correct result each', () => {
  const service = twilioService({
    prefix: 'dialer-twilio-shuffled-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: 50, callTimeoutMs: 20_000,
    emulator: { shuffle: { seed: 27, duplicate: 0.5 }, trackLabels: true },
  })
  const { emulator, api, callOf, addLead } = service

  beforeAll(() => setUp(service), 40_000)
  afterAll(() => service.close())

  test('a person, a machine, busy, no answer and an absent recording each end once, as they would in order', async () => {
    const absent = ny('01', 55)
    emulator.script(absent, { recording: 'absent' })
    const leads = Object.fromEntries(await Promise.all(
      [['person', ny('00', 51)], ['machine', ny('04', 52)], ['busy', ny('03', 53)], ['none', ny('02', 54)], ['absent', absent]].map(async ([name, to]) => [name!, await addLead(to!)]),
    ))
    const person = await callOf(leads.person, (c) => c.status === 'ended' && c.recording_available)
    expect(person.handled_by).toMatchObject({ name: 'Alex Rivera', role: 'sdr' })
    const machine = await callOf(leads.machine, (c) => c.status === 'ended' && c.outcome !== null)
    expect(machine.outcome).toBe('voicemail')
    expect((await callOf(leads.busy, (c) => c.status === 'ended' && c.outcome !== null)).outcome).toBe('busy')
    expect((await callOf(leads.none, (c) => c.status === 'ended' && c.outcome !== null)).outcome).toBe('no_answer')
    const gone = await callOf(leads.absent, (c) => c.status === 'ended', 10_000)
    expect([gone.recording_available, gone.handled_by?.name]).toEqual([false, 'Alex Rivera'])
    // Delivered out of order and some twice.
    const sent = emulator.sent.filter((s) => s.kind !== 'twiml' && s.kind !== 'redirect' && s.kind !== 'action')
    const tokens = new Map<string, number>()
    for (const s of sent) tokens.set(`${s.callSid} ${s.kind} ${JSON.stringify(s.params)}`, (tokens.get(`${s.callSid} ${s.kind} ${JSON.stringify(s.params)}`) ?? 0) + 1)
    expect([...tokens.values()].some((n) => n > 1)).toBe(true)
    expect(sent.every((s) => s.status === 200)).toBe(true)
    // One call per lead, each told once.
    for (const leadId of Object.values(leads)) {
      const calls = await api('GET', `/calls?lead_id=${leadId}`)
      expect(calls.body.data).toHaveLength(1)
      const events = await eventsOf(service, calls.body.data[0].id)
      expect(events.filter((e) => e === 'call.started')).toHaveLength(1)
      expect(events.filter((e) => e === 'call.answered').length).toBeLessThanOrEqual(1)
      expect(events.filter((e) => e === 'call.completed').length).toBeLessThanOrEqual(1)
      expect(events.filter((e) => e === 'voicemail.left').length).toBeLessThanOrEqual(1)
    }
    expect((await eventsOf(service, machine.id)).filter((e) => e === 'voicemail.left')).toHaveLength(1)
    // Both tracks, named by the labels our <Transcription> gave them.
    const labelled = emulator.sent.filter((s) => s.kind === 'transcription' && s.params.Track)
    expect(new Set(labelled.map((s) => s.params.Track))).toEqual(new Set(['lead', 'agent']))
    const transcript = await api('GET', `/calls/${person.id}/transcript`)
    expect(transcript.status).toBe(200)
    const speakers = (transcript.body.data.lines as any[]).map((l) => `${l.speaker}:${l.name}`)
    expect(speakers).toContain('lead:Jordan Lee')
    expect(speakers).toContain('agent:Alex Rivera')
  })
})
