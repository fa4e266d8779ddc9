import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { carrierDirectory } from '../../src/domain/calls/carrier-choice'
import { seatBoard } from '../../src/domain/seats/seat-board'
import { ApiError } from '../../src/errors'
import { FakeClock } from '../../src/jobs/clock'
import type { Carrier, SeatLegRequest } from '../../src/telephony/carrier'
import type { SeatLegRecord } from '../../src/telephony/ports'
import { runSeatStep, sitPrompt } from '../../src/telephony/twilio/seat-steps'
import { createHarness, type Harness } from '../harness'

setDefaultTimeout(60_000)

/**
 * The seat state machine (src/domain/seats/seat-board.ts) over the real stores, with a carrier
 * double that records the legs it is asked to place and hang up, and an injected clock:
 * calling -> waiting (press 1) -> on_call (a lead's answer claims it) -> waiting (released) ->
 * ended; and the Twilio leg's steps (seat-steps.ts) that drive it.
 */

const T0 = Date.parse('2026-03-02T15:00:00Z')
const SDR = { name: 'Ada Park', phone: '+13125550111' }
const CLOSER = { name: 'Cy Close', phone: '+13125550112' }

let h: Harness | null = null
afterEach(() => {
  h?.close()
  h = null
})

async function board(options: { dialMode?: string; carrier?: boolean; callerIds?: string[] } = {}) {
  h = createHarness()
  const stores = h.services.stores
  const org = (await h.admin('POST', '/orgs', { name: 'Acme Roofing' })).body.data.id
  const body: Record<string, unknown> = { name: 'Spring roofs', sdrs: [SDR], closers: [CLOSER] }
  if (options.dialMode && options.dialMode !== 'bridge') Object.assign(body, { dial_mode: options.dialMode, abandon_message: { say: 'Sorry, call us back.' } })
  const created = await h.admin('POST', `/orgs/${org}/campaigns`, body)
  expect(created.status).toBe(201)
  const campaignId = created.body.data.id as string
  const placed: SeatLegRequest[] = []
  const hungUp: { seatId: string; carrierCallId: string | null }[] = []
  const pumped: string[] = []
  const seated: Carrier = {
    name: 'twilio', dial: () => {}, hangUp: () => {}, recording: () => null, resume: () => false,
    placeSeat: (request) => void placed.push(request),
    endSeat: (seat) => void hungUp.push({ seatId: seat.seatId, carrierCallId: seat.carrierCallId }),
  }
  const simulator: Carrier = { name: 'simulator', dial: () => {}, hangUp: () => {}, recording: () => null, resume: () => false }
  const carriers = carrierDirectory({
    carriers: { twilio: seated, simulator }, fallback: simulator,
    poolOf: () => (options.carrier === false ? [] : [{ kind: 'twilio', callerIds: options.callerIds ?? ['+12125550100'], machineDetection: true, weight: 1 }]),
  })
  const clock = new FakeClock(T0)
  const seats = seatBoard({ stores, clock, carriers, pump: (id) => void pumped.push(id) })
  // Effects wait for the grouped commit (afterDurable): the test commits it when it wants them.
  const durable = () => h!.services.database.flush()
  return { seats, campaignId, org, placed, hungUp, pumped, clock, stores, durable }
}

function refusal(work: () => unknown): { status: number; code: string; param: string | null } {
  try {
    work()
  } catch (error) {
    if (error instanceof ApiError) return { status: error.status, code: error.code, param: error.param }
    throw error
  }
  throw new Error('not refused')
}

