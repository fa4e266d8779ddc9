import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { queueKey } from '../../src/domain/queue/queue-key'
import { type QueueEntry, RankedQueue } from '../../src/domain/queue/ranked-queue'
import { seededRandom } from '../seeded-random'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const before = (a: QueueEntry, b: QueueEntry) => a.key < b.key || (a.key === b.key && a.id < b.id)

/** The obvious implementation: one sorted array, linear scans. */
class NaiveQueue {
  items: QueueEntry[] = []
  #lowerBound(e: QueueEntry): number {
    let i = 0
    while (i < this.items.length && before(this.items[i]!, e)) i++
    return i
  }
  rankOf(e: QueueEntry): number {
    const i = this.#lowerBound(e)
    const found = this.items[i]
    return found !== undefined && found.id === e.id && found.key === e.key ? i : -1
  }
  insert(e: QueueEntry): void {
    if (this.rankOf(e) === -1) this.items.splice(this.#lowerBound(e), 0, e)
  }
  remove(e: QueueEntry): boolean {
    const i = this.rankOf(e)
    if (i !== -1) this.items.splice(i, 1)
    return i !== -1
  }
}

const all = (q: RankedQueue) => [...q.entries()]

describe('RankedQueue: order', () => {
  test('ascending key, then ascending id', () => {
    const q = new RankedQueue(2)
    q.insert('b', 5)
    q.insert('a', 7)
    q.insert('c', 1)
    q.insert('a', 5)
    q.insert('z', 1)
    expect(all(q)).toEqual([
      { id: 'c', key: 1 },
      { id: 'z', key: 1 },
      { id: 'a', key: 5 },
      { id: 'b', key: 5 },
      { id: 'a', key: 7 },
    ])
    expect(q.size).toBe(5)
    expect(q.rankOf('a', 5)).toBe(2)
    expect(q.rankOf('a', 7)).toBe(4)
  })

  test('ids compare by code units, not locale', () => {
    const q = new RankedQueue()
    for (const id of ['b', 'B', 'a', '_', 'Z']) q.insert(id, 0)
    expect(all(q).map((e) => e.id)).toEqual(['B', 'Z', '_', 'a', 'b'])
  })

  test('many entries with the same key are ordered by id', () => {
    const ids = Array.from({ length: 3000 }, () => Bun.randomUUIDv7())
    const shuffled = [...ids]
    const random = seededRandom(7)
    for (let i = shuffled.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
    }
    const q = new RankedQueue(8)
    for (const id of shuffled) q.insert(id, 42)
    const sorted = [...ids].sort()
    expect(all(q).map((e) => e.id)).toEqual(sorted)
    for (let i = 0; i < sorted.length; i += 97) expect(q.rankOf(sorted[i]!, 42)).toBe(i)
  })

  test('entries() and the iterator walk the same order', () => {
    const q = RankedQueue.fromSorted(['a', 'b', 'c'], [1, 1, 2], 1)
    expect([...q]).toEqual(all(q))
  })
})

