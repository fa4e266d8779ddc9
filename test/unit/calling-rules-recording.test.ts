import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { callingRules } from '../../src/domain/calling-rules'
import { RECORDING_RULES } from '../../src/domain/calling-rules/recording-rules'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const ORG = 'America/New_York'
const consent = (phone: string, address: string | null = null) => callingRules.recordingConsent(callingRules.reachOf(phone, address, ORG))

describe('recordingConsent', () => {
  test.each([
    ['+14155551234', null, ['CA']],
    ['+12035551234', null, ['CT']],
    ['+13055551234', null, ['FL']],
    ['+13125551234', null, ['IL']],
    ['+14105551234', null, ['MD']],
    ['+16175551234', null, ['MA']],
    ['+14065551234', null, ['MT']],
    ['+16035551234', null, ['NH']],
    ['+12155551234', null, ['PA']],
    ['+12065551234', null, ['WA']],
    ['+13025551234', null, ['DE']],
    ['+13135551234', null, ['MI']],
    ['+17025551234', null, ['NV']],
    // One-party states and numbers with no state.
    ['+12125551234', null, []],
    ['+12145551234', null, []],
    ['+18005551234', null, []],
    ['+14165551234', null, []],
    // The address adds its state: a New York number with a Los Angeles ZIP, a Texas number in Florida.
    ['+12125551234', '200 N Spring St, Los Angeles, CA 90012', ['CA']],
    ['+12145551234', '1 Main St, Miami, FL', ['FL']],
    // Both the area code's and the address's state, sorted.
    ['+14155551234', '1 Main St, Seattle, WA 98101', ['CA', 'WA']],
  ] as const)('%s %s -> %j', (phone, address, states) => {
    const result = consent(phone, address)
    expect(result.requiredBy).toEqual([...states])
    expect(result.rules.map((r) => r.id)).toEqual(states.map((s) => `${s}-recording`))
    for (const rule of result.rules) {
      expect(rule.kind).toBe('recording')
      expect(rule.source.length).toBeGreaterThan(0)
    }
  })

  test('the thirteen all-party states, each with its statute', () => {
    expect(Object.keys(RECORDING_RULES).sort()).toEqual(['CA', 'CT', 'DE', 'FL', 'IL', 'MA', 'MD', 'MI', 'MT', 'NH', 'NV', 'PA', 'WA'])
  })

  test('a recording row never blocks a call: evaluate ignores it', () => {
    const reach = callingRules.reachOf('+12125551234', '200 N Spring St, Los Angeles, CA 90012', ORG)
    // 12:00 Pacific on a Wednesday.
    const v = callingRules.evaluate({ reach, campaignWindow: { start: '08:00', end: '21:00' }, callTimes: [], now: Date.parse('2026-07-15T19:00:00Z') })
    expect(v.allowed).toBe(true)
    expect(v.rules.some((r) => r.kind === 'recording')).toBe(false)
  })
})
