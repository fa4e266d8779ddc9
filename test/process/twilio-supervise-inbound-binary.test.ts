import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { CALLER, ny, twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Supervisors and calls back on the service as shipped, against the Twilio emulator: a lead who
 * calls the organization's number back is recognised and put into the waiting seat's conference
 * (else rung through to the campaign's people with press 1), recorded as an inbound call of that
 * lead; a supervisor listens, whispers (coaching the seat's leg) or barges through the
 * Participants API, each in the call's events; an unknown caller hears the organization's message.
 */
const ADMIN = 'dat_twilio_supervise_0123456789abcdef0123'
const SID = `AC${'f6'.repeat(16)}`
const TOKEN = 'd'.repeat(32)
const SEAT = { name: 'Sid Seated', phone: '+13125550311' }
const BRIDGE_SDR = { name: 'Bea Bridge', phone: '+13125550411' }
const SPEED = 10

describe('supervisors and calls back on Twilio (compiled binary)', () => {
  const service = twilioService({ prefix: 'dialer-supervise-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 40_000 })
  const { emulator, admin, start, callOf, addLead } = service
  let orgId = ''

  beforeAll(async () => {
    await start()
    orgId = (await service.seedOrg({ name: 'Spring roofs', lines: 1, dial_mode: 'power', abandon_message: { say: 'Sorry, all our people are busy. Call us at 212 555 0100.' }, sdrs: [SEAT] })).orgId
  }, 40_000)

  afterAll(() => service.close())

  const inbound = () => ({ to: CALLER, url: `${service.base}/twilio/inbound/${orgId}`, statusCallback: `${service.base}/twilio/inbound/${orgId}/status` })
  const eventsOf = async (callId: string, type: string) =>
    ((await service.api('GET', `/events?limit=100&type=${type}`)).body.data as any[]).filter((e) => e.data.object.id === callId)

  /** A lead of the campaign whose own dial was busy (it waits an hour for its retry): it can call back now. */
  async function dialedOnce(phone: string, campaignId = service.campaignId): Promise<string> {
    const r = await service.api('POST', '/leads', { campaign_id: campaignId, phone, name: 'Jordan Lee' })
    expect(r.status).toBe(201)
    await callOf(r.body.data.id, (c) => c.status === 'ended' && c.direction === 'outbound')
    return r.body.data.id
  }

  test('a waiting seat takes the call back at once; the supervisor listens, whispers to the seat only, barges; each is a call.supervised event', async () => {
    const created = await admin('POST', `/campaigns/${service.campaignId}/seats`, SEAT)
    expect(created.status).toBe(201)
    const seatId = created.body.data.id
    const phone = ny('03', 81)
    const leadId = await dialedOnce(phone)
    emulator.script(phone, { hangUpAfter: 60 })
    const twilioCall = await emulator.callIn({ from: phone, ...inbound() })
    const call = await callOf(leadId, (c) => c.direction === 'inbound' && c.handled_by?.role === 'sdr')
    expect(call).toMatchObject({ direction: 'inbound', status: 'in_progress', handled_by: { name: SEAT.name, role: 'sdr' } })
    expect(emulator.heardAt(twilioCall.sid)?.firstHeard?.kind).toBe('person')
    // Out of the abandonment ledger: not a call the seller placed.
    expect((await admin('GET', `/calls/${call.id}`)).body.data).toMatchObject({ direction: 'inbound', answered_at: null, abandoned: null })

    const supervisor = (n: string) => `+131255503${n}`
    for (const n of ['20', '21', '22']) emulator.script(supervisor(n), { role: 'person' })
    const whisper = service.cli(['call', 'supervise', call.id, '--mode', 'whisper', '--phone', supervisor('21')])
    expect(whisper.code).toBe(0)
    expect(JSON.parse(whisper.out).data).toMatchObject({ object: 'supervision', call_id: call.id, mode: 'whisper', seat_id: seatId })
    expect((await admin('POST', `/calls/${call.id}/supervise`, { mode: 'listen', phone: supervisor('20') })).status).toBe(201)
    expect((await admin('POST', `/calls/${call.id}/supervise`, { mode: 'barge', phone: supervisor('22') })).status).toBe(201)
    const room = emulator.conference(`seat-${seatId}`)!
    const deadline = Date.now() + 20_000
    const joined = () => room.participants.filter((p) => p.call.to.startsWith('+131255503') && p.status === 'connected')
    while (joined().length < 3 && Date.now() < deadline) await Bun.sleep(50)
    const byPhone = new Map(joined().map((p) => [p.call.to, p]))
    const seatLeg = room.participants.find((p) => p.call.to === SEAT.phone)!.call.sid
    expect(byPhone.get(supervisor('20'))).toMatchObject({ muted: true, coaching: false })
    expect(byPhone.get(supervisor('21'))).toMatchObject({ muted: false, coaching: true, callSidToCoach: seatLeg })
    expect(byPhone.get(supervisor('22'))).toMatchObject({ muted: false, coaching: false })
    const supervised = await eventsOf(call.id, 'call.supervised')
    expect(supervised.map((e) => e.data.object.supervision.mode).sort()).toEqual(['barge', 'listen', 'whisper'])

    // A call that is over cannot be supervised.
    const first = (await service.api('GET', `/calls?lead_id=${leadId}&limit=5`)).body.data.find((c: any) => c.direction === 'outbound')
    expect((await admin('POST', `/calls/${first.id}/supervise`, { mode: 'listen', phone: supervisor('20') })).body.error.code).toBe('not_found')
    await admin('DELETE', `/campaigns/${service.campaignId}/seats/${seatId}`)
  })

  test('no seat waits: the call back rings the campaign people with press 1, and the one who presses 1 takes it', async () => {
    const bridge = await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Gutters', status: 'active', lines: 1, sdrs: [BRIDGE_SDR] })
    expect(bridge.status).toBe(201)
    const phone = ny('03', 82)
    const leadId = await dialedOnce(phone, bridge.body.data.id)
    emulator.script(phone, { hangUpAfter: 60 })
    await emulator.callIn({ from: phone, ...inbound() })
    const call = await callOf(leadId, (c) => c.direction === 'inbound' && c.handled_by?.role === 'sdr')
    expect(call.handled_by).toMatchObject({ name: BRIDGE_SDR.name, role: 'sdr' })
    expect((await eventsOf(call.id, 'handover.accepted'))).toHaveLength(1)
    // Not in a seat's conference: nobody can be called into it.
    expect((await admin('POST', `/calls/${call.id}/supervise`, { mode: 'listen', phone: '+13125550320' })).body.error.code).toBe('not_found')
  })

  test('an unknown caller hears the organization\u2019s message and no call is written', async () => {
    const before = (await service.api('GET', '/calls?limit=100')).body.data.length
    const stranger = ny('01', 83)
    emulator.script(stranger, { hangUpAfter: 30 })
    const twilioCall = await emulator.callIn({ from: stranger, ...inbound() })
    const deadline = Date.now() + 10_000
    while (!(twilioCall.spoken?.length) && Date.now() < deadline) await Bun.sleep(50)
    expect(twilioCall.spoken?.[0]?.text).toBe('Thank you for calling Acme Roofing. We could not find your number in our records, so nobody can take this call. Goodbye.')
    expect((await service.api('GET', '/calls?limit=100')).body.data.length).toBe(before)
    // Not signed with the organization's token: refused, nothing answered.
    const forged = await fetch(inbound().url, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'bm90IGEgc2lnbmF0dXJl' },
      body: new URLSearchParams({ CallSid: `CA${'9'.repeat(32)}`, AccountSid: SID, From: ny('01', 84), To: CALLER }).toString(),
    })
    expect(forged.status).toBe(403)
    expect(await forged.text()).not.toContain('<Response>')
  })
})
