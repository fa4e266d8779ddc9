import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { checkDialSettings, DIAL_DEFAULTS, type DialSettings, type DialSettingsInput } from '../../src/domain/campaigns/dial-mode-check'
import { ApiError } from '../../src/errors'

setDefaultTimeout(60_000)

// A campaign's dial mode settings (src/domain/campaigns/dial-mode-check.ts): what a create or
// change leaves is checked as a whole; power and predictive need an abandon message.

const POWER: DialSettings = { dialMode: 'power', maxAbandonRate: 0.02, abandonMessage: { say: 'Acme Roofing. Call 212 555 0100.' } }

/** The `param` of the 400 the input gets, or the settings it leaves. */
function outcome(current: DialSettings, input: unknown): string | DialSettings {
  try {
    return checkDialSettings(current, input as DialSettingsInput)
  } catch (error) {
    if (!(error instanceof ApiError) || error.code !== 'invalid_request') throw error
    return `400 ${error.param}`
  }
}

describe('checkDialSettings', () => {
  const rows: [string, DialSettings, unknown, string | DialSettings][] = [
    ['nothing given: the defaults (bridge, 3 %, no message)', DIAL_DEFAULTS, {}, DIAL_DEFAULTS],
    ['bridge needs no message', DIAL_DEFAULTS, { dial_mode: 'bridge', max_abandon_rate: 0.01 }, { ...DIAL_DEFAULTS, maxAbandonRate: 0.01 }],
    ['power with a message', DIAL_DEFAULTS, { dial_mode: 'power', abandon_message: { say: ' Call us. ' } },
      { dialMode: 'power', maxAbandonRate: 0.03, abandonMessage: { say: 'Call us.' } }],
    ['predictive with an https audio message', DIAL_DEFAULTS, { dial_mode: 'predictive', abandon_message: { audio_url: 'https://cdn.example.com/sorry.mp3' } },
      { dialMode: 'predictive', maxAbandonRate: 0.03, abandonMessage: { audio_url: 'https://cdn.example.com/sorry.mp3' } }],
    ['power without a message', DIAL_DEFAULTS, { dial_mode: 'power' }, '400 abandon_message'],
    ['predictive with a null message', DIAL_DEFAULTS, { dial_mode: 'predictive', abandon_message: null }, '400 abandon_message'],
    ['a change that clears the message of a power campaign', POWER, { abandon_message: null }, '400 abandon_message'],
    ['a power campaign changed back to bridge may clear it', POWER, { dial_mode: 'bridge', abandon_message: null },
      { dialMode: 'bridge', maxAbandonRate: 0.02, abandonMessage: null }],
    ['a power campaign keeps its message through other changes', POWER, { max_abandon_rate: 0.03 }, { ...POWER, maxAbandonRate: 0.03 }],
    ['an unknown mode', DIAL_DEFAULTS, { dial_mode: 'preview' }, '400 dial_mode'],
    ['rate 0', DIAL_DEFAULTS, { max_abandon_rate: 0 }, '400 max_abandon_rate'],
    ['a negative rate', DIAL_DEFAULTS, { max_abandon_rate: -0.01 }, '400 max_abandon_rate'],
    ['a rate above 3 %', DIAL_DEFAULTS, { max_abandon_rate: 0.031 }, '400 max_abandon_rate'],
    ['a rate of 3 (percent, not a rate)', DIAL_DEFAULTS, { max_abandon_rate: 3 }, '400 max_abandon_rate'],
    ['a rate that is not a number', DIAL_DEFAULTS, { max_abandon_rate: NaN }, '400 max_abandon_rate'],
    ['exactly 3 %', DIAL_DEFAULTS, { max_abandon_rate: 0.03 }, DIAL_DEFAULTS],
    ['a message with both say and audio_url', DIAL_DEFAULTS, { dial_mode: 'power', abandon_message: { say: 'x', audio_url: 'https://a.example/x.mp3' } }, '400 abandon_message'],
    ['a message with neither', DIAL_DEFAULTS, { dial_mode: 'power', abandon_message: {} }, '400 abandon_message'],
    ['a message that is text', DIAL_DEFAULTS, { dial_mode: 'power', abandon_message: 'Call us' }, '400 abandon_message'],
    ['a blank say', DIAL_DEFAULTS, { dial_mode: 'power', abandon_message: { say: '   ' } }, '400 abandon_message.say'],
    ['a say of 501 characters', DIAL_DEFAULTS, { dial_mode: 'power', abandon_message: { say: 'x'.repeat(501) } }, '400 abandon_message.say'],
    ['a say of 500 characters', DIAL_DEFAULTS, { dial_mode: 'power', abandon_message: { say: 'x'.repeat(500) } },
      { dialMode: 'power', maxAbandonRate: 0.03, abandonMessage: { say: 'x'.repeat(500) } }],
    ['a plain http audio URL', DIAL_DEFAULTS, { dial_mode: 'power', abandon_message: { audio_url: 'http://cdn.example.com/sorry.mp3' } }, '400 abandon_message.audio_url'],
    ['an audio URL that is not one', DIAL_DEFAULTS, { dial_mode: 'power', abandon_message: { audio_url: 'sorry.mp3' } }, '400 abandon_message.audio_url'],
    ['an audio URL with a password', DIAL_DEFAULTS, { dial_mode: 'power', abandon_message: { audio_url: 'https://u:p@cdn.example.com/a.mp3' } }, '400 abandon_message.audio_url'],
    ['a message on a bridge campaign is kept (for a later switch)', DIAL_DEFAULTS, { abandon_message: { say: 'Hi' } }, { ...DIAL_DEFAULTS, abandonMessage: { say: 'Hi' } }],
  ]
  for (const [name, current, input, expected] of rows) test(name, () => expect(outcome(current, input)).toEqual(expected))
})
