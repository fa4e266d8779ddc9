import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { BoundedMemo } from '../../src/memo'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

describe('BoundedMemo', () => {
  test('keeps the last generation whole and forgets what is two generations old', () => {
    const memo = new BoundedMemo<string, number>(3)
    for (let i = 0; i < 6; i++) memo.set(`k${i}`, i)
    // k0..k2 became the older generation when k3 came, then k3..k5 filled the newer one.
    expect([0, 1, 2, 3, 4, 5].map((i) => memo.get(`k${i}`))).toEqual([0, 1, 2, 3, 4, 5])
    memo.set('k6', 6)
    expect(memo.get('k0')).toBeUndefined()
    expect([3, 4, 5, 6].map((i) => memo.get(`k${i}`))).toEqual([3, 4, 5, 6])
  })

  test('a null answer is kept (a header that cannot be read stays unreadable)', () => {
    const memo = new BoundedMemo<string, null>(2)
    memo.set('x', null)
    expect(memo.get('x')).toBeNull()
    expect(memo.get('y')).toBeUndefined()
  })
})
