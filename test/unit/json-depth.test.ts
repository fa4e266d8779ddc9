import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { jsonShape, MAX_JSON_DEPTH } from '../../src/http/json-depth'
import { canonicalJson, fingerprintOf } from '../../src/http/idempotency'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** The reference: nesting depth counted by recursion over the parsed value. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0
  const children = Array.isArray(value) ? value : Object.values(value)
  return 1 + children.reduce<number>((most, child) => Math.max(most, depthOf(child)), 0)
}

/** The reference: the most members any one object has. */
function membersOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0
  const children = Array.isArray(value) ? value : Object.values(value)
  const own = Array.isArray(value) ? 0 : children.length
  return children.reduce<number>((most, child) => Math.max(most, membersOf(child)), own)
}

/** The reference: array items and object members in all. */
function valuesOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0
  const children = Array.isArray(value) ? value : Object.values(value)
  return children.length + children.reduce<number>((sum, child) => sum + valuesOf(child), 0)
}

/** The recursive canonical JSON the fingerprint used before: the iterative one must match it byte for byte. */
function recursiveCanonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(recursiveCanonical).join(',')}]`
  const entries = Object.keys(value as object)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${recursiveCanonical((value as Record<string, unknown>)[k])}`)
  return `{${entries.join(',')}}`
}

// Keys and strings that look like JSON syntax, so the scanner's string handling is exercised.
const trickyString = fc.oneof(fc.string(), fc.constantFrom('"', '\\', '\\"', '{', '[', '}', ']', ':', ',', '\\\\', '"]}', 'a\\"b{'))
const jsonValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { maxDepth: 40 },
    fc.constant(null),
    fc.boolean(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    trickyString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(trickyString, tie('value'), { maxKeys: 4 }),
  ),
})).value

describe('jsonShape', () => {
  test('depth: scalars 0, each array or object one more', () => {
    expect(jsonShape('1').depth).toBe(0)
    expect(jsonShape('"[{"').depth).toBe(0)
    expect(jsonShape('[]').depth).toBe(1)
    expect(jsonShape('{"a":[1,{"b":"]]]"}]}').depth).toBe(3)
    expect(jsonShape(' [ [ ] , [ [ ] ] ] ').depth).toBe(3)
  })

  test('brackets inside strings, escaped quotes and backslashes do not count', () => {
    expect(jsonShape('{"a\\"[[[":"\\\\","b":"\\"{{{"}').depth).toBe(1)
    expect(jsonShape('["\\\\\\"[", [1]]').depth).toBe(2)
  })

  test('values: array items and object members in all, none inside strings', () => {
    expect(jsonShape('[]').values).toBe(0)
    expect(jsonShape('[ ]').values).toBe(0)
    expect(jsonShape('[{},[],{"a":"[{,"}, [1, 2]]').values).toBe(7)
    expect(jsonShape(`[${Array(30_000).fill('1').join(',')}]`, { values: 20_000 }).values).toBe(20_001)
  })

  test('members: the most members of any one object, arrays not counted', () => {
    expect(jsonShape('{}').members).toBe(0)
    expect(jsonShape('{"a":1,"b":{"c":1,"d":2,"e":"x:y"}}').members).toBe(3)
    expect(jsonShape('[1,2,3,4]').members).toBe(0)
  })

  test('stops as soon as the depth passes the limit, so a megabyte of [ is cheap', () => {
    const text = '['.repeat(1_000_000)
    const started = performance.now()
    const shape = jsonShape(text, { depth: MAX_JSON_DEPTH })
    expect(performance.now() - started).toBeLessThan(20)
    expect(shape.depth).toBe(MAX_JSON_DEPTH + 1)
  })

  test('property: agrees with a recursive count on every JSON value', () => {
    fc.assert(
      fc.property(jsonValue, fc.boolean(), (value, pretty) => {
        const text = pretty ? JSON.stringify(value, null, 2) : JSON.stringify(value)
        const shape = jsonShape(text)
        expect(shape.depth).toBe(depthOf(value))
        expect(shape.members).toBe(membersOf(value))
        expect(shape.values).toBe(valuesOf(value))
      }),
      { numRuns: 500 },
    )
  })

  test('property: with the limit, values within it are measured exactly, deeper ones are caught', () => {
    fc.assert(
      fc.property(jsonValue, fc.integer({ min: 0, max: 40 }), (value, wrap) => {
        const text = '['.repeat(wrap) + JSON.stringify(value) + ']'.repeat(wrap)
        const depth = depthOf(value) + wrap
        const shape = jsonShape(text, { depth: MAX_JSON_DEPTH })
        if (depth <= MAX_JSON_DEPTH) expect(shape.depth).toBe(depth)
        else expect(shape.depth).toBe(MAX_JSON_DEPTH + 1)
      }),
      { numRuns: 300 },
    )
  })
})

describe('canonicalJson without recursion', () => {
  test('property: the same text as the recursive version', () => {
    fc.assert(
      fc.property(jsonValue, (value) => {
        expect(canonicalJson(value)).toBe(recursiveCanonical(value))
      }),
      { numRuns: 500 },
    )
  })

  test('a value nested 100,000 deep is fingerprinted, not a stack overflow', () => {
    let value: unknown = 1
    for (let i = 0; i < 100_000; i++) value = i % 2 ? [value] : { a: value }
    expect(fingerprintOf('POST', '/x', value)).toMatch(/^[0-9a-f]{64}$/)
  })
})
