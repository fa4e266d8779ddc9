import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { MAX_AGENT_FRAME_BYTES } from '../../src/telephony/media-stream/contract'
import { createSeatRelay, MAX_WAITING_PER_ADDRESS, MAX_WAITING_STREAMS } from '../../src/telephony/media-stream/relay'
import { END_MARK } from '../../src/telephony/media-stream/seat-session'
import {
  agentMedia, carrierMedia, connected, CountingMetrics, dtmf, FakeAgent, FakeCarrier, FakeHost, ManualTimers, mark, startFrame, stop, STREAM_SID,
} from './seat-relay-kit'

setDefaultTimeout(60_000)

function world(options: { firstAudioMs?: number; connectThrows?: boolean } = {}) {
  const host = new FakeHost()
  if (options.firstAudioMs) host.firstAudioMs = options.firstAudioMs
  const metrics = new CountingMetrics()
  const timers = new ManualTimers()
  const agents: FakeAgent[] = []
  const relay = createSeatRelay({
    host, metrics, timers,
    connectAgent: (seatAgent) => {
      if (options.connectThrows) throw new Error('bad url')
      const agent = new FakeAgent(seatAgent.kind === 'stream' ? seatAgent.url : seatAgent.baseUrl)
      agents.push(agent)
      return agent
    },
  })
  /** A carrier socket admitted for `callId`, its agent open. */
  function seat(callId = 'call_1', open = true) {
    const carrier = new FakeCarrier()
    const session = relay.open(carrier)
    session.message(connected)
    session.message(startFrame(`good-${callId}`, { from: 'twilio' }))
    const agent = agents.at(-1)!
    if (open) agent.open()
    return { carrier, session, agent }
  }
  return { host, metrics, timers, agents, relay, seat }
}

const parsed = (frames: string[]) => frames.map((f) => JSON.parse(f))

describe('admission', () => {
  test('the start carries the token; the agent is opened only for an admitted stream, with the carrier parameters minus the token plus the ticket', () => {
    const w = world()
    const { agent, carrier } = w.seat()
    expect(w.host.of('admit')).toEqual([[{ token: 'good-call_1', callSid: 'CA1', streamSid: STREAM_SID }]])
    expect(agent.url).toBe('wss://agent.example/seat')
    expect(agent.sent[0]).toBe(connected)
    const start = JSON.parse(agent.sent[1]!)
    expect(start.start.customParameters).toEqual({
      from: 'twilio', voice: 'alloy', dialer_call_id: 'call_1', dialer_lead_id: 'lead_1', lead_name: 'Ada', campaign_name: 'Spring',
    })
    expect(start.start.callSid).toBe('CA1')
    expect(start.start.mediaFormat).toEqual({ encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 })
    expect(JSON.stringify(start)).not.toContain('dialer_stream_token')
    expect(carrier.closedWith).toBeNull()
    expect(w.relay.size).toBe(1)
    expect(w.metrics.open_).toBe(1)
  })

  test.each([
    ['no token', startFrame(null), false],
    ['a token the host refuses', startFrame('forged'), true],
  ])('%s: the socket closes at once, no agent, nothing but the refusal counted', (_name, frame, asked) => {
    const w = world()
    const carrier = new FakeCarrier()
    const session = w.relay.open(carrier)
    session.message(frame)
    expect(carrier.closedWith).toBe(1000)
    expect(w.agents).toHaveLength(0)
    expect(w.host.of('admit')).toHaveLength(asked ? 1 : 0)
    expect(w.host.calls.filter((c) => c.method !== 'admit')).toEqual([])
    expect(w.metrics.drops).toEqual(['refused_stream'])
    session.message(carrierMedia(0))
    expect(w.relay.size).toBe(0)
  })

  test('a replayed token is refused the second time', () => {
    const w = world()
    w.seat('call_1')
    const carrier = new FakeCarrier()
    w.relay.open(carrier).message(startFrame('good-call_1'))
    expect(carrier.closedWith).toBe(1000)
    expect(w.agents).toHaveLength(1)
  })

  test('a socket with no start within 5 s is closed; frames before start are not relayed', () => {
    const w = world()
    const carrier = new FakeCarrier()
    const session = w.relay.open(carrier)
    session.message(carrierMedia(0))
    w.timers.advance(4_999)
    expect(carrier.closedWith).toBeNull()
    w.timers.advance(1)
    expect(carrier.closedWith).toBe(1000)
    expect(w.metrics.drops).toEqual(['no_start'])
    expect(w.host.calls).toEqual([])
  })

  test('sockets waiting for their start are capped', () => {
    const w = world()
    for (let i = 0; i < MAX_WAITING_STREAMS; i++) w.relay.open(new FakeCarrier(), `10.0.${i >> 8}.${i & 255}`)
    const late = new FakeCarrier()
    w.relay.open(late, '10.9.9.9')
    expect(late.closedWith).toBe(1013)
    expect(w.metrics.drops).toEqual(['refused_stream'])
  })

  test('one address holds at most MAX_WAITING_PER_ADDRESS sockets before their start; others still get in, and a closed one frees its place', () => {
    const w = world()
    const mine = Array.from({ length: MAX_WAITING_PER_ADDRESS }, () => {
      const carrier = new FakeCarrier()
      return { carrier, session: w.relay.open(carrier, '203.0.113.7') }
    })
    expect(mine.every((m) => m.carrier.closedWith === null)).toBe(true)
    const over = new FakeCarrier()
    w.relay.open(over, '203.0.113.7')
    expect(over.closedWith).toBe(1013)
    const other = new FakeCarrier()
    w.relay.open(other, '198.51.100.1')
    expect(other.closedWith).toBe(null)
    mine[0]!.session.closed()
    const again = new FakeCarrier()
    w.relay.open(again, '203.0.113.7')
    expect(again.closedWith).toBe(null)
  })
})

