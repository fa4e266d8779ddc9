import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { AiUsage } from '../../src/telephony/call-values'
import { readAgentFrame } from '../../src/telephony/media-stream/agent-frames'
import type { RealtimeSeatAgent, SeatTicket } from '../../src/telephony/media-stream/contract'
import { createSeatRelay } from '../../src/telephony/media-stream/relay'
import { END_MARK } from '../../src/telephony/media-stream/seat-session'
import { MAX_FUNCTION_CALLS } from '../../src/telephony/realtime/function-calls'
import { cutTranscript, PACE_AHEAD_MS } from '../../src/telephony/realtime/playback'
import { GOODBYE_WAIT_MS, openRealtimeAgent, type RealtimeWire } from '../../src/telephony/realtime/realtime-agent'
import { carrierMedia, connected, FakeCarrier, FakeHost, ManualTimers, mark, startFrame, stop, STREAM_SID } from './seat-relay-kit'

setDefaultTimeout(60_000)

const KEY = 'sk-test-secret-key-123'
const AGENT: RealtimeSeatAgent = {
  kind: 'openai_realtime', baseUrl: 'wss://api.openai.com/v1/realtime', model: 'gpt-realtime', voice: 'marin',
  instructions: 'You call Ada for Spring.', apiKey: KEY, firstAudioMs: 4000,
}

/** The Realtime socket as the agent sees it: what it sent, and the server's events on demand. */
class FakeWire implements RealtimeWire {
  sent: Record<string, any>[] = []
  closedWith: number | null = null
  onopen: RealtimeWire['onopen'] = null
  onmessage: RealtimeWire['onmessage'] = null
  onclose: RealtimeWire['onclose'] = null
  onerror: RealtimeWire['onerror'] = null
  constructor(readonly url: string, readonly headers: Record<string, string>) {}
  send(data: string) {
    this.sent.push(JSON.parse(data))
  }
  close(code = 1000) {
    this.closedWith ??= code
  }
  event(e: Record<string, unknown>) {
    this.onmessage?.({ data: JSON.stringify(e) })
  }
  of(type: string) {
    return this.sent.filter((e) => e.type === type)
  }
}

const tick = () => new Promise((r) => setTimeout(r, 0))
const audio = (ms: number) => Buffer.alloc(ms * 8, 0x55).toString('base64')

function world(agent = AGENT) {
  const timers = new ManualTimers()
  const usage: AiUsage[] = []
  const logs: string[] = []
  let wire!: FakeWire
  const socket = openRealtimeAgent(agent, { usage: (u) => usage.push(u) }, {
    timers, log: (m) => logs.push(m),
    connect: (url, headers) => (wire = new FakeWire(url, headers)),
  })
  const out: any[] = []
  const events: string[] = []
  socket.onopen = () => events.push('open')
  socket.onclose = () => events.push('close')
  socket.onmessage = (e) => out.push(JSON.parse(e.data as string))
  const openAndStart = async () => {
    wire.onopen?.({})
    await tick()
    socket.send(connected)
    socket.send(startFrame(null))
  }
  const say = (itemId: string, ms: number, transcript?: string) => {
    wire.event({ type: 'response.output_audio.delta', response_id: 'r', item_id: itemId, output_index: 0, content_index: 0, delta: audio(ms) })
    if (transcript !== undefined) {
      wire.event({ type: 'response.output_audio.done', item_id: itemId })
      wire.event({ type: 'response.output_audio_transcript.done', item_id: itemId, transcript })
    }
  }
  const marksSent = () => out.filter((f) => f.event === 'mark').map((f) => f.mark.name as string)
  const echoMarks = (names = marksSent()) => names.forEach((n) => socket.send(mark(n)))
  const lines = () => out.filter((f) => f.event === 'dialer.transcript').map((f) => `${f.speaker}: ${f.text}`)
  return { timers, usage, logs, socket, out, events, get wire() { return wire }, openAndStart, say, marksSent, echoMarks, lines }
}

