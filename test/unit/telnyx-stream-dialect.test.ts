import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import type { RealtimeSeatAgent, SeatTicket } from '../../src/telephony/media-stream/contract'
import { MAX_AGENT_FRAME_BYTES } from '../../src/telephony/media-stream/contract'
import { createSeatRelay } from '../../src/telephony/media-stream/relay'
import { END_MARK } from '../../src/telephony/media-stream/seat-session'
import { openRealtimeAgent, type RealtimeWire } from '../../src/telephony/realtime/realtime-agent'
import { isPcmu8k, REORDER_MAX_FRAMES, REORDER_MAX_MS, telnyxStreamDialect } from '../../src/telephony/telnyx/stream-frames'
import { agentMedia, CountingMetrics, FakeAgent, FakeCarrier, FakeHost, ManualTimers } from './seat-relay-kit'

setDefaultTimeout(60_000)

// Telnyx's frames as its reference shows them (research §5; developers.telnyx.com/api-reference/websockets/stream-call-media-over-websocket).
const STREAM_ID = '32DE0DEA-53CB-4B21-89A4-9E1819C043BC'
const CALL_SID = 'v3:T02llQxIyaRkhfRKxgAP8nY511EhFLizdvdUKJiSw8d6A9BborherQ'
const USER_ID = '3E6F995F-85F7-4705-9741-53B116D28237'
const PCMU = { encoding: 'PCMU', sample_rate: 8000, channels: 1 }
const tConnected = JSON.stringify({ event: 'connected', version: '1.0.0' })
const tStart = (token: string | null, options: { seq?: number | null; format?: unknown; extra?: Record<string, string> } = {}) => JSON.stringify({
  event: 'start', ...(options.seq === null ? {} : { sequence_number: String(options.seq ?? 1) }), stream_id: STREAM_ID,
  start: {
    user_id: USER_ID, call_control_id: CALL_SID, call_session_id: 'ff55a038-6f5d-11ef-9692-02420aeffb1f', from: '+13122010094', to: '+13122123456',
    custom_parameters: token === null ? options.extra ?? {} : { ...options.extra, dialer_stream_token: token },
    ...(options.format === undefined ? { media_format: PCMU } : options.format === null ? {} : { media_format: options.format }),
  },
})
const payloadOf = (fill: number, bytes = 160) => Buffer.alloc(bytes, fill).toString('base64')
const tMedia = (seq: number, fill = seq % 256, track = 'inbound') => JSON.stringify({
  event: 'media', sequence_number: String(seq), stream_id: STREAM_ID,
  media: { track, chunk: String(seq - 1), timestamp: String((seq - 2) * 20), payload: payloadOf(fill) },
})
const tDtmf = (seq: number, digit: string) => JSON.stringify({ event: 'dtmf', sequence_number: String(seq), stream_id: STREAM_ID, dtmf: { digit } })
const tMark = (seq: number, name: string) => JSON.stringify({ event: 'mark', sequence_number: String(seq), stream_id: STREAM_ID, mark: { name } })
const tStop = (seq: number) => JSON.stringify({ event: 'stop', sequence_number: String(seq), stream_id: STREAM_ID, stop: { user_id: USER_ID, call_control_id: CALL_SID } })

function world() {
  const host = new FakeHost()
  const metrics = new CountingMetrics()
  const timers = new ManualTimers()
  const agents: FakeAgent[] = []
  const relay = createSeatRelay({
    host, metrics, timers, dialect: telnyxStreamDialect,
    connectAgent: (seatAgent) => {
      const agent = new FakeAgent(seatAgent.kind === 'stream' ? seatAgent.url : seatAgent.baseUrl)
      agents.push(agent)
      return agent
    },
  })
  function seat(callId = 'call_1') {
    const carrier = new FakeCarrier()
    const session = relay.open(carrier)
    session.message(tConnected)
    session.message(tStart(`good-${callId}`, { extra: { from: 'telnyx' } }))
    const agent = agents.at(-1)!
    agent.open()
    return { carrier, session, agent }
  }
  return { host, metrics, timers, agents, relay, seat }
}

const parsed = (frames: string[]) => frames.map((f) => JSON.parse(f))
/** What the agent heard after connected and start: payloads, digits and marks as `m:`, `d:`, `k:`. */
const heard = (agent: FakeAgent) => parsed(agent.sent.slice(2)).map((f) =>
  f.event === 'media' ? `m:${f.media.payload}` : f.event === 'dtmf' ? `d:${f.dtmf.digit}` : f.event === 'mark' ? `k:${f.mark.name}` : f.event)

