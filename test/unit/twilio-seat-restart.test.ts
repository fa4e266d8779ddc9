import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallEvents, CallReport } from '../../src/telephony/carrier'
import type { SeatControl } from '../../src/telephony/media-stream/contract'
import type { CarrierCallPort, CarrierCallRecord } from '../../src/telephony/ports'
import { takebackText } from '../../src/telephony/twilio/ai-seat-steps'
import { initialCarrierState, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { NOBODY_TOOK_CALLBACK_MS, runStep } from '../../src/telephony/twilio/callback-steps'
import { applyControl } from '../../src/telephony/twilio/seat-controls'
import { TwilioCarrier } from '../../src/telephony/twilio/twilio-carrier'

setDefaultTimeout(60_000)

// The Twilio carrier after a restart with an AI seat in progress (TwilioCarrier.resume ->
// reconcile): the seat's sockets died with the process, so the call is taken back: still up at
// Twilio, it is sent the takeback TwiML; ended, it is reported as taken back. The watchdog's
// lookup of a quiet call never takes a live seat back.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const CALL = 'call-ai-r'
const ORG = 'org-1'
const SID = `CA${'e'.repeat(32)}`
const KEY = new Uint8Array(32).fill(3)
const BASE = 'https://dialer.example.com'

const plan: CallPlan = {
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', campaignName: 'Spring Roofing', agentName: 'Owner Olsen',
  machineDetection: false, record: false, bridge: [], voicemail: null, dialMode: 'bridge', campaignId: 'camp-1',
  ai: { url: 'wss://agent.example.com/media', parameters: {}, firstAudioMs: 1500, disclosure: { say: 'An AI assistant.' }, leadId: 'lead-7', orgName: 'Acme Roofing' },
}

function world(twilioStatus: string, options: { stage?: 'waiting' | 'streaming'; control?: SeatControl } = {}) {
  const reports: CallReport[] = []
  const events: CallEvents = {
    answered() {}, intent() {}, handover() {}, transcribed() {}, recorded() {}, connected() {}, personAnswered() {},
    ended: (_, report) => void reports.push(report),
  }
  const ctx = { callId: CALL, orgId: ORG, plan, publicUrl: BASE, now: NOW, events, streamKey: KEY }
  let state: CarrierState = runStep(ctx, initialCarrierState(plan), 'answer', null, { CallSid: SID }).state
  if (options.stage !== 'waiting') state = { ...state, seat: { ...state.seat!, stage: 'streaming', streamStarted: true } }
  if (options.control) state = applyControl(ctx, state, options.control).state
  const rows = new Map<string, CarrierCallRecord>([[CALL, { callId: CALL, orgId: ORG, carrier: 'twilio', carrierCallId: SID, plan, state, open: true, created: NOW, updated: NOW }]])
  const store: CarrierCallPort = {
    insert: (row) => void rows.set(row.callId, row),
    get: (id) => rows.get(id),
    update: (id, changes) => void rows.set(id, { ...rows.get(id)!, ...changes }),
    openSince: () => [...rows.values()],
  }
  const updates: Record<string, string>[] = []
  const fetch = async (url: string, init: RequestInit) => {
    if (init.method === 'POST') updates.push(Object.fromEntries(new URLSearchParams(String(init.body))))
    expect(url).toEndWith(`/Calls/${SID}.json`)
    return Response.json({ sid: SID, status: twilioStatus, duration: twilioStatus === 'completed' ? '30' : null, to: plan.to, from: plan.from })
  }
  const effects: (() => void)[] = []
  const carrier = new TwilioCarrier({
    store, transaction: (work) => work(), afterDurable: (effect) => void effects.push(effect),
    account: () => ({ accountSid: `AC${'1'.repeat(32)}`, authToken: 't'.repeat(32), apiBaseUrl: 'https://api.example.com' }),
    publicUrl: BASE, recordings: { save() {}, read: () => null }, clock: { now: () => NOW } as never,
    scheduler: { at() {} } as never, streamKey: KEY, rest: { fetch },
  })
  carrier.connect(events)
  const settle = async () => {
    for (let i = 0; i < 20; i++) {
      await Bun.sleep(1)
      while (effects.length) effects.shift()!()
    }
  }
  return { carrier, reports, updates, settle, state: () => rows.get(CALL)!.state as CarrierState, ctx }
}

const resume = (w: ReturnType<typeof world>) => w.carrier.resume({ id: CALL, orgId: ORG, started: NOW, answered: NOW }, w.ctx.events)

describe('a restart with a seat streaming', () => {
  test('still in progress at Twilio: the takeback TwiML is sent; the end reports a callback two hours later', async () => {
    const w = world('in-progress')
    expect(resume(w)).toBe(true)
    await w.settle()
    expect(w.updates).toEqual([{ Twiml: expect.stringContaining(`<Say>${takebackText('Acme Roofing')}</Say><Hangup/>`) }])
    expect(w.state().seat).toMatchObject({ stage: 'over', decision: { kind: 'takeback', why: 'restart' } })
    expect(w.reports).toEqual([])
    const ended = runStep(w.ctx, w.state(), 'status', null, { CallSid: SID, CallStatus: 'completed', CallDuration: '30' })
    expect(ended.state.reported).toBe(true)
    expect(w.reports).toEqual([expect.objectContaining({ outcome: 'callback', callbackAt: NOW + NOBODY_TOOK_CALLBACK_MS, note: expect.stringContaining('restarted') })])
  })

  test('ended at Twilio meanwhile: reported as taken back (callback in two hours), nothing sent', async () => {
    const w = world('completed')
    resume(w)
    await w.settle()
    expect(w.updates).toEqual([])
    expect(w.reports).toEqual([expect.objectContaining({ outcome: 'callback', callbackAt: NOW + NOBODY_TOOK_CALLBACK_MS, note: expect.stringContaining('restarted') })])
    expect(w.state().reported).toBe(true)
  })

  test('a decision the agent made before the restart stands (in progress: its TwiML)', async () => {
    const w = world('in-progress', { control: { event: 'dialer.opt_out', via: 'agent' } })
    resume(w)
    await w.settle()
    expect(w.updates).toEqual([{ Twiml: expect.stringContaining('You will not be called again. Goodbye.') }])
    expect(w.state().seat?.decision).toEqual({ kind: 'opt_out', via: 'agent' })
  })

  test('a seat still waiting for its stream (the disclosure may be playing) is left alone', async () => {
    const w = world('in-progress', { stage: 'waiting' })
    resume(w)
    await w.settle()
    expect(w.updates).toEqual([])
    expect(w.state().seat?.stage).toBe('waiting')
  })

  test('the watchdog\'s lookup of a quiet call never takes a live seat back', async () => {
    const w = world('in-progress')
    w.carrier.watch()
    await w.settle()
    expect(w.updates).toEqual([])
    expect(w.state().seat?.stage).toBe('streaming')
  })
})

describe('hanging up a seated call', () => {
  test('ends its relay seat too', () => {
    const w = world('in-progress')
    const ended: string[] = []
    const relay = w.carrier.relay as { end: (id: string) => void }
    const original = relay.end.bind(relay)
    relay.end = (id) => void (ended.push(id), original(id))
    w.carrier.hangUp(CALL)
    expect(ended).toEqual([CALL])
  })
})