describe('session', () => {
  test('connects to the endpoint with the model and the Bearer key, sets the GA session on open, then tells the relay it is open', async () => {
    const w = world()
    expect(w.wire.url).toBe('wss://api.openai.com/v1/realtime?model=gpt-realtime')
    expect(w.wire.headers).toEqual({ Authorization: `Bearer ${KEY}` })
    expect(w.events).toEqual([])
    w.wire.onopen?.({})
    await tick()
    expect(w.events).toEqual(['open'])
    const [update] = w.wire.sent
    expect(update!.type).toBe('session.update')
    const s = update!.session
    expect(s.type).toBe('realtime')
    expect(s.instructions).toBe(AGENT.instructions)
    expect(s.audio.input.format).toEqual({ type: 'audio/pcmu' })
    expect(s.audio.output.format).toEqual({ type: 'audio/pcmu' })
    expect(s.audio.output.voice).toBe('marin')
    expect(s.audio.input.turn_detection.type).toBe('server_vad')
    expect(typeof s.audio.input.transcription.model).toBe('string')
    expect(s.tools.map((t: any) => [t.type, t.name])).toEqual([
      ['function', 'mark_interested'], ['function', 'book_callback'], ['function', 'opt_out'], ['function', 'end_call'],
    ])
    expect(s.tools[0].parameters.required).toEqual(['excerpt', 'confidence', 'summary'])
  })

  test('a base URL with a query keeps it and gains the model', () => {
    const w = world({ ...AGENT, baseUrl: 'ws://127.0.0.1:9/v1/realtime?x=1', model: 'gpt realtime' })
    expect(w.wire.url).toBe('ws://127.0.0.1:9/v1/realtime?x=1&model=gpt+realtime')
  })

  test('the model greets first once the stream starts (once); the lead audio is appended as it came', async () => {
    const w = world()
    await w.openAndStart()
    w.socket.send(startFrame(null))
    expect(w.wire.of('response.create')).toHaveLength(1)
    w.socket.send(carrierMedia(0, 0x11))
    const appended = w.wire.of('input_audio_buffer.append')
    expect(appended).toEqual([{ type: 'input_audio_buffer.append', audio: Buffer.alloc(160, 0x11).toString('base64') }])
    expect(w.wire.sent.map((e) => e.type)).toEqual(['session.update', 'response.create', 'input_audio_buffer.append'])
  })
})

describe('audio to the lead', () => {
  test('each output delta becomes Media Streams media (with the streamSid) followed by a mark; the relay reads them as media and marks', async () => {
    const w = world()
    await w.openAndStart()
    w.say('item_1', 300)
    expect(w.out.map((f) => f.event)).toEqual(['media', 'mark'])
    expect(w.out[0]).toEqual({ event: 'media', streamSid: STREAM_SID, media: { payload: audio(300) } })
    for (const f of w.out) expect(readAgentFrame(JSON.stringify(f)).kind).toBe(f.event)
  })

  test('audio faster than real time is paced: at most PACE_AHEAD_MS ahead, the rest as it plays', async () => {
    const w = world()
    await w.openAndStart()
    w.say('item_1', 20_000)
    const sentMs = () => w.out.filter((f) => f.event === 'media').reduce((ms, f) => ms + Buffer.from(f.media.payload, 'base64').length / 8, 0)
    expect(sentMs()).toBe(PACE_AHEAD_MS)
    w.timers.advance(5_000)
    expect(sentMs()).toBe(PACE_AHEAD_MS + 5_000)
    w.timers.advance(20_000)
    expect(sentMs()).toBe(20_000)
  })
})

describe('transcripts', () => {
  test("the lead's completed transcription and the AI's line once its audio was heard (marks back)", async () => {
    const w = world()
    await w.openAndStart()
    w.say('item_1', 400, 'Hello Ada, this is Spring.')
    expect(w.lines()).toEqual([])
    w.echoMarks()
    w.wire.event({ type: 'conversation.item.input_audio_transcription.completed', item_id: 'in_1', content_index: 0, transcript: ' Yes, hello. ' })
    expect(w.lines()).toEqual(['ai: Hello Ada, this is Spring.', 'lead: Yes, hello.'])
  })

  test('cutTranscript keeps the heard share at a word boundary', () => {
    expect(cutTranscript('one two three four', 1000, 1000)).toBe('one two three four')
    expect(cutTranscript('one two three four', 500, 1000)).toBe('one two')
    expect(cutTranscript('one two three four', 0, 1000)).toBe('')
    expect(cutTranscript('alpha beta', 200, 1000)).toBe('')
  })
})

