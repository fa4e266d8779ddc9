import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { newId } from '../../src/domain/ids'
import { MAX_PER_CALL } from '../../src/domain/calls/supervision'
import { expectError } from '../harness'
import { addLead, CALLER_NY, eventTypes, ny, poster, SID, setup, TOKEN, type World } from './twilio-world'

setDefaultTimeout(60_000)

/**
 * Calls back and supervisors through the whole handler (gateway, pipeline, routes): Twilio's
 * signed incoming-call webhook on an organization's number (/twilio/inbound/<org id>) makes an
 * inbound call of the lead with that number, into a waiting seat's conference or the press-1
 * bridge; POST /api/v1/admin/calls/{id}/supervise calls a phone into the seat's conference
 * through the Participants API of the emulator. The seat board's claim, release and ofCall are
 * doubles here (the SeatBoard contract); test/process/twilio-supervise-inbound-binary.test.ts
 * runs real seats.
 */

const HEAD = '<?xml version="1.0" encoding="UTF-8"?>'
const CONF_SID = `CF${'c'.repeat(32)}`
const SEAT_LEG = `CA${'d'.repeat(32)}`
const callSid = (n: number) => `CA${String(n).padStart(32, '0')}`

/** A seat board double: one seat that takes the next claim (when `waiting`), and knows the calls it took. */
function seatDouble(w: World, waiting: boolean) {
  const seatId = newId()
  const taken = new Set<string>()
  const released: string[] = []
  const board = {
    claim: (_campaignId: string, leadCallId: string) => {
      if (!waiting || taken.size > 0) return null
      taken.add(leadCallId)
      return { seatId, conference: `seat-${seatId}`, person: { id: 'sdr-1', name: 'Alex Rivera', role: 'sdr' as const } }
    },
    release: (leadCallId: string) => void released.push(leadCallId),
    ofCall: (callId: string) => (taken.has(callId) ? { seatId, conference: `seat-${seatId}`, conferenceSid: CONF_SID, carrierCallId: SEAT_LEG, personName: 'Alex Rivera' } : null),
  }
  // The board's own methods are replaced: the carrier's seat port and supervise both call them.
  Object.assign(w.h.services.seats, board)
  return { seatId, released }
}

async function world(waiting: boolean) {
  const w = await setup()
  // Paused: leads wait, nothing is dialed out; a lead may still call in.
  expect((await w.h.admin('PATCH', `/campaigns/${w.campaignId}`, { status: 'paused' })).status).toBe(200)
  return { w, seat: seatDouble(w, waiting) }
}

const incoming = (sid: string, from: string, to = CALLER_NY) => ({ CallSid: sid, AccountSid: SID, From: from, To: to, CallStatus: 'ringing', Direction: 'inbound', ApiVersion: '2010-04-01' })
const inboundCalls = (w: World) => w.h.services.stores.calls.open().filter((c) => c.direction === 'inbound')

