import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ACCOUNT, CALLER, ny, telnyxService } from './telnyx-service'

setDefaultTimeout(90_000)

/**
 * Seats, supervisors and calls back on Telnyx, on the service as shipped (the compiled binary
 * from an empty folder) against the Telnyx emulator: power dialing (the person who answers joins
 * the waiting seat's conference at once; a machine is moved out to the voicemail drop with TeXML;
 * no seat at the answer plays the abandon message, 9 opts out), predictive pacing with one seat
 * (one lead line at a time), a supervisor listening, whispering and barging through TeXML's
 * Participants API, and calls to the organization's number (the waiting seat takes a known lead,
 * else the press-1 bridge; a stranger hears the message; an unsigned webhook is refused).
 */
const ADMIN = 'dat_telnyx_seats_0123456789abcdef012345'
const MESSAGE = 'This is Acme Roofing returning your request. Call us at 212 555 0100.'
const SEAT = { name: 'Sid Seated', phone: '+13125550311' }
const BRIDGE_SDR = { name: 'Bea Bridge', phone: '+13125550411' }
const PREDICTIVE_SEAT = { name: 'Pat Predictive', phone: '+13125550511' }
/** Emulated seconds per real second: a lead answers 5 to 6 emulated seconds after the dial. */
const SPEED = 10

