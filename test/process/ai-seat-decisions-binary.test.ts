import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { DEFAULT_EXCERPT, DEFAULT_SUMMARY, GREETING_TEXT, TRANSCRIPT_LINES } from '../../scripts/reference-agent'
import { aiSeatService, DISCLOSURE, OPT_OUT_CONFIRMATION, TAKEBACK, until } from './ai-seat-service'
import { DETECTION } from '../emulators/twilio/emulator-scenarios'
import { readClock } from './daytime-clock'
import { ny } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * The AI seat's decisions on the service as shipped: a person who answers an AI-seated
 * campaign's call hears the disclosure, then the campaign's agent (the reference agent) through
 * the service's own stream, and what the agent decides on its socket becomes the spec's events
 * and outcomes: interested (press-1 handover with the summary in the briefing), callback,
 * opt-out, end with a note, transcript lines; the lead's 9 opts out and never reaches the agent.
 */
const ADMIN = 'dat_ai_seat_decisions_0123456789abcdef'
const SID = `AC${'a9'.repeat(16)}`
const TOKEN = 'a'.repeat(32)
/** Emulated seconds per real second: scenario 00 answers 0.6 s after the dial and stays 9.5 s. */
const SPEED = 10
const AI = { id: null, name: 'AI assistant', role: 'ai' }

