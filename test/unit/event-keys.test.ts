import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { EVENT_EPOCH_MS, eventKeyMaker, firstSeqOf, IDS_PER_MS, seqRangeOf } from '../../src/db/event-keys'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const AT = Date.UTC(2026, 0, 5, 15, 0, 0, 123)
const UUID_V7 = /^evt_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/

/** A maker on a clock the test moves. */
function makerAt(start: number, lastSeq: number | null = null) {
  let now = start
  const make = eventKeyMaker(lastSeq)
  const next = () => make(now)
  return { next, set: (ms: number) => (now = ms) }
}

describe('eventKeyMaker', () => {
  test('ids are uuid v7 after evt_, carry the clock millisecond, and sort as their seq does', () => {
    const { next, set } = makerAt(AT)
    const keys = [next(), next()]
    set(AT + 1)
    keys.push(next())
    set(AT + 5_000)
    keys.push(next(), next())
    for (const key of keys) {
      expect(key.id).toMatch(UUID_V7)
      expect(Number.isSafeInteger(key.seq)).toBe(true)
    }
    expect(parseInt(keys[0]!.id.slice(4, 16), 16)).toBe(AT)
    expect(keys.map((k) => k.seq)).toEqual([firstSeqOf(AT), firstSeqOf(AT) + 1, firstSeqOf(AT + 1), firstSeqOf(AT + 5_000), firstSeqOf(AT + 5_000) + 1])
    expect([...keys].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(keys)
    expect(new Set(keys.map((k) => k.id)).size).toBe(keys.length)
  })

  test('the last 64 bits are the variant and random bits: all four variant digits, no tail twice', () => {
    const { next } = makerAt(AT)
    const ids = Array.from({ length: 2_000 }, () => next().id)
    const variants = new Map<string, number>()
    for (const id of ids) variants.set(id[20]!, (variants.get(id[20]!) ?? 0) + 1)
    expect([...variants.keys()].sort()).toEqual(['8', '9', 'a', 'b'])
    for (const count of variants.values()) expect(count).toBeGreaterThan(350)
    expect(new Set(ids.map((id) => id.slice(20))).size).toBe(ids.length)
  })

  test('a millisecond holds IDS_PER_MS keys; the next one goes on in the following millisecond', () => {
    const { next } = makerAt(AT)
    const keys = Array.from({ length: IDS_PER_MS + 2 }, next)
    expect(keys[IDS_PER_MS - 1]!.seq).toBe(firstSeqOf(AT) + IDS_PER_MS - 1)
    expect(keys[IDS_PER_MS]!.seq).toBe(firstSeqOf(AT + 1))
    expect(keys[IDS_PER_MS]!.id.slice(4, 16)).toBe((AT + 1).toString(16).padStart(12, '0'))
    const seqs = keys.map((k) => k.seq)
    expect(seqs.every((s, i) => i === 0 || s === seqs[i - 1]! + 1)).toBe(true)
  })

  test('a clock that goes back does not take the keys back', () => {
    const { next, set } = makerAt(AT)
    const first = next()
    set(AT - 60_000)
    const second = next()
    expect(second.seq).toBe(first.seq + 1)
    expect(second.id > first.id).toBe(true)
  })

  test('a new maker starts after the millisecond of the last stored seq', () => {
    const lastSeq = firstSeqOf(AT) + 7
    const sameMs = makerAt(AT, lastSeq).next()
    expect(sameMs.seq).toBe(firstSeqOf(AT + 1))
    const later = makerAt(AT + 10, lastSeq).next()
    expect(later.seq).toBe(firstSeqOf(AT + 10))
    // A clock behind the stored events (restored backup, fake clock) still continues after them.
    const behind = makerAt(AT - 86_400_000, lastSeq).next()
    expect(behind.seq).toBe(firstSeqOf(AT + 1))
  })

  test('a clock before the epoch counts as the epoch', () => {
    const key = makerAt(Date.UTC(2019, 5, 1)).next()
    expect(key.seq).toBe(0)
    expect(parseInt(key.id.slice(4, 16), 16)).toBe(EVENT_EPOCH_MS)
  })
})

describe('seqRangeOf', () => {
  test('the range of an id holds its seq, for made ids and ids of the older format alike', () => {
    const { next } = makerAt(AT)
    for (let i = 0; i < 5; i++) {
      const key = next()
      const range = seqRangeOf(key.id)!
      expect(range.from).toBe(firstSeqOf(AT))
      expect(range.to).toBe(firstSeqOf(AT) + IDS_PER_MS - 1)
      expect(key.seq >= range.from && key.seq <= range.to).toBe(true)
    }
    // Before migration 0012 ids were random after their millisecond: the range is still that millisecond's.
    expect(seqRangeOf('evt_019b8f0a5e007c3a9d1f2e3b4c5d6e7f')!.from).toBe(firstSeqOf(0x019b8f0a5e00))
  })

  test.each(['evt_123', 'evt_0123456789ABCDEF0123456789ABCDEF', 'wd_0123456789abcdef0123456789abcdef', ''])('%p is no event id', (id) => {
    expect(seqRangeOf(id)).toBeNull()
  })
})
