import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { aiSeatEvents } from '../../src/domain/calls/ai-seat-events'
import { realtimeAgentOf } from '../../src/domain/calls/realtime-agent'
import { agentKeyContext, checkAiAgentChange, REALTIME_BASE_URL } from '../../src/domain/campaigns/ai-agent-check'
import { renderInstructions, unknownPlaceholders, type TemplateValues } from '../../src/domain/campaigns/instructions-template'
import { secretBox } from '../../src/domain/secrets/secret-box'
import { addUsage, aiCostMicros, aiMinutesOf, checkAiPrices } from '../../src/domain/usage/ai-cost'
import type { CallRow } from '../../src/db/stores/call-store'
import type { CampaignRow } from '../../src/db/stores/campaign-store'
import type { AiAgentSettings, AiUsage } from '../../src/telephony/call-values'
import { ApiError } from '../../src/errors'

setDefaultTimeout(60_000)

// The built-in agent's rules (src/domain): its instructions template, its settings and sealed
// key, what a call's stream is given, usage summed per call, and what it costs.

const VALUES: TemplateValues = {
  lead: { name: 'Dana Cruz', phone: '+12125550100', email: null, fields: { roof: 'slate', zip: '10001' } },
  campaign: { name: 'Spring roofs' },
  org: { name: 'Acme Roofing' },
}

describe('renderInstructions', () => {
  const cases: [string, string][] = [
    ['Hi {{lead.name}}', 'Hi Dana Cruz'],
    ['{{lead.phone}}', '+12125550100'],
    ['mail: [{{lead.email}}]', 'mail: []'],
    ['{{lead.fields.roof}} roof in {{lead.fields.zip}}', 'slate roof in 10001'],
    ['missing field: [{{lead.fields.color}}]', 'missing field: []'],
    ['{{campaign.name}} / {{org.name}}', 'Spring roofs / Acme Roofing'],
    ['spaces: {{ lead.name }}', 'spaces: Dana Cruz'],
    ['twice {{lead.name}} {{lead.name}}', 'twice Dana Cruz Dana Cruz'],
    ['no placeholder, single { braces } and {{ unclosed', 'no placeholder, single { braces } and {{ unclosed'],
    ['a value is not rendered again: {{lead.fields.t}}', 'a value is not rendered again: {{org.name}}'],
  ]
  for (const [template, want] of cases) {
    test(`${JSON.stringify(template)} -> ${JSON.stringify(want)}`, () => {
      const values = { ...VALUES, lead: { ...VALUES.lead, fields: { ...VALUES.lead.fields, t: '{{org.name}}' } } }
      expect(renderInstructions(template, values)).toBe(want)
    })
  }

  test('a lead without a name renders it empty', () => {
    expect(renderInstructions('[{{lead.name}}]', { ...VALUES, lead: { ...VALUES.lead, name: null } })).toBe('[]')
  })

  test('unknownPlaceholders names each placeholder that is not allowed', () => {
    expect(unknownPlaceholders('{{lead.name}} {{lead.fields.x}} {{org.name}}')).toEqual([])
    expect(unknownPlaceholders('{{lead.first}} {{ campaign.id }} {{}} {{lead.fields.}} {{lead.fields.a b}}')).toEqual(['lead.first', 'campaign.id', '', 'lead.fields.', 'lead.fields.a b'])
  })
})

const REALTIME = {
  kind: 'openai_realtime' as const, model: 'gpt-realtime', voice: 'marin', instructions: 'Hi {{lead.name}}', disclosure: { say: 'An AI assistant.' },
}
const STORED: AiAgentSettings = { ...REALTIME, first_audio_ms: 2000, base_url: REALTIME_BASE_URL }
const STREAM: AiAgentSettings = { kind: 'stream', url: 'wss://a.example.com/', parameters: {}, first_audio_ms: 2000, disclosure: { say: 'An AI assistant.' } }

function change(current: { aiAgent: AiAgentSettings | null; hasKey: boolean }, aiAgent: unknown): string | ReturnType<typeof checkAiAgentChange> {
  try {
    return checkAiAgentChange({ ...current, requiresConsent: true }, { ai_agent: aiAgent as never })
  } catch (error) {
    if (!(error instanceof ApiError)) throw error
    return `400 ${error.param}`
  }
}