describe('the agent sees Twilio frames', () => {
  test("Telnyx's connected and start become Twilio's: the token is read from custom_parameters, the call from call_control_id", () => {
    const w = world()
    const { agent, carrier } = w.seat()
    expect(w.host.of('admit')).toEqual([[{ token: 'good-call_1', callSid: CALL_SID, streamSid: STREAM_ID }]])
    expect(agent.sent[0]).toBe('{"event":"connected","protocol":"Call","version":"1.0.0"}')
    expect(JSON.parse(agent.sent[1]!)).toEqual({
      event: 'start', sequenceNumber: '1', streamSid: STREAM_ID,
      start: {
        accountSid: USER_ID, streamSid: STREAM_ID, callSid: CALL_SID, tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        customParameters: { from: 'telnyx', voice: 'alloy', dialer_call_id: 'call_1', dialer_lead_id: 'lead_1', lead_name: 'Ada', campaign_name: 'Spring' },
      },
    })
    expect(agent.sent[1]).not.toContain('dialer_stream_token')
    expect(carrier.closedWith).toBeNull()
    expect(w.relay.size).toBe(1)
  })

  test('media, dtmf, mark and stop reach the agent in Twilio shapes, numbered in the order it gets them', () => {
    const w = world()
    const { session, agent } = w.seat()
    for (const f of [tMedia(2, 7), tDtmf(3, '4'), tMark(4, 'greeting'), tMedia(5, 8), tStop(6)]) session.message(f)
    expect(parsed(agent.sent.slice(2))).toEqual([
      { event: 'media', sequenceNumber: '2', media: { track: 'inbound', chunk: '1', timestamp: '0', payload: payloadOf(7) }, streamSid: STREAM_ID },
      { event: 'dtmf', streamSid: STREAM_ID, sequenceNumber: '3', dtmf: { track: 'inbound_track', digit: '4' } },
      { event: 'mark', sequenceNumber: '4', streamSid: STREAM_ID, mark: { name: 'greeting' } },
      { event: 'media', sequenceNumber: '5', media: { track: 'inbound', chunk: '2', timestamp: '20', payload: payloadOf(8) }, streamSid: STREAM_ID },
      { event: 'stop', sequenceNumber: '6', streamSid: STREAM_ID, stop: { accountSid: USER_ID, callSid: CALL_SID } },
    ])
    expect(w.metrics.drops).toEqual([])
  })

  test.each([
    ['PCMA', { encoding: 'PCMA', sample_rate: 8000, channels: 1 }],
    ['PCMU at 16 kHz', { encoding: 'PCMU', sample_rate: 16000, channels: 1 }],
    ['OPUS', { encoding: 'OPUS', sample_rate: 16000, channels: 1 }],
    ['two channels', { encoding: 'PCMU', sample_rate: 8000, channels: 2 }],
    ['no sample rate', { encoding: 'PCMU' }],
    ['no media_format', null],
  ])('a stream in %s is refused before its token is read: no agent, the socket closes', (_name, format) => {
    const w = world()
    const carrier = new FakeCarrier()
    const session = w.relay.open(carrier)
    session.message(tConnected)
    session.message(tStart('good-call_1', { format }))
    expect(w.host.calls).toEqual([])
    expect(w.agents).toEqual([])
    expect(carrier.closedWith).toBe(1000)
    expect(w.metrics.drops).toEqual(['carrier_media_format'])
    // Nothing more is read from it, and the 5 s start deadline does not count it twice.
    session.message(tStart('good-call_1'))
    w.timers.advance(10_000)
    expect(w.host.calls).toEqual([])
    expect(w.metrics.drops).toEqual(['carrier_media_format'])
  })

  test('isPcmu8k accepts the published shape, numbers as strings, and a left-out channel count', () => {
    expect(isPcmu8k(PCMU)).toBe(true)
    expect(isPcmu8k({ encoding: 'pcmu', sample_rate: '8000' })).toBe(true)
    expect(isPcmu8k({ encoding: 'PCMU', sample_rate: 8000.5, channels: 1 })).toBe(false)
    expect(isPcmu8k('PCMU')).toBe(false)
  })

  test('error frames, unknown events, the other track, non-JSON and oversized frames are dropped and counted, never passed', () => {
    const w = world()
    const { session, agent } = w.seat()
    session.message(JSON.stringify({ event: 'error', sequence_number: '2', stream_id: STREAM_ID, error: { code: 100003, title: 'malformed_frame' } }))
    session.message(JSON.stringify({ event: 'surprise', sequence_number: '3' }))
    session.message(tMedia(4, 1, 'outbound'))
    session.message('not json')
    session.message(JSON.stringify({ event: 'media', media: { payload: 'A'.repeat(MAX_AGENT_FRAME_BYTES) } }))
    session.message(tMedia(5, 2))
    expect(w.metrics.drops).toEqual(['carrier_unknown_event', 'carrier_unknown_event', 'carrier_other_track', 'carrier_not_json', 'carrier_too_large'])
    expect(heard(agent)).toEqual([`m:${payloadOf(2)}`])
  })
})

