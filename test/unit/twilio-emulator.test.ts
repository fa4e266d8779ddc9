import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import twilio from 'twilio'
import type { Server } from 'bun'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { apply, type Effect, eventFromAmdCallback, eventFromDialAction, eventFromStatusCallback, initialState, type LifecycleState } from '../../src/telephony/twilio/lifecycle'
import { TwilioRestClient } from '../../src/telephony/twilio/rest-client'
import { formParams } from '../../src/telephony/twilio/signature'
import { bridgeLeg, hangup, holdForDetection, say, voicemailDrop } from '../../src/telephony/twilio/twiml'

setDefaultTimeout(60_000)

/**
 * Issue 18 item 9: the emulator, driven over loopback by the REST client, and answered by a
 * small stand-in for the service built from our TwiML builders and lifecycle machine. Every
 * request the emulator sends must carry a signature the official validateRequest accepts.
 */

const ACCOUNT = { sid: `AC${'1'.repeat(32)}`, authToken: 'emulator-test-token' }
const OTHER = { sid: `AC${'2'.repeat(32)}`, authToken: 'other-token', callerIds: ['+13125550111'], maxConcurrentCalls: 1 }
const FROM = '+13125550111'
const SPEED = 50

interface Tracked {
  sdrs: string[]
  state: LifecycleState
  effects: Effect[]
  recording: Uint8Array | null
  transcript: { track: string; text: string }[]
}

let emulator: TwilioEmulator
/** Sends every notification twice (replayCallbacks). */
let replaying: TwilioEmulator
let service: Server<undefined>
let client: TwilioRestClient
const clients: Record<string, TwilioRestClient> = {}
const calls = new Map<string, Tracked>()
/** The SDRs and closers to bridge to, by the lead's number (place() sets them). */
const sdrsByTo = new Map<string, string[]>()
const badSignatures: string[] = []

const base = () => `http://127.0.0.1:${service.port}`

async function handle(req: Request): Promise<Response> {
  const url = new URL(req.url)
  const params = formParams(await req.text())
  const p = params as Record<string, string>
  // The URL exactly as the emulator requested it (Twilio signs what it was configured with).
  const full = base() + url.pathname + url.search
  if (!twilio.validateRequest(ACCOUNT.authToken, req.headers.get('x-twilio-signature') ?? '', full, params)) {
    badSignatures.push(full)
    return new Response('bad signature', { status: 403 })
  }
  // /{emulator}/calls/{id}/{what}: which emulator's REST API to answer through.
  const [, emu, , callSid, what] = url.pathname.split('/')
  const rest = clients[emu!]!
  const sid = p.ParentCallSid ?? p.CallSid ?? callSid!
  if (!calls.has(sid)) calls.set(sid, { sdrs: sdrsByTo.get(p.To ?? '') ?? [], state: initialState({ amdExpected: true, legs: 0 }), effects: [], recording: null, transcript: [] })
  const t = calls.get(sid)!
  if (t.state.legs !== t.sdrs.length) t.state = { ...t.state, legs: t.sdrs.length }
  const step = (event: ReturnType<typeof eventFromStatusCallback>) => {
    if (!event) return [] as Effect[]
    const next = apply(t.state, event)
    t.state = next.state
    t.effects.push(...next.effects)
    return next.effects
  }
  const leg = (index: number) =>
    bridgeLeg({
      phones: t.sdrs, index, callerId: FROM, timeoutSeconds: 15,
      actionUrl: (i) => `${base()}/${emu}/calls/${sid}/dial?leg=${i}`,
      legStatusUrl: (i) => `${base()}/${emu}/calls/${sid}/leg?leg=${i}`,
    })
  const xml = (body: string) => new Response(body, { headers: { 'Content-Type': 'text/xml' } })
  switch (what) {
    case 'twiml':
      return xml(holdForDetection({ pauseSeconds: 60, transcription: { statusCallbackUrl: `${base()}/${emu}/calls/${sid}/transcription` } }))
    case 'status':
      step(eventFromStatusCallback(p))
      return new Response(null, { status: 204 })
    case 'amd':
      for (const effect of step(eventFromAmdCallback(p))) {
        if (effect.type === 'bridge') await rest.updateCall(sid, { twiml: leg(0)! })
        if (effect.type === 'drop-voicemail') await rest.updateCall(sid, { twiml: voicemailDrop({ say: 'Hi, call us back.' }, `${base()}/${emu}/calls/${sid}/voicemail-done`) })
        if (effect.type === 'hang-up' || effect.type === 'nobody-took') await rest.updateCall(sid, { status: 'completed' })
      }
      return new Response(null, { status: 204 })
    case 'leg':
      step({ kind: 'leg-answered', leg: Number(url.searchParams.get('leg')) })
      return new Response(null, { status: 204 })
    case 'dial': {
      const effects = step(eventFromDialAction(Number(url.searchParams.get('leg')), p))
      const next = effects.find((e) => e.type === 'next-leg')
      if (next?.type === 'next-leg') return xml(leg(next.leg)!)
      if (effects.some((e) => e.type === 'nobody-took')) return xml(say('Sorry, nobody is free. We will call you back.'))
      return xml(hangup())
    }
    case 'voicemail-done':
      step({ kind: 'voicemail-done' })
      return xml(hangup())
    case 'recording': {
      const audio = await rest.downloadRecording(p.RecordingSid!)
      if (audio.ok) t.recording = audio.value
      return new Response(null, { status: 204 })
    }
    case 'transcription':
      if (p.TranscriptionEvent === 'transcription-content') t.transcript.push({ track: p.Track!, text: JSON.parse(p.TranscriptionData!).transcript })
      return new Response(null, { status: 204 })
  }
  return new Response('not found', { status: 404 })
}

