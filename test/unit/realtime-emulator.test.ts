import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { RealtimeEmulator } from '../emulators/openai-realtime/emulator'
import { loudness, unmulaw } from '../emulators/openai-realtime/realtime-audio'
import { leadFrame } from '../emulators/twilio/emulator-stream-audio'

setDefaultTimeout(60_000)

const KEY = 'sk-test-emulator-key'
let rt: RealtimeEmulator

beforeAll(async () => { rt = await RealtimeEmulator.start({ apiKey: KEY, scripts: { paced_talk: { turns: [{ say: 'A long paced talk.', audioMs: 3000 }] } } }) })
afterAll(async () => { await rt.stop() })

/** A client socket keeping every server event; `next(type)` waits for the next unseen one of that type. */
async function client(options: { key?: string | null; model?: string } = {}) {
  const headers: Record<string, string> = options.key === null ? {} : { Authorization: `Bearer ${options.key ?? KEY}` }
  const ws = new WebSocket(`${rt.url}?model=${options.model ?? 'gpt-realtime'}`, { headers } as unknown as string[])
  const events: any[] = []
  const seen = new Set<any>()
  let closed: { code: number; reason: string } | null = null
  ws.onmessage = (m) => events.push(JSON.parse(String(m.data)))
  ws.onclose = (c) => { closed = { code: c.code, reason: c.reason } }
  await new Promise<void>((resolve, reject) => { ws.onopen = () => resolve(); ws.onerror = () => reject(new Error('no connect')) })
  const self = {
    ws, events,
    get closed() { return closed },
    send: (event: Record<string, unknown>) => ws.send(JSON.stringify(event)),
    async next(type: string): Promise<any> {
      return rt.waitFor(() => {
        const e = events.find((x) => x.type === type && !seen.has(x))
        if (e) seen.add(e)
        return e
      }, 5000)
    },
    of: (type: string) => events.filter((e) => e.type === type),
    /** Twilio-like 20 ms frames: quiet noise, or the emulated lead's speech. */
    frames(from: number, count: number, speaking: boolean) {
      for (let i = from; i < from + count; i++) self.send({ type: 'input_audio_buffer.append', audio: leadFrame(i, speaking) })
    },
  }
  return self
}

const SESSION = (instructions: string, more: Record<string, unknown> = {}) => ({
  type: 'session.update',
  session: {
    type: 'realtime', instructions, output_modalities: ['audio'],
    audio: {
      input: { format: { type: 'audio/pcmu' }, transcription: { model: 'gpt-4o-transcribe' }, turn_detection: { type: 'server_vad', silence_duration_ms: 500 } },
      output: { format: { type: 'audio/pcmu' }, voice: 'marin' },
    },
    tools: [{ type: 'function', name: 'mark_interested', description: 'x', parameters: { type: 'object', properties: {} } }],
    ...more,
  },
})

const bytesOf = (deltas: any[]) => deltas.reduce((n, d) => n + Buffer.from(d.delta, 'base64').length, 0)