describe('the agent is written back in Telnyx shapes', () => {
  test('media, mark and clear carry the same payload and name, without a stream id', () => {
    const w = world()
    const { carrier, agent } = w.seat()
    agent.say(agentMedia(20, 3))
    agent.say(JSON.stringify({ event: 'mark', streamSid: 'MZ1', mark: { name: 'greeting' } }))
    agent.say(JSON.stringify({ event: 'clear', streamSid: 'MZ1' }))
    expect(carrier.sent).toEqual([
      `{"event":"media","media":{"payload":"${payloadOf(3)}"}}`,
      '{"event":"mark","mark":{"name":"greeting"}}',
      '{"event":"clear"}',
    ])
  })

  test("a decision sends Telnyx's mark; its echo closes the stream", () => {
    const w = world()
    const { session, carrier, agent } = w.seat()
    agent.say(agentMedia(20))
    agent.say(JSON.stringify({ event: 'dialer.end', outcome: 'not_interested', note: null }))
    expect(carrier.sent[1]).toBe(`{"event":"mark","mark":{"name":"${END_MARK}"}}`)
    session.message(tMark(2, END_MARK))
    expect(carrier.closedWith).toBe(1000)
    expect(w.host.of('closed')).toEqual([['call_1']])
  })

  test("the lead's 9 opts out and the stream is cut with Telnyx's clear", () => {
    const w = world()
    const { session, carrier, agent } = w.seat()
    agent.say(agentMedia(2_000))
    session.message(tDtmf(2, '9'))
    expect(w.host.of('control')).toEqual([['call_1', { event: 'dialer.opt_out', via: 'dtmf' }]])
    expect(carrier.sent.at(-1)).toBe('{"event":"clear"}')
    expect(carrier.closedWith).toBe(1000)
    expect(agent.sent).toHaveLength(2)
  })
})

describe('frames out of order', () => {
  test('frames after a missing one wait for it, then all go on in sequence order', () => {
    const w = world()
    const { session, agent } = w.seat()
    for (const seq of [3, 5, 2, 4]) session.message(tMedia(seq))
    expect(heard(agent)).toEqual([3, 5, 2, 4].sort().map((s) => `m:${payloadOf(s)}`))
    expect(parsed(agent.sent.slice(2)).map((f) => f.media.chunk)).toEqual(['1', '2', '3', '4'])
  })

  test(`a gap is skipped once ${REORDER_MAX_FRAMES} frames wait; the missing frame, come late, still goes on`, () => {
    const w = world()
    const { session, agent } = w.seat()
    for (let seq = 3; seq < 3 + REORDER_MAX_FRAMES; seq++) session.message(tMedia(seq))
    expect(heard(agent)).toEqual([])
    session.message(tMedia(3 + REORDER_MAX_FRAMES))
    expect(heard(agent)).toHaveLength(REORDER_MAX_FRAMES + 1)
    session.message(tMedia(2))
    expect(heard(agent).at(-1)).toBe(`m:${payloadOf(2)}`)
    session.message(tMedia(4 + REORDER_MAX_FRAMES))
    expect(heard(agent)).toHaveLength(REORDER_MAX_FRAMES + 3)
  })

  test(`a gap is skipped after ${REORDER_MAX_MS} ms (real time) when no more frames come`, () => {
    const w = world()
    const { session, agent } = w.seat()
    session.message(tMedia(2))
    session.message(tMedia(4))
    w.timers.advance(REORDER_MAX_MS - 1)
    expect(heard(agent)).toEqual([`m:${payloadOf(2)}`])
    w.timers.advance(1)
    expect(heard(agent)).toEqual([`m:${payloadOf(2)}`, `m:${payloadOf(4)}`])
  })

  test('stop lets what waits go on first; frames that came before their start wait for it', () => {
    const w = world()
    const carrier = new FakeCarrier()
    const session = w.relay.open(carrier)
    session.message(tConnected)
    session.message(tMedia(3))
    session.message(tStart('good-call_1'))
    const agent = w.agents[0]!
    agent.open()
    session.message(tMedia(5))
    session.message(tStop(6))
    expect(heard(agent)).toEqual([`m:${payloadOf(3)}`, `m:${payloadOf(5)}`, 'stop'])
  })

  test('a stream closed while frames wait forgets them and its timer', () => {
    const w = world()
    const { session, agent } = w.seat()
    session.message(tMedia(3))
    session.closed()
    w.timers.advance(1_000)
    expect(agent.sent).toHaveLength(2)
    expect(w.host.of('closed')).toEqual([['call_1']])
  })
})

