import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { AiUsage } from '../../src/telephony/call-values'
import type { RealtimeSeatAgent } from '../../src/telephony/media-stream/contract'
import type { AgentSocket } from '../../src/telephony/media-stream/seat-session'
import { MAX_FUNCTION_CALLS } from '../../src/telephony/realtime/function-calls'
import { openRealtimeAgent } from '../../src/telephony/realtime/realtime-agent'
import { RealtimeEmulator } from '../emulators/openai-realtime/emulator'
import { connected, startFrame, STREAM_SID } from './seat-relay-kit'

setDefaultTimeout(60_000)

// The built-in agent over a real socket to the Realtime emulator, with this test as Twilio's side.
const KEY = 'sk-emulated-key-0123456789'
let rt: RealtimeEmulator

beforeAll(async () => {
  rt = await RealtimeEmulator.start({ apiKey: KEY })
})
afterAll(async () => {
  await rt.stop()
})

/** μ-law 0x00 is full scale (the lead speaking), 0xff silence; 20 ms frames as Twilio sends them. */
const leadFrame = (loud: boolean) => JSON.stringify({ event: 'media', streamSid: STREAM_SID, media: { track: 'inbound', payload: Buffer.alloc(160, loud ? 0x00 : 0xff).toString('base64') } })

function call(script: string, options: { key?: string; echoMarks?: (name: string, heardMs: number) => boolean } = {}) {
  const agent: RealtimeSeatAgent = {
    kind: 'openai_realtime', baseUrl: rt.url, model: 'gpt-realtime', voice: 'marin',
    instructions: `You call for Acme. [script:${script}]`, apiKey: options.key ?? KEY, firstAudioMs: 4000,
  }
  const usage: AiUsage[] = []
  const logs: string[] = []
  const out: any[] = []
  const events: string[] = []
  const socket: AgentSocket = openRealtimeAgent(agent, { usage: (u) => usage.push(u) }, { log: (m) => logs.push(m) })
  let heardMs = 0
  socket.onopen = () => {
    events.push('open')
    socket.send(connected)
    socket.send(startFrame(null))
  }
  socket.onclose = () => events.push('close')
  socket.onmessage = (e) => {
    const frame = JSON.parse(e.data as string)
    out.push(frame)
    if (frame.event === 'media') heardMs += Buffer.from(frame.media.payload, 'base64').length / 8
    // Twilio echoes a mark once the audio before it has played.
    if (frame.event === 'mark' && (options.echoMarks?.(frame.mark.name, heardMs) ?? true)) {
      socket.send(JSON.stringify({ event: 'mark', streamSid: STREAM_SID, mark: { name: frame.mark.name } }))
    }
  }
  const speak = (ms = 300) => {
    for (let t = 0; t < ms; t += 20) socket.send(leadFrame(true))
    for (let t = 0; t < 700; t += 20) socket.send(leadFrame(false))
  }
  const controls = () => out.filter((f) => f.event.startsWith('dialer.') && f.event !== 'dialer.transcript')
  const lines = () => out.filter((f) => f.event === 'dialer.transcript').map((f) => `${f.speaker}: ${f.text}`)
  return { socket, usage, logs, out, events, speak, controls, lines }
}

const sessionOf = (before: number) => rt.waitFor(() => rt.sessions[before])

describe('against the Realtime emulator', () => {
  test('interested: the session is accepted as sent, the greeting plays, the lead speaks, the call becomes the seat control after the goodbye', async () => {
    const n = rt.sessions.length
    const c = call('interested')
    const session = await sessionOf(n)
    await rt.waitFor(() => c.out.some((f) => f.event === 'media'))
    expect(session.config.audio.input.format?.type).toBe('audio/pcmu')
    expect(session.config.audio.output.format?.type).toBe('audio/pcmu')
    c.speak()
    await rt.waitFor(() => c.controls().length > 0)
    expect(c.controls()).toEqual([{ event: 'dialer.interested', excerpt: 'Yes, I would love to hear about solar panels', confidence: 0.92, summary: 'Homeowner, wants a quote for rooftop solar.' }])
    expect(c.lines()).toEqual([
      'ai: Hi, this is Ava calling from Acme Solar. Is now a good time for a quick question?',
      'lead: Yes, I would love to hear about solar panels for my house.',
      'ai: Wonderful, let me connect you with a specialist now.',
    ])
    // The goodbye's audio went out before the decision.
    const decisionAt = c.out.findIndex((f) => f.event === 'dialer.interested')
    expect(c.out.slice(0, decisionAt).filter((f) => f.event === 'media').length).toBeGreaterThan(0)
    expect(session.functionOutputs.map((o) => JSON.parse(o.output).ok)).toEqual([true])
    expect(c.usage.length).toBe(session.responses.filter((r) => r.status !== 'in_progress').length)
    expect(c.usage.every((u) => u.output_tokens >= 0)).toBe(true)
    expect(session.problems).toEqual([])
    expect(c.events).toEqual(['open'])
    c.socket.close(1000)
  })

  test('barge-in: the truncation the emulator records is what the marks said the lead heard', async () => {
    const n = rt.sessions.length
    // Twilio plays 2 s of the 12 s greeting before the lead talks over it.
    const c = call('long_talk', { echoMarks: (_name, heardMs) => heardMs <= 2000 })
    const session = await sessionOf(n)
    await rt.waitFor(() => c.out.filter((f) => f.event === 'media').length > 30)
    c.speak()
    const truncation = await rt.waitFor(() => session.truncations[0])
    expect(truncation.audio_end_ms).toBe(2000)
    expect(c.out.some((f) => f.event === 'clear')).toBe(true)
    await rt.waitFor(() => c.lines().length >= 2)
    const cut = c.lines()[0]!
    expect(cut.startsWith('ai: Hi, this is Ava')).toBe(true)
    expect(cut.length).toBeLessThan(80)
    expect(session.problems).toEqual([])
    c.socket.close(1000)
  })

  for (const script of ['rate_limit', 'server_error', 'session_closed']) {
    test(`${script} mid-call: the agent socket closes as a drop`, async () => {
      const c = call(script)
      await rt.waitFor(() => c.out.some((f) => f.event === 'media'))
      c.speak()
      await rt.waitFor(() => c.events.includes('close'))
      expect(c.events).toEqual(['open', 'close'])
      expect(c.logs.join('\n')).not.toContain(KEY)
    })
  }

  test('a refused key: the agent closes and the key is never logged', async () => {
    const c = call('default', { key: 'sk-wrong-key-987' })
    await rt.waitFor(() => c.events.includes('close'))
    expect(c.controls()).toEqual([])
    expect(c.logs.join('\n')).not.toContain('sk-wrong-key-987')
  })

  test(`a flood of function calls: ${MAX_FUNCTION_CALLS} answered as bad arguments, the rest refused as too many, no control`, async () => {
    const n = rt.sessions.length
    const c = call('flood')
    const session = await sessionOf(n)
    await rt.waitFor(() => c.out.some((f) => f.event === 'media'))
    c.speak()
    await rt.waitFor(() => session.functionOutputs.length >= 30, 20_000)
    const errors = session.functionOutputs.map((o) => JSON.parse(o.output).error as string)
    expect(errors.slice(0, MAX_FUNCTION_CALLS).every((e) => e === 'arguments are not JSON')).toBe(true)
    expect(errors.slice(MAX_FUNCTION_CALLS).every((e) => e.includes('too many'))).toBe(true)
    expect(c.controls()).toEqual([])
    c.socket.close(1000)
  })
})