describe('seats, supervisors and calls back on Telnyx (compiled binary)', () => {
  const service = telnyxService({ prefix: 'dialer-telnyx-seats-', adminToken: ADMIN, speed: SPEED })
  const { emulator, admin, api } = service
  let orgId = ''
  const callOf = (leadId: string, until?: (call: any) => boolean) => service.callOf(leadId, until, 40_000)

  beforeAll(async () => {
    await service.start()
    orgId = (await service.seedOrg({
      name: 'Spring roofs', lines: 2, dial_mode: 'power', abandon_message: { say: MESSAGE },
      sdrs: [SEAT], voicemail: { say: 'Hi, this is Acme Roofing returning your request.' },
    })).orgId
  }, 40_000)

  afterAll(() => service.close())

  const seatsPath = (campaignId = service.campaignId) => `/campaigns/${campaignId}/seats`
  async function seatUntil(id: string, until: (seat: any) => boolean, campaignId = service.campaignId, ms = 20_000): Promise<any> {
    const deadline = Date.now() + ms
    for (;;) {
      const seat = ((await admin('GET', seatsPath(campaignId))).body?.data as any[] | undefined)?.find((s) => s.id === id)
      if (seat && until(seat)) return seat
      if (Date.now() > deadline) throw new Error(`seat ${id} not as wanted: ${JSON.stringify(seat)}`)
      await Bun.sleep(50)
    }
  }
  async function seated(campaignId = service.campaignId, person = SEAT): Promise<string> {
    const created = await admin('POST', seatsPath(campaignId), person)
    expect(created.status).toBe(201)
    await seatUntil(created.body.data.id, (s) => s.state === 'waiting', campaignId)
    return created.body.data.id
  }
  const leadCall = (phone: string) => [...emulator.calls.values()].find((c) => c.to === phone && c.direction !== 'inbound')
  const eventsOf = async (callId: string, type: string) =>
    ((await api('GET', `/events?limit=100&type=${type}`)).body.data as any[]).filter((e) => e.data.object.id === callId)
  const inbound = () => ({ to: CALLER, url: `${service.base}/telnyx/inbound/${orgId}`, statusCallback: `${service.base}/telnyx/inbound/${orgId}/status` })

  test('power: the seat waits in its conference (a Telnyx leg), the person who answers joins it at once; handover.accepted; the seat waits again', async () => {
    const seatId = await seated()
    // The seat's own leg was placed through TeXML and is a participant of its room.
    const room = emulator.conference(`seat-${seatId}`)!
    expect(room.participants.some((p) => p.call.to === SEAT.phone && p.call.sid.startsWith('v3:') && p.status === 'connected')).toBe(true)
    const lead = ny('01', 71)
    const leadId = await service.addLead(lead)
    const call = await callOf(leadId, (c) => c.handled_by?.role === 'sdr')
    expect(call.handled_by).toMatchObject({ name: SEAT.name, role: 'sdr' })
    const telnyxCall = leadCall(lead)!
    expect(telnyxCall.sid).toMatch(/^v3:/)
    expect(telnyxCall.heard?.kind).toBe('person')
    expect(telnyxCall.heard!.at - telnyxCall.answeredAt!).toBeLessThanOrEqual(2)
    expect(room.participants.some((p) => p.call.sid === telnyxCall.sid)).toBe(true)
    expect(await eventsOf(call.id, 'handover.accepted')).toHaveLength(1)
    await callOf(leadId, (c) => c.status === 'ended')
    await seatUntil(seatId, (s) => s.state === 'waiting' && s.lead_call_id === null)
    const record = (await admin('GET', `/calls/${call.id}`)).body.data
    expect(record).toMatchObject({ abandoned: false, carrier: 'telnyx' })
    expect(Date.parse(record.connected_at) - Date.parse(record.answered_at)).toBeLessThanOrEqual(2000)
    // Every callback the emulator sent was accepted (signed, in time).
    expect(emulator.sent.filter((s) => s.status !== 200).map((s) => `${s.kind} ${s.status} ${s.url}`)).toEqual([])
    await admin('DELETE', `${seatsPath()}/${seatId}`)
  })

  test('power: a machine answers: moved out of the room with TeXML (Texml, form-encoded) to the voicemail drop, the seat waits again', async () => {
    const seatId = await seated()
    const lead = ny('04', 73)
    const leadId = await service.addLead(lead)
    const call = await callOf(leadId, (c) => c.status === 'ended' && c.outcome !== null)
    expect(call.outcome).toBe('voicemail')
    expect(await eventsOf(call.id, 'voicemail.left')).toHaveLength(1)
    expect(await eventsOf(call.id, 'handover.accepted')).toHaveLength(0)
    const sid = leadCall(lead)!.sid
    const updates = emulator.received.filter((r) => r.method === 'POST' && r.path.endsWith(`/Calls/${encodeURIComponent(sid)}`) && typeof r.params.Texml === 'string')
    expect(updates).toHaveLength(1)
    expect(updates[0]!.contentType).toContain('application/x-www-form-urlencoded')
    expect(String(updates[0]!.params.Texml)).toContain('Hi, this is Acme Roofing returning your request.')
    await seatUntil(seatId, (s) => s.state === 'waiting' && s.lead_call_id === null)
    await admin('DELETE', `${seatsPath()}/${seatId}`)
  })

  test('power: no seat waits at the answer: the abandon message within 2 s, 9 puts the number on the Do Not Call list', async () => {
    const seatId = await seated()
    const lead = ny('01', 72)
    emulator.script(lead, { press: '9' })
    const leadId = await service.addLead(lead)
    const deadline = Date.now() + 10_000
    while (!leadCall(lead) && Date.now() < deadline) await Bun.sleep(5)
    expect(leadCall(lead)?.answeredAt ?? null).toBeNull()
    expect((await admin('DELETE', `${seatsPath()}/${seatId}`)).status).toBe(200)
    const call = await callOf(leadId, (c) => c.status === 'ended' && c.outcome !== null)
    expect(call.outcome).toBe('dnc')
    const telnyxCall = leadCall(lead)!
    expect(telnyxCall.heard?.kind).toBe('message')
    expect(telnyxCall.heard!.at - telnyxCall.answeredAt!).toBeLessThanOrEqual(2)
    expect(telnyxCall.pressed).toEqual(['9'])
    expect(telnyxCall.spoken?.map((s) => s.text)).toContain(MESSAGE)
    const optedOut = ((await api('GET', '/events?limit=100&type=lead.opted_out')).body.data as any[]).filter((e) => e.data.object.id === leadId)
    expect(optedOut).toHaveLength(1)
    expect((await admin('GET', `/calls/${call.id}`)).body.data.connected_at).toBeNull()
  })

  test('a seat removed while its leg still rings: the leg is hung up at Telnyx (Status=completed on the ringing call)', async () => {
    const ringing = { name: 'Rae Rings', phone: '+13125550602' }
    expect((await admin('PATCH', `/campaigns/${service.campaignId}`, { sdrs: [SEAT, ringing] })).status).toBe(200)
    const created = await admin('POST', seatsPath(), ringing)
    expect(created.status).toBe(201)
    const legOf = () => [...emulator.calls.values()].find((c) => c.to === ringing.phone)
    const deadline = Date.now() + 10_000
    while (legOf()?.status !== 'ringing' && Date.now() < deadline) await Bun.sleep(10)
    const leg = legOf()!
    expect(leg.status).toBe('ringing')
    expect((await admin('DELETE', `${seatsPath()}/${created.body.data.id}`)).status).toBe(200)
    // Its phone would ring 30 emulated seconds (3 s here) before giving up: ended well before.
    const until = Date.now() + 2_000
    while (leg.endedAt === null && Date.now() < until) await Bun.sleep(20)
    expect(leg.endedAt).not.toBeNull()
    expect(leg.answeredAt ?? null).toBeNull()
    const hangUps = emulator.received.filter((r) => r.method === 'POST' && r.path.endsWith(`/Calls/${encodeURIComponent(leg.sid)}`) && r.params.Status === 'completed')
    expect(hangUps).toHaveLength(1)
    expect(hangUps[0]!.status).toBe(200)
    expect((await admin('PATCH', `/campaigns/${service.campaignId}`, { sdrs: [SEAT] })).status).toBe(200)
  })

  test('supervisors: listen, whisper (coaching the seat\u2019s leg) and barge through TeXML Participants; a known lead calling back joins the waiting seat', async () => {
    const seatId = await seated()
    // A lead whose own dial was busy calls the organization's number back.
    const phone = ny('03', 81)
    const leadId = await service.addLead(phone)
    await callOf(leadId, (c) => c.status === 'ended' && c.direction === 'outbound')
    emulator.script(phone, { hangUpAfter: 60 })
    const telnyxCall = await emulator.callIn({ from: phone, ...inbound() })
    const call = await callOf(leadId, (c) => c.direction === 'inbound' && c.handled_by?.role === 'sdr')
    expect(call).toMatchObject({ status: 'in_progress', handled_by: { name: SEAT.name, role: 'sdr' } })
    expect(emulator.heardAt(telnyxCall.sid)?.firstHeard?.kind).toBe('person')
    expect((await admin('GET', `/calls/${call.id}`)).body.data).toMatchObject({ direction: 'inbound', answered_at: null, abandoned: null })

    const supervisor = (n: string) => `+131255503${n}`
    for (const n of ['20', '21', '22']) emulator.script(supervisor(n), { role: 'person' })
    const whisper = service.cli(['call', 'supervise', call.id, '--mode', 'whisper', '--phone', supervisor('21')])
    expect(whisper.code).toBe(0)
    expect(JSON.parse(whisper.out).data).toMatchObject({ object: 'supervision', call_id: call.id, mode: 'whisper', seat_id: seatId })
    expect((await admin('POST', `/calls/${call.id}/supervise`, { mode: 'listen', phone: supervisor('20') })).status).toBe(201)
    expect((await admin('POST', `/calls/${call.id}/supervise`, { mode: 'barge', phone: supervisor('22') })).status).toBe(201)
    const room = emulator.conference(`seat-${seatId}`)!
    const joined = () => room.participants.filter((p) => p.call.to.startsWith('+131255503') && p.status === 'connected')
    const deadline = Date.now() + 20_000
    while (joined().length < 3 && Date.now() < deadline) await Bun.sleep(50)
    const byPhone = new Map(joined().map((p) => [p.call.to, p]))
    const seatLeg = room.participants.find((p) => p.call.to === SEAT.phone)!.call.sid
    expect(byPhone.get(supervisor('20'))).toMatchObject({ muted: true, coaching: false })
    expect(byPhone.get(supervisor('21'))).toMatchObject({ muted: false, coaching: true, callSidToCoach: seatLeg })
    expect(byPhone.get(supervisor('22'))).toMatchObject({ muted: false, coaching: false })
    // The participants were asked for form-encoded, under TeXML's Conferences path.
    const asked = emulator.received.filter((r) => r.method === 'POST' && /\/Conferences\/[^/]+\/Participants$/.test(r.path))
    expect(asked).toHaveLength(3)
    for (const r of asked) expect(r.contentType).toContain('application/x-www-form-urlencoded')
    const supervised = await eventsOf(call.id, 'call.supervised')
    expect(supervised.map((e) => e.data.object.supervision.mode).sort()).toEqual(['barge', 'listen', 'whisper'])
    const first = (await api('GET', `/calls?lead_id=${leadId}&limit=5`)).body.data.find((c: any) => c.direction === 'outbound')
    expect((await admin('POST', `/calls/${first.id}/supervise`, { mode: 'listen', phone: supervisor('20') })).body.error.code).toBe('not_found')
    await admin('DELETE', `${seatsPath()}/${seatId}`)
  })

  test('calls back: no seat waits, the campaign\u2019s people are rung with press 1; a stranger hears the message; an unsigned webhook is refused', async () => {
    const bridge = await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Gutters', status: 'active', lines: 1, sdrs: [BRIDGE_SDR] })
    expect(bridge.status).toBe(201)
    const phone = ny('03', 82)
    const leadId = await service.addLead(phone, bridge.body.data.id)
    await callOf(leadId, (c) => c.status === 'ended' && c.direction === 'outbound')
    emulator.script(phone, { hangUpAfter: 60 })
    await emulator.callIn({ from: phone, ...inbound() })
    const call = await callOf(leadId, (c) => c.direction === 'inbound' && c.handled_by?.role === 'sdr')
    expect(call.handled_by).toMatchObject({ name: BRIDGE_SDR.name, role: 'sdr' })
    expect(await eventsOf(call.id, 'handover.accepted')).toHaveLength(1)
    expect((await admin('POST', `/calls/${call.id}/supervise`, { mode: 'listen', phone: '+13125550320' })).body.error.code).toBe('not_found')
    expect((await admin('PATCH', `/campaigns/${bridge.body.data.id}`, { status: 'paused' })).status).toBe(200)

    const before = (await api('GET', '/calls?limit=100')).body.data.length
    const stranger = ny('01', 83)
    emulator.script(stranger, { hangUpAfter: 30 })
    const strangerCall = await emulator.callIn({ from: stranger, ...inbound() })
    const until = Date.now() + 10_000
    while (!(strangerCall.spoken?.length) && Date.now() < until) await Bun.sleep(50)
    expect(strangerCall.spoken?.[0]?.text).toBe('Thank you for calling Acme Roofing. We could not find your number in our records, so nobody can take this call. Goodbye.')
    expect((await api('GET', '/calls?limit=100')).body.data.length).toBe(before)
    const body = new URLSearchParams({ CallSid: 'v3:forged-inbound-call', AccountSid: ACCOUNT, From: ny('01', 84), To: CALLER, CallStatus: 'ringing' }).toString()
    const unsigned = await fetch(inbound().url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })
    expect(unsigned.status).toBe(403)
    expect(await unsigned.text()).not.toContain('<Response>')
    const other = await fetch(inbound().url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...emulator.signedHeaders(body, Math.floor(service.clockNow() / 1000) - 400) }, body })
    expect(other.status).toBe(403)
  })

  test('predictive, one seat and no history: nothing dialed without a seat, then one lead line at a time, each joining the seat', async () => {
    expect((await admin('PATCH', `/campaigns/${service.campaignId}`, { status: 'paused' })).status).toBe(200)
    const created = await admin('POST', `/orgs/${orgId}/campaigns`, {
      name: 'Autumn roofs', status: 'active', lines: 5, dial_mode: 'predictive', max_abandon_rate: 0.03,
      abandon_message: { say: 'This is Acme Roofing. Call us at 212 555 0100.' }, sdrs: [PREDICTIVE_SEAT], retry_minutes: 600,
    })
    expect(created.status).toBe(201)
    const campaignId = created.body.data.id
    const phones = [ny('01', 91), ny('01', 92), ny('01', 93)]
    const leadIds: string[] = []
    for (const phone of phones) leadIds.push(await service.addLead(phone, campaignId))
    const leadCalls = () => [...emulator.calls.values()].filter((c) => phones.includes(c.to))
    await Bun.sleep(1_500)
    expect(leadCalls()).toHaveLength(0)
    await seated(campaignId, PREDICTIVE_SEAT)
    let most = 0
    const deadline = Date.now() + 80_000
    while (leadCalls().filter((c) => c.endedAt !== null).length < phones.length) {
      most = Math.max(most, leadCalls().filter((c) => c.endedAt === null).length)
      if (Date.now() > deadline) throw new Error(`not every lead was called: ${JSON.stringify(leadCalls().map((c) => [c.to, c.status]))}`)
      await Bun.sleep(20)
    }
    expect(most).toBe(1)
    for (const leadId of leadIds) {
      const call = await callOf(leadId, (c) => c.status === 'ended')
      expect(call.handled_by).toMatchObject({ name: PREDICTIVE_SEAT.name, role: 'sdr' })
      expect((await admin('GET', `/calls/${call.id}`)).body.data.abandoned).toBe(false)
    }
    for (const call of leadCalls()) {
      expect(call.heard?.kind).toBe('person')
      expect(call.heard!.at - call.answeredAt!).toBeLessThanOrEqual(2)
    }
    // Across the file, every callback the emulator sent (seat legs, rooms, leads, calls in) was accepted.
    expect(emulator.sent.filter((s) => s.status !== 200).map((s) => `${s.kind} ${s.status} ${s.url}`)).toEqual([])
  })
})