type Item = { kind: 'media'; fill: number } | { kind: 'dtmf'; digit: string } | { kind: 'mark'; name: string }
const itemArb: fc.Arbitrary<Item> = fc.oneof(
  fc.record({ kind: fc.constant('media' as const), fill: fc.integer({ min: 0, max: 255 }) }),
  // 9 is the lead's opt-out and is not passed on.
  fc.record({ kind: fc.constant('dtmf' as const), digit: fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '7', '8', '*', '#') }),
  fc.record({ kind: fc.constant('mark' as const), name: fc.string({ minLength: 1, maxLength: 12 }).filter((n) => n !== END_MARK) }),
)
const telnyxFrame = (item: Item, seq: number) => item.kind === 'media' ? tMedia(seq, item.fill) : item.kind === 'dtmf' ? tDtmf(seq, item.digit) : tMark(seq, item.name)
const expectedHeard = (item: Item) => item.kind === 'media' ? `m:${payloadOf(item.fill)}` : item.kind === 'dtmf' ? `d:${item.digit}` : `k:${item.name}`

describe('properties', () => {
  test('any Telnyx frames, shuffled within the reorder window, reach the agent as Twilio frames with the same payloads, digits and marks in sequence order', () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(itemArb, fc.integer()), { maxLength: 80 }),
      fc.integer({ min: 1, max: REORDER_MAX_FRAMES + 1 }),
      (steps, block) => {
        const w = world()
        const { session, agent } = w.seat()
        const numbered = steps.map(([item, key], i) => ({ item, key, seq: i + 2 }))
        const arrival: typeof numbered = []
        for (let at = 0; at < numbered.length; at += block) arrival.push(...numbered.slice(at, at + block).sort((a, b) => a.key - b.key))
        for (const n of arrival) session.message(telnyxFrame(n.item, n.seq))
        session.message(tStop(numbered.length + 2))
        expect(heard(agent)).toEqual([...numbered.map((n) => expectedHeard(n.item)), 'stop'])
        const frames = parsed(agent.sent.slice(1))
        expect(frames.map((f) => f.sequenceNumber)).toEqual(frames.map((_, i) => String(i + 1)))
        expect(frames.every((f) => f.streamSid === STREAM_ID)).toBe(true)
        expect(w.metrics.drops).toEqual([])
      },
    ), { numRuns: 300 })
  })

  test('in any order, with time passing or not, nothing is lost or repeated and stop comes last', () => {
    fc.assert(fc.property(
      fc.array(itemArb, { maxLength: 40 }).chain((items) => fc.tuple(
        fc.constant(items),
        fc.shuffledSubarray(items.map((_, i) => i), { minLength: items.length, maxLength: items.length }),
        fc.array(fc.integer({ min: 0, max: 2 * REORDER_MAX_MS }), { minLength: items.length, maxLength: items.length }),
      )),
      ([items, order, waits]) => {
        const w = world()
        const { session, agent } = w.seat()
        order.forEach((i, at) => {
          session.message(telnyxFrame(items[i]!, i + 2))
          w.timers.advance(waits[at]!)
        })
        session.message(tStop(items.length + 2))
        const got = heard(agent)
        expect(got.at(-1)).toBe('stop')
        expect(got.slice(0, -1).sort()).toEqual(items.map(expectedHeard).sort())
      },
    ), { numRuns: 300 })
  })

  test("the agent's media, marks and clears reach Telnyx with the same payloads and names, in order", () => {
    type Out = { kind: 'media'; bytes: Uint8Array } | { kind: 'mark'; name: string } | { kind: 'clear' }
    const outArb: fc.Arbitrary<Out> = fc.oneof(
      fc.record({ kind: fc.constant('media' as const), bytes: fc.uint8Array({ minLength: 1, maxLength: 400 }) }),
      fc.record({ kind: fc.constant('mark' as const), name: fc.string({ maxLength: 20 }) }),
      fc.record({ kind: fc.constant('clear' as const) }),
    )
    fc.assert(fc.property(fc.array(outArb, { maxLength: 100 }), (outs) => {
      const w = world()
      const { carrier, agent } = w.seat()
      const want: unknown[] = []
      for (const out of outs) {
        if (out.kind === 'media') {
          const payload = Buffer.from(out.bytes).toString('base64')
          agent.say(JSON.stringify({ event: 'media', streamSid: STREAM_ID, media: { payload } }))
          want.push({ event: 'media', media: { payload } })
        } else if (out.kind === 'mark') {
          agent.say(JSON.stringify({ event: 'mark', streamSid: STREAM_ID, mark: { name: out.name } }))
          want.push({ event: 'mark', mark: { name: out.name } })
        } else {
          agent.say(JSON.stringify({ event: 'clear', streamSid: STREAM_ID }))
          want.push({ event: 'clear' })
        }
      }
      expect(parsed(carrier.sent)).toEqual(want)
    }), { numRuns: 200 })
  })
})