describe('relaying', () => {
  test('carrier frames wait, in order, until the agent socket opens, then pass byte for byte', () => {
    const w = world()
    const { session, agent } = w.seat('call_1', false)
    const frames = [carrierMedia(0), dtmf('4'), carrierMedia(1), mark('m1')]
    for (const f of frames) session.message(f)
    expect(agent.sent).toEqual([])
    agent.open()
    expect(agent.sent.slice(2)).toEqual(frames)
    session.message(carrierMedia(2))
    session.message(stop)
    expect(agent.sent.slice(6)).toEqual([carrierMedia(2), stop])
  })

  test('agent media, mark and clear reach the carrier byte for byte; the first media is reported once with its delay', () => {
    const w = world()
    const { carrier, agent } = w.seat()
    w.timers.advance(730)
    const frames = [agentMedia(20), ` ${agentMedia(40, 1)}`, mark('greeting'), JSON.stringify({ event: 'clear', streamSid: STREAM_SID }), agentMedia(20, 2)]
    for (const f of frames) agent.say(f)
    expect(carrier.sent).toEqual(frames)
    expect(w.host.of('firstAudio')).toEqual([['call_1', 730]])
  })

  test('property: media both ways, interleaved, arrive byte for byte and in order', () => {
    fc.assert(fc.property(
      fc.array(fc.tuple(fc.boolean(), fc.uint8Array({ minLength: 1, maxLength: 400 })), { maxLength: 60 }),
      (steps) => {
        const w = world()
        const { session, carrier, agent } = w.seat()
        const toAgent: string[] = []
        const toCarrier: string[] = []
        steps.forEach(([fromCarrier, bytes], i) => {
          const payload = Buffer.from(bytes).toString('base64')
          if (fromCarrier) {
            const f = JSON.stringify({ event: 'media', streamSid: STREAM_SID, media: { track: 'inbound', chunk: String(i), timestamp: String(i * 20), payload } })
            toAgent.push(f)
            session.message(f)
          } else {
            const f = JSON.stringify({ event: 'media', streamSid: STREAM_SID, media: { payload } })
            toCarrier.push(f)
            agent.say(f)
          }
          w.timers.advance(20)
        })
        expect(agent.sent.slice(2)).toEqual(toAgent)
        expect(carrier.sent).toEqual(toCarrier)
      },
    ), { numRuns: 200 })
  })

  test("the default dialect is Twilio's: the relay's own end mark and clear are Twilio's frames with the stream's sid", () => {
    const w = world()
    const { carrier, agent } = w.seat()
    agent.say(JSON.stringify({ event: 'dialer.end', outcome: 'not_interested', note: null }))
    expect(carrier.sent).toEqual([`{"event":"mark","streamSid":"${STREAM_SID}","mark":{"name":"${END_MARK}"}}`])
    const second = w.seat('call_2')
    second.session.message(dtmf('9'))
    expect(second.carrier.sent).toEqual([`{"event":"clear","streamSid":"${STREAM_SID}"}`])
  })
})

