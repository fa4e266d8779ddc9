import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallEvents, CallReport } from '../../src/telephony/carrier'
import type { CarrierCallPort, CarrierCallRecord } from '../../src/telephony/ports'
import { telnyxWire } from '../../src/telephony/telnyx/telnyx-wire'
import { initialCarrierState, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { CallEngine } from '../../src/telephony/twilio/twilio-carrier'
import { keyPairFromSeed, signedHeaders } from '../emulators/telnyx/telnyx-signing'

setDefaultTimeout(60_000)

// The call engine on Telnyx's wire, with an injected clock and a fake REST endpoint: a call is named
// by its first callback (the create reply names none); a hang-up asked before that is sent then;
// the attestation is told once; an eventually consistent look-up (404) leaves the call open.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const CALL = 'call-t1'
const ORG = 'org-1'
const SID = 'v3:9X2vxPDFY2RHSJ1EdMS0RHRksMTg7ldNxdjWbVr9zBjbGjGsSe-aiQ'
const BASE = 'https://dialer.example.com'
const ACCOUNT = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'
const keys = keyPairFromSeed()
const plan: CallPlan = {
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', agentName: 'Owner', machineDetection: true, record: false,
  bridge: [{ id: 'p1', name: 'Alex', phone: '+13125550150', role: 'sdr' }] as never, voicemail: null, dialMode: 'bridge',
}

function world(fetchReply: (url: string, init: RequestInit) => Response = () => Response.json({ sid: SID, status: 'completed' })) {
  const reports: CallReport[] = []
  const attested: string[] = []
  const events = {
    answered() {}, intent() {}, handover() {}, transcribed() {}, recorded() {}, connected() {}, personAnswered() {},
    attested: (_: string, level: string) => void attested.push(level),
    ended: (_: string, report: CallReport) => void reports.push(report),
  } as unknown as CallEvents
  const rows = new Map<string, CarrierCallRecord>([[CALL, { callId: CALL, orgId: ORG, carrier: 'telnyx', carrierCallId: null, plan, state: initialCarrierState(plan), open: true, created: NOW, updated: NOW }]])
  const store: CarrierCallPort = {
    insert: (row) => void rows.set(row.callId, row),
    get: (id) => rows.get(id),
    update: (id, changes) => void rows.set(id, { ...rows.get(id)!, ...changes }),
    openSince: () => [...rows.values()],
  }
  const sent: { url: string; method: string; body: string }[] = []
  const fetch = async (url: string, init: RequestInit) => (sent.push({ url, method: String(init.method), body: String(init.body ?? '') }), fetchReply(url, init))
  const effects: (() => void)[] = []
  const clock = { now: () => NOW } as never
  const account = { accountSid: ACCOUNT, apiKey: 'KEY0123456789', applicationSid: '42', publicKey: keys.publicKey, apiBaseUrl: 'https://api.telnyx.example' }
  const engine = new CallEngine(
    { store, transaction: (work) => work(), afterDurable: (effect) => void effects.push(effect), publicUrl: BASE, recordings: { save() {}, read: () => null }, clock, scheduler: { at() {} } as never },
    telnyxWire({ account: () => account, publicUrl: BASE, clock, rest: { fetch } }),
  )
  engine.connect(events)
  const settle = async () => {
    for (let i = 0; i < 10; i++) {
      await Bun.sleep(1)
      while (effects.length) effects.shift()!()
    }
  }
  const callback = (step: string, params: Record<string, string>) => {
    const body = new URLSearchParams({ AccountSid: ACCOUNT, CallSid: SID, ...params }).toString()
    const h = signedHeaders(keys.privateKey, NOW / 1000, body)
    return engine.handle({ callId: CALL, step, leg: null, url: `${BASE}/telnyx/calls/${CALL}/${step}`, body, signature: h['telnyx-signature-ed25519'], timestamp: h['telnyx-timestamp'] })
  }
  return { engine, rows, sent, settle, callback, reports, attested, state: () => rows.get(CALL)!.state as CarrierState }
}

describe('the call engine on Telnyx', () => {
  test('a hang-up before Telnyx named the call is kept, then sent (Status=completed) with the first callback, which names it', async () => {
    const w = world()
    w.engine.hangUp(CALL)
    await w.settle()
    expect(w.sent).toEqual([])
    expect(w.state().hangUpOwed).toBe(true)
    expect(w.callback('status', { CallStatus: 'initiated' }).status).toBe(200)
    await w.settle()
    expect(w.rows.get(CALL)!.carrierCallId).toBe(SID)
    expect(w.state().hangUpOwed).toBe(false)
    expect(w.sent).toEqual([{ url: `https://api.telnyx.example/v2/texml/Accounts/${ACCOUNT}/Calls/${encodeURIComponent(SID)}`, method: 'POST', body: 'Status=completed' }])
  })

  test('the attestation of the call\u2019s own status callback is told; an unknown value is not', async () => {
    const w = world()
    w.callback('status', { CallStatus: 'initiated', ShakenStirAttestation: 'B' })
    w.callback('status', { CallStatus: 'ringing', ShakenStirAttestation: 'Z' })
    expect(w.attested).toEqual(['B'])
  })

  test('the answer TeXML comes back under /telnyx/; a call named by another sid is not this call\u2019s', async () => {
    const w = world()
    w.callback('status', { CallStatus: 'in-progress' })
    const reply = w.callback('answer', {})
    expect(reply.twiml).toContain('<Pause length="40"/>')
    expect(reply.twiml).not.toContain('/twilio/')
    const body = new URLSearchParams({ AccountSid: ACCOUNT, CallSid: 'v3:another', CallStatus: 'completed' }).toString()
    const h = signedHeaders(keys.privateKey, NOW / 1000, body)
    w.engine.handle({ callId: CALL, step: 'status', leg: null, url: `${BASE}/telnyx/calls/${CALL}/status`, body, signature: h['telnyx-signature-ed25519'], timestamp: h['telnyx-timestamp'] })
    expect(w.reports).toEqual([])
  })

  test('a look-up Telnyx cannot answer yet (404, eventually consistent) leaves the call open for the watchdog', async () => {
    const w = world(() => Response.json({ errors: [{ code: '10005', detail: 'Not found' }] }, { status: 404 }))
    w.callback('status', { CallStatus: 'ringing' })
    await w.engine.reconcile(CALL)
    expect(w.rows.get(CALL)!.open).toBe(true)
    expect(w.reports).toEqual([])
  })
})