describe('barge-in', () => {
  test('speech started while audio is unheard: Twilio clear, truncate at the heard ms, the line cut to match, late audio and marks ignored', async () => {
    const w = world()
    await w.openAndStart()
    // Two chunks of 500 ms; the lead heard the first.
    w.say('item_9', 1000)
    const [first, second] = w.marksSent()
    w.echoMarks([first!])
    w.wire.event({ type: 'response.output_audio_transcript.delta', item_id: 'item_9', delta: 'one two three four' })
    w.wire.event({ type: 'input_audio_buffer.speech_started', audio_start_ms: 1200, item_id: 'in_2' })
    expect(w.out.at(-2)).toEqual({ event: 'clear', streamSid: STREAM_SID })
    expect(w.wire.of('conversation.item.truncate')).toEqual([{ type: 'conversation.item.truncate', item_id: 'item_9', content_index: 0, audio_end_ms: 500 }])
    expect(w.lines()).toEqual(['ai: one two'])
    const before = w.out.length
    w.say('item_9', 200, 'one two three four five')
    w.echoMarks([second!])
    expect(w.out.length).toBe(before)
    expect(w.lines()).toEqual(['ai: one two'])
  })

  test('speech started with nothing unheard changes nothing', async () => {
    const w = world()
    await w.openAndStart()
    w.say('item_1', 100, 'Hi.')
    w.echoMarks()
    w.wire.event({ type: 'input_audio_buffer.speech_started' })
    expect(w.out.some((f) => f.event === 'clear')).toBe(false)
    expect(w.wire.of('conversation.item.truncate')).toEqual([])
  })

  test('the lead hangs up mid-sentence: the line holds what was heard', async () => {
    const w = world()
    await w.openAndStart()
    w.say('item_1', 1000, 'one two three four')
    w.echoMarks([w.marksSent()[0]!])
    w.socket.send(stop)
    expect(w.lines()).toEqual(['ai: one two'])
  })
})

describe('function calls', () => {
  const call = (w: ReturnType<typeof world>, name: string, args: unknown, id = 'call_1') =>
    w.wire.event({ type: 'response.function_call_arguments.done', response_id: 'r1', item_id: `fc_${id}`, output_index: 0, call_id: id, name, arguments: typeof args === 'string' ? args : JSON.stringify(args) })
  const outputs = (w: ReturnType<typeof world>) => w.wire.of('conversation.item.create').map((e) => ({ call_id: e.item.call_id, type: e.item.type, ...JSON.parse(e.item.output) }))
  const controls = (w: ReturnType<typeof world>) => w.out.filter((f) => f.event.startsWith('dialer.') && f.event !== 'dialer.transcript')

  test('mark_interested: output, a response for the goodbye, then the control after the goodbye (audio and line first)', async () => {
    const w = world()
    await w.openAndStart()
    call(w, 'mark_interested', { excerpt: 'yes tell me more', confidence: 0.9, summary: 'Wants a demo' })
    expect(outputs(w)).toEqual([{ call_id: 'call_1', type: 'function_call_output', ok: true, next: expect.any(String) }])
    expect(w.wire.of('response.create')).toHaveLength(1)
    w.wire.event({ type: 'response.done', response: { status: 'completed', output: [] } })
    expect(w.wire.of('response.create')).toHaveLength(2)
    expect(controls(w)).toEqual([])
    w.say('item_bye', 800, 'Great, connecting you now.')
    w.wire.event({ type: 'response.done', response: { status: 'completed', output: [] } })
    const tail = w.out.slice(-3).map((f) => f.event)
    expect(tail).toEqual(['mark', 'dialer.transcript', 'dialer.interested'])
    expect(controls(w)).toEqual([{ event: 'dialer.interested', excerpt: 'yes tell me more', confidence: 0.9, summary: 'Wants a demo' }])
    const read = readAgentFrame(JSON.stringify(controls(w)[0]))
    expect(read.kind).toBe('control')
  })

  test('each tool maps to its control; bad arguments and unknown names get an error output and no control', async () => {
    const w = world()
    await w.openAndStart()
    call(w, 'book_callback', { at: 'tomorrow' }, 'c1')
    call(w, 'end_call', { outcome: 'great' }, 'c2')
    call(w, 'launch', {}, 'c3')
    call(w, 'mark_interested', '{not json', 'c4')
    call(w, 'mark_interested', { excerpt: 'x', confidence: 3, summary: 's' }, 'c5')
    expect(outputs(w).map((o) => [o.call_id, o.ok])).toEqual([['c1', false], ['c2', false], ['c3', false], ['c4', false], ['c5', false]])
    expect(outputs(w)[0]!.error).toContain('RFC 3339')
    call(w, 'book_callback', { at: '2026-12-01T15:00:00-05:00' }, 'c6')
    call(w, 'opt_out', {}, 'c7')
    call(w, 'end_call', { outcome: 'not_interested', note: 'Has a supplier' }, 'c8')
    w.wire.event({ type: 'response.done', response: { status: 'completed' } })
    w.wire.event({ type: 'response.done', response: { status: 'completed' } })
    expect(controls(w)).toEqual([
      { event: 'dialer.callback', at: '2026-12-01T15:00:00-05:00' },
      { event: 'dialer.opt_out' },
      { event: 'dialer.end', outcome: 'not_interested', note: 'Has a supplier' },
    ])
  })

  test(`at most ${MAX_FUNCTION_CALLS} calls are answered; later ones get an error output`, async () => {
    const w = world()
    await w.openAndStart()
    for (let i = 0; i < MAX_FUNCTION_CALLS; i++) call(w, 'book_callback', { at: 'bad' }, `c${i}`)
    call(w, 'opt_out', {}, 'late')
    const last = outputs(w).at(-1)!
    expect(last).toMatchObject({ call_id: 'late', ok: false })
    expect(last.error).toContain('too many')
    w.timers.advance(GOODBYE_WAIT_MS + 1)
    expect(controls(w)).toEqual([])
  })

  test('no goodbye within GOODBYE_WAIT_MS: the decision goes to the seat anyway', async () => {
    const w = world()
    await w.openAndStart()
    call(w, 'opt_out', {})
    w.timers.advance(GOODBYE_WAIT_MS - 1)
    expect(controls(w)).toEqual([])
    w.timers.advance(1)
    expect(controls(w)).toEqual([{ event: 'dialer.opt_out' }])
  })
})