beforeAll(() => {
  service = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: handle })
  emulator = TwilioEmulator.start({ accounts: [ACCOUNT, OTHER], speed: SPEED })
  client = new TwilioRestClient({ accountSid: ACCOUNT.sid, authToken: ACCOUNT.authToken, apiBaseUrl: emulator.url })
  replaying = TwilioEmulator.start({ accounts: [ACCOUNT], speed: SPEED, replayCallbacks: true })
  clients.e1 = client
  clients.e2 = new TwilioRestClient({ accountSid: ACCOUNT.sid, authToken: ACCOUNT.authToken, apiBaseUrl: replaying.url })
})

afterAll(async () => {
  await emulator.stop()
  await replaying.stop()
  await service.stop(true)
})

/** Places a call to a number ending in `digits`, waits until it is over, and returns what the service saw. */
async function place(digits: string, sdrs: string[] = ['+12125550111'], emu: 'e1' | 'e2' = 'e1') {
  const to = `+1212555${digits.padStart(4, '0')}`
  sdrsByTo.set(to, sdrs)
  const at = `${base()}/${emu}/calls/new`
  const created = await clients[emu]!.createCall({
    to, from: FROM, url: `${at}/twiml`,
    statusCallback: `${at}/status?org=1&x=a%20b`, machineDetection: true,
    asyncAmdStatusCallback: `${at}/amd`, record: true, recordingStatusCallback: `${at}/recording`,
  })
  if (!created.ok) throw new Error(created.error.message)
  expect(created.value.status).toBe('queued')
  const which = emu === 'e1' ? emulator : replaying
  await which.settled(created.value.sid)
  const tracked = calls.get(created.value.sid)!
  const callbacks = which.callbacksFor(created.value.sid)
  return { sid: created.value.sid, tracked, callbacks, statuses: callbacks.filter((c) => c.kind === 'status').map((c) => c.params.CallStatus) }
}