describe('the seat board', () => {
  test('a seat calls, sits on press 1, is claimed by the longest-waiting order, released, and ended', async () => {
    const b = await board({ dialMode: 'power' })
    const first = b.seats.create(b.campaignId, SDR)
    expect(b.placed).toEqual([])
    b.durable()
    expect(first).toMatchObject({ object: 'seat', state: 'calling', phone: SDR.phone, person: { name: SDR.name, role: 'sdr' }, lead_call_id: null, ended_reason: null, seated_at: null })
    // The person's phone is called once the row is durable, from the organization's caller ID.
    expect(b.placed).toEqual([{ seatId: first.id, orgId: b.org, to: SDR.phone, from: '+12125550100' }])
    expect(b.seats.waiting(b.campaignId)).toBe(0)
    expect(b.seats.legs.get(first.id)).toMatchObject({ campaignName: 'Spring roofs', state: 'calling', carrierCallId: null })

    b.clock.set(b.clock.now() + 5_000)
    expect(b.seats.legs.sat(first.id, b.clock.now())).toBe(true)
    // Sitting twice changes nothing.
    expect(b.seats.legs.sat(first.id, b.clock.now() + 1)).toBe(false)
    expect(b.pumped).toEqual([b.campaignId])
    const second = b.seats.create(b.campaignId, { name: 'anyone', phone: '(312) 555-0112' })
    expect(second.person).toEqual({ id: expect.any(String), name: CLOSER.name, role: 'closer' })
    b.clock.set(b.clock.now() + 1_000)
    b.seats.legs.sat(second.id, b.clock.now())
    expect([b.seats.waiting(b.campaignId), b.seats.onCall(b.campaignId)]).toEqual([2, 0])

    // The seat that has waited longest takes the first lead; the other the next one; a third finds none.
    const claim = b.seats.claim(b.campaignId, 'lead-call-1', b.clock.now())
    expect(claim).toEqual({ seatId: first.id, conference: `seat-${first.id}`, person: { id: first.person.id, name: SDR.name, role: 'sdr' } })
    expect(b.seats.claim(b.campaignId, 'lead-call-2', b.clock.now())?.seatId).toBe(second.id)
    expect(b.seats.claim(b.campaignId, 'lead-call-3', b.clock.now())).toBeNull()
    expect([b.seats.waiting(b.campaignId), b.seats.onCall(b.campaignId)]).toEqual([0, 2])
    b.seats.legs.save(first.id, { conferenceSid: `CF${'a'.repeat(32)}`, carrierCallId: `CA${'b'.repeat(32)}` })
    expect(b.seats.ofCall('lead-call-1')).toEqual({ seatId: first.id, conference: `seat-${first.id}`, conferenceSid: `CF${'a'.repeat(32)}`, carrierCallId: `CA${'b'.repeat(32)}`, personName: SDR.name })
    expect(b.seats.get(b.campaignId, first.id)).toMatchObject({ state: 'on_call', lead_call_id: 'lead-call-1' })

    // The lead leaves: the seat waits again (behind the one that was free before it) and the dialer is pumped.
    b.clock.set(b.clock.now() + 60_000)
    b.seats.release('lead-call-2', b.clock.now())
    b.clock.set(b.clock.now() + 1_000)
    b.seats.release('lead-call-1', b.clock.now())
    b.seats.release('lead-call-1', b.clock.now())
    expect(b.pumped).toEqual([b.campaignId, b.campaignId, b.campaignId, b.campaignId])
    expect(b.seats.ofCall('lead-call-1')).toBeNull()
    expect(b.seats.claim(b.campaignId, 'lead-call-4', b.clock.now())?.seatId).toBe(second.id)

    // Ended: its leg is hung up once; ending again returns it as it is; an ended seat takes no lead and never sits again.
    const ended = b.seats.end(b.campaignId, first.id)
    b.durable()
    expect(ended).toMatchObject({ state: 'ended', ended_reason: 'deleted', lead_call_id: null, ended_at: new Date(b.clock.now()).toISOString() })
    expect(b.seats.end(b.campaignId, first.id)).toEqual(ended)
    b.durable()
    expect(b.hungUp).toEqual([{ seatId: first.id, carrierCallId: `CA${'b'.repeat(32)}` }])
    expect(b.seats.legs.sat(first.id, b.clock.now())).toBe(false)
    b.seats.legs.ended(first.id, 'hung_up', b.clock.now())
    expect(b.seats.get(b.campaignId, first.id).ended_reason).toBe('deleted')
    expect(b.seats.claim(b.campaignId, 'lead-call-5', b.clock.now())).toBeNull()

    // An on-call seat whose person hangs up ends; its lead's release is then a no-op.
    b.seats.legs.ended(second.id, 'hung_up', b.clock.now())
    expect(b.seats.get(b.campaignId, second.id)).toMatchObject({ state: 'ended', ended_reason: 'hung_up', lead_call_id: null })
    b.seats.release('lead-call-4', b.clock.now())
    expect(b.seats.waiting(b.campaignId)).toBe(0)
    expect(b.seats.live(b.org)).toEqual([])
    expect(b.seats.list(b.campaignId, 10).map((s) => s.id)).toEqual([second.id, first.id])
    expect(b.seats.list(b.campaignId, 10, second.id).map((s) => s.id)).toEqual([first.id])
  })

  test('refusals: bridge campaigns, phones not of the campaign, no live carrier or caller ID, a phone seated already, unknown ids', async () => {
    const bridge = await board()
    expect(refusal(() => bridge.seats.create(bridge.campaignId, SDR))).toEqual({ status: 400, code: 'invalid_request', param: 'dial_mode' })
    h!.close()
    const b = await board({ dialMode: 'predictive' })
    expect(refusal(() => b.seats.create(b.campaignId, { name: SDR.name, phone: '+13125550199' }))).toEqual({ status: 400, code: 'invalid_request', param: 'phone' })
    expect(refusal(() => b.seats.create(b.campaignId, { name: SDR.name, phone: 'not a phone' }))).toEqual({ status: 400, code: 'invalid_request', param: 'phone' })
    const seat = b.seats.create(b.campaignId, SDR)
    expect(refusal(() => b.seats.create(b.campaignId, SDR))).toEqual({ status: 400, code: 'invalid_request', param: 'phone' })
    expect(refusal(() => b.seats.create('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', SDR)).status).toBe(404)
    expect(refusal(() => b.seats.end(b.campaignId, '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b')).status).toBe(404)
    expect(refusal(() => b.seats.list('0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b', 10)).status).toBe(404)
    // Ended, the phone may sit again.
    b.seats.end(b.campaignId, seat.id)
    expect(b.seats.create(b.campaignId, SDR).state).toBe('calling')
    h!.close()
    for (const options of [{ carrier: false }, { callerIds: [] }]) {
      const none = await board({ dialMode: 'power', ...options })
      expect(refusal(() => none.seats.create(none.campaignId, SDR))).toEqual({ status: 400, code: 'invalid_request', param: null })
      expect(none.seats.list(none.campaignId, 10)).toEqual([])
      none.durable()
      expect(none.placed).toEqual([])
      h!.close()
    }
    h = null
  })
})

