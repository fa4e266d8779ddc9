import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ADMIN_TOKEN, createHarness, expectError } from '../harness'
import { CALLER_SF, poster, SID, setup, TOKEN, type World } from './twilio-world'

setDefaultTimeout(60_000)

/**
 * Seats through the whole handler (gateway, pipeline, routes) and the Twilio emulator (200 times
 * faster): POST/GET/DELETE /api/v1/admin/campaigns/{id}/seats[/{seat_id}], the seat's leg placed
 * at the emulator and its signed callbacks under /twilio/seats/<seat id>/<step>. People's phones
 * script their keypress by their last two digits: 11 presses 1, 12 nothing.
 */

const SDR = { name: 'Ada Park', phone: '+13125550111' }
const CLOSER = { name: 'Cy Close', phone: '+13125550112' }
const MESSAGE = { say: 'This is Acme Roofing. Call us at 212 555 0100; press 9 to stop these calls.' }

async function powerWorld(dialMode = 'power'): Promise<World> {
  const w = await setup({ sdrs: [SDR], closers: [CLOSER] })
  // Paused: no lead is dialed; seats still sit.
  const patched = await w.h.admin('PATCH', `/campaigns/${w.campaignId}`, { status: 'paused', dial_mode: dialMode, abandon_message: MESSAGE })
  expect(patched.status).toBe(200)
  return w
}

const seatsOf = (w: World) => `/campaigns/${w.campaignId}/seats`

async function seatUntil(w: World, id: string, until: (seat: any) => boolean, ms = 15_000): Promise<any> {
  const deadline = Date.now() + ms
  for (;;) {
    const r = await w.h.admin('GET', `${seatsOf(w)}/${id}`)
    if (r.status === 200 && until(r.body.data)) return r.body.data
    if (Date.now() > deadline) throw new Error(`seat ${id} not as wanted: ${r.text}`)
    await Bun.sleep(20)
  }
}

const legOf = (w: World, phone: string) => [...w.emulator.calls.values()].find((c) => c.to === phone)