describe('usage and errors', () => {
  test("each response.done's usage goes to the hooks", async () => {
    const w = world()
    await w.openAndStart()
    w.wire.event({
      type: 'response.done',
      response: { status: 'completed', usage: { total_tokens: 180, input_tokens: 120, output_tokens: 60, input_token_details: { text_tokens: 100, audio_tokens: 20, cached_tokens: 64 }, output_token_details: { text_tokens: 10, audio_tokens: 50 } } },
    })
    expect(w.usage).toEqual([{ input_tokens: 120, output_tokens: 60, input_text_tokens: 100, input_audio_tokens: 20, input_cached_tokens: 64, output_text_tokens: 10, output_audio_tokens: 50 }])
  })

  for (const [name, event] of [
    ['an error of type server_error', { type: 'error', error: { type: 'server_error', code: null, message: `boom ${KEY}` } }],
    ['a response that ends failed (rate limit)', { type: 'response.done', response: { status: 'failed', status_details: { type: 'failed', error: { type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' } } } }],
  ] as const) {
    test(`${name} drops the call: the socket closes, the Realtime socket too, the key is not logged`, async () => {
      const w = world()
      await w.openAndStart()
      w.wire.event(event)
      expect(w.events).toEqual(['open', 'close'])
      expect(w.wire.closedWith).toBe(1000)
      w.socket.send(carrierMedia(1))
      expect(w.wire.of('input_audio_buffer.append')).toEqual([])
      expect(w.logs.join('\n')).not.toContain(KEY)
      expect(w.logs.at(-1)).toContain('taken back')
    })
  }

  test('other errors are logged (without the key) and the call goes on', async () => {
    const w = world()
    await w.openAndStart()
    w.wire.event({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_value', message: `Incorrect API key provided: ${KEY}` } })
    expect(w.events).toEqual(['open'])
    expect(w.logs).toHaveLength(1)
    expect(w.logs[0]).not.toContain(KEY)
    w.socket.send(carrierMedia(1))
    expect(w.wire.of('input_audio_buffer.append')).toHaveLength(1)
  })

  test('the Realtime socket closing mid-call drops it; a decision made before still reaches the seat first', async () => {
    const w = world()
    await w.openAndStart()
    w.wire.event({ type: 'response.function_call_arguments.done', call_id: 'c', name: 'opt_out', arguments: '{}' })
    w.wire.onclose?.({ code: 1006 })
    expect(w.out.at(-1)).toEqual({ event: 'dialer.opt_out' })
    expect(w.events).toEqual(['open', 'close'])
  })

  test('a refused key (the socket fails before it opens) closes the agent without opening it', async () => {
    const w = world()
    w.wire.onerror?.({})
    w.wire.onclose?.({ code: 1006 })
    await tick()
    expect(w.events).toEqual(['close'])
    expect(w.logs.join('\n')).not.toContain(KEY)
  })

  test("the relay's close closes the Realtime socket; nothing is sent after", async () => {
    const w = world()
    await w.openAndStart()
    w.socket.close(1000)
    expect(w.wire.closedWith).toBe(1000)
    w.wire.event({ type: 'response.output_audio.delta', item_id: 'x', delta: audio(100) })
    expect(w.out).toEqual([])
  })
})

describe('behind the relay', () => {
  class RealtimeHost extends FakeHost {
    seen: AiUsage[] = []
    usage(_callId: string, u: AiUsage) {
      this.seen.push(u)
    }
    override admit(stream: { token: string; callSid: string; streamSid: string }): SeatTicket | null {
      const ticket = super.admit(stream)
      return ticket && { ...ticket, agent: AGENT }
    }
  }

  test('the relay seats the built-in agent: greeting audio reaches the carrier, the decision is applied after the goodbye, usage reaches the host', async () => {
    const host = new RealtimeHost()
    const timers = new ManualTimers()
    let wire!: FakeWire
    const relay = createSeatRelay({
      host, timers,
      connectAgent: (agent, hooks) => {
        if (agent.kind !== 'openai_realtime') throw new Error('expected the built-in agent')
        return openRealtimeAgent(agent, hooks, { timers, log: () => {}, connect: (url, headers) => (wire = new FakeWire(url, headers)) })
      },
    })
    const carrier = new FakeCarrier()
    const session = relay.open(carrier)
    session.message(connected)
    session.message(startFrame('good-call_1'))
    wire.onopen?.({})
    await tick()
    expect(wire.of('response.create')).toHaveLength(1)
    wire.event({ type: 'response.output_audio.delta', item_id: 'i1', delta: audio(200) })
    expect(JSON.parse(carrier.sent[0]!)).toMatchObject({ event: 'media', streamSid: STREAM_SID })
    expect(host.of('firstAudio')).toHaveLength(1)
    session.message(carrierMedia(0))
    expect(wire.of('input_audio_buffer.append')).toHaveLength(1)
    wire.event({ type: 'response.function_call_arguments.done', call_id: 'c1', name: 'end_call', arguments: '{"outcome":"not_interested"}' })
    wire.event({ type: 'response.done', response: { status: 'completed', usage: { input_tokens: 5, output_tokens: 7 } } })
    wire.event({ type: 'response.done', response: { status: 'completed' } })
    expect(host.of('control').map(([, c]) => c)).toContainEqual({ event: 'dialer.end', outcome: 'not_interested', note: null })
    expect(host.seen.map((u) => u.output_tokens)).toEqual([7])
    expect(carrier.sent.map((f) => JSON.parse(f)).at(-1)).toMatchObject({ event: 'mark', mark: { name: END_MARK } })
    expect(host.of('failed')).toEqual([])
  })
  test('frames pass between the relay and the built-in agent as values, each the same as the text path reads (media, mark, clear), and the lead audio arrives once', async () => {
    const w = world()
    const handed: any[] = []
    ;(w.socket as any).onframe = (frame: any) => handed.push(frame)
    await w.openAndStart()
    w.say('item_1', 900, 'Hello there, this is Spring calling about the form you sent us today.')
    w.say('item_2', 40)
    w.socket.send(mark(JSON.parse(handed[1].raw).mark.name))
    w.wire.event({ type: 'input_audio_buffer.speech_started' })
    expect(handed.map((f) => f.kind)).toEqual(['media', 'mark', 'media', 'mark', 'media', 'mark', 'clear'])
    for (const frame of handed) expect(frame).toEqual(readAgentFrame(frame.raw))
    // Text still reaches onmessage for what the relay must validate (transcript lines, decisions).
    expect(w.out.map((f) => f.event)).toEqual(['dialer.transcript'])
    const socket = w.socket as any
    socket.receive({ kind: 'media', raw: '', payload: Buffer.alloc(160, 0x22).toString('base64') })
    socket.receive({ kind: 'media', raw: '', payload: '' })
    expect(w.wire.of('input_audio_buffer.append').map((e) => e.audio)).toEqual([Buffer.alloc(160, 0x22).toString('base64')])
  })
})
