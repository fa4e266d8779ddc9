import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { RealtimeScript } from '../emulators/openai-realtime/realtime-scripts'
import { DISCLOSURE, ORG_NAME, TAKEBACK, until } from './ai-seat-service'
import { readClock } from './daytime-clock'
import { API_KEY, MODEL, realtimeService, VOICE } from './realtime-service'
import { ny } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * The built-in OpenAI Realtime agent on the service as shipped (compiled binary, Twilio emulator,
 * Realtime emulator): the service opens the Realtime socket with the campaign's key, sets the
 * session (μ-law both ways, server VAD, transcription, the prompt rendered for the lead, the
 * voice, four tools), asks the model to greet, relays the audio both ways, and turns the
 * model's function calls into the seat's decisions: interest handed to an SDR with the
 * summary, a callback at the model's instant, an opt-out. The prompt, usage and AI minutes are
 * on the admin call read; the key is never in a reply.
 */
const ADMIN = 'dat_realtime_calls_0123456789abcdef01'
const SID = `AC${'c7'.repeat(16)}`
const TOKEN = 'c'.repeat(32)
/** Scenario 00 answers 6 s after the dial and the lead speaks at 25 s (emulated): 2-3 s real into the stream at 5x. */
const SPEED = 5
const AI = { id: null, name: 'AI assistant', role: 'ai' }
const GREETING = 'Hi, this is Ava from Acme Solar.'
const SUMMARY = 'Homeowner, wants a quote for rooftop solar; call after 5 pm.'
const EXCERPT = 'Can someone walk me through the pricing?'
const LEAD_SAYS = 'Yes, that sounds good. Can someone walk me through the pricing?'
let callbackAt = 0

// Short greetings (1 s of audio) so the lead's line in scenario 00 comes after them, not over them.
const scripts: Record<string, RealtimeScript> = {
  qualify: {
    leadSays: [LEAD_SAYS],
    turns: [
      { say: GREETING, audioMs: 1000 },
      { calls: [{ name: 'mark_interested', arguments: { excerpt: EXCERPT, confidence: 0.93, summary: SUMMARY } }] },
      { say: 'Great, a colleague will take it from here.', audioMs: 800 },
    ],
  },
  later: {
    leadSays: ['Not now, call me back later today.'],
    turns: [
      { say: GREETING, audioMs: 1000 },
      { calls: [{ name: 'book_callback', arguments: () => ({ at: new Date(callbackAt).toISOString() }) }] },
      { say: 'Sure, talk to you later. Goodbye.', audioMs: 800 },
    ],
  },
  remove: {
    leadSays: ['Please take me off your list.'],
    turns: [
      { say: GREETING, audioMs: 1000 },
      { calls: [{ name: 'opt_out', arguments: {} }] },
      { say: 'Understood. Goodbye.', audioMs: 800 },
    ],
  },
}