describe('the built-in agent over Telnyx', () => {
  const AGENT: RealtimeSeatAgent = {
    kind: 'openai_realtime', baseUrl: 'wss://api.openai.com/v1/realtime', model: 'gpt-realtime', voice: 'marin',
    instructions: 'You call Ada for Spring.', apiKey: 'sk-test-secret-key-123', firstAudioMs: 4000,
  }
  class RealtimeHost extends FakeHost {
    override admit(stream: { token: string; callSid: string; streamSid: string }): SeatTicket | null {
      const ticket = super.admit(stream)
      return ticket && { ...ticket, agent: AGENT }
    }
  }
  class Wire implements RealtimeWire {
    sent: Record<string, any>[] = []
    onopen: RealtimeWire['onopen'] = null
    onmessage: RealtimeWire['onmessage'] = null
    onclose: RealtimeWire['onclose'] = null
    onerror: RealtimeWire['onerror'] = null
    send(data: string) {
      this.sent.push(JSON.parse(data))
    }
    close() {}
    event(e: Record<string, unknown>) {
      this.onmessage?.({ data: JSON.stringify(e) })
    }
  }

  test("frames pass as values both ways: the lead's audio reaches the model once, the model's audio and marks reach Telnyx in its shapes", async () => {
    const host = new RealtimeHost()
    const timers = new ManualTimers()
    let wire!: Wire
    let handed = 0
    const relay = createSeatRelay({
      host, timers, dialect: telnyxStreamDialect,
      connectAgent: (agent, hooks) => {
        if (agent.kind !== 'openai_realtime') throw new Error('expected the built-in agent')
        const socket = openRealtimeAgent(agent, hooks, { timers, log: () => {}, connect: () => (wire = new Wire()) })
        const receive = socket.receive.bind(socket)
        socket.receive = (frame) => {
          handed++
          receive(frame)
        }
        return socket
      },
    })
    const carrier = new FakeCarrier()
    const session = relay.open(carrier)
    session.message(tConnected)
    session.message(tStart('good-call_1'))
    wire.onopen?.({})
    await new Promise((r) => setTimeout(r, 0))
    expect(wire.sent.filter((e) => e.type === 'response.create')).toHaveLength(1)
    session.message(tMedia(2, 0x22))
    expect(handed).toBe(1)
    expect(wire.sent.filter((e) => e.type === 'input_audio_buffer.append').map((e) => e.audio)).toEqual([payloadOf(0x22)])
    const delta = Buffer.alloc(160, 0x55).toString('base64')
    wire.event({ type: 'response.output_audio.delta', item_id: 'i1', delta })
    const sent = parsed(carrier.sent)
    expect(sent[0]).toEqual({ event: 'media', media: { payload: delta } })
    expect(sent[1]).toEqual({ event: 'mark', mark: { name: expect.any(String) } })
    expect(host.of('firstAudio')).toHaveLength(1)
  })
})
