import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { aiSeatService, HOUR, TAKEBACK, until } from './ai-seat-service'
import { readClock } from './daytime-clock'
import { ny } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * When the agent fails the call, on the service as shipped: an agent that cannot be reached,
 * one that never sends audio within first_audio_ms, and one that drops mid-call each have the
 * call taken back (the lead hears a message with the organization's name, the service hangs up
 * and books a callback two hours later), and nothing stays on_call. An agent sending bad frames
 * has them dropped and counted while the call goes on to its decision.
 */
const ADMIN = 'dat_ai_seat_failures_0123456789abcdef0'
const SID = `AC${'b8'.repeat(16)}`
const TOKEN = 'b'.repeat(32)
const SPEED = 10

describe('the AI seat takes calls back from failing agents (compiled binary)', () => {
  const seat = aiSeatService({ prefix: 'dialer-ai-failures-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 40_000 })
  const { service } = seat

  beforeAll(() => seat.start(), 40_000)
  afterAll(() => seat.close())

  const ended = (c: any) => c.status === 'ended' && c.outcome !== null

  /** The lead on a campaign whose agent is `parameters` (or at `url`): the call once ended, and checks common to every takeback. */
  async function takenBack(phone: string, parameters: Record<string, string>, url?: string) {
    const campaignId = await seat.aiCampaign(parameters, { url })
    const leadId = await seat.addLead(campaignId, phone)
    const call = await service.callOf(leadId, ended)
    const now = await readClock(service.base, ADMIN)
    expect(call.outcome).toBe('callback')
    // Two hours after the end (later only if the calling rules move it).
    expect(Date.parse(call.callback_at) - Date.parse(call.ended)).toBeGreaterThanOrEqual(2 * HOUR - 60_000)
    expect(Date.parse(call.callback_at)).toBeGreaterThan(now + HOUR)
    const twilioCall = seat.twilioCall(phone)
    await until('the takeback message', () => twilioCall.spoken?.some((s: any) => s.text === TAKEBACK))
    await until('the Twilio call to end', () => twilioCall.status === 'completed')
    // Hung up by the service after the message, not left to the scenario's end (95 s).
    expect(twilioCall.endedAt).toBeLessThan(60)
    const booked = await seat.events(leadId, 'callback.booked')
    expect(booked).toHaveLength(1)
    expect(await seat.events(call.id, 'call.completed')).toHaveLength(1)
    const admin = await seat.adminCall(call.id)
    expect(admin.status).toBe('ended')
    expect((await service.api('GET', `/leads/${leadId}`)).body.data.status).toBe('callback_scheduled')
    return { call, admin, twilioCall }
  }

  test('an agent nobody answers at: taken back, no first audio', async () => {
    // A loopback port with nothing listening (the reference agent's own, stopped).
    const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('') })
    const deadUrl = `ws://127.0.0.1:${probe.port}/`
    probe.stop(true)
    const { admin } = await takenBack(ny('00', 91), { behaviour: 'end' }, deadUrl)
    expect(admin.ai_first_audio_ms).toBeNull()
  })

  test('a silent agent (no media within first_audio_ms): taken back, no first audio', async () => {
    const { call, admin } = await takenBack(ny('00', 92), { behaviour: 'silent' })
    expect(admin.ai_first_audio_ms).toBeNull()
    // The agent's socket was closed by the service.
    const agentCall = await until('the agent call closed', () => {
      const c = seat.agent.call(call.id)
      return c?.closedAt !== null && c
    })
    expect(agentCall!.closedBy).toBe('peer')
  })

  test('an agent that drops mid-call: taken back; its first audio is on the admin read', async () => {
    const { admin } = await takenBack(ny('00', 93), { behaviour: 'drop', after_ms: '1000' })
    expect(admin.ai_seated).toBe(true)
    expect(admin.ai_first_audio_ms).toBeGreaterThanOrEqual(0)
    expect(admin.ai_first_audio_ms).toBeLessThan(1000)
  })

  test('bad frames are dropped and counted, the call goes on to the valid end', async () => {
    const before = await seat.metrics()
    const campaignId = await seat.aiCampaign({ behaviour: 'garbage', outcome: 'wrong_number', note: 'Not the owner.', after_ms: '800', transcript: 'off' })
    const lead = ny('00', 94)
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, ended)
    expect(call.outcome).toBe('wrong_number')
    expect(call.note).toBe('Not the owner.')
    const metrics = await seat.metrics()
    expect(metrics).toContain('dialer_seat_frames_dropped_total')
    const count = (text: string, reason: string) => Number(new RegExp(`dialer_seat_frames_dropped_total\\{reason="${reason}"\\} (\\d+)`).exec(text)?.[1] ?? 0)
    // One of each (scripts/reference-agent.ts garbageFrames); two malformed controls (a confidence of 7, an `at` that is no date).
    const expected = { not_json: 1, too_large: 1, bad_media: 1, unknown_event: 1, unknown_outcome: 1, malformed_control: 2 }
    const added = Object.fromEntries(Object.keys(expected).map((reason) => [reason, count(metrics, reason) - count(before, reason)]))
    expect(added).toEqual(expected)
    // None of them reached Twilio (it refuses any message it does not know: error 31924 in the emulator).
    const twilioCall = seat.twilioCall(lead)
    const stream = seat.emulatorStream(twilioCall.sid)
    expect(stream.errors).toEqual([])
    expect(stream.received.join('\n')).not.toContain('not base64')
  })
})