const big = JSON.stringify({ event: 'media', streamSid: STREAM_SID, media: { payload: 'A'.repeat(MAX_AGENT_FRAME_BYTES) } })

describe('bad agent frames are dropped and counted; the call goes on', () => {
  test.each([
    ['not JSON', '{"event":"media"', 'not_json'],
    ['binary', new Uint8Array([1, 2, 3]), 'not_json'],
    ['over 64 KB', big, 'too_large'],
    ['media not base64', JSON.stringify({ event: 'media', media: { payload: 'not base64!' } }), 'bad_media'],
    ['media without payload', JSON.stringify({ event: 'media', media: {} }), 'bad_media'],
    ['an array', '[1,2]', 'unknown_event'],
    ['an event Twilio does not take', JSON.stringify({ event: 'start', start: {} }), 'unknown_event'],
    ['an unknown control', JSON.stringify({ event: 'dialer.transfer' }), 'unknown_event'],
    ['confidence over 1', JSON.stringify({ event: 'dialer.interested', excerpt: 'yes', confidence: 2 }), 'malformed_control'],
    ['an excerpt over 2,000 characters', JSON.stringify({ event: 'dialer.interested', excerpt: 'x'.repeat(2001), confidence: 0.5 }), 'malformed_control'],
    ['a callback time that is not RFC 3339', JSON.stringify({ event: 'dialer.callback', at: 'tomorrow' }), 'malformed_control'],
    ['a callback date that does not exist', JSON.stringify({ event: 'dialer.callback', at: '2026-02-31T10:00:00Z' }), 'malformed_control'],
    ['an empty transcript line', JSON.stringify({ event: 'dialer.transcript', speaker: 'ai', text: '' }), 'malformed_control'],
    ['a transcript by someone else', JSON.stringify({ event: 'dialer.transcript', speaker: 'sdr', text: 'hi' }), 'malformed_control'],
    ['an unknown outcome word', JSON.stringify({ event: 'dialer.end', outcome: 'sold', note: 'x' }), 'unknown_outcome'],
    ['a mark without a name', JSON.stringify({ event: 'mark', mark: {} }), 'malformed_frame'],
  ])('%s', (_name, frame, reason) => {
    const w = world()
    const { carrier, agent } = w.seat()
    agent.say(frame)
    expect(w.metrics.drops).toEqual([reason])
    expect(carrier.sent).toEqual([])
    expect(w.host.of('control')).toEqual([])
    agent.say(agentMedia())
    expect(carrier.sent).toEqual([agentMedia()])
    expect(carrier.closedWith).toBeNull()
  })

  test('audio more than 10 s ahead of real time is dropped; a clear or the time passing makes room', () => {
    const w = world()
    const { carrier, agent } = w.seat()
    for (let i = 0; i < 500; i++) agent.say(agentMedia(20))
    expect(carrier.sent).toHaveLength(500)
    agent.say(agentMedia(20))
    expect(w.metrics.drops).toEqual(['ahead_of_time'])
    w.timers.advance(40)
    agent.say(agentMedia(20))
    agent.say(agentMedia(20))
    expect(carrier.sent).toHaveLength(502)
    agent.say(agentMedia(20))
    expect(carrier.sent).toHaveLength(502)
    agent.say(JSON.stringify({ event: 'clear', streamSid: STREAM_SID }))
    agent.say(agentMedia(5_000))
    expect(carrier.sent).toHaveLength(504)
    expect(w.metrics.drops).toEqual(['ahead_of_time', 'ahead_of_time'])
  })

  test('carrier frames that are not JSON are dropped, not relayed', () => {
    const w = world()
    const { session, agent } = w.seat()
    session.message('nope')
    expect(agent.sent).toHaveLength(2)
    expect(w.metrics.drops).toEqual(['carrier_not_json'])
  })
})

