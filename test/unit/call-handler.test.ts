import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { handlerOf } from '../../src/domain/calls/call-handler'

setDefaultTimeout(60_000)

const AI = { id: null, name: 'AI assistant', role: 'ai' as const }
const SDR = { id: 'p1', name: 'Alex Rivera', role: 'sdr' as const }

describe('who the console names as having taken a call', () => {
  test('a person who took the call, on any carrier', () => {
    expect(handlerOf({ handledBy: SDR, carrier: 'twilio', answered: 1, aiSeated: false })).toBe('Alex Rivera')
    expect(handlerOf({ handledBy: { id: null, name: 'Sam Chen', role: 'closer' }, carrier: 'simulator', answered: 1, aiSeated: false })).toBe('Sam Chen')
  })
  test('the AI assistant only on an answered simulator call, where one talked to the lead', () => {
    expect(handlerOf({ handledBy: AI, carrier: 'simulator', answered: 1, aiSeated: false })).toBe('AI assistant')
    expect(handlerOf({ handledBy: AI, carrier: 'simulator', answered: null, aiSeated: false })).toBeNull()
  })
  test('nobody on a person-first carrier’s call no person took, answered or not', () => {
    expect(handlerOf({ handledBy: AI, carrier: 'twilio', answered: null, aiSeated: false })).toBeNull()
    expect(handlerOf({ handledBy: AI, carrier: 'twilio', answered: 1, aiSeated: false })).toBeNull()
  })
  test('the AI assistant on any carrier’s call put on the AI seat; a person who took it over is named', () => {
    expect(handlerOf({ handledBy: AI, carrier: 'twilio', answered: 1, aiSeated: true })).toBe('AI assistant')
    expect(handlerOf({ handledBy: SDR, carrier: 'twilio', answered: 1, aiSeated: true })).toBe('Alex Rivera')
  })
})