describe('checkAiAgentChange', () => {
  const none = { aiAgent: null, hasKey: false }
  const built = { aiAgent: STORED, hasKey: true }
  test('create: the key is taken to be sealed; without one 400 ai_agent.api_key', () => {
    expect(change(none, { ...REALTIME, api_key: 'sk-1' })).toEqual({ agent: STORED, key: { keep: false, key: 'sk-1' } })
    expect(change(none, REALTIME)).toBe('400 ai_agent.api_key')
  })
  test('a change of the built-in agent without a key keeps the stored one; a stream agent or none clears it', () => {
    expect(change(built, { ...REALTIME, voice: 'cedar' })).toEqual({ agent: { ...STORED, voice: 'cedar' }, key: { keep: true } })
    expect(change(built, { url: 'wss://a.example.com/', disclosure: { say: 'An AI assistant.' } })).toEqual({ agent: STREAM, key: { keep: false, key: null } })
    expect(change(built, null)).toEqual({ agent: null, key: { keep: false, key: null } })
    expect(change({ aiAgent: STREAM, hasKey: false }, REALTIME)).toBe('400 ai_agent.api_key')
    expect(checkAiAgentChange({ ...built, requiresConsent: true }, {})).toEqual({ agent: STORED, key: { keep: true } })
  })
  test('bad values name the field', () => {
    const bad: [object, string][] = [
      [{ ...REALTIME, model: '' }, 'ai_agent.model'],
      [{ ...REALTIME, voice: 7 }, 'ai_agent.voice'],
      [{ ...REALTIME, instructions: ' ' }, 'ai_agent.instructions'],
      [{ ...REALTIME, instructions: 'y'.repeat(20_001) }, 'ai_agent.instructions'],
      [{ ...REALTIME, instructions: '{{lead.age}}' }, 'ai_agent.instructions'],
      [{ ...REALTIME, api_key: 'has a space' }, 'ai_agent.api_key'],
      [{ ...REALTIME, api_key: 'sk', base_url: 'wss://api.openai.com/v1/realtime?model=x' }, 'ai_agent.base_url'],
      [{ ...REALTIME, api_key: 'sk', base_url: 'ws://10.0.0.5/v1/realtime' }, 'ai_agent.base_url'],
      [{ ...REALTIME, api_key: 'sk', parameters: {} }, 'ai_agent.parameters'],
      [{ ...REALTIME, kind: 'pipecat' }, 'ai_agent.kind'],
    ]
    for (const [input, param] of bad) expect({ input, got: change(none, input) }).toEqual({ input, got: `400 ${param}` })
    expect(change(none, { ...REALTIME, instructions: 'z'.repeat(20_000), api_key: 'sk' })).toMatchObject({ agent: { kind: 'openai_realtime' } })
  })
})

describe('realtimeAgentOf', () => {
  const box = secretBox(new Uint8Array(32).fill(7))
  const campaign = { id: 'camp-1', aiAgent: STORED, aiAgentKey: box.seal('sk-live-1', agentKeyContext('camp-1')) } as CampaignRow
  const call = { id: 'call-1', campaignId: 'camp-1', aiInstructions: 'Hi Dana' } as CallRow
  const port = (c: CampaignRow, b = box) => realtimeAgentOf({
    stores: { calls: { get: (id: string) => (id === call.id ? call : undefined) } as never, campaigns: { get: (id: string) => (id === c.id ? c : undefined) } as never },
    secrets: b,
  })
  test('opens the campaign key and gives the rendered instructions', () => {
    expect(port(campaign)('call-1')).toEqual({ apiKey: 'sk-live-1', instructions: 'Hi Dana' })
  })
  test('null when the call is unknown, the key is gone, sealed for another campaign, or the secret key changed', () => {
    expect(port(campaign)('call-2')).toBeNull()
    expect(port({ ...campaign, aiAgentKey: null })('call-1')).toBeNull()
    expect(port({ ...campaign, aiAgentKey: box.seal('sk-live-1', agentKeyContext('camp-2')) })('call-1')).toBeNull()
    expect(port(campaign, secretBox(new Uint8Array(32).fill(8)))('call-1')).toBeNull()
    expect(port({ ...campaign, aiAgent: STREAM })('call-1')).toBeNull()
  })
})

