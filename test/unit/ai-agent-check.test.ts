import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { checkAiAgent } from '../../src/domain/campaigns/ai-agent-check'
import { campaignIsAutomated } from '../../src/domain/campaigns/automated'
import type { AiAgentSettings } from '../../src/telephony/call-values'
import { ApiError } from '../../src/errors'

setDefaultTimeout(60_000)

// A campaign's AI seat (src/domain/campaigns/ai-agent-check.ts): what a create or change leaves
// is checked as a whole, stored with its defaults filled, and needs requires_consent.

const AGENT: AiAgentSettings = {
  kind: 'stream', url: 'wss://agent.example.com/twilio', parameters: {}, first_audio_ms: 2000, disclosure: { say: 'This is an AI assistant for Acme Roofing.' },
}
const NONE = { aiAgent: null, requiresConsent: true }
const SEATED = { aiAgent: AGENT, requiresConsent: true }
const MIN = { url: 'wss://agent.example.com/twilio', disclosure: { say: 'This is an AI assistant for Acme Roofing.' } }

/** The 400's `param` (and reason) the input gets, or the settings it leaves. */
function outcome(current: { aiAgent: AiAgentSettings | null; requiresConsent: boolean }, input: unknown): string | AiAgentSettings | null {
  try {
    return checkAiAgent(current, input as Parameters<typeof checkAiAgent>[1])
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'invalid_request') throw error
    return `400 ${error.param}${error.extras.reason ? ` ${error.extras.reason}` : ''}`
  }
}

describe('checkAiAgent', () => {
  const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`p${i}`, `v${i}`]))
  const rows: [string, { aiAgent: AiAgentSettings | null; requiresConsent: boolean }, unknown, string | AiAgentSettings | null][] = [
    ['nothing given: no seat', NONE, {}, null],
    ['the least: defaults filled (stream, no parameters, 2000 ms)', NONE, { ai_agent: MIN }, AGENT],
    ['all fields kept', NONE, { ai_agent: { ...MIN, kind: 'stream', parameters: twenty, first_audio_ms: 500, disclosure: { audio_url: 'https://cdn.example.com/ai.mp3' } } },
      { ...AGENT, parameters: twenty, first_audio_ms: 500, disclosure: { audio_url: 'https://cdn.example.com/ai.mp3' } }],
    ['ws:// to loopback', NONE, { ai_agent: { ...MIN, url: 'ws://127.0.0.1:8765/' } }, { ...AGENT, url: 'ws://127.0.0.1:8765/' }],
    ['ws:// to localhost', NONE, { ai_agent: { ...MIN, url: 'ws://localhost:8765/agent' } }, { ...AGENT, url: 'ws://localhost:8765/agent' }],
    ['null turns it off', SEATED, { ai_agent: null }, null],
    ['other changes keep it', SEATED, { requires_consent: true }, AGENT],
    ['ws:// to a public host', NONE, { ai_agent: { ...MIN, url: 'ws://agent.example.com/' } }, '400 ai_agent.url'],
    ['https://', NONE, { ai_agent: { ...MIN, url: 'https://agent.example.com/' } }, '400 ai_agent.url'],
    ['no URL at all', NONE, { ai_agent: { ...MIN, url: 'agent' } }, '400 ai_agent.url'],
    ['a URL with credentials', NONE, { ai_agent: { ...MIN, url: 'wss://u:p@agent.example.com/' } }, '400 ai_agent.url'],
    ['url missing', NONE, { ai_agent: { disclosure: MIN.disclosure } }, '400 ai_agent.url'],
    ['first_audio_ms 499', NONE, { ai_agent: { ...MIN, first_audio_ms: 499 } }, '400 ai_agent.first_audio_ms'],
    ['first_audio_ms 5001', NONE, { ai_agent: { ...MIN, first_audio_ms: 5001 } }, '400 ai_agent.first_audio_ms'],
    ['first_audio_ms 1500.5', NONE, { ai_agent: { ...MIN, first_audio_ms: 1500.5 } }, '400 ai_agent.first_audio_ms'],
    ['21 parameters', NONE, { ai_agent: { ...MIN, parameters: { ...twenty, p20: 'x' } } }, '400 ai_agent.parameters'],
    ['a parameter named dialer_*', NONE, { ai_agent: { ...MIN, parameters: { dialer_call_id: 'x' } } }, '400 ai_agent.parameters.dialer_call_id'],
    ['a parameter that is no string', NONE, { ai_agent: { ...MIN, parameters: { behaviour: 3 } } }, '400 ai_agent.parameters.behaviour'],
    ['no disclosure', NONE, { ai_agent: { url: MIN.url } }, '400 ai_agent.disclosure'],
    ['a blank disclosure', NONE, { ai_agent: { ...MIN, disclosure: { say: '  ' } } }, '400 ai_agent.disclosure.say'],
    ['a disclosure with both', NONE, { ai_agent: { ...MIN, disclosure: { say: 'Hi', audio_url: 'https://cdn.example.com/a.mp3' } } }, '400 ai_agent.disclosure'],
    ['a plain http disclosure audio', NONE, { ai_agent: { ...MIN, disclosure: { audio_url: 'http://cdn.example.com/a.mp3' } } }, '400 ai_agent.disclosure.audio_url'],
    ['another kind', NONE, { ai_agent: { ...MIN, kind: 'builtin' } }, '400 ai_agent.kind'],
    ['an unknown field', NONE, { ai_agent: { ...MIN, voice: 'x' } }, '400 ai_agent.voice'],
    ['a seat without consent', { aiAgent: null, requiresConsent: false }, { ai_agent: MIN }, '400 ai_agent consent_required'],
    ['a seat sent with consent turned off', NONE, { ai_agent: MIN, requires_consent: false }, '400 ai_agent consent_required'],
    ['consent turned off while a seat is set', SEATED, { requires_consent: false }, '400 ai_agent consent_required'],
    ['consent turned off with the seat', SEATED, { requires_consent: false, ai_agent: null }, null],
    ['a seat and consent in one change', { aiAgent: null, requiresConsent: false }, { ai_agent: MIN, requires_consent: true }, AGENT],
  ]
  for (const [name, current, input, expected] of rows) {
    test(name, () => expect(outcome(current, input)).toEqual(expected))
  }
})

describe('campaignIsAutomated', () => {
  test('an AI seat makes a campaign automated, whatever automated_voice says', () => {
    expect(campaignIsAutomated({ automatedVoice: false, aiAgent: null })).toBe(false)
    expect(campaignIsAutomated({ automatedVoice: true, aiAgent: null })).toBe(true)
    expect(campaignIsAutomated({ automatedVoice: false, aiAgent: AGENT })).toBe(true)
  })
})
