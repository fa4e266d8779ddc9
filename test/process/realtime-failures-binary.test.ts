import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { RealtimeScript } from '../emulators/openai-realtime/realtime-scripts'
import { HOUR, TAKEBACK, until } from './ai-seat-service'
import { realtimeService } from './realtime-service'
import { ny } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * When OpenAI's side fails, on the service as shipped: an `error` event of type server_error, a
 * response that ends `failed` (a rate limit), the session closed mid-call, and a refused key are
 * the seat's agent failure: the lead hears the takeback message, the call is hung up and a
 * callback is booked two hours later. The key is never written to the service's log.
 */
const ADMIN = 'dat_realtime_failures_0123456789abcd'
const SID = `AC${'e5'.repeat(16)}`
const TOKEN = 'e'.repeat(32)
const SPEED = 5
const GREETING = 'Hi, this is Ava from Acme Solar.'

// Each fails on the lead's turn, after a greeting that played (scenario 00's lead speaks 2-3 s real into the stream).
const scripts: Record<string, RealtimeScript> = {
  crash: { leadSays: ['Hello?'], turns: [{ say: GREETING, audioMs: 1000 }, { serverError: true }] },
  limited: { leadSays: ['Hello?'], turns: [{ say: GREETING, audioMs: 1000 }, { fail: 'rate_limit' }] },
  hangs_up: { leadSays: ['Hello?'], turns: [{ say: GREETING, audioMs: 1000 }, { close: true }] },
}

describe('Realtime failures take the call back (compiled binary, Twilio and Realtime emulators)', () => {
  const seat = realtimeService({ prefix: 'dialer-realtime-failures-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 45_000 }, { scripts })
  const { service } = seat

  beforeAll(() => seat.start(), 40_000)
  afterAll(() => seat.close())

  const ended = (c: any) => c.status === 'ended' && c.outcome !== null

  async function takenBack(phone: string, script: string, apiKey?: string) {
    const campaign = await seat.realtimeCampaign(script, { apiKey })
    const leadId = await seat.addLead(campaign.id, phone)
    const call = await service.callOf(leadId, ended)
    expect(call.outcome).toBe('callback')
    expect(call.handled_by?.role).toBe('ai')
    expect(Date.parse(call.callback_at) - Date.parse(call.ended)).toBeGreaterThanOrEqual(2 * HOUR - 60_000)
    const twilioCall = seat.twilioCall(phone)
    await until('the takeback message', () => twilioCall.spoken?.some((s: any) => s.text === TAKEBACK))
    await until('the Twilio call to end', () => twilioCall.status === 'completed')
    expect(twilioCall.endedAt).toBeLessThan(60)
    expect(await seat.events(leadId, 'callback.booked')).toHaveLength(1)
    return { call, twilioCall }
  }

  test('server_error mid-call: taken back after the greeting played', async () => {
    const { call, twilioCall } = await takenBack(ny('00', 95), 'crash')
    expect(call.note).toContain('dropped the call')
    expect(seat.emulatorStream(twilioCall.sid).receivedPayloads.length).toBeGreaterThan(0)
    const session = await seat.session(ny('00', 95))
    expect(seat.serverEvents(session, 'error').map((e) => e.error.type)).toContain('server_error')
    expect((await seat.adminCall(call.id)).ai_first_audio_ms).toBeGreaterThanOrEqual(0)
  })

  test('a response that ends failed (rate limit): taken back', async () => {
    const { call } = await takenBack(ny('00', 96), 'limited')
    expect(call.note).toContain('dropped the call')
    const session = await seat.session(ny('00', 96))
    expect(seat.serverEvents(session, 'response.done').map((e) => e.response.status)).toContain('failed')
  })

  test('the session closed mid-call: taken back', async () => {
    const { call } = await takenBack(ny('00', 97), 'hangs_up')
    expect(call.note).toContain('dropped the call')
  })

  test('a refused key: taken back; neither key is in the service\u2019s log', async () => {
    const wrong = 'sk-test-wrong-0a9b8c7d6e5f4a3b2c1d'
    const { call } = await takenBack(ny('00', 98), 'crash', wrong)
    expect(call.note).toMatch(/could not be reached|dropped the call/)
    const refused = await until('the refused session', () => seat.realtime.sessions.find((s) => !s.authorized))
    expect(refused.authorized).toBe(false)
    const log = service.output()
    expect(log).not.toContain(wrong)
    expect(log).not.toContain('sk-test-realtime')
  })
})