describe('controls', () => {
  test('each control is parsed for the host and never reaches the carrier', () => {
    const w = world()
    const { carrier, agent } = w.seat()
    agent.say(JSON.stringify({ event: 'dialer.transcript', speaker: 'lead', text: 'Hello?', streamSid: STREAM_SID }))
    agent.say(JSON.stringify({ event: 'dialer.transcript', speaker: 'ai', text: 'Hi, this is the assistant.' }))
    agent.say(JSON.stringify({ event: 'dialer.callback', at: '2026-01-06T16:30:00-05:00' }))
    expect(w.host.of('control')).toEqual([
      ['call_1', { event: 'dialer.transcript', speaker: 'lead', text: 'Hello?' }],
      ['call_1', { event: 'dialer.transcript', speaker: 'ai', text: 'Hi, this is the assistant.' }],
      ['call_1', { event: 'dialer.callback', at: Date.UTC(2026, 0, 6, 21, 30) }],
    ])
    expect(parsed(carrier.sent)).toEqual([{ event: 'mark', streamSid: STREAM_SID, mark: { name: END_MARK } }])
    expect(w.metrics.controls).toEqual([['dialer.transcript', true], ['dialer.transcript', true], ['dialer.callback', true]])
  })

  test.each([
    [{ event: 'dialer.interested', excerpt: 'Sounds good', confidence: 0.9, summary: 'Wants a demo' }, { event: 'dialer.interested', excerpt: 'Sounds good', confidence: 0.9, summary: 'Wants a demo' }],
    [{ event: 'dialer.interested', excerpt: 'Sure', confidence: 0 }, { event: 'dialer.interested', excerpt: 'Sure', confidence: 0, summary: '' }],
    [{ event: 'dialer.opt_out' }, { event: 'dialer.opt_out', via: 'agent' }],
    [{ event: 'dialer.end', outcome: 'not_interested', note: 'Has a provider' }, { event: 'dialer.end', outcome: 'not_interested', note: 'Has a provider' }],
    [{ event: 'dialer.end', outcome: 'wrong_number' }, { event: 'dialer.end', outcome: 'wrong_number', note: null }],
  ])('%j is given to the host as %j', (message, control) => {
    const w = world()
    w.seat().agent.say(JSON.stringify(message))
    expect(w.host.of('control')).toEqual([['call_1', control]])
  })

  test('a decision lets the queued audio play: the stream closes when the end mark is echoed, then the agent socket', () => {
    const w = world()
    const { session, carrier, agent } = w.seat()
    agent.say(agentMedia(20))
    agent.say(JSON.stringify({ event: 'dialer.end', outcome: 'not_interested', note: null }))
    agent.say(agentMedia(20))
    agent.say(JSON.stringify({ event: 'dialer.opt_out' }))
    expect(carrier.sent).toHaveLength(2)
    expect(w.host.of('control')).toHaveLength(1)
    session.message(mark('greeting'))
    expect(carrier.closedWith).toBeNull()
    session.message(mark(END_MARK))
    expect(carrier.closedWith).toBe(1000)
    expect(agent.closedWith).toBe(1000)
    expect(agent.sent.at(-1)).toBe(mark('greeting'))
    expect(w.host.of('closed')).toEqual([['call_1']])
    expect(w.host.of('failed')).toEqual([])
    expect(w.relay.size).toBe(0)
    expect(w.metrics.open_).toBe(0)
  })

  test.each([
    [0, 1_000],
    [3_000, 4_000],
    [10_000, 11_000],
  ])('with %i ms of audio queued and no echo, the stream closes %i ms after the decision', (queuedMs, closesAt) => {
    const w = world()
    const { carrier, agent } = w.seat()
    for (let sent = 0; sent < queuedMs; sent += 1_000) agent.say(agentMedia(1_000))
    agent.say(JSON.stringify({ event: 'dialer.callback', at: '2026-01-06T16:30:00Z' }))
    w.timers.advance(closesAt - 1)
    expect(carrier.closedWith).toBeNull()
    w.timers.advance(1)
    expect(carrier.closedWith).toBe(1000)
    // Closing after a decision is the agent's right: nothing failed.
    agent.drop()
    expect(w.host.of('failed')).toEqual([])
  })

  test('the lead pressing 9 opts out through the host, is not passed on, and the stream is cut at once', () => {
    const w = world()
    const { session, carrier, agent } = w.seat()
    agent.say(agentMedia(2_000))
    session.message(dtmf('9'))
    expect(w.host.of('control')).toEqual([['call_1', { event: 'dialer.opt_out', via: 'dtmf' }]])
    expect(agent.sent.map((f) => JSON.parse(f).event)).toEqual(['connected', 'start'])
    expect(parsed(carrier.sent.slice(1))).toEqual([{ event: 'clear', streamSid: STREAM_SID }])
    expect(carrier.closedWith).toBe(1000)
    expect(agent.closedWith).toBe(1000)
    expect(w.metrics.controls).toEqual([['dialer.opt_out', true]])
  })
})