describe('scenarios, by the last two digits of To', () => {
  test('00: a person answers, the SDR takes the call; recording and transcript arrive', async () => {
    const { sid, tracked, callbacks, statuses } = await place('2000')
    expect(statuses).toEqual(['initiated', 'ringing', 'in-progress', 'completed'])
    expect(tracked.effects.map((e) => e.type)).toEqual(['ringing', 'answered', 'bridge', 'handover', 'hang-up', 'ended'])
    expect(tracked.effects).toContainEqual({ type: 'answered', by: 'person' })
    const ended = tracked.effects.at(-1)!
    expect(ended).toMatchObject({ type: 'ended', outcome: 'completed' })
    // 6 s answer to 95 s hang-up, give or take timer lateness on a busy machine.
    expect(ended.type === 'ended' && Math.abs(ended.durationSeconds - 89)).toBeLessThanOrEqual(5)
    expect(callbacks.find((c) => c.kind === 'amd')!.params.AnsweredBy).toBe('human')
    expect(callbacks.find((c) => c.kind === 'action')!.params).toMatchObject({ DialCallStatus: 'completed', DialBridged: 'true' })
    expect(new TextDecoder().decode(tracked.recording!.slice(0, 4))).toBe('RIFF')
    expect(tracked.transcript).toContainEqual({ track: 'inbound_track', text: 'Yes, that sounds good. Can someone walk me through the pricing?' })
    expect(tracked.transcript).toContainEqual({ track: 'outbound_track', text: 'Hi, I can take it from here.' })
    const fetched = await client.fetchCall(sid)
    expect(fetched.ok && fetched.value).toMatchObject({ status: 'completed', answeredBy: 'human' })
    expect(fetched.ok && fetched.value.durationSeconds).toBe(ended.type === 'ended' && ended.durationSeconds)
  })

  test('02 no answer, 03 busy, 05 failed: no TwiML, no recording, duration 0', async () => {
    const results = await Promise.all(['2002', '2003', '2005'].map((d) => place(d)))
    expect(results.map((r) => r.statuses)).toEqual([
      ['initiated', 'ringing', 'no-answer'],
      ['initiated', 'ringing', 'busy'],
      ['initiated', 'ringing', 'failed'],
    ])
    for (const r of results) {
      expect(r.callbacks.map((c) => c.kind)).toEqual(['status', 'status', 'status'])
      expect(r.callbacks[2]!.params.CallDuration).toBe('0')
      expect(r.tracked.effects.at(-1)).toMatchObject({ type: 'ended', durationSeconds: 0 })
    }
    expect(results.map((r) => (r.tracked.effects.at(-1) as { outcome: string }).outcome)).toEqual(['no_answer', 'busy', 'failed'])
  })

  test('04: a machine answers; the voicemail is dropped after the beep, then the call ends', async () => {
    const { tracked, callbacks, statuses } = await place('2004')
    expect(statuses).toEqual(['initiated', 'ringing', 'in-progress', 'completed'])
    expect(callbacks.find((c) => c.kind === 'amd')!.params.AnsweredBy).toBe('machine_end_beep')
    expect(tracked.effects.map((e) => e.type)).toEqual(['ringing', 'answered', 'drop-voicemail', 'voicemail-left', 'ended'])
    expect(tracked.effects[1]).toEqual({ type: 'answered', by: 'machine' })
    expect(tracked.recording).not.toBeNull()
  })

  test('10: a screener (AnsweredBy unknown) counts as a person', async () => {
    const { callbacks, tracked } = await place('2010')
    expect(callbacks.find((c) => c.kind === 'amd')!.params.AnsweredBy).toBe('unknown')
    expect(tracked.effects[1]).toEqual({ type: 'answered', by: 'person' })
  })

  test('14: the first SDR does not answer, the closer is busy: nobody took the call', async () => {
    const { tracked, callbacks } = await place('2014', ['+12125550102', '+12125550103'])
    expect(tracked.effects.map((e) => e.type)).toEqual(['ringing', 'answered', 'bridge', 'next-leg', 'nobody-took', 'ended'])
    expect(callbacks.filter((c) => c.kind === 'action').map((c) => c.params.DialCallStatus)).toEqual(['no-answer', 'busy'])
  })

  test('callbacks delivered twice (as Twilio may) change nothing: the same effects, once each', async () => {
    const [person, machine] = await Promise.all([place('2000', ['+12125550111'], 'e2'), place('2004', [], 'e2')])
    expect(person.statuses).toEqual(['initiated', 'initiated', 'ringing', 'ringing', 'in-progress', 'in-progress', 'completed', 'completed'])
    expect(person.tracked.effects.map((e) => e.type)).toEqual(['ringing', 'answered', 'bridge', 'handover', 'hang-up', 'ended'])
    expect(machine.tracked.effects.map((e) => e.type)).toEqual(['ringing', 'answered', 'drop-voicemail', 'voicemail-left', 'ended'])
    const amd = person.callbacks.filter((c) => c.kind === 'amd')
    expect(amd).toHaveLength(2)
    expect(amd[0]!.signature).toBe(amd[1]!.signature)
  })

  test('every callback was signed as Twilio signs, and the official validator agreed', () => {
    expect(badSignatures).toEqual([])
    expect(emulator.sent.length).toBeGreaterThan(20)
    for (const c of [...emulator.sent, ...replaying.sent]) {
      expect(twilio.validateRequest(ACCOUNT.authToken, c.signature, c.url, c.params)).toBe(true)
      expect(c.status).toBeLessThan(300)
    }
  })
})