describe('a seated call on Telnyx with every callback out of order and twice (compiled binary)', () => {
  const service = telnyxService({ prefix: 'dialer-telnyx-seats-shuffled-', adminToken: ADMIN, speed: SPEED, emulator: { shuffle: { seed: 31, duplicate: 1 } } })
  const { emulator, admin, api } = service

  beforeAll(async () => {
    await service.start()
    await service.seedOrg({ name: 'Spring roofs', lines: 1, dial_mode: 'power', abandon_message: { say: MESSAGE }, sdrs: [SEAT], voicemail: { say: 'Hi, this is Acme Roofing.' } })
  }, 40_000)

  afterAll(() => service.close())

  test('each lead joins the seat (or gets the drop) and is told once; the seat waits again', async () => {
    const created = await admin('POST', `/campaigns/${service.campaignId}/seats`, SEAT)
    expect(created.status).toBe(201)
    const seatId = created.body.data.id
    const person = await service.addLead(ny('01', 61))
    const machine = await service.addLead(ny('04', 62))
    const joined = await service.callOf(person, (c) => c.status === 'ended' && c.handled_by?.role === 'sdr', 40_000)
    const dropped = await service.callOf(machine, (c) => c.status === 'ended' && c.outcome !== null, 40_000)
    expect(dropped.outcome).toBe('voicemail')
    const events = (await api('GET', '/events?limit=100')).body.data as any[]
    const count = (type: string, id: string) => events.filter((e) => e.type === type && e.data.object.id === id).length
    expect([count('call.started', joined.id), count('call.answered', joined.id), count('handover.accepted', joined.id)]).toEqual([1, 1, 1])
    expect([count('call.answered', dropped.id), count('voicemail.left', dropped.id), count('handover.accepted', dropped.id)]).toEqual([1, 1, 0])
    const deadline = Date.now() + 20_000
    for (;;) {
      const seat = ((await admin('GET', `/campaigns/${service.campaignId}/seats`)).body.data as any[]).find((s) => s.id === seatId)
      if (seat?.state === 'waiting' && seat.lead_call_id === null) break
      if (Date.now() > deadline) throw new Error(`seat not waiting again: ${JSON.stringify(seat)}`)
      await Bun.sleep(50)
    }
    // Duplicates were sent (and answered 200, applied once).
    expect(emulator.sent.length).toBeGreaterThan(new Set(emulator.sent.map((s) => `${s.url}|${JSON.stringify(s.params)}`)).size)
    expect(emulator.sent.filter((s) => s.status !== 200).map((s) => `${s.kind} ${s.status}`)).toEqual([])
    await admin('DELETE', `/campaigns/${service.campaignId}/seats/${seatId}`)
  })
})