describe('the Twilio seat leg', () => {
  const leg = (state: SeatLegRecord['state'], carrierState: unknown = {}): SeatLegRecord => ({
    seatId: 'seat-1', orgId: 'org-1', campaignName: 'Spring roofs', state, carrierCallId: `CA${'1'.repeat(32)}`, carrierState,
  })
  const URL = 'https://dialer.example.com'

  test('answer: the campaign is named inside a one-digit Gather whose action is the sit step', () => {
    const r = runSeatStep(URL, leg('calling'), 'answer', { CallStatus: 'in-progress' })
    expect(r.twiml).toContain('<Gather input="dtmf" numDigits="1"')
    expect(r.twiml).toContain(`action="${URL}/twilio/seats/seat-1/sit"`)
    expect(r.twiml).toContain(sitPrompt('Spring roofs'))
    expect(r.twiml).toEndWith('</Gather><Hangup/></Response>')
    expect(r.state).toEqual({ answered: true })
    expect(runSeatStep(URL, leg('ended'), 'answer', {}).twiml).toContain('<Hangup/>')
  })

  test('1 sits in the seat\u2019s silent room that ends with them; another key or none is not accepted', () => {
    const sat = runSeatStep(URL, leg('calling', { answered: true }), 'sit', { Digits: '1' })
    expect(sat.move).toEqual({ kind: 'sat' })
    expect(sat.twiml).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true" beep="false" waitUrl=""'
      + ` statusCallback="${URL}/twilio/seats/seat-1/conference" statusCallbackEvent="start end" statusCallbackMethod="POST">seat-seat-1</Conference></Dial><Hangup/></Response>`,
    )
    // The same keypress again: the same room, no move.
    expect(runSeatStep(URL, leg('waiting'), 'sit', { Digits: '1' })).toMatchObject({ twiml: sat.twiml, move: null })
    for (const digits of ['2', '', undefined]) {
      const r = runSeatStep(URL, leg('calling', { answered: true }), 'sit', digits === undefined ? {} : { Digits: digits })
      expect(r.move).toEqual({ kind: 'ended', reason: 'not_accepted' })
      expect(r.twiml).toContain('<Hangup/>')
    }
  })

  test('the leg\u2019s end: hung up once seated, not accepted when answered but never seated, else no answer or failed', () => {
    const end = (state: SeatLegRecord['state'], status: string, carrierState: unknown = {}) => runSeatStep(URL, leg(state, carrierState), 'status', { CallStatus: status }).move
    expect(end('waiting', 'completed')).toEqual({ kind: 'ended', reason: 'hung_up' })
    expect(end('on_call', 'completed')).toEqual({ kind: 'ended', reason: 'hung_up' })
    expect(end('calling', 'completed', { answered: true })).toEqual({ kind: 'ended', reason: 'not_accepted' })
    expect(end('calling', 'completed')).toEqual({ kind: 'ended', reason: 'no_answer' })
    expect(end('calling', 'no-answer')).toEqual({ kind: 'ended', reason: 'no_answer' })
    expect(end('calling', 'busy')).toEqual({ kind: 'ended', reason: 'no_answer' })
    expect(end('calling', 'failed')).toEqual({ kind: 'ended', reason: 'failed' })
    expect(end('ended', 'completed')).toBeNull()
    expect(end('calling', 'ringing')).toBeNull()
    expect(runSeatStep(URL, leg('calling'), 'status', { CallStatus: 'in-progress' }).state).toEqual({ answered: true })
  })

  test('the room\u2019s start names its ConferenceSid; other events or another room change nothing', () => {
    const sid = `CF${'f'.repeat(32)}`
    expect(runSeatStep(URL, leg('waiting'), 'conference', { StatusCallbackEvent: 'conference-start', ConferenceSid: sid, FriendlyName: 'seat-seat-1' }).conferenceSid).toBe(sid)
    expect(runSeatStep(URL, leg('waiting'), 'conference', { StatusCallbackEvent: 'conference-start', ConferenceSid: sid, FriendlyName: 'seat-other' }).conferenceSid).toBeUndefined()
    expect(runSeatStep(URL, leg('waiting'), 'conference', { StatusCallbackEvent: 'conference-start', ConferenceSid: 'CF-not-a-sid' }).conferenceSid).toBeUndefined()
    expect(runSeatStep(URL, leg('waiting'), 'conference', { StatusCallbackEvent: 'conference-end', ConferenceSid: sid }).conferenceSid).toBeUndefined()
  })
})
