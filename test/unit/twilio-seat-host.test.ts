import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { AiUsage } from '../../src/telephony/call-values'
import type { CallEvents } from '../../src/telephony/carrier'
import { mintStreamToken, STREAM_TOKEN_TTL_MS } from '../../src/telephony/media-stream/stream-token'
import type { CarrierCallPort, CarrierCallRecord } from '../../src/telephony/ports'
import { initialCarrierState, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { runStep } from '../../src/telephony/twilio/callback-steps'
import { TwilioSeatHost } from '../../src/telephony/twilio/seat-host'

setDefaultTimeout(60_000)

// The Twilio carrier's SeatHost (src/telephony/twilio/seat-host.ts) over an in-memory row store:
// which streams it admits (only a valid token of a live, waiting call of that organization, once),
// and what the agent's controls, first audio and failures change.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const CALL = 'call-ai-1'
const ORG = 'org-1'
const SID = `CA${'b'.repeat(32)}`
const KEY = new Uint8Array(32).fill(9)

const plan: CallPlan = {
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', campaignName: 'Spring Roofing', agentName: 'Owner Olsen',
  machineDetection: false, record: false, bridge: [], voicemail: null, dialMode: 'bridge', campaignId: 'camp-1',
  ai: { url: 'wss://agent.example.com/media', parameters: { behaviour: 'end', tone: 'warm' }, firstAudioMs: 1500, disclosure: { say: 'An AI assistant.' }, leadId: 'lead-7', orgName: 'Acme' },
}

type Secrets = { apiKey: string; instructions: string } | null

function world(options: { key?: Uint8Array | undefined; served?: boolean; plan?: CallPlan; realtime?: (callId: string) => Secrets } = {}) {
  const p = options.plan ?? plan
  const told: unknown[][] = []
  const events: CallEvents = {
    answered() {}, intent: (_, excerpt) => void told.push(['intent', excerpt]), handover() {}, ended() {}, recorded() {},
    transcribed: (_, lines) => void told.push(['transcribed', ...lines.map((l) => `${l.speaker}:${l.name}:${l.text}`)]),
    seated: (id) => void told.push(['seated', id]),
    agentAudio: (id, ms) => void told.push(['agentAudio', id, ms]),
    aiUsage: (id, usage) => void told.push(['aiUsage', id, usage]),
    aiSeatTime: (id, seconds) => void told.push(['aiSeatTime', id, seconds]),
  }
  const clock = { now: () => now }
  let now = NOW
  let state: CarrierState = initialCarrierState(p)
  if (options.served !== false) {
    state = runStep({ callId: CALL, orgId: ORG, plan: p, publicUrl: 'https://dialer.example.com', now: NOW, events: { ...events, connected() {}, personAnswered() {} }, streamKey: KEY }, state, 'answer', null, { CallSid: SID }).state
  }
  const rows = new Map<string, CarrierCallRecord>([[CALL, { callId: CALL, orgId: ORG, carrier: 'twilio', carrierCallId: SID, plan: p, state, open: true, created: NOW, updated: NOW }]])
  const store: CarrierCallPort = {
    insert: (row) => void rows.set(row.callId, row),
    get: (id) => rows.get(id),
    update: (id, changes) => void rows.set(id, { ...rows.get(id)!, ...changes }),
    openSince: () => [],
  }
  let transactions = 0
  const host = new TwilioSeatHost({
    store, clock: clock as never, carrier: 'twilio', events: () => events, realtimeAgentOf: options.realtime,
    transaction: (work) => (transactions++, work()), ...('key' in options ? { streamKey: options.key } : { streamKey: KEY }),
  })
  const token = (over: { callId?: string; orgId?: string; expiresAt?: number; key?: Uint8Array } = {}) =>
    mintStreamToken(over.key ?? KEY, { callId: over.callId ?? CALL, orgId: over.orgId ?? ORG, expiresAt: over.expiresAt ?? NOW + STREAM_TOKEN_TTL_MS })
  return {
    host, told, token, rows, events, transactions: () => transactions,
    state: () => rows.get(CALL)!.state as CarrierState,
    setNow: (at: number) => void (now = at),
    patch: (s: Partial<CarrierState>) => void rows.set(CALL, { ...rows.get(CALL)!, state: { ...(rows.get(CALL)!.state as CarrierState), ...s } }),
  }
}

const start = (token: string, callSid = SID) => ({ token, callSid, streamSid: `MZ${'c'.repeat(32)}` })

describe('admit', () => {
  test('a valid token of the waiting call: the ticket (the campaign parameters plus the service\'s names, never the token), seated once', () => {
    const w = world()
    const ticket = w.host.admit(start(w.token()))
    expect(ticket).toEqual({
      callId: CALL, orgId: ORG,
      agent: { kind: 'stream', url: 'wss://agent.example.com/media', parameters: { behaviour: 'end', tone: 'warm' }, firstAudioMs: 1500 },
      customParameters: { behaviour: 'end', tone: 'warm', dialer_call_id: CALL, dialer_lead_id: 'lead-7', lead_name: 'Jordan Lee', campaign_name: 'Spring Roofing' },
    })
    expect(w.state().seat).toMatchObject({ stage: 'streaming', streamStarted: true, streamSid: `MZ${'c'.repeat(32)}` })
    expect(w.told).toEqual([['seated', CALL]])
  })

  test('replayed (a second stream with the same token): refused, nothing changes', () => {
    const w = world()
    const t = w.token()
    expect(w.host.admit(start(t))).not.toBeNull()
    const before = w.rows.get(CALL)
    expect(w.host.admit(start(t))).toBeNull()
    expect(w.rows.get(CALL)).toBe(before)
    expect(w.told).toEqual([['seated', CALL]])
  })

  const forged: [string, (w: ReturnType<typeof world>) => string][] = [
    ['missing', () => ''],
    ['altered signature', (w) => `${w.token().slice(0, -2)}xx`],
    ['altered call id', (w) => w.token().replace(CALL, 'call-ai-2')],
    ['signed with another key', (w) => w.token({ key: new Uint8Array(32).fill(1) })],
    ['expired', (w) => w.token({ expiresAt: NOW - 1 })],
    ['another organization', (w) => w.token({ orgId: 'org-2' })],
    ['an unknown call', (w) => w.token({ callId: 'call-nope' })],
  ]
  test.each(forged)('%s: refused, nothing changes', (_, tokenOf) => {
    const w = world()
    const before = w.rows.get(CALL)
    expect(w.host.admit(start(tokenOf(w)))).toBeNull()
    expect(w.rows.get(CALL)).toBe(before)
    expect(w.told).toEqual([])
  })

  test('a token used past its lifetime (the clock moved on): refused', () => {
    const w = world()
    const t = w.token()
    w.setNow(NOW + STREAM_TOKEN_TTL_MS + 1)
    expect(w.host.admit(start(t))).toBeNull()
  })

  test.each<[string, (w: ReturnType<typeof world>) => void]>([
    ['the call ended', (w) => w.patch({ life: { ...w.state().life, stage: 'ended' } })],
    ['the end was reported', (w) => w.patch({ reported: true })],
    ['the seat is over', (w) => w.patch({ seat: { ...w.state().seat!, stage: 'over' } })],
  ])('%s: refused', (_, change) => {
    const w = world()
    change(w)
    expect(w.host.admit(start(w.token()))).toBeNull()
    expect(w.told).toEqual([])
  })

  test('another CallSid than the call\'s: refused', () => {
    const w = world()
    expect(w.host.admit(start(w.token(), `CA${'d'.repeat(32)}`))).toBeNull()
    expect(w.host.admit(start(w.token(), 'not-a-sid'))).toBeNull()
  })

  test('the seat was never served (no person yet), or the service has no key: refused', () => {
    expect(world({ served: false }).host.admit(start(world().token()))).toBeNull()
    const keyless = world({ key: undefined })
    expect(keyless.host.admit(start(keyless.token()))).toBeNull()
  })
})

describe('controls, first audio, failures', () => {
  test('a decision is applied once, each in its own transaction; transcript lines are told', () => {
    const w = world()
    w.host.admit(start(w.token()))
    const before = w.transactions()
    expect(w.host.control(CALL, { event: 'dialer.transcript', speaker: 'lead', text: 'Hello?' })).toEqual({ applied: true, endsStream: false })
    expect(w.host.control(CALL, { event: 'dialer.end', outcome: 'not_interested', note: 'No need.' })).toEqual({ applied: true, endsStream: true })
    expect(w.host.control(CALL, { event: 'dialer.interested', excerpt: 'x', confidence: 1, summary: 's' })).toEqual({ applied: false, endsStream: false })
    expect(w.transactions() - before).toBe(3)
    expect(w.state().seat?.decision).toEqual({ kind: 'end', outcome: 'not_interested', note: 'No need.' })
    expect(w.told).toContainEqual(['transcribed', 'lead:Jordan Lee:Hello?'])
    expect(w.told.filter((t) => t[0] === 'intent')).toEqual([])
  })

  test('controls for an unknown call, or a call not streaming, apply nothing', () => {
    const w = world()
    expect(w.host.control('call-nope', { event: 'dialer.opt_out', via: 'agent' })).toEqual({ applied: false, endsStream: false })
    expect(w.host.control(CALL, { event: 'dialer.opt_out', via: 'agent' })).toEqual({ applied: false, endsStream: false })
  })

  test('first audio is told with its ms; a failure takes the call back unless a decision came first', () => {
    const w = world()
    w.host.admit(start(w.token()))
    w.host.firstAudio(CALL, 412.6)
    expect(w.told).toContainEqual(['agentAudio', CALL, 413])
    w.host.failed(CALL, 'silent')
    expect(w.state().seat?.decision).toEqual({ kind: 'takeback', why: 'silent' })
    const decided = world()
    decided.host.admit(start(decided.token()))
    decided.host.control(CALL, { event: 'dialer.callback', at: NOW + 60_000 })
    decided.host.failed(CALL, 'dropped')
    expect(decided.state().seat?.decision).toEqual({ kind: 'callback', at: NOW + 60_000 })
  })
})

describe('the built-in Realtime agent', () => {
  const realtimePlan: CallPlan = {
    ...plan,
    ai: { ...plan.ai!, kind: 'openai_realtime', url: '', parameters: {}, realtime: { model: 'gpt-realtime', voice: 'marin', baseUrl: 'ws://127.0.0.1:9/v1/realtime' } },
  }

  test('its ticket carries the key and the rendered prompt read from the port at the stream\'s start', () => {
    const asked: string[] = []
    const w = world({ plan: realtimePlan, realtime: (id) => (asked.push(id), { apiKey: 'sk-test-1', instructions: 'Hi Jordan Lee.' }) })
    expect(asked).toEqual([])
    const ticket = w.host.admit(start(w.token()))
    expect(asked).toEqual([CALL])
    expect(ticket?.agent).toEqual({ kind: 'openai_realtime', baseUrl: 'ws://127.0.0.1:9/v1/realtime', model: 'gpt-realtime', voice: 'marin', instructions: 'Hi Jordan Lee.', apiKey: 'sk-test-1', firstAudioMs: 1500 })
    // The key is never kept with the call's carrier row.
    expect(JSON.stringify(w.rows.get(CALL))).not.toContain('sk-test-1')
    expect(w.state().seat).toMatchObject({ stage: 'streaming', startedAt: NOW })
  })

  test.each<[string, ((id: string) => Secrets) | undefined]>([
    ['the key does not open', () => null],
    ['no port is wired', undefined],
  ])('%s: refused, and the seat is taken back (unreachable) when Twilio asks what next', (_, port) => {
    const w = world({ plan: realtimePlan, realtime: port })
    expect(w.host.admit(start(w.token()))).toBeNull()
    expect(w.state().seat).toMatchObject({ stage: 'waiting', streamStarted: false, decision: { kind: 'takeback', why: 'unreachable' } })
    expect(w.told).toEqual([])
  })

  test('usage is told per response; the seat\'s time is told once when its stream ends', () => {
    const w = world({ plan: realtimePlan, realtime: () => ({ apiKey: 'k', instructions: 'i' }) })
    w.host.admit(start(w.token()))
    const usage: AiUsage = { input_tokens: 30, output_tokens: 45, input_text_tokens: 10, input_audio_tokens: 20, input_cached_tokens: 0, output_text_tokens: 5, output_audio_tokens: 40 }
    w.host.usage(CALL, usage)
    expect(w.told).toContainEqual(['aiUsage', CALL, usage])
    w.host.usage('call-nope', usage)
    expect(w.told.filter((t) => t[0] === 'aiUsage').length).toBe(1)
    const ctx = { callId: CALL, orgId: ORG, plan: realtimePlan, publicUrl: 'https://dialer.example.com', now: NOW + 90_500, events: w.events, streamKey: KEY }
    const afterNext = runStep(ctx, w.state(), 'seat-next', null, { CallSid: SID }).state
    runStep({ ...ctx, now: NOW + 120_000 }, afterNext, 'status', null, { CallSid: SID, CallStatus: 'completed' })
    expect(w.told.filter((t) => t[0] === 'aiSeatTime')).toEqual([['aiSeatTime', CALL, 90.5]])
  })
})