describe('RankedQueue: single operations', () => {
  test('empty queue', () => {
    const q = new RankedQueue()
    expect(q.size).toBe(0)
    expect(q.peek()).toBeUndefined()
    expect(q.shift()).toBeUndefined()
    expect(q.rankOf('a', 1)).toBe(-1)
    expect(q.has('a', 1)).toBe(false)
    expect(q.remove('a', 1)).toBe(false)
    expect(all(q)).toEqual([])
  })

  test('remove of an absent entry returns false and changes nothing', () => {
    const q = RankedQueue.fromSorted(['a', 'b', 'c'], [1, 2, 3], 2)
    expect(q.remove('b', 3)).toBe(false) // id present, other key
    expect(q.remove('x', 2)).toBe(false) // key present, other id
    expect(q.remove('z', 99)).toBe(false) // past the end
    expect(q.remove('0', 0)).toBe(false) // before the start
    expect(q.size).toBe(3)
    expect(q.remove('b', 2)).toBe(true)
    expect(q.remove('b', 2)).toBe(false)
    expect(all(q).map((e) => e.id)).toEqual(['a', 'c'])
  })

  test('rankOf is -1 for an absent entry', () => {
    const q = RankedQueue.fromSorted(['a', 'b'], [1, 2])
    expect(q.rankOf('a', 2)).toBe(-1)
    expect(q.rankOf('c', 0)).toBe(-1)
    expect(q.rankOf('c', 5)).toBe(-1)
    expect(q.rankOf('b', 2)).toBe(1)
  })

  test('inserting a queued (id, key) again is ignored; same id, other key is a new entry', () => {
    const q = new RankedQueue(1)
    q.insert('a', 1)
    q.insert('b', 2)
    q.insert('a', 1)
    expect(q.size).toBe(2)
    q.insert('a', 3)
    expect(q.size).toBe(3)
    expect(all(q)).toEqual([
      { id: 'a', key: 1 },
      { id: 'b', key: 2 },
      { id: 'a', key: 3 },
    ])
  })

  test('peek and shift take the head', () => {
    const q = new RankedQueue(2)
    for (const [id, key] of [['c', 3], ['a', 1], ['b', 2], ['d', 1]] as const) q.insert(id, key)
    expect(q.peek()).toEqual({ id: 'a', key: 1 })
    expect(q.size).toBe(4)
    expect(q.shift()).toEqual({ id: 'a', key: 1 })
    expect(q.shift()).toEqual({ id: 'd', key: 1 })
    expect(q.peek()).toEqual({ id: 'b', key: 2 })
    expect(q.rankOf('c', 3)).toBe(1)
    expect(q.shift()).toEqual({ id: 'b', key: 2 })
    expect(q.shift()).toEqual({ id: 'c', key: 3 })
    expect(q.shift()).toBeUndefined()
    expect(q.size).toBe(0)
    q.insert('e', 5)
    expect(q.peek()).toEqual({ id: 'e', key: 5 })
  })

  test('rejects keys that would break the order and bad chunk sizes', () => {
    const q = new RankedQueue()
    expect(() => q.insert('a', Number.NaN)).toThrow(RangeError)
    expect(() => q.insert('a', Number.POSITIVE_INFINITY)).toThrow(RangeError)
    expect(q.size).toBe(0)
    expect(() => new RankedQueue(0)).toThrow(RangeError)
    expect(() => new RankedQueue(2.5)).toThrow(RangeError)
  })
})

describe('RankedQueue.fromSorted', () => {
  test('builds the same order as inserts', () => {
    const random = seededRandom(11)
    const model = new NaiveQueue()
    for (let i = 0; i < 5000; i++) model.insert({ id: `lead-${Math.floor(random() * 4000)}`, key: Math.floor(random() * 50) })
    const ids = model.items.map((e) => e.id)
    const keys = model.items.map((e) => e.key)
    for (const chunkSize of [1, 4, undefined]) {
      const built = RankedQueue.fromSorted(ids, keys, chunkSize)
      const inserted = new RankedQueue(chunkSize)
      for (const e of [...model.items].reverse()) inserted.insert(e.id, e.key)
      expect(built.size).toBe(model.items.length)
      expect(all(built)).toEqual(model.items)
      expect(all(inserted)).toEqual(model.items)
      for (let i = 0; i < model.items.length; i += 37) {
        const e = model.items[i]!
        expect(built.rankOf(e.id, e.key)).toBe(i)
        expect(inserted.rankOf(e.id, e.key)).toBe(i)
      }
    }
  })

  test('empty input', () => {
    const q = RankedQueue.fromSorted([], [])
    expect(q.size).toBe(0)
    q.insert('a', 1)
    expect(q.rankOf('a', 1)).toBe(0)
  })

  test('rejects unsorted, duplicated or mismatched input', () => {
    expect(() => RankedQueue.fromSorted(['a', 'b'], [2, 1])).toThrow(RangeError)
    expect(() => RankedQueue.fromSorted(['b', 'a'], [1, 1])).toThrow(RangeError)
    expect(() => RankedQueue.fromSorted(['a', 'a'], [1, 1])).toThrow(RangeError)
    expect(() => RankedQueue.fromSorted(['a'], [1, 2])).toThrow(RangeError)
    expect(() => RankedQueue.fromSorted(['a'], [Number.NaN])).toThrow(RangeError)
  })
})