describe('the built-in Realtime agent decides (compiled binary, Twilio and Realtime emulators)', () => {
  const seat = realtimeService({ prefix: 'dialer-realtime-calls-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 45_000 }, { scripts })
  const { service } = seat

  beforeAll(() => seat.start(), 40_000)
  afterAll(() => seat.close())

  const ended = (c: any) => c.status === 'ended' && c.outcome !== null

  test('qualified: the session as asked for, lead.interested, the SDR takes the handover with the summary; prompt, usage and AI minutes on the call; the key never returned', async () => {
    const campaign = await seat.realtimeCampaign('qualify', { name: 'Rooftop solar' })
    expect(campaign.body.data.ai_agent).toMatchObject({ kind: 'openai_realtime', model: MODEL, voice: VOICE, api_key_set: true })
    expect(JSON.stringify(campaign.body)).not.toContain(API_KEY)
    const lead = ny('00', 91)
    const leadId = await seat.addLead(campaign.id, lead)
    const call = await service.callOf(leadId, (c) => c.handled_by?.role === 'sdr')
    expect(call.handled_by).toMatchObject({ name: 'Ada Accepts', role: 'sdr' })

    // The session: the campaign's key and model, then session.update with what the issue asks for.
    const session = await seat.session(lead)
    expect(session.authorized).toBe(true)
    expect(session.model).toBe(MODEL)
    const rendered = `[script:qualify] You are Ava. You call Jordan Lee (${lead}) about Rooftop solar for ${ORG_NAME}.`
    const update = seat.clientEvents(session, 'session.update')[0]
    expect(session.received[0]!.type).toBe('session.update')
    expect(update.session).toMatchObject({
      type: 'realtime', instructions: rendered,
      audio: { input: { format: { type: 'audio/pcmu' }, turn_detection: { type: 'server_vad' } }, output: { format: { type: 'audio/pcmu' }, voice: VOICE } },
    })
    expect(update.session.audio.input.transcription?.model).toBeTruthy()
    expect(update.session.tools.map((t: any) => [t.type, t.name]).sort()).toEqual([['function', 'book_callback'], ['function', 'end_call'], ['function', 'mark_interested'], ['function', 'opt_out']])
    expect(session.problems).toEqual([])
    // The model greets first (the disclosure played before the stream), and the lead's audio reached it.
    expect(seat.clientEvents(session, 'response.create').length).toBeGreaterThanOrEqual(1)
    expect(session.appendedBytes).toBeGreaterThan(8 * 1000)
    expect(session.speech.length).toBeGreaterThanOrEqual(1)
    // The function call's output went back and the model was asked to respond.
    expect(session.functionOutputs.map((o) => o.name ?? 'mark_interested')).toEqual(['mark_interested'])

    const twilioCall = seat.twilioCall(lead)
    expect(twilioCall.spoken.map((s: any) => s.text)).toContain(DISCLOSURE)
    const stream = seat.emulatorStream(twilioCall.sid)
    expect(stream.receivedPayloads.length).toBeGreaterThan(0)
    expect(stream.firstAudioMs).toBeLessThan(3000)

    const interested = await seat.events(call.id, 'lead.interested')
    expect(interested).toHaveLength(1)
    expect(interested[0].data.object.intent).toMatchObject({ excerpt: EXCERPT, confidence: 0.93 })
    const legs = twilioCall.legs ?? []
    expect(legs.map((l: any) => [l.to, l.key, l.bridged])).toEqual([['+13125550811', '1', true]])
    expect(legs[0].heard.join(' ')).toContain(SUMMARY)

    const done = await service.callOf(leadId, (c) => c.status === 'ended')
    // The transcript: the model's greeting and the lead's line, as the Realtime session transcribed them.
    const lines = await until('the transcript', async () => {
      const got = await seat.transcript(done.id)
      return got.some((l) => l.speaker === 'lead') && got
    })
    expect(lines).toContainEqual(expect.objectContaining({ speaker: 'ai', name: 'AI assistant', text: GREETING }))
    expect(lines).toContainEqual(expect.objectContaining({ speaker: 'lead', name: 'Jordan Lee', text: LEAD_SAYS }))

    // The operator's read: the rendered prompt, the usage summed over the session's responses, AI minutes.
    const admin = await until('the AI minutes', async () => {
      const read = await seat.adminCall(done.id)
      return read.ai_minutes !== null && read
    })
    expect(admin.ai_seated).toBe(true)
    expect(admin.ai_instructions).toBe(rendered)
    expect(admin.ai_minutes).toBeGreaterThanOrEqual(1)
    const usages = seat.serverEvents(session, 'response.done').map((e) => e.response.usage).filter(Boolean)
    expect(usages.length).toBeGreaterThanOrEqual(2)
    const sum = (pick: (u: any) => number) => usages.reduce((n, u) => n + pick(u), 0)
    expect(admin.ai_usage).toMatchObject({
      input_tokens: sum((u) => u.input_tokens),
      output_tokens: sum((u) => u.output_tokens),
      output_audio_tokens: sum((u) => u.output_token_details.audio_tokens),
    })
    // Never in events, the call's reads or the campaign's.
    const events = await service.api('GET', `/events?object_id=${done.id}&limit=100`)
    expect(events.text).not.toContain(rendered)
    const campaignRead = await service.admin('GET', `/campaigns/${campaign.id}`)
    for (const text of [events.text, campaignRead.text, JSON.stringify(admin), JSON.stringify(await service.api('GET', `/calls/${done.id}`))]) {
      expect(text).not.toContain(API_KEY)
    }
  })

  test('callback: callback.booked at the model\u2019s instant, outcome callback, handled by the AI', async () => {
    const at = new Date((await readClock(service.base, ADMIN)) + 50 * 60_000)
    at.setUTCSeconds(0, 0)
    callbackAt = at.getTime()
    const campaign = await seat.realtimeCampaign('later')
    const lead = ny('00', 92)
    const leadId = await seat.addLead(campaign.id, lead)
    const call = await service.callOf(leadId, ended)
    expect(call.outcome).toBe('callback')
    expect(call.handled_by).toEqual(AI)
    expect(Date.parse(call.callback_at)).toBe(callbackAt)
    const booked = await seat.events(leadId, 'callback.booked')
    expect(booked).toHaveLength(1)
    const session = await seat.session(lead)
    expect(session.functionOutputs).toHaveLength(1)
    expect(seat.twilioCall(lead).spoken.map((s: any) => s.text)).not.toContain(TAKEBACK)
  })

  test('opt-out: lead.opted_out source ai, outcome dnc, the number on the Do Not Call list', async () => {
    const campaign = await seat.realtimeCampaign('remove')
    const lead = ny('00', 93)
    const leadId = await seat.addLead(campaign.id, lead)
    const call = await service.callOf(leadId, ended)
    expect(call.outcome).toBe('dnc')
    expect(call.handled_by).toEqual(AI)
    const optedOut = await seat.events(leadId, 'lead.opted_out')
    expect(optedOut.map((e) => e.data.object.opt_out.source)).toEqual(['ai'])
    const check = await service.api('GET', `/dnc/check?phone=${encodeURIComponent(lead)}`)
    expect(check.body.data.onDncList).toBe(true)
    // The seat is over: the service closed OpenAI's socket (no session left running up a bill).
    const session = await seat.session(lead)
    await until('the Realtime socket closed', () => session.closed)
    expect(session.closed?.by).toBe('client')
  })

  test('the lead presses 9 while the model talks: opted out (source ai) as on every seat; the Realtime session is closed', async () => {
    const campaign = await seat.realtimeCampaign('qualify')
    const lead = ny('00', 94)
    service.emulator.script(lead, { streamDigits: [[1, '9']] })
    const leadId = await seat.addLead(campaign.id, lead)
    const call = await service.callOf(leadId, ended)
    expect(call.outcome).toBe('dnc')
    const optedOut = await seat.events(leadId, 'lead.opted_out')
    expect(optedOut.map((e) => e.data.object.opt_out.source)).toEqual(['ai'])
    expect(await seat.events(call.id, 'lead.interested')).toEqual([])
    const session = await seat.session(lead)
    await until('the Realtime socket closed', () => session.closed)
    expect(session.closed?.by).toBe('client')
    expect(session.functionOutputs).toEqual([])
  })
})
