import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { aiSeatService, HOUR, openStream, TAKEBACK, until } from './ai-seat-service'
import { readClock } from './daytime-clock'
import { ny } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * The seat's guards on the service as shipped: an agent far ahead of real time has its excess
 * audio dropped, never buffered (byte-for-byte relaying: ai-seat-relay-binary.test.ts); a stream
 * without a valid token for a live call of that organization (none, altered, another
 * organization's, expired, a second start, replayed after the call ended) is closed at once and
 * changes nothing; a seat cut by a restart ends as a callback in 2 hours. (The route alone, a
 * plain GET included: ai-seat-stream-binary.test.ts.)
 */
const ADMIN = 'dat_ai_seat_streams_0123456789abcdef01'
const SID = `AC${'c7'.repeat(16)}`
const TOKEN = 'c'.repeat(32)
const SPEED = 10

/** A frame as sent or received (text), parsed. */
const parsed = (frame: unknown): any => (typeof frame === 'string' ? JSON.parse(frame) : frame)
const mediaOf = (frames: unknown[]) => frames.map(parsed).filter((m) => m?.event === 'media')

describe('the seat\u2019s guards: time, tokens, restarts (compiled binary)', () => {
  const seat = aiSeatService({ prefix: 'dialer-ai-guards-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 40_000 })
  const { service } = seat

  beforeAll(() => seat.start(), 40_000)
  afterAll(() => seat.close())

  test('an agent ahead of real time: what it sends beyond 10 s ahead is dropped and counted, the rest reaches Twilio in order', async () => {
    const before = await seat.metrics()
    const campaignId = await seat.aiCampaign({ behaviour: 'echo' })
    // The emulator sends the lead's side 10 times faster than real time here, and the agent echoes
    // it all: about 40 s of audio within 4 real seconds. Scenario 01 hangs up 45 s after answering.
    const lead = ny('01', 51)
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, (c) => c.status === 'ended' && c.outcome !== null)
    expect(call.outcome).toBe('hung_up')
    const stream = seat.emulatorStream(seat.twilioCall(lead).sid)
    await stream.done
    const agentCall = seat.agent.call(call.id)!
    // To the agent nothing is held back: every media frame whole, in order.
    const sent = mediaOf(stream.sent)
    expect(sent.length).toBeGreaterThan(1000)
    expect(mediaOf(agentCall.received)).toEqual(sent)
    // Back: at most 10 s ahead of the real time the stream lasted, in the agent's order.
    const played = stream.receivedPayloads
    const realMs = agentCall.closedAt! - agentCall.startedAt!
    expect(played.length).toBeGreaterThan(400)
    expect(played.length * 20).toBeLessThanOrEqual(realMs + 10_000 + 200)
    let at = 0
    for (const payload of played) {
      at = agentCall.spoke.indexOf(payload, at) + 1
      if (at === 0) throw new Error('a frame Twilio got is out of the agent\u2019s order')
    }
    const dropped = (text: string) => Number(/dialer_seat_frames_dropped_total\{reason="ahead_of_time"\} (\d+)/.exec(text)?.[1] ?? 0)
    expect(dropped(await seat.metrics()) - dropped(before)).toBeGreaterThan(0)
  })

  test('forged streams are closed at once and change nothing: no token, altered, another organization\u2019s, expired, started twice, replayed after the end', async () => {
    const otherOrg = service.json(['org', 'create', '--name', 'Other Roofing']).id
    const campaignId = await seat.aiCampaign({ behaviour: 'end', after_ms: '60000', transcript: 'off' })
    const lead = ny('00', 52)
    const leadId = await seat.addLead(campaignId, lead)
    const up = await service.callOf(leadId, (c) => c.status === 'in_progress')
    await until('the seat', () => seat.agent.call(up.id))
    const twilioCall = seat.twilioCall(lead)
    const real = seat.streamTwiml(twilioCall.sid)!
    expect(real.url).toBe(seat.streamUrl())
    const sessions = seat.agent.sessions.length
    const clock = await readClock(service.base, ADMIN)
    const altered = real.token.slice(0, -2) + (real.token.endsWith('AA') ? 'BB' : 'AA')

    const attempts: Record<string, Record<string, string>> = {
      none: {},
      empty: { dialer_stream_token: '' },
      altered: { dialer_stream_token: altered },
      'another organization': { dialer_stream_token: seat.mint(up.id, otherOrg) },
      'an unknown call': { dialer_stream_token: seat.mint('c0ffee00-0000-4000-8000-000000000000', seat.orgId) },
      expired: { dialer_stream_token: seat.mint(up.id, seat.orgId, clock - 60_000) },
      'started twice': { dialer_stream_token: real.token },
    }
    for (const [name, parameters] of Object.entries(attempts)) {
      const stream = await openStream(real.url, parameters, twilioCall.sid)
      expect({ name, opened: stream.opened }).toEqual({ name, opened: true })
      await Promise.race([stream.closed, Bun.sleep(3_000)])
      expect({ name, closed: stream.closedAt() !== null, within: (stream.closedAt() ?? Infinity) - stream.sentAt < 2_000, got: stream.got }).toEqual({ name, closed: true, within: true, got: [] })
    }
    expect(seat.agent.sessions.length).toBe(sessions)

    // The real seat went on untouched: the lead hangs up at the scenario's end with no decision.
    const done = await service.callOf(leadId, (c) => c.id === up.id && c.status === 'ended' && c.outcome !== null)
    expect(done.outcome).toBe('hung_up')
    const before = await seat.adminCall(up.id)
    const replayed = await openStream(real.url, { dialer_stream_token: real.token }, twilioCall.sid)
    await Promise.race([replayed.closed, Bun.sleep(3_000)])
    expect(replayed.closedAt()).not.toBeNull()
    expect(replayed.got).toEqual([])
    expect(seat.agent.sessions.length).toBe(sessions)
    expect(await seat.adminCall(up.id)).toEqual(before)
    expect((await seat.events(up.id)).filter((e) => e.type === 'call.completed')).toHaveLength(1)
  })

  test('a restart with a seat in progress: the call is taken back, a callback in 2 hours, nothing stays on_call', async () => {
    const campaignId = await seat.aiCampaign({ behaviour: 'end', after_ms: '60000', transcript: 'off' })
    const lead = ny('00', 53)
    // The lead stays on the line well past a slow reboot, so a takeback message is never cut short by the scenario's hang-up.
    service.emulator.script(lead, { hangUpAfter: 300 })
    const leadId = await seat.addLead(campaignId, lead)
    const up = await service.callOf(leadId, (c) => c.status === 'in_progress')
    await until('the seat relaying', () => (seat.agent.call(up.id)?.heard.length ?? 0) > 0)
    await service.stop('SIGKILL')
    const twilioCall = seat.twilioCall(lead)
    await service.start()
    const done = await service.callOf(leadId, (c) => c.id === up.id && c.status === 'ended' && c.outcome !== null)
    expect(done.outcome).toBe('callback')
    expect(Date.parse(done.callback_at) - Date.parse(done.ended)).toBeGreaterThanOrEqual(2 * HOUR - 60_000)
    expect(Date.parse(done.callback_at)).toBeGreaterThan((await readClock(service.base, ADMIN)) + HOUR)
    // The next boot looked the call up at Twilio. Still up then (Twilio got new TwiML): the lead
    // heard the takeback message before the hang-up; else it had ended and was reported taken back.
    const sidPath = `/Calls/${twilioCall.sid}.json`
    expect(service.emulator.received.some((r) => r.method === 'GET' && r.path.endsWith(sidPath))).toBe(true)
    const updated = service.emulator.received.some((r) => r.method === 'POST' && r.path.endsWith(sidPath) && String(r.params.Twiml ?? '').includes(TAKEBACK))
    if (updated) await until('the takeback message', () => twilioCall.spoken?.some((s: any) => s.text === TAKEBACK))
    await until('the Twilio call to end', () => twilioCall.status === 'completed')
    const admin = await seat.adminCall(up.id)
    expect(admin.status).toBe('ended')
    expect(admin.ai_seated).toBe(true)
    // The lead waits for its callback, not on a call that no longer exists.
    expect((await service.api('GET', `/leads/${leadId}`)).body.data.status).toBe('callback_scheduled')
  })
})