describe('RankedQueue: randomized against a naive sorted array', () => {
  const OPS = 20_000

  function run(seed: number, chunkSize: number | undefined, startSize: number) {
    const random = seededRandom(seed)
    const int = (n: number) => Math.floor(random() * n)
    // Few keys and a limited id pool: plenty of equal keys and of repeated (id, key) pairs.
    const randomEntry = (): QueueEntry => ({ id: `id-${int(3000).toString(36)}`, key: int(40) * 1000 })

    const model = new NaiveQueue()
    for (let i = 0; i < startSize; i++) model.insert(randomEntry())
    const q = RankedQueue.fromSorted(
      model.items.map((e) => e.id),
      model.items.map((e) => e.key),
      chunkSize,
    )

    for (let op = 0; op < OPS; op++) {
      // Grow for the first half, then drain, so chunks split, then merge and empty out.
      const growing = op < OPS / 2
      const r = random()
      const member = model.items[int(model.items.length)]
      if (r < (growing ? 0.55 : 0.2)) {
        const e = randomEntry()
        model.insert(e)
        q.insert(e.id, e.key)
      } else if (r < (growing ? 0.6 : 0.3) && member !== undefined) {
        q.insert(member.id, member.key) // duplicate: ignored
      } else if (r < (growing ? 0.75 : 0.6)) {
        const e = member !== undefined && random() < 0.7 ? member : randomEntry()
        expect(q.remove(e.id, e.key)).toBe(model.remove(e))
      } else if (r < (growing ? 0.8 : 0.75)) {
        expect(q.shift()).toEqual(model.items.shift())
      } else if (r < (growing ? 0.85 : 0.8)) {
        expect(q.peek()).toEqual(model.items[0])
      } else {
        const e = member !== undefined && random() < 0.8 ? member : randomEntry()
        const rank = model.rankOf(e)
        expect(q.rankOf(e.id, e.key)).toBe(rank)
        expect(q.has(e.id, e.key)).toBe(rank !== -1)
      }
      expect(q.size).toBe(model.items.length)
      if (op % 2000 === 0) expect(all(q)).toEqual(model.items)
    }

    expect(all(q)).toEqual(model.items)
    model.items.forEach((e, i) => expect(q.rankOf(e.id, e.key)).toBe(i))
    // Drain completely: the queue must end empty and usable.
    while (model.items.length > 0) expect(q.shift()).toEqual(model.items.shift())
    expect(q.size).toBe(0)
    expect(q.peek()).toBeUndefined()
  }

  test.each([
    [1, 1, 0],
    [2, 4, 0],
    [3, 4, 500],
    [4, undefined, 0],
    [5, undefined, 2500],
  ])('seed %p, chunk size %p, %p entries at start', (seed, chunkSize, startSize) => {
    run(seed, chunkSize, startSize)
  })
})

describe('queueKey', () => {
  test('orders the priority class before time', () => {
    const now = Date.UTC(2026, 0, 5)
    expect(queueKey(0, now + 1e9)).toBeLessThan(queueKey(1, 0))
    expect(queueKey(1, 2 ** 44 - 1)).toBeLessThan(queueKey(2, 0))
    expect(queueKey(2, now)).toBeLessThan(queueKey(2, now + 1))
    expect(queueKey(0, 0)).toBe(0)
    expect(queueKey(2, now)).toBe(2 * 2 ** 44 + now)
    // The largest key is still an exact integer.
    expect(Number.isSafeInteger(queueKey(2, 2 ** 44 - 1))).toBe(true)
  })

  test('RangeError outside [0, 2**44)', () => {
    expect(() => queueKey(0, -1)).toThrow(RangeError)
    expect(() => queueKey(0, 2 ** 44)).toThrow(RangeError)
    expect(() => queueKey(1, Number.NaN)).toThrow(RangeError)
    expect(() => queueKey(1, 1.5)).toThrow(RangeError)
    expect(() => queueKey(3 as 0, 0)).toThrow(RangeError)
    expect(queueKey(0, 2 ** 44 - 1)).toBe(2 ** 44 - 1)
  })
})