describe('a lead calls back', () => {
  test('no seat waits: the press-1 bridge rings the campaign people; an inbound call of that lead; replays write nothing; the number status ends it', async () => {
    const { w } = await world(false)
    const phone = ny('21')
    await addLead(w, phone)
    // The same number, later, on a second campaign: the newest lead is the caller.
    const second = await w.h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Gutters', status: 'draft', sdrs: [{ name: 'Gia Gutter', phone: '+13125550155' }] })
    expect((await w.h.admin('PATCH', `/campaigns/${second.body.data.id}`, { status: 'paused' })).status).toBe(200)
    await w.h.advance(1)
    const added = await w.h.api('POST', '/leads', { key: w.live, body: { campaign_id: second.body.data.id, phone, name: 'Jordan Lee' } })
    expect(added.status).toBe(201)
    const leadId = added.body.data.id
    const post = poster(w)
    const reply = await post(`/twilio/inbound/${w.orgId}`, incoming(callSid(1), phone))
    expect(reply.status).toBe(200)
    const [call] = inboundCalls(w)
    expect(call).toMatchObject({ leadId, campaignId: second.body.data.id, direction: 'inbound', status: 'in_progress', carrier: 'twilio' })
    const publicUrl = w.h.services.config.publicUrl
    expect(reply.text).toContain(`<Number url="${publicUrl}/twilio/calls/${call!.id}/whisper?leg=0" method="POST">+13125550155</Number>`)
    expect(reply.text).toContain(`callerId="${CALLER_NY}"`)
    // The same webhook again: the same leg, no second call.
    const again = await post(`/twilio/inbound/${w.orgId}`, incoming(callSid(1), phone))
    expect(again.text).toContain('whisper?leg=0')
    expect(inboundCalls(w)).toHaveLength(1)
    const read = (await w.h.admin('GET', `/calls/${call!.id}`)).body.data
    // Not a dial: out of the abandonment ledger.
    expect(read).toMatchObject({ direction: 'inbound', status: 'in_progress', answered_at: null, abandoned: null, started_by: { type: 'person', api_key_id: null } })
    expect(eventTypes(w, call!.id)).toEqual(['call.started', 'call.answered'])
    // A seat holding this caller is no dialer line: the pacing counts only seats with an outbound call.
    const seatRow = (id: string, leadCallId: string) => ({
      id, orgId: w.orgId, campaignId: call!.campaignId, personId: 'p', name: 'Gia Gutter', role: 'sdr' as const, phone: '+13125550155', state: 'on_call' as const,
      carrier: 'twilio', carrierCallId: null, conferenceSid: null, leadCallId, carrierState: {}, endedReason: null, created: 1, updated: 1, seatedAt: 1, endedAt: null,
    })
    w.h.services.stores.seats.insert(seatRow(crypto.randomUUID(), call!.id))
    expect(w.h.services.stores.seats.onCallOutbound(call!.campaignId)).toBe(0)
    w.h.services.stores.seats.insert(seatRow(crypto.randomUUID(), crypto.randomUUID()))
    expect(w.h.services.stores.seats.onCallOutbound(call!.campaignId)).toBe(1)
    expect(w.h.services.stores.seats.count(call!.campaignId, 'on_call')).toBe(2)
    // A call not in a seat's conference cannot be supervised.
    expectError(await w.h.admin('POST', `/calls/${call!.id}/supervise`, { mode: 'listen', phone: '+13125550160' }), 404, 'not_found')
    // The number's status callback (by CallSid) ends it; it held no dialer line, so it frees none.
    const freed: string[] = []
    const dialer = w.h.services.dialer
    const lineFree = dialer.lineFree.bind(dialer)
    dialer.lineFree = (campaignId, livemode) => void (freed.push(campaignId), lineFree(campaignId, livemode))
    const ended = await post(`/twilio/inbound/${w.orgId}/status`, { ...incoming(callSid(1), phone), CallStatus: 'completed', CallDuration: '40' })
    expect(ended.status).toBe(200)
    expect(w.h.services.stores.calls.get(call!.id)).toMatchObject({ status: 'ended', direction: 'inbound' })
    expect(freed).toEqual([])
    // The caller hung up while the bridge rang: that outcome moves the lead as any call's does.
    expect(w.h.services.stores.calls.get(call!.id)!.outcome).toBe('hung_up')
    expect(w.h.services.stores.leads.get(leadId)!.status).toBe('done')
    expectError(await w.h.admin('POST', `/calls/${call!.id}/supervise`, { mode: 'listen', phone: '+13125550160' }), 404, 'not_found')
  })

  test('a waiting seat takes it: the caller joins its conference, handed over to the seat person; supervisors listen, whisper and barge', async () => {
    const { w, seat } = await world(true)
    const phone = ny('22')
    const leadId = await addLead(w, phone)
    const post = poster(w)
    const reply = await post(`/twilio/inbound/${w.orgId}`, incoming(callSid(2), phone))
    expect(reply.text).toContain(`>seat-${seat.seatId}</Conference></Dial>`)
    const [call] = inboundCalls(w)
    expect(call).toMatchObject({ leadId, handledBy: { name: 'Alex Rivera', role: 'sdr' } })
    expect(eventTypes(w, call!.id)).toEqual(['call.started', 'call.answered', 'handover.accepted'])

    const supervise = (body: unknown, id = call!.id) => w.h.admin('POST', `/calls/${id}/supervise`, body)
    const listen = await supervise({ mode: 'listen', phone: '+13125550160' })
    expect(listen.status).toBe(201)
    expect(listen.body.data).toMatchObject({ object: 'supervision', call_id: call!.id, mode: 'listen', phone: '+13125550160', seat_id: seat.seatId })
    expect((await supervise({ mode: 'whisper', phone: '+13125550161' })).status).toBe(201)
    expect((await supervise({ mode: 'barge', phone: '+13125550162' })).status).toBe(201)
    // Past the per-call limit: 429, no event.
    expect(MAX_PER_CALL).toBe(3)
    expectError(await supervise({ mode: 'listen', phone: '+13125550163' }), 429, 'rate_limited')
    const supervised = w.h.services.stores.events.forObject(call!.id).map((row) => JSON.parse(row.body)).filter((e) => e.type === 'call.supervised')
    expect(supervised.map((e) => e.data.object.supervision.mode)).toEqual(['listen', 'whisper', 'barge'])
    expect(supervised[0].data.object.supervision).toEqual({ mode: 'listen', phone: '+13125550160', at: listen.body.data.at })

    // The Participants API: Muted for listen, Coaching the seat's leg for whisper, neither for barge.
    const deadline = Date.now() + 5_000
    const added = () => w.emulator.received.filter((r) => r.method === 'POST' && r.path.endsWith(`/Conferences/${CONF_SID}/Participants.json`))
    while (added().length < 3 && Date.now() < deadline) await Bun.sleep(10)
    const byTo = new Map(added().map((r) => [r.params.To, r.params]))
    expect(byTo.get('+13125550160')).toMatchObject({ From: CALLER_NY, Muted: 'true', EndConferenceOnExit: 'false', Beep: 'false' })
    expect(byTo.get('+13125550160')!.Coaching).toBeUndefined()
    expect(byTo.get('+13125550161')).toMatchObject({ Coaching: 'true', CallSidToCoach: SEAT_LEG })
    expect(byTo.get('+13125550161')!.Muted).toBeUndefined()
    expect(byTo.get('+13125550162')!.Muted).toBeUndefined()
    expect(byTo.get('+13125550162')!.Coaching).toBeUndefined()

    // The caller hangs up: the seat waits again.
    await post(`/twilio/inbound/${w.orgId}/status`, { ...incoming(callSid(2), phone), CallStatus: 'completed', CallDuration: '12' })
    expect(seat.released).toEqual([call!.id])
    // Over: no longer live, though the seat double still names it.
    await w.h.advance(61)
    expectError(await supervise({ mode: 'listen', phone: '+13125550160' }), 404, 'not_found')
  })

  test('a lead on one of our calls right now who calls in is left to that call: the inbound outcome does not move it', async () => {
    const { w } = await world(false)
    const phone = ny('27')
    const leadId = await addLead(w, phone)
    const stores = w.h.services.stores
    stores.transaction(() => stores.leads.update(stores.leads.get(leadId)!, { status: 'on_call' }))
    const post = poster(w)
    await post(`/twilio/inbound/${w.orgId}`, incoming(callSid(7), phone))
    const [call] = inboundCalls(w)
    await post(`/twilio/inbound/${w.orgId}/status`, { ...incoming(callSid(7), phone), CallStatus: 'completed', CallDuration: '30' })
    expect(stores.calls.get(call!.id)).toMatchObject({ status: 'ended', outcome: 'hung_up' })
    expect(stores.leads.get(leadId)!.status).toBe('on_call')
  })

  test('an unknown caller (or a number not the organization\u2019s) hears the organization\u2019s message; nothing is written', async () => {
    const { w } = await world(true)
    const post = poster(w)
    const message = `${HEAD}<Response><Say>Thank you for calling Acme Roofing. We could not find your number in our records, so nobody can take this call. Goodbye.</Say><Hangup/></Response>`
    expect(await post(`/twilio/inbound/${w.orgId}`, incoming(callSid(3), ny('23')))).toEqual({ status: 200, text: message })
    await addLead(w, ny('24'))
    expect((await post(`/twilio/inbound/${w.orgId}`, incoming(callSid(4), ny('24'), '+13125559999'))).text).toBe(message)
    expect(inboundCalls(w)).toHaveLength(0)
  })

  test('refused without the organization\u2019s signature, for another account, an unknown organization; a path without an org id is 404', async () => {
    const { w } = await world(true)
    const phone = ny('25')
    await addLead(w, phone)
    const post = poster(w)
    const path = `/twilio/inbound/${w.orgId}`
    expect((await post(path, incoming(callSid(5), phone), null)).status).toBe(403)
    expect((await post(path, incoming(callSid(5), phone), '0'.repeat(32))).status).toBe(403)
    expect((await post(path, { ...incoming(callSid(5), phone), AccountSid: `AC${'b'.repeat(32)}` })).status).toBe(403)
    expect((await post(`/twilio/inbound/${newId()}`, incoming(callSid(5), phone))).status).toBe(403)
    expect((await post(`${path}/status`, { ...incoming(callSid(5), phone), CallStatus: 'completed' }, null)).status).toBe(403)
    expect((await post('/twilio/inbound/not-an-org', incoming(callSid(5), phone))).status).toBe(404)
    expect(inboundCalls(w)).toHaveLength(0)
  })
})