describe('the AI seat decides (compiled binary, Twilio emulator, reference agent)', () => {
  const seat = aiSeatService({ prefix: 'dialer-ai-decisions-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 40_000 })
  const { service } = seat

  beforeAll(() => seat.start(), 40_000)
  afterAll(() => seat.close())

  const ended = (c: any) => c.status === 'ended' && c.outcome !== null

  test('interested: lead.interested, the stream ends, press 1 hands over with the summary in the briefing, tth from intent', async () => {
    const campaignId = await seat.aiCampaign({ behaviour: 'interested', after_ms: '1500' })
    const lead = ny('00', 81)
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, (c) => c.handled_by?.role === 'sdr')
    expect(call.handled_by).toMatchObject({ name: 'Ada Accepts', role: 'sdr' })

    // The disclosure came first, as soon as detection said a person answered (each real ms the service takes counts 10 here), then the stream.
    const twilioCall = seat.twilioCall(lead)
    expect(twilioCall.heard?.kind).toBe('message')
    expect(twilioCall.heard.at - twilioCall.answeredAt).toBeLessThanOrEqual(DETECTION.human! + 2)
    expect(twilioCall.spoken.map((s: any) => s.text)).toContain(DISCLOSURE)
    const stream = seat.streamTwiml(twilioCall.sid)
    expect(stream?.url).toBe(seat.streamUrl())

    // The agent got Twilio's start with the campaign's and the service's parameters, never the token.
    const agentCall = await until('the agent call', () => seat.agent.call(call.id))
    expect(agentCall.callSid).toBe(twilioCall.sid)
    expect(agentCall.streamSid).toMatch(/^MZ/)
    expect(agentCall.parameters).toMatchObject({ behaviour: 'interested', dialer_call_id: call.id, dialer_lead_id: leadId, lead_name: 'Jordan Lee' })
    expect(typeof agentCall.parameters.campaign_name).toBe('string')
    expect(Object.keys(agentCall.parameters)).not.toContain('dialer_stream_token')
    const start = agentCall.received.find((m: any) => m?.event === 'start') as any
    expect(start.start.mediaFormat).toEqual({ encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 })
    expect((agentCall.received[0] as any).event).toBe('connected')

    const interested = await seat.events(call.id, 'lead.interested')
    expect(interested).toHaveLength(1)
    const intent = interested[0].data.object.intent
    expect(intent).toMatchObject({ excerpt: DEFAULT_EXCERPT, confidence: 0.9 })
    expect(intent.offered_to.map((p: any) => p.name)).toContain('Ada Accepts')
    const accepted = await until('handover.accepted', async () => (await seat.events(call.id, 'handover.accepted'))[0])
    const tth = accepted.data.object.tth_seconds
    expect(tth).toBeGreaterThanOrEqual(0)
    expect(Math.abs(tth - (Date.parse(accepted.created) - Date.parse(intent.at)) / 1000)).toBeLessThanOrEqual(2)

    // The person heard the briefing with the agent's summary before pressing 1.
    const legs = twilioCall.legs ?? []
    expect(legs.map((l: any) => [l.to, l.key, l.bridged])).toEqual([['+13125550811', '1', true]])
    expect(legs[0].heard.join(' ')).toContain(DEFAULT_SUMMARY)

    const done = await service.callOf(leadId, (c) => c.status === 'ended')
    const admin = await seat.adminCall(done.id)
    expect(admin.ai_seated).toBe(true)
    expect(admin.ai_first_audio_ms).toBeGreaterThanOrEqual(0)
    expect(admin.ai_first_audio_ms).toBeLessThan(1000)
  })

  test('callback: callback.booked at the asked instant, outcome callback, handled by the AI, the call ends', async () => {
    const at = new Date((await readClock(service.base, ADMIN)) + 40 * 60_000)
    at.setUTCSeconds(0, 0)
    const campaignId = await seat.aiCampaign({ behaviour: 'callback', callback_at: at.toISOString(), after_ms: '800' })
    const lead = ny('00', 82)
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, ended)
    expect(call.outcome).toBe('callback')
    expect(call.handled_by).toEqual(AI)
    // The agent's instant (40 minutes on, inside the day's calling hours), not a takeback's 2 hours.
    expect(Date.parse(call.callback_at)).toBe(at.getTime())
    const booked = await seat.events(leadId, 'callback.booked')
    expect(booked).toHaveLength(1)
    expect(Date.parse(booked[0].data.object.callback.at)).toBe(Date.parse(call.callback_at))
    expect(await seat.events(call.id, 'call.completed')).toHaveLength(1)
    // The lead's phone was hung up by the service, not left on the line to its scenario's end (95 s).
    const twilioCall = seat.twilioCall(lead)
    await until('the Twilio call to end', () => twilioCall.status === 'completed')
    expect(twilioCall.endedAt).toBeLessThan(60)
    expect(twilioCall.spoken.map((x: any) => x.text)).not.toContain(TAKEBACK)
  })

  test('opt_out: the number on the Do Not Call list, lead.opted_out source ai, outcome dnc, the confirmation said', async () => {
    const campaignId = await seat.aiCampaign({ behaviour: 'opt_out', after_ms: '800' })
    const lead = ny('00', 83)
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, ended)
    expect(call.outcome).toBe('dnc')
    expect(call.handled_by).toEqual(AI)
    const optedOut = await seat.events(leadId, 'lead.opted_out')
    expect(optedOut).toHaveLength(1)
    expect(optedOut[0].data.object.opt_out.source).toBe('ai')
    const check = await service.api('GET', `/dnc/check?phone=${encodeURIComponent(lead)}`)
    expect(check.body.data.onDncList).toBe(true)
    await until('the confirmation', () => seat.twilioCall(lead).spoken?.some((s: any) => s.text === OPT_OUT_CONFIRMATION))
  })

  test('end: the outcome and the AI\u2019s note, handled_by the AI, call.completed; the agent\u2019s transcript lines in order', async () => {
    const campaignId = await seat.aiCampaign({ behaviour: 'transcript', outcome: 'not_qualified', note: 'Rents the house; the owner decides.', after_ms: '1000' })
    const lead = ny('00', 84)
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, ended)
    expect(call.outcome).toBe('not_qualified')
    expect(call.note).toBe('Rents the house; the owner decides.')
    expect(call.handled_by).toEqual(AI)
    const completed = await until('call.completed', async () => (await seat.events(call.id, 'call.completed'))[0])
    expect(completed.data.object.outcome).toBe('not_qualified')
    // The agent's lines win over Twilio's transcription of the seat.
    const lines = await until('the transcript', async () => {
      const got = await seat.transcript(call.id)
      return got.length > 0 && got
    })
    expect(lines.map((l) => [l.speaker, l.name, l.text])).toEqual([
      ['ai', 'AI assistant', GREETING_TEXT],
      ...TRANSCRIPT_LINES.map((l) => [l.speaker, l.speaker === 'ai' ? 'AI assistant' : 'Jordan Lee', l.text]),
    ])
  })

  test('the lead hangs up with no decision: hung_up, handled by the AI; with no agent lines Twilio\u2019s transcription is kept', async () => {
    const campaignId = await seat.aiCampaign({ behaviour: 'end', after_ms: '30000', transcript: 'off' })
    // Scenario 01 says "No thanks, I am not interested." 5 s after answering and hangs up at 45 s.
    const lead = ny('01', 85)
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, ended)
    expect(call.outcome).toBe('hung_up')
    expect(call.handled_by).toEqual(AI)
    const lines = await until('the transcript', async () => {
      const got = await seat.transcript(call.id)
      return got.length > 0 && got
    })
    expect(lines.some((l) => l.speaker === 'lead' && l.text === 'No thanks, I am not interested.')).toBe(true)
    expect((await seat.adminCall(call.id)).ai_seated).toBe(true)
  })

  test('the lead presses 9 during the seat: opted out (source ai), the agent never hears the 9; other digits reach it', async () => {
    const campaignId = await seat.aiCampaign({ behaviour: 'end', after_ms: '30000' })
    const lead = ny('00', 86)
    service.emulator.script(lead, { streamDigits: [[1, '3'], [3, '9']] })
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, ended)
    expect(call.outcome).toBe('dnc')
    const optedOut = await seat.events(leadId, 'lead.opted_out')
    expect(optedOut.map((e) => e.data.object.opt_out.source)).toEqual(['ai'])
    const agentCall = seat.agent.call(call.id)!
    expect(agentCall.digits).toEqual(['3'])
    const twilioCall = seat.twilioCall(lead)
    await until('the confirmation', () => twilioCall.spoken?.some((s: any) => s.text === OPT_OUT_CONFIRMATION))
    // The agent answered the 3 with a clear; the service cleared Twilio's buffer at the 9.
    expect(agentCall.sent.filter((s) => s.includes('"clear"'))).toHaveLength(1)
    expect(seat.emulatorStream(twilioCall.sid).clears).toBeGreaterThanOrEqual(2)
  })
})