const USAGE: AiUsage = { input_tokens: 1000, output_tokens: 500, input_text_tokens: 200, input_audio_tokens: 800, input_cached_tokens: 100, output_text_tokens: 100, output_audio_tokens: 400 }
const PRICE = { input_text: 4, input_audio: 32, input_cached: 0.4, output_text: 16, output_audio: 64 }

describe('AI cost', () => {
  test('tokens times USD per million is micro-USD; cached input is taken from text and audio in proportion', () => {
    expect(aiCostMicros(USAGE, PRICE)).toBe(180 * 4 + 720 * 32 + 100 * 0.4 + 100 * 16 + 400 * 64)
    expect(aiCostMicros({ ...USAGE, input_cached_tokens: 0 }, PRICE)).toBe(200 * 4 + 800 * 32 + 100 * 16 + 400 * 64)
    const zero = { input_tokens: 0, output_tokens: 0, input_text_tokens: 0, input_audio_tokens: 0, input_cached_tokens: 0, output_text_tokens: 0, output_audio_tokens: 0 }
    expect(aiCostMicros(zero, PRICE)).toBe(0)
    // More cached than input (a malformed report) never goes negative.
    expect(aiCostMicros({ ...zero, input_text_tokens: 10, input_cached_tokens: 50 }, PRICE)).toBe(Math.round(10 * 0.4))
  })
  test('AI minutes round each call up; none when never seated', () => {
    expect([aiMinutesOf(null), aiMinutesOf(0), aiMinutesOf(0.2), aiMinutesOf(60), aiMinutesOf(60.1)]).toEqual([0, 0, 1, 1, 2])
  })
  test('usage adds up; a missing or bad figure counts as 0', () => {
    expect(addUsage(null, USAGE)).toEqual(USAGE)
    expect(addUsage(USAGE, { ...USAGE, output_audio_tokens: Number.NaN, input_tokens: -3 })).toMatchObject({ output_audio_tokens: 400, input_tokens: 1000, output_text_tokens: 200 })
  })
  test('prices are checked: every field a number 0-100000', () => {
    expect(() => checkAiPrices(null)).not.toThrow()
    expect(() => checkAiPrices({ m: PRICE })).not.toThrow()
    expect(() => checkAiPrices({ m: { ...PRICE, output_text: -1 } })).toThrow('ai_prices.m.output_text')
    expect(() => checkAiPrices({ ' ': PRICE })).toThrow(ApiError)
  })
})

describe('AI seat events: usage and seat time', () => {
  function world(start: Partial<CallRow> = {}) {
    const row = { id: 'call-1', status: 'ended', aiUsage: null, aiSeconds: null, ...start } as CallRow
    let transactions = 0
    const events = aiSeatEvents({
      stores: { calls: { get: (id: string) => (id === row.id ? row : undefined) } as never, transaction: <T>(work: () => T): T => (transactions++, work()) },
      update: (current, changes) => Object.assign(current, changes),
    })
    return { row, events, transactions: () => transactions }
  }
  test('usage is summed over responses, also once the call has ended', () => {
    const w = world()
    w.events.aiUsage('call-1', USAGE)
    w.events.aiUsage('call-1', USAGE)
    w.events.aiUsage('call-9', USAGE)
    expect(w.row.aiUsage).toEqual(addUsage(USAGE, USAGE))
    expect(w.transactions()).toBe(3)
  })
  test('seat time is kept once', () => {
    const w = world()
    w.events.aiSeatTime('call-1', 75.5)
    w.events.aiSeatTime('call-1', 10)
    w.events.aiSeatTime('call-1', Number.NaN)
    expect(w.row.aiSeconds).toBe(75.5)
    expect(w.transactions()).toBe(1)
  })
})
