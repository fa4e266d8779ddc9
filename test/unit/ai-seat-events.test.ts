import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { aiSeatEvents } from '../../src/domain/calls/ai-seat-events'
import type { CallRow } from '../../src/db/stores/call-store'

setDefaultTimeout(60_000)

// What a carrier tells of a call's AI seat (src/domain/calls/ai-seat-events.ts): seated and the
// agent's first audio, each kept once, in a transaction.

function world(start: Partial<CallRow> = {}) {
  const row = { id: 'call-1', status: 'in_progress', aiSeated: false, aiFirstAudioMs: null, ...start } as CallRow
  const writes: Partial<CallRow>[] = []
  let transactions = 0
  let inTransaction = false
  const events = aiSeatEvents({
    stores: {
      calls: { get: (id: string) => (id === row.id ? row : undefined) } as never,
      transaction: <T>(work: () => T): T => {
        transactions++
        inTransaction = true
        try {
          return work()
        } finally {
          inTransaction = false
        }
      },
    },
    update: (current, changes) => {
      expect(inTransaction).toBe(true)
      writes.push(changes)
      Object.assign(current, changes)
      return current
    },
  })
  return { row, writes, events, transactions: () => transactions }
}

describe('AI seat events', () => {
  test('seated marks the call once; a repeat or an unknown call changes nothing', () => {
    const w = world()
    w.events.seated('call-1')
    w.events.seated('call-1')
    w.events.seated('other')
    expect(w.writes).toEqual([{ aiSeated: true }])
    expect(w.transactions()).toBe(1)
  })

  test('a call already ended is not seated (a stream replayed after the end)', () => {
    const w = world({ status: 'ended' })
    w.events.seated('call-1')
    expect(w.writes).toEqual([])
  })

  test('the first audio is kept once, in whole ms; a later one is ignored', () => {
    const w = world({ aiSeated: true })
    w.events.agentAudio('call-1', 840.6)
    w.events.agentAudio('call-1', 20)
    expect(w.writes).toEqual([{ aiFirstAudioMs: 841 }])
    expect(w.row.aiFirstAudioMs).toBe(841)
  })

  test('a negative or non-finite time is not kept as such', () => {
    const w = world()
    w.events.agentAudio('call-1', Number.NaN)
    expect(w.writes).toEqual([])
    w.events.agentAudio('call-1', -3)
    expect(w.writes).toEqual([{ aiFirstAudioMs: 0 }])
  })
})