describe('POST /api/v1/admin/calls/{id}/supervise', () => {
  test('bad input is 400 with param; unknown and not-live calls 404; the admin token is required; the event is durable before the carrier is asked', async () => {
    const { w } = await world(true)
    const phone = ny('26')
    await addLead(w, phone)
    await poster(w)(`/twilio/inbound/${w.orgId}`, incoming(callSid(6), phone))
    const [call] = inboundCalls(w)
    const supervise = (body: unknown, id = call!.id) => w.h.admin('POST', `/calls/${id}/supervise`, body)
    expectError(await supervise({ mode: 'listen', phone: '5550160' }), 400, 'invalid_request', 'phone')
    expectError(await supervise({ mode: 'shout', phone: '+13125550160' }), 400, 'invalid_request', 'mode')
    expectError(await supervise({ mode: 'listen' }), 400, 'invalid_request', 'phone')
    expectError(await supervise({ mode: 'listen', phone: '+13125550160', extra: 1 }), 400, 'invalid_request')
    expectError(await supervise({ mode: 'listen', phone: '+13125550160' }, newId()), 404, 'not_found')
    const noToken = await w.h.call('POST', `/api/v1/admin/calls/${call!.id}/supervise`, { body: { mode: 'listen', phone: '+13125550160' } })
    expect(noToken.status).toBe(401)
    expect(eventTypes(w, call!.id)).not.toContain('call.supervised')

    // The carrier is asked only once call.supervised is stored.
    const twilio = w.h.services.carriers.twilio
    const seen: string[][] = []
    twilio.supervise = (request) => void seen.push(eventTypes(w, request.callId))
    expect((await supervise({ mode: 'barge', phone: '+13125550160' })).status).toBe(201)
    await Bun.sleep(0)
    expect(seen).toEqual([['call.started', 'call.answered', 'handover.accepted', 'call.supervised']])
  })
})
