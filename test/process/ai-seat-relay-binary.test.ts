import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { aiSeatService, until } from './ai-seat-service'
import { ny } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * The relay carries Twilio's Media Streams frames byte for byte and in order, both ways, on the
 * service as shipped. The emulator runs at real speed here, so the lead's side is sent as fast
 * as Twilio sends it and an echoing agent never runs ahead of real time (see
 * ai-seat-guards-binary.test.ts for one that does).
 */
const ADMIN = 'dat_ai_seat_relay_0123456789abcdef0123'
const SID = `AC${'e6'.repeat(16)}`
const TOKEN = 'e'.repeat(32)
const SPEED = 1

const parsed = (frame: unknown): any => (typeof frame === 'string' ? JSON.parse(frame) : frame)

describe('the relay, byte for byte (compiled binary, emulator at real speed)', () => {
  const seat = aiSeatService({ prefix: 'dialer-ai-relay-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 50_000 })
  const { service } = seat

  beforeAll(() => seat.start(), 40_000)
  afterAll(() => seat.close())

  test('an echoing agent: what Twilio sent is what the agent got (whole frames, in order), and what the agent sent is what Twilio got', async () => {
    const campaignId = await seat.aiCampaign({ behaviour: 'echo' }, { disclosure: 'Automated assistant.' })
    // Scenario 00 answers at 6 s; this phone hangs up 12 s after answering (about 5 s of stream).
    const lead = ny('00', 31)
    service.emulator.script(lead, { hangUpAfter: 12 })
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, (c) => c.status === 'ended' && c.outcome !== null)
    expect(call.outcome).toBe('hung_up')
    const twilioCall = seat.twilioCall(lead)
    const stream = seat.emulatorStream(twilioCall.sid)
    await stream.done
    const agentCall = await until('the agent to see the close', () => {
      const c = seat.agent.call(call.id)
      return c?.closedAt !== null && c
    })
    expect(stream.sentPayloads.length).toBeGreaterThan(100)
    // To the agent: connected, start (less the token), every media frame whole, stop: as Twilio sent them.
    const fromTwilio = stream.sent.map(parsed)
    const atAgent = agentCall!.received.map(parsed)
    expect(atAgent.filter((m: any) => m.event !== 'start')).toEqual(fromTwilio.filter((m: any) => m.event !== 'start'))
    const start = atAgent.find((m: any) => m.event === 'start')
    const twilioStart = fromTwilio.find((m: any) => m.event === 'start')
    expect({ ...start.start, customParameters: undefined }).toEqual({ ...twilioStart.start, customParameters: undefined })
    expect(twilioStart.start.customParameters.dialer_stream_token).toBeString()
    expect(start.start.customParameters.dialer_stream_token).toBeUndefined()
    // Back: every frame the agent sent before Twilio's stop arrived as sent, in order.
    expect(stream.received.length).toBeGreaterThan(stream.sentPayloads.length - 10)
    expect(stream.received).toEqual(agentCall!.sent.slice(0, stream.received.length))
    expect(stream.errors).toEqual([])
  })

  test('an agent that greets and decides: its media and mark reach Twilio as sent, the mark comes back, then the service\u2019s own end mark', async () => {
    const campaignId = await seat.aiCampaign({ behaviour: 'end', outcome: 'not_interested', after_ms: '2500', transcript: 'off' }, { disclosure: 'Automated assistant.' })
    const lead = ny('00', 32)
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, (c) => c.status === 'ended' && c.outcome !== null)
    expect(call.outcome).toBe('not_interested')
    const stream = seat.emulatorStream(seat.twilioCall(lead).sid)
    await stream.done
    expect(stream.closedBy).toBe('server')
    const agentCall = seat.agent.call(call.id)!
    const forwarded = agentCall.sent.filter((s) => ['media', 'mark', 'clear'].includes(parsed(s).event))
    expect(forwarded).toHaveLength(51)
    expect(stream.received.slice(0, forwarded.length)).toEqual(forwarded)
    // The control message never reached Twilio; after the agent's frames only the service's end mark.
    expect(stream.received.slice(forwarded.length).map((s) => parsed(s).event)).toEqual(['mark'])
    expect(stream.received.join('\n')).not.toContain('dialer.end')
    // Twilio echoed the agent's mark once its greeting had played, and the agent got it.
    expect(agentCall.marks).toEqual(['greeting'])
    expect(stream.marks.slice(0, 1)).toEqual(['greeting'])
    expect(stream.playedBytes).toBe(50 * 160)
  })
})