describe('seats (admin API, Twilio emulator)', () => {
  test('a seat is called, sits on press 1 in its own room, waits; DELETE hangs its leg up; one that presses nothing ends not_accepted', async () => {
    const w = await powerWorld()
    const created = await w.h.admin('POST', seatsOf(w), SDR)
    expect(created.status).toBe(201)
    const seat = created.body.data
    expect(seat).toMatchObject({ object: 'seat', campaign_id: w.campaignId, phone: SDR.phone, person: { name: SDR.name, role: 'sdr' }, state: 'calling', ended_reason: null })

    const waiting = await seatUntil(w, seat.id, (s) => s.state === 'waiting')
    expect(waiting.seated_at).not.toBeNull()
    const leg = legOf(w, SDR.phone)!
    // No caller ID shares the person's area code: the organization's first.
    expect(leg.from).toBe(CALLER_SF)
    expect(leg.pressed).toEqual(['1'])
    expect(leg.spoken?.map((s) => s.text).join(' ')).toContain('Spring roofs')
    // Its room runs with the person in it, and the service knows the room's SID (where supervisors join).
    // The seat waits once its press 1 is answered; the emulator runs that answer's TwiML (the room) just after.
    const deadline = Date.now() + 5_000
    while (w.emulator.conference(`seat-${seat.id}`)?.status !== 'in-progress' && Date.now() < deadline) await Bun.sleep(20)
    const room = w.emulator.conference(`seat-${seat.id}`)!
    expect(room.status).toBe('in-progress')
    expect(room.participants.map((p) => p.call.sid)).toEqual([leg.sid])
    while (w.h.services.stores.seats.get(seat.id)?.conferenceSid !== room.sid && Date.now() < deadline) await Bun.sleep(20)
    expect(w.h.services.stores.seats.get(seat.id)).toMatchObject({ conferenceSid: room.sid, carrierCallId: leg.sid })
    expect(w.h.services.seats.waiting(w.campaignId)).toBe(1)

    const list = await w.h.admin('GET', seatsOf(w))
    expect(list.status).toBe(200)
    expect(list.body).toEqual({ data: [waiting], meta: { next_cursor: null, has_more: false } })

    const ended = await w.h.admin('DELETE', `${seatsOf(w)}/${seat.id}`)
    expect(ended.status).toBe(200)
    expect(ended.body.data).toMatchObject({ id: seat.id, state: 'ended', ended_reason: 'deleted' })
    for (const until = Date.now() + 5_000; legOf(w, SDR.phone)!.status !== 'completed' && Date.now() < until;) await Bun.sleep(20)
    expect(legOf(w, SDR.phone)!.status).toBe('completed')
    expect(w.emulator.received.some((r) => r.method === 'POST' && r.path.endsWith(`/Calls/${leg.sid}.json`) && r.params.Status === 'completed')).toBe(true)
    // The leg's own end afterwards keeps the reason; DELETE again returns it as it is.
    await Bun.sleep(100)
    expect((await w.h.admin('DELETE', `${seatsOf(w)}/${seat.id}`)).body.data).toMatchObject({ state: 'ended', ended_reason: 'deleted' })
    expect(w.h.services.seats.waiting(w.campaignId)).toBe(0)

    // The closer's phone (12) answers and presses nothing: never seated.
    const closer = (await w.h.admin('POST', seatsOf(w), CLOSER)).body.data
    expect(closer.person.role).toBe('closer')
    const over = await seatUntil(w, closer.id, (s) => s.state === 'ended')
    expect(over).toMatchObject({ ended_reason: 'not_accepted', seated_at: null })
    expect(w.emulator.conference(`seat-${closer.id}`)).toBeNull()
  })

  test('refused: a phone not of the campaign, a bridge campaign, no live Twilio carrier, bad bodies, unknown ids', async () => {
    const w = await powerWorld('predictive')
    expectError(await w.h.admin('POST', seatsOf(w), { name: SDR.name, phone: '+13125550177' }), 400, 'invalid_request', 'phone')
    expectError(await w.h.admin('POST', seatsOf(w), { name: SDR.name }), 400, 'invalid_request', 'phone')
    expectError(await w.h.admin('POST', seatsOf(w), { ...SDR, extra: 1 }), 400, 'invalid_request')
    expectError(await w.h.admin('POST', seatsOf(w), { name: '', phone: SDR.phone }), 400, 'invalid_request', 'name')
    const unknown = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
    expectError(await w.h.admin('POST', `/campaigns/${unknown}/seats`, SDR), 404, 'not_found')
    expectError(await w.h.admin('GET', `/campaigns/${unknown}/seats`), 404, 'not_found')
    expectError(await w.h.admin('GET', `${seatsOf(w)}/${unknown}`), 404, 'not_found')
    expectError(await w.h.admin('DELETE', `${seatsOf(w)}/${unknown}`), 404, 'not_found')
    expectError(await w.h.admin('DELETE', `${seatsOf(w)}/not-a-uuid`), 404, 'not_found')
    expectError(await w.h.admin('GET', `${seatsOf(w)}?limit=0`), 400, 'invalid_request', 'limit')
    // A seat is the campaign's: another campaign's id does not reach it.
    const seat = (await w.h.admin('POST', seatsOf(w), SDR)).body.data
    expectError(await w.h.admin('POST', seatsOf(w), SDR), 400, 'invalid_request', 'phone')
    const other = await w.h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Gutters', sdrs: [SDR] })
    expect(other.status).toBe(201)
    expectError(await w.h.admin('DELETE', `/campaigns/${other.body.data.id}/seats/${seat.id}`), 404, 'not_found')
    // Bridge campaigns ring people after the answer: no seats.
    expectError(await w.h.admin('POST', `/campaigns/${other.body.data.id}/seats`, SDR), 400, 'invalid_request', 'dial_mode')
    expect(w.h.services.stores.seats.list(other.body.data.id, 10)).toEqual([])

    // An organization without a live Twilio carrier: its seats could not be called.
    const bare = await w.h.admin('POST', '/orgs', { name: 'No Carrier Inc' })
    const plain = await w.h.admin('POST', `/orgs/${bare.body.data.id}/campaigns`, { name: 'Plain', sdrs: [SDR], dial_mode: 'power', abandon_message: MESSAGE })
    expect(plain.status).toBe(201)
    const refused = await w.h.admin('POST', `/campaigns/${plain.body.data.id}/seats`, SDR)
    expectError(refused, 400, 'invalid_request', null)
    expect(refused.body.error.message).toContain('no live Twilio carrier')
    expect((await w.h.admin('GET', `/campaigns/${plain.body.data.id}/seats`)).body.data).toEqual([])
  })

  test('the admin token is the permission; API keys and no token are refused', async () => {
    const h = createHarness()
    try {
      const path = '/api/v1/admin/campaigns/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/seats'
      expect((await h.call('GET', path)).status).toBe(401)
      expect((await h.call('POST', path, { body: SDR, headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(401)
      expect((await h.call('DELETE', `${path}/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } })).status).toBe(401)
    } finally {
      h.close()
    }
  })

  test('seat callbacks: signed by the organization\u2019s token or refused; replays and other legs change nothing', async () => {
    const w = await powerWorld()
    const seat = (await w.h.admin('POST', seatsOf(w), SDR)).body.data
    await seatUntil(w, seat.id, (s) => s.state === 'waiting')
    const leg = legOf(w, SDR.phone)!
    const post = poster(w)
    const sit = { CallSid: leg.sid, AccountSid: SID, Digits: '1' }
    // No signature, another token, another account, an unknown seat: 403, nothing changes.
    expect((await post(`/twilio/seats/${seat.id}/sit`, sit, null)).status).toBe(403)
    expect((await post(`/twilio/seats/${seat.id}/sit`, sit, 'e'.repeat(32))).status).toBe(403)
    expect((await post(`/twilio/seats/${seat.id}/sit`, { ...sit, AccountSid: `AC${'0'.repeat(32)}` })).status).toBe(403)
    expect((await post('/twilio/seats/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b/sit', sit)).status).toBe(403)
    expect((await post(`/twilio/seats/${seat.id}/nope`, sit)).status).toBe(404)
    // The same keypress again: the same room, still one waiting seat.
    const again = await post(`/twilio/seats/${seat.id}/sit`, sit)
    expect(again.status).toBe(200)
    expect(again.text).toContain(`>seat-${seat.id}</Conference>`)
    // Another leg's status for this seat: ignored.
    const stranger = await post(`/twilio/seats/${seat.id}/status`, { CallSid: `CA${'9'.repeat(32)}`, AccountSid: SID, CallStatus: 'completed' })
    expect(stranger).toEqual({ status: 200, text: '' })
    expect((await w.h.admin('GET', `${seatsOf(w)}/${seat.id}`)).body.data.state).toBe('waiting')
    // Its own leg's end: the seat ends hung_up (the person left).
    await post(`/twilio/seats/${seat.id}/status`, { CallSid: leg.sid, AccountSid: SID, CallStatus: 'completed' })
    expect((await w.h.admin('GET', `${seatsOf(w)}/${seat.id}`)).body.data).toMatchObject({ state: 'ended', ended_reason: 'hung_up' })
  })
})
