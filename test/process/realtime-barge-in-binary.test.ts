import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { RealtimeScript } from '../emulators/openai-realtime/realtime-scripts'
import { until } from './ai-seat-service'
import { realtimeService } from './realtime-service'
import { ny } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Barge-in with the built-in Realtime agent on the binary: the model talks for 8 s, the lead
 * (scenario 00, 2-3 s real into the stream at 5x) speaks over it. The service clears Twilio's
 * buffer and truncates the model's audio item at what Twilio's marks say the lead heard, so the
 * model's memory matches the call; the AI's transcript line holds only that part.
 */
const ADMIN = 'dat_realtime_barge_in_0123456789abcd'
const SID = `AC${'d4'.repeat(16)}`
const TOKEN = 'd'.repeat(32)
const SPEED = 5
const LONG = 'Hi, this is Ava from Acme Solar. We are offering free home assessments this month, and most homeowners in your area save a good part of their electricity bill once the panels are up, with no money down.'
const LONG_MS = 8000

const scripts: Record<string, RealtimeScript> = {
  talker: {
    leadSays: ['Sorry, can I stop you there?'],
    turns: [{ say: LONG, audioMs: LONG_MS }, { say: 'Of course, go ahead.', audioMs: 800 }],
  },
}

describe('barge-in (compiled binary, Twilio and Realtime emulators)', () => {
  const seat = realtimeService({ prefix: 'dialer-realtime-barge-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 45_000 }, { scripts })
  const { service } = seat

  beforeAll(() => seat.start(), 40_000)
  afterAll(() => seat.close())

  test('the lead speaks over the model: Twilio is cleared, the item truncated at the audio the marks say was heard, the AI line cut to it', async () => {
    const campaign = await seat.realtimeCampaign('talker')
    const lead = ny('00', 94)
    const leadId = await seat.addLead(campaign.id, lead)
    const twilioCall = await until('the Twilio call', () => seat.twilioCall(lead))
    const stream = await until('the stream', () => service.emulator.stream(twilioCall.sid))
    // What the lead had heard when the clear came (polled: the next response follows the lead's turn, not at once).
    const playedAtClear = await until('the clear', () => (stream.clears > 0 ? { ms: stream.playedBytes / 8 } : null), 30_000)
    const session = await seat.session(lead)
    const truncation = await until('the truncation', () => session.truncations[0])
    expect(session.truncations).toHaveLength(1)
    // The model's first audio item, cut where the lead stopped hearing it: never past what Twilio played, at most a mark's lag (one delta, 100 ms) and the relay's hop behind.
    expect(truncation.item_id).toBe(session.responses[0]!.items[0]!.id)
    expect(truncation.audio_end_ms).toBeGreaterThan(0)
    expect(truncation.audio_end_ms).toBeLessThan(LONG_MS)
    expect(truncation.audio_end_ms).toBeLessThanOrEqual(playedAtClear.ms + 20)
    expect(truncation.audio_end_ms).toBeGreaterThanOrEqual(playedAtClear.ms - 300)
    expect(session.problems).toEqual([])

    // The AI's line holds what was heard: a shorter beginning of what the model would have said.
    const call = await service.callOf(leadId, (c) => c.status === 'ended')
    const lines = await until('the transcript', async () => {
      const got = await seat.transcript(call.id)
      return got.some((l) => l.speaker === 'ai') && got
    })
    const first = lines.find((l) => l.speaker === 'ai')!
    expect(first.text.length).toBeGreaterThan(0)
    expect(first.text.length).toBeLessThan(LONG.length)
    // Every word but the last (which may be cut) is the script's, in order.
    expect(LONG.startsWith(first.text.trim().split(/\s+/).slice(0, -1).join(' '))).toBe(true)
    const heardShare = truncation.audio_end_ms / LONG_MS
    expect(Math.abs(first.text.length / LONG.length - heardShare)).toBeLessThan(0.15)
  })
})
