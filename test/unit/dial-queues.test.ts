import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { DialQueues } from '../../src/domain/queue/dial-queues'
import { queueKey } from '../../src/domain/queue/queue-key'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

describe('DialQueues.rebuild', () => {
  test('takes rows in one queue order across campaigns and modes, interleaved', () => {
    const queues = new DialQueues()
    const rows = [
      { campaignId: 'a', livemode: true, id: 'a1', queueKey: queueKey(0, 1_000) },
      { campaignId: 'b', livemode: true, id: 'b1', queueKey: queueKey(0, 2_000) },
      { campaignId: 'a', livemode: false, id: 'a-test', queueKey: queueKey(1, 500) },
      { campaignId: 'a', livemode: true, id: 'a2', queueKey: queueKey(1, 100) },
      { campaignId: 'b', livemode: true, id: 'b2', queueKey: queueKey(1, 200) },
      { campaignId: 'a', livemode: true, id: 'a3', queueKey: queueKey(2, 50) },
    ]
    expect(queues.rebuild(rows)).toBe(6)
    expect(queues.size('a', true)).toBe(3)
    expect(queues.size('b', true)).toBe(2)
    expect(queues.size('a', false)).toBe(1)
    const place = (c: string, live: boolean, i: number) => queues.placeInLine(c, live, rows[i]!.id, rows[i]!.queueKey)
    expect([place('a', true, 0), place('a', true, 3), place('a', true, 5)]).toEqual([1, 2, 3])
    expect([place('b', true, 1), place('b', true, 4)]).toEqual([1, 2])
    expect(place('a', false, 2)).toBe(1)
    expect(queues.take('a', true)?.id).toBe('a1')
  })

  test('replaces what was there', () => {
    const queues = new DialQueues()
    queues.add('a', true, 'old', queueKey(1, 1))
    queues.rebuild([{ campaignId: 'b', livemode: true, id: 'b1', queueKey: queueKey(1, 2) }])
    expect(queues.size('a', true)).toBe(0)
    expect(queues.size('b', true)).toBe(1)
  })

  test('a campaign whose own rows are out of order is refused', () => {
    const queues = new DialQueues()
    expect(() =>
      queues.rebuild([
        { campaignId: 'a', livemode: true, id: 'a2', queueKey: queueKey(1, 200) },
        { campaignId: 'a', livemode: true, id: 'a1', queueKey: queueKey(1, 100) },
      ]),
    ).toThrow(RangeError)
  })
})