describe('deadlines and failures', () => {
  const cutOff = (w: ReturnType<typeof world>, carrier: FakeCarrier, failure: string) => {
    expect(w.host.of('failed')).toEqual([['call_1', failure]])
    expect(w.metrics.failures).toEqual([failure])
    expect(parsed(carrier.sent).at(-1)).toEqual({ event: 'clear', streamSid: STREAM_SID })
    expect(carrier.closedWith).toBe(1000)
    expect(w.host.of('closed')).toEqual([['call_1']])
    expect(w.relay.size).toBe(0)
  }

  test('an agent socket that does not open within first_audio_ms: unreachable', () => {
    const w = world({ firstAudioMs: 800 })
    const { carrier, agent } = w.seat('call_1', false)
    w.timers.advance(799)
    expect(w.host.of('failed')).toEqual([])
    w.timers.advance(1)
    cutOff(w, carrier, 'unreachable')
    expect(agent.closedWith).toBe(1000)
  })

  test('an agent socket that errors before opening: unreachable at once', () => {
    const w = world()
    const { carrier, agent } = w.seat('call_1', false)
    agent.refuse()
    cutOff(w, carrier, 'unreachable')
  })

  test('an agent URL the client refuses: unreachable at once', () => {
    const w = world({ connectThrows: true })
    const carrier = new FakeCarrier()
    const session = w.relay.open(carrier)
    session.message(startFrame('good-call_1'))
    cutOff(w, carrier, 'unreachable')
  })

  test('no media within first_audio_ms of the start: silent (transcripts and marks do not count)', () => {
    const w = world({ firstAudioMs: 1_500 })
    const { carrier, agent } = w.seat()
    agent.say(mark('x'))
    agent.say(JSON.stringify({ event: 'dialer.transcript', speaker: 'ai', text: 'hi' }))
    w.timers.advance(1_500)
    cutOff(w, carrier, 'silent')
  })

  test('media in time: no deadline fires later', () => {
    const w = world({ firstAudioMs: 1_500 })
    const { carrier, agent } = w.seat()
    w.timers.advance(1_499)
    agent.say(agentMedia())
    w.timers.advance(60_000)
    expect(w.host.of('failed')).toEqual([])
    expect(carrier.closedWith).toBeNull()
  })

  test('the agent socket closing mid-call without a decision: dropped', () => {
    const w = world()
    const { carrier, agent } = w.seat()
    agent.say(agentMedia())
    agent.drop()
    cutOff(w, carrier, 'dropped')
  })

  test('the agent closing after the lead hung up (stop) is no failure; the carrier closing tells the host once', () => {
    const w = world()
    const { session, agent } = w.seat()
    agent.say(agentMedia())
    session.message(stop)
    agent.drop()
    session.closed()
    session.closed()
    expect(w.host.of('failed')).toEqual([])
    expect(w.host.of('closed')).toEqual([['call_1']])
    expect(agent.closedWith).toBe(1000)
  })

  test('end(callId) and stop() close both sockets and tell the host nothing', () => {
    const w = world()
    const one = w.seat('call_1')
    const two = w.seat('call_2')
    const waiting = new FakeCarrier()
    w.relay.open(waiting)
    w.relay.end('call_1')
    expect([one.carrier.closedWith, one.agent.closedWith]).toEqual([1000, 1000])
    expect(two.carrier.closedWith).toBeNull()
    w.relay.stop()
    expect([two.carrier.closedWith, two.agent.closedWith, waiting.closedWith]).toEqual([1000, 1000, 1000])
    w.timers.advance(60_000)
    one.session.closed()
    expect(w.host.calls.filter((c) => c.method !== 'admit')).toEqual([])
    expect(w.relay.size).toBe(0)
    expect(w.metrics.open_).toBe(0)
  })
})
