import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ny, twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Power dialing on the service as shipped against the Twilio emulator: a seat (an SDR seated in
 * a conference of their own) waits, the lead is dialed and joins that room at the answer, so the
 * person who answers hears the SDR at once; with no seat waiting at the answer the campaign's
 * abandon message plays at once and 9 puts the number on the Do Not Call list.
 */
const ADMIN = 'dat_twilio_seated_0123456789abcdef012345'
const SID = `AC${'e5'.repeat(16)}`
const TOKEN = 'e'.repeat(32)
const MESSAGE = 'This is Acme Roofing returning your request. Call us at 212 555 0100.'
const SEAT = { name: 'Sid Seated', phone: '+13125550311' }
/** Emulated seconds per real second: a lead answers 5 to 6 emulated seconds after the dial. */
const SPEED = 10

describe('power dialing on Twilio (compiled binary)', () => {
  const service = twilioService({ prefix: 'dialer-seated-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 40_000 })
  const { emulator, admin, start, callOf, addLead } = service

  beforeAll(async () => {
    await start()
    await service.seedOrg({
      name: 'Spring roofs', lines: 2, dial_mode: 'power', abandon_message: { say: MESSAGE },
      sdrs: [SEAT], voicemail: { say: 'Hi, this is Acme Roofing returning your request.' },
    })
  }, 40_000)

  afterAll(() => service.close())

  const seatsPath = () => `/campaigns/${service.campaignId}/seats`
  async function seatUntil(id: string, until: (seat: any) => boolean, ms = 20_000): Promise<any> {
    const deadline = Date.now() + ms
    for (;;) {
      const seat = ((await admin('GET', seatsPath())).body?.data as any[] | undefined)?.find((s) => s.id === id)
      if (seat && until(seat)) return seat
      if (Date.now() > deadline) throw new Error(`seat ${id} not as wanted: ${JSON.stringify(seat)}`)
      await Bun.sleep(50)
    }
  }
  async function seated(): Promise<string> {
    const created = await admin('POST', seatsPath(), SEAT)
    expect(created.status).toBe(201)
    await seatUntil(created.body.data.id, (s) => s.state === 'waiting')
    return created.body.data.id
  }
  const leadCall = (phone: string) => [...emulator.calls.values()].find((c) => c.to === phone)
  const eventsOf = async (callId: string, type: string) =>
    ((await service.api('GET', '/events?limit=100')).body.data as any[]).filter((e) => e.type === type && e.data.object.id === callId)

  test('a seat waits: the person who answers is in the seat\u2019s room at once, handover.accepted names the seat\u2019s person, the seat waits again after', async () => {
    const seatId = await seated()
    const lead = ny('01', 71)
    const leadId = await addLead(lead)
    const call = await callOf(leadId, (c) => c.handled_by?.role === 'sdr')
    expect(call.handled_by).toMatchObject({ name: SEAT.name, role: 'sdr' })
    const twilioCall = leadCall(lead)!
    // No silence: what the lead first heard was a person, inside the 2 seconds.
    expect(twilioCall.heard?.kind).toBe('person')
    expect(twilioCall.heard!.at - twilioCall.answeredAt!).toBeLessThanOrEqual(2)
    expect(twilioCall.timeout).toBeGreaterThanOrEqual(15)
    const handovers = await eventsOf(call.id, 'handover.accepted')
    expect(handovers).toHaveLength(1)
    expect(handovers[0].data.object.handled_by.name).toBe(SEAT.name)
    // The seat had this lead, then (the lead hung up) waits for the next one.
    await callOf(leadId, (c) => c.status === 'ended')
    await seatUntil(seatId, (s) => s.state === 'waiting' && s.lead_call_id === null)
    const record = await admin('GET', `/calls/${call.id}`)
    expect(record.body.data.abandoned).toBe(false)
    expect(record.body.data.connected_at).not.toBeNull()
    expect(Date.parse(record.body.data.connected_at) - Date.parse(record.body.data.answered_at)).toBeLessThanOrEqual(2000)
    await admin('DELETE', `${seatsPath()}/${seatId}`)
  })

  test('a machine answers: moved out of the seat’s room to the voicemail drop, never the handover, the seat waits again', async () => {
    const seatId = await seated()
    const lead = ny('04', 73)
    const leadId = await addLead(lead)
    const call = await callOf(leadId, (c) => c.status === 'ended' && c.outcome !== null)
    expect(call.outcome).toBe('voicemail')
    expect(['sdr', 'closer']).not.toContain(call.handled_by?.role)
    expect(await eventsOf(call.id, 'voicemail.left')).toHaveLength(1)
    expect(await eventsOf(call.id, 'handover.accepted')).toHaveLength(0)
    // It joined the room at the answer (before detection spoke), and left it for the drop.
    expect(leadCall(lead)!.heard?.kind).toBe('person')
    const updates = emulator.received.filter((r) => r.method === 'POST' && r.path.endsWith(`/Calls/${leadCall(lead)!.sid}.json`) && typeof r.params.Twiml === 'string')
    expect(updates).toHaveLength(1)
    expect(String(updates[0]!.params.Twiml)).toContain('Hi, this is Acme Roofing returning your request.')
    await seatUntil(seatId, (s) => s.state === 'waiting' && s.lead_call_id === null)
    await admin('DELETE', `${seatsPath()}/${seatId}`)
  })

  test('no seat waits at the answer: the abandon message within 2 s, 9 puts the number on the Do Not Call list', async () => {
    const seatId = await seated()
    const lead = ny('01', 72)
    emulator.script(lead, { press: '9' })
    const leadId = await addLead(lead)
    // The seat goes while the lead's phone rings (it answers 5 emulated seconds after the dial).
    const deadline = Date.now() + 10_000
    while (!leadCall(lead) && Date.now() < deadline) await Bun.sleep(5)
    expect(leadCall(lead)?.answeredAt ?? null).toBeNull()
    expect((await admin('DELETE', `${seatsPath()}/${seatId}`)).status).toBe(200)
    const call = await callOf(leadId, (c) => c.status === 'ended' && c.outcome !== null)
    expect(call.outcome).toBe('dnc')
    expect(['sdr', 'closer']).not.toContain(call.handled_by?.role)
    const twilioCall = leadCall(lead)!
    expect(twilioCall.heard?.kind).toBe('message')
    expect(twilioCall.heard!.at - twilioCall.answeredAt!).toBeLessThanOrEqual(2)
    expect(twilioCall.pressed).toEqual(['9'])
    expect(twilioCall.spoken?.map((s) => s.text)).toContain(MESSAGE)
    const optedOut = ((await service.api('GET', '/events?limit=100')).body.data as any[]).filter((e) => e.type === 'lead.opted_out' && e.data.object.id === leadId)
    expect(optedOut).toHaveLength(1)
    expect(optedOut[0].data.object.opt_out.source).toBe('outcome')
    // The message connects nobody: abandoned unless the lead left inside 2 s of the answer (here the
    // emulator plays 10 times faster than the service's clock runs, so either may happen).
    const record = (await admin('GET', `/calls/${call.id}`)).body.data
    expect(record.connected_at).toBeNull()
    expect(record.answered_at).not.toBeNull()
    expect(record.abandoned).toBe(Date.parse(record.ended) - Date.parse(record.answered_at) > 2000)
    expect((await service.api('GET', '/events?limit=100')).body.data.some((e: any) => e.type === 'handover.accepted' && e.data.object.id === call.id)).toBe(false)
  })
})