describe('the REST API', () => {
  const call = (to: string, from = FROM) => ({ to, from, url: 'https://d.example.com/t', statusCallback: 'https://d.example.com/s', machineDetection: false, record: false })

  test('a wrong token is 401 with code 20003, classified rejected', async () => {
    const bad = new TwilioRestClient({ ...ACCOUNT, accountSid: ACCOUNT.sid, apiBaseUrl: emulator.url, authToken: 'nope' })
    expect(await bad.createCall(call('+12125552001'))).toMatchObject({ ok: false, error: { kind: 'rejected', status: 401, code: 20003 } })
    const elsewhere = new TwilioRestClient({ accountSid: OTHER.sid, authToken: ACCOUNT.authToken, apiBaseUrl: emulator.url })
    expect(await elsewhere.fetchCall(`CA${'0'.repeat(32)}`)).toMatchObject({ ok: false, error: { status: 401 } })
  })

  test('bad To and From, an unverified caller ID, too many calls', async () => {
    expect(await client.createCall(call('2125552001'))).toMatchObject({ ok: false, error: { kind: 'rejected', status: 400, code: 21211 } })
    expect(await client.createCall(call('+12125552001', ''))).toMatchObject({ ok: false, error: { code: 21213 } })
    expect(await client.createCall(call('+12125552001', '555'))).toMatchObject({ ok: false, error: { code: 21212 } })
    const other = new TwilioRestClient({ accountSid: OTHER.sid, authToken: OTHER.authToken, apiBaseUrl: emulator.url })
    expect(await other.createCall(call('+12125552001', '+13125550199'))).toMatchObject({ ok: false, error: { code: 21210 } })
    const first = await other.createCall({ ...call('+12125552002'), statusCallback: `${base()}/ignored` })
    expect(first.ok).toBe(true)
    expect(await other.createCall(call('+12125552003'))).toMatchObject({ ok: false, error: { kind: 'throttled', status: 429, code: 20429 } })
    if (first.ok) {
      await other.updateCall(first.value.sid, { status: 'completed' })
      await emulator.settled(first.value.sid)
      expect(await other.fetchCall(first.value.sid)).toMatchObject({ ok: true, value: { status: 'canceled' } })
    }
  })

  test('failNext: a 503 is unavailable; an unknown call is 404; a redirect of an ended call is 21220', async () => {
    emulator.failNext(503, 20500, 'Service Unavailable')
    expect(await client.createCall(call('+12125552001'))).toMatchObject({ ok: false, error: { kind: 'unavailable', status: 503, code: 20500 } })
    expect(await client.fetchCall(`CA${'f'.repeat(32)}`)).toMatchObject({ ok: false, error: { kind: 'rejected', status: 404, code: 20404 } })
    const done = [...emulator.calls.values()].find((c) => c.accountSid === ACCOUNT.sid && c.endedAt !== null)!
    expect(await client.updateCall(done.sid, { twiml: hangup() })).toMatchObject({ ok: false, error: { code: 21220 } })
    expect(await client.downloadRecording(`RE${'0'.repeat(32)}`)).toMatchObject({ ok: false, error: { status: 404 } })
  })

  test('every request the emulator got is on record', () => {
    const creates = emulator.received.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls.json'))
    expect(creates.length).toBeGreaterThan(5)
    const first = creates.find((r) => r.status === 201)!
    expect(first.params.StatusCallbackEvent).toEqual(['initiated', 'ringing', 'answered', 'completed'])
    expect(first.accountSid).toBe(ACCOUNT.sid)
  })
})
