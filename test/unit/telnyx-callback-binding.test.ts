import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallEvents } from '../../src/telephony/carrier'
import type { CarrierCallPort, CarrierCallRecord, SeatLegPort, SeatLegRecord } from '../../src/telephony/ports'
import { telnyxWire } from '../../src/telephony/telnyx/telnyx-wire'
import { initialCarrierState, type CallPlan } from '../../src/telephony/twilio/call-plan'
import { SeatedCallEngine } from '../../src/telephony/twilio/seat-carrier'
import { keyPairFromSeed, signedHeaders } from '../emulators/telnyx/telnyx-signing'

setDefaultTimeout(60_000)

// Telnyx signs a callback's body and time, not its URL: a signed callback of one call, sent to the
// path of a call or seat leg Telnyx has not named yet, must not name it with the other call's id
// (the lead's call would be hung up as the seat's, or two rows would claim one call: a 500).

const NOW = Date.parse('2026-03-02T15:00:00Z')
const BASE = 'https://dialer.example.com'
const ACCOUNT = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'
const NAMED = 'v3:named-lead-call'
const SEAT_TWO = 'v3:seat-two-leg'
const keys = keyPairFromSeed()
const plan: CallPlan = {
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', agentName: 'Owner', machineDetection: true, record: false,
  bridge: [{ id: 'p1', name: 'Alex', phone: '+13125550150', role: 'sdr' }] as never, voicemail: null, dialMode: 'bridge',
}

function world() {
  const row = (callId: string, carrierCallId: string | null): CarrierCallRecord =>
    ({ callId, orgId: 'org-1', carrier: 'telnyx', carrierCallId, plan, state: initialCarrierState(plan), open: true, created: NOW, updated: NOW })
  const rows = new Map<string, CarrierCallRecord>([['call-a', row('call-a', NAMED)], ['call-b', row('call-b', null)]])
  const store: CarrierCallPort = {
    insert: (r) => void rows.set(r.callId, r),
    get: (id) => rows.get(id),
    update: (id, changes) => void rows.set(id, { ...rows.get(id)!, ...changes }),
    openSince: () => [],
    bySid: (sid) => [...rows.values()].find((r) => r.carrierCallId === sid),
  }
  const seats = new Map<string, SeatLegRecord>([
    ['seat-1', { seatId: 'seat-1', orgId: 'org-1', campaignName: 'Spring', state: 'ended', carrierCallId: null, carrierState: null }],
    ['seat-2', { seatId: 'seat-2', orgId: 'org-1', campaignName: 'Spring', state: 'waiting', carrierCallId: SEAT_TWO, carrierState: null }],
  ])
  const seatLegs: SeatLegPort = {
    get: (id) => seats.get(id),
    save: (id, changes) => void seats.set(id, { ...seats.get(id)!, ...changes }),
    sat: () => true,
    ended: () => {},
    named: (sid) => [...seats.values()].some((seat) => seat.carrierCallId === sid),
  }
  const sent: string[] = []
  const fetch = async (url: string) => (sent.push(url), Response.json({}))
  const effects: (() => void)[] = []
  const clock = { now: () => NOW } as never
  const account = { accountSid: ACCOUNT, apiKey: 'KEY0123456789', applicationSid: '42', publicKey: keys.publicKey, apiBaseUrl: 'https://api.telnyx.example' }
  const engine = new SeatedCallEngine(
    { store, seatLegs, transaction: <T>(work: () => T) => work(), afterDurable: (effect: () => void) => void effects.push(effect), publicUrl: BASE, recordings: { save() {}, read: () => null }, clock, scheduler: { at() {} } as never } as never,
    telnyxWire({ account: () => account, publicUrl: BASE, clock, rest: { fetch: fetch as never } }),
  )
  engine.connect({ ended() {}, answered() {}, attested() {} } as unknown as CallEvents)
  // The named call's own signed status callback, as Telnyx sent it.
  const body = new URLSearchParams({ AccountSid: ACCOUNT, CallSid: NAMED, CallStatus: 'busy' }).toString()
  const h = signedHeaders(keys.privateKey, NOW / 1000, body)
  const signed = { body, signature: h['telnyx-signature-ed25519']!, timestamp: h['telnyx-timestamp']! }
  // Another seat's leg's signed callback.
  const seatBody = new URLSearchParams({ AccountSid: ACCOUNT, CallSid: SEAT_TWO, CallStatus: 'in-progress' }).toString()
  const sh = signedHeaders(keys.privateKey, NOW / 1000, seatBody)
  const seatSigned = { body: seatBody, signature: sh['telnyx-signature-ed25519']!, timestamp: sh['telnyx-timestamp']! }
  const settle = async () => {
    await Bun.sleep(1)
    while (effects.length) effects.shift()!()
    await Bun.sleep(1)
  }
  return { engine, rows, seats, sent, signed, seatSigned, settle }
}

describe("another call's signed callback on an unnamed call's or seat's path", () => {
  test('a lead call not yet named stays unnamed and unchanged (200, nothing applied)', async () => {
    const w = world()
    const reply = w.engine.handle({ callId: 'call-b', step: 'status', leg: null, url: `${BASE}/telnyx/calls/call-b/status`, ...w.signed })
    expect(reply).toEqual({ status: 200, twiml: null })
    expect(w.rows.get('call-b')!.carrierCallId).toBeNull()
    expect(w.rows.get('call-b')!.state).toEqual(initialCarrierState(plan))
  })

  test('an ended seat leg not yet named does not take the lead call\u2019s id, and the lead call is not hung up', async () => {
    const w = world()
    const reply = w.engine.handleSeat({ seatId: 'seat-1', step: 'status', url: `${BASE}/telnyx/seats/seat-1/status`, ...w.signed })
    expect(reply).toEqual({ status: 200, twiml: null })
    await w.settle()
    expect(w.seats.get('seat-1')!.carrierCallId).toBeNull()
    expect(w.sent).toEqual([])
  })

  test('another seat’s leg’s callback names neither an unnamed seat leg nor an unnamed lead call', async () => {
    const w = world()
    expect(w.engine.handleSeat({ seatId: 'seat-1', step: 'status', url: `${BASE}/telnyx/seats/seat-1/status`, ...w.seatSigned })).toEqual({ status: 200, twiml: null })
    expect(w.engine.handle({ callId: 'call-b', step: 'status', leg: null, url: `${BASE}/telnyx/calls/call-b/status`, ...w.seatSigned })).toEqual({ status: 200, twiml: null })
    await w.settle()
    expect(w.seats.get('seat-1')!.carrierCallId).toBeNull()
    expect(w.rows.get('call-b')!.carrierCallId).toBeNull()
    expect(w.sent).toEqual([])
  })

  test('the control: the seat leg\u2019s own first callback names it (and hangs up the ended seat)', async () => {
    const w = world()
    const body = new URLSearchParams({ AccountSid: ACCOUNT, CallSid: 'v3:seat-leg', CallStatus: 'ringing' }).toString()
    const h = signedHeaders(keys.privateKey, NOW / 1000, body)
    w.engine.handleSeat({ seatId: 'seat-1', step: 'status', url: `${BASE}/telnyx/seats/seat-1/status`, body, signature: h['telnyx-signature-ed25519']!, timestamp: h['telnyx-timestamp']! })
    await w.settle()
    expect(w.seats.get('seat-1')!.carrierCallId).toBe('v3:seat-leg')
    expect(w.sent.some((url) => url.includes(encodeURIComponent('v3:seat-leg')))).toBe(true)
  })
})