describe('the Realtime emulator', () => {
  test('a wrong or missing key gets an invalid_api_key error and close 3000; no model is 400; another path 404', async () => {
    for (const key of ['sk-wrong', null]) {
      const c = await client({ key })
      const error = await c.next('error')
      expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' })
      await rt.waitFor(() => c.closed)
      expect(c.closed!.code).toBe(3000)
      expect(c.of('session.created')).toHaveLength(0)
      expect(rt.latest.authorized).toBe(false)
    }
    const http = rt.url.replace('ws://', 'http://')
    expect((await fetch(http)).status).toBe(400)
    expect((await fetch(http.replace('/v1/realtime', '/v1/other') + '?model=x')).status).toBe(404)
  })

  test('session.update merges into the session (GA shape required) and answers session.updated', async () => {
    const c = await client()
    const created = await c.next('session.created')
    expect(created.session).toMatchObject({ type: 'realtime', model: 'gpt-realtime', audio: { output: { voice: 'alloy' } } })
    c.send({ type: 'session.update', session: { instructions: 'no type' } })
    expect((await c.next('error')).error).toMatchObject({ code: 'missing_required_parameter', param: 'session.type' })
    // The beta interface's flat fields are refused by the GA server.
    c.send({ type: 'session.update', session: { type: 'realtime', input_audio_format: 'g711_ulaw' } })
    expect((await c.next('error')).error).toMatchObject({ code: 'unknown_parameter', param: 'session.input_audio_format' })
    c.send({ type: 'session.update', session: { type: 'realtime', audio: { output: { format: { type: 'g711_ulaw' } } } } })
    expect((await c.next('error')).error.param).toBe('session.audio.output.format.type')
    c.send({ type: 'session.update', session: { type: 'realtime', tools: [{ type: 'function' }] } })
    expect((await c.next('error')).error.param).toBe('session.tools[0]')
    c.send(SESSION('Hello [script:interested]'))
    const updated = await c.next('session.updated')
    expect(updated.session.audio.input.format.type).toBe('audio/pcmu')
    expect(updated.session.audio.output).toMatchObject({ voice: 'marin', format: { type: 'audio/pcmu' }, speed: 1 })
    expect(updated.session.audio.input.turn_detection).toMatchObject({ type: 'server_vad', silence_duration_ms: 500, create_response: true })
    expect(updated.session.tools).toHaveLength(1)
    expect(rt.latest.scriptName).toBe('interested')
    expect(rt.latest.problems).toHaveLength(4)
  })

  test('a scripted call: greeting audio with its transcript, VAD on the lead audio, a function call, its output, goodbye, usage', async () => {
    const c = await client()
    c.send(SESSION('Be nice. [script:interested]'))
    await c.next('session.updated')
    c.send({ type: 'response.create' })
    const greeting = (await c.next('response.done')).response
    expect(greeting.status).toBe('completed')
    const deltas = c.of('response.output_audio.delta')
    const text = 'Hi, this is Ava calling from Acme Solar. Is now a good time for a quick question?'
    // 15 characters a second, 8 bytes a ms, in 100 ms deltas of μ-law tone (loud enough to be heard).
    expect(bytesOf(deltas)).toBe(Math.round((text.length / 15) * 1000) * 8)
    expect(deltas.every((d) => d.item_id === greeting.output[0].id && d.response_id === greeting.id && d.content_index === 0)).toBe(true)
    expect(loudness(Buffer.from(deltas[0].delta, 'base64'))).toBeGreaterThan(2000)
    expect(c.of('response.output_audio_transcript.delta').map((d) => d.delta).join('')).toBe(text)
    expect((await c.next('response.output_audio_transcript.done')).transcript).toBe(text)
    expect(greeting.output[0]).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_audio', transcript: text }] })
    const usage = greeting.usage
    expect(usage.input_tokens).toBe(usage.input_token_details.text_tokens + usage.input_token_details.audio_tokens)
    expect(usage.output_tokens).toBe(usage.output_token_details.text_tokens + usage.output_token_details.audio_tokens)
    expect(usage.total_tokens).toBe(usage.input_tokens + usage.output_tokens)
    expect(usage.output_token_details.audio_tokens).toBe(Math.round(bytesOf(deltas) / 8 / 50))

    // 1 s of noise, 1 s of the lead's speech, 0.6 s of noise: speech from 1000 ms (less 300 ms padding) to 2000 ms.
    c.frames(0, 50, false)
    c.frames(50, 50, true)
    c.frames(100, 30, false)
    const started = await c.next('input_audio_buffer.speech_started')
    expect(started.audio_start_ms).toBe(700)
    const stopped = await c.next('input_audio_buffer.speech_stopped')
    expect(stopped).toMatchObject({ audio_end_ms: 2000, item_id: started.item_id })
    const heard = await c.next('conversation.item.input_audio_transcription.completed')
    expect(heard).toMatchObject({ item_id: started.item_id, content_index: 0, transcript: 'Yes, I would love to hear about solar panels for my house.' })
    const args = await c.next('response.function_call_arguments.done')
    expect(args.name).toBe('mark_interested')
    expect(JSON.parse(args.arguments)).toMatchObject({ confidence: 0.92 })
    expect((await c.next('response.done')).response.output[0]).toMatchObject({ type: 'function_call', call_id: args.call_id, name: 'mark_interested' })

    c.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: 'call_nope', output: '{}' } })
    expect((await c.next('error')).error.param).toBe('item.call_id')
    c.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: args.call_id, output: '{"ok":true}' } })
    const added = await rt.waitFor(() => c.of('conversation.item.added').find((e) => e.item.type === 'function_call_output'))
    expect(added.item).toMatchObject({ call_id: args.call_id, output: '{"ok":true}' })
    c.send({ type: 'response.create' })
    const goodbye = (await c.next('response.done')).response
    expect(goodbye.output[0].content[0].transcript).toBe('Wonderful, let me connect you with a specialist now.')
    const s = rt.latest
    expect(s.functionOutputs).toEqual([{ call_id: args.call_id, name: 'mark_interested', output: '{"ok":true}' }])
    expect(s.audioMs).toBe(2600)
    expect(s.speech).toEqual([{ item_id: started.item_id, audio_start_ms: 700, audio_end_ms: 2000, transcript: heard.transcript }])
    expect(s.responses.map((r) => r.status)).toEqual(['completed', 'completed', 'completed'])
    expect(goodbye.usage.input_token_details.cached_tokens).toBeGreaterThan(0)
    // A client doing everything right leaves nothing a real server would refuse (the bad call_id aside).
    expect(s.problems).toEqual(["No function call with call_id 'call_nope'."])
  })

  test('truncation is checked against the item and recorded', async () => {
    const c = await client()
    c.send(SESSION('[script:long_talk]'))
    c.send({ type: 'response.create' })
    const done = (await c.next('response.done')).response
    const item = done.output[0].id
    expect(bytesOf(c.of('response.output_audio.delta'))).toBe(12_000 * 8)
    c.send({ type: 'conversation.item.truncate', item_id: 'item_nope', content_index: 0, audio_end_ms: 10 })
    expect((await c.next('error')).error.param).toBe('item_id')
    c.send({ type: 'conversation.item.truncate', item_id: item, content_index: 0, audio_end_ms: 12_001 })
    expect((await c.next('error')).error.param).toBe('audio_end_ms')
    c.send({ type: 'conversation.item.truncate', item_id: item, content_index: 0, audio_end_ms: 2340 })
    expect(await c.next('conversation.item.truncated')).toMatchObject({ item_id: item, content_index: 0, audio_end_ms: 2340 })
    expect(rt.latest.truncations).toEqual([expect.objectContaining({ item_id: item, audio_end_ms: 2340, itemAudioMs: 12_000 })])
  })

  test('speech during a paced response cancels it (turn_detected); one active response at a time', async () => {
    const paced = await RealtimeEmulator.start({ apiKey: KEY, pace: 1, scripts: { paced_talk: { turns: [{ say: 'A long paced talk.', audioMs: 3000 }] } } })
    try {
      const ws = new WebSocket(`${paced.url}?model=paced_talk`, { headers: { Authorization: `Bearer ${KEY}` } } as unknown as string[])
      const events: any[] = []
      ws.onmessage = (m) => events.push(JSON.parse(String(m.data)))
      await new Promise((r) => { ws.onopen = r })
      ws.send(JSON.stringify(SESSION('paced')))
      ws.send(JSON.stringify({ type: 'response.create' }))
      await paced.waitFor(() => events.some((e) => e.type === 'response.output_audio.delta'))
      ws.send(JSON.stringify({ type: 'response.create' }))
      await paced.waitFor(() => events.find((e) => e.type === 'error'))
      expect(events.find((e) => e.type === 'error').error.code).toBe('conversation_already_has_active_response')
      for (let i = 0; i < 5; i++) ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: leadFrame(i, true) }))
      const done = await paced.waitFor(() => events.find((e) => e.type === 'response.done'))
      expect(done.response.status).toBe('cancelled')
      expect(done.response.status_details).toEqual({ type: 'cancelled', reason: 'turn_detected' })
      expect(paced.latest.responses[0]!.audioMs).toBeLessThan(3000)
      ws.close()
    } finally { await paced.stop() }
  })

  test('errors: a rate-limited response fails, a server_error event, a session closed mid-call', async () => {
    const limited = await client()
    limited.send(SESSION('[script:rate_limit]'))
    limited.send({ type: 'response.create' })
    await limited.next('response.done')
    limited.send({ type: 'response.create' })
    const failed = (await limited.next('response.done')).response
    expect(failed.status).toBe('failed')
    expect(failed.status_details).toMatchObject({ type: 'failed', error: { code: 'rate_limit_exceeded' } })
    expect(failed.usage).toBeTruthy()

    const broken = await client()
    broken.send(SESSION('[script:server_error]'))
    broken.send({ type: 'response.create' })
    await broken.next('response.done')
    broken.send({ type: 'response.create' })
    expect((await broken.next('error')).error).toMatchObject({ type: 'server_error' })
    expect(broken.closed).toBeNull()

    const closing = await client()
    closing.send(SESSION('[script:session_closed]'))
    closing.send({ type: 'response.create' })
    await closing.next('response.done')
    closing.send({ type: 'response.create' })
    await rt.waitFor(() => closing.closed)
    expect(closing.closed!.code).toBe(1011)
    expect(rt.latest.closed).toMatchObject({ by: 'server', code: 1011 })
  })

  test('μ-law decoding matches the encoder the emulators share', () => {
    expect(unmulaw(0xff)).toBe(0)
    expect(Math.abs(unmulaw(0x80) - 32124)).toBeLessThan(1)
    expect(loudness(Buffer.from(leadFrame(3, false), 'base64'))).toBeLessThan(100)
    expect(loudness(Buffer.from(leadFrame(3, true), 'base64'))).toBeGreaterThan(1000)
  })
})
