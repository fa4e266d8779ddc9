import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { classifyFromTable, classifyPhone, classifyWithLibrary, normalizedOrNull, restoreQueryPlus, type PhoneClass } from '../../src/domain/phone/phone-number'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

describe('classifyPhone: common US formats', () => {
  // All of these are the same San Francisco number, written the ways people write it.
  test.each([
    '(415) 555-2671',
    '415.555.2671',
    '415-555-2671',
    '415 555 2671',
    '4155552671',
    '1-415-555-2671',
    '1 (415) 555-2671',
    '+1 415 555 2671',
    '+1 (415) 555-2671',
    '+14155552671',
    '  (415) 555-2671  ',
    '415-555-2671 ext. 12',
    '415-555-2671 x12',
  ])('%p -> +14155552671, domestic US', (raw) => {
    expect(classifyPhone(raw)).toEqual({ kind: 'domestic', e164: '+14155552671', country: 'US', areaCode: '415' })
  })
})

describe('classifyPhone: fictional NANP 555-0100..555-0199', () => {
  test.each([
    ['415-555-0100', '+14155550100', '415'],
    ['415-555-0199', '+14155550199', '415'],
    ['(212) 555-0123', '+12125550123', '212'],
    ['+1 604 555 0150', '+16045550150', '604'],
    // Any [2-9]XX area code, even unassigned ones and 555 itself: test keys use them.
    ['+1 200 555 0150', '+12005550150', '200'],
    ['+1 555 555 0150', '+15555550150', '555'],
    ['+1 999 555 0150', '+19995550150', '999'],
    ['415-555-0100 ext 5', '+14155550100', '415'],
  ])('%p -> fictional %s', (raw, e164, areaCode) => {
    expect(classifyPhone(raw)).toEqual({ kind: 'fictional', e164, areaCode })
  })

  test.each([
    ['415-555-0099', '+14155550099'],
    ['415-555-0200', '+14155550200'],
    ['415-555-1000', '+14155551000'],
  ])('%p just outside the range is an ordinary domestic number', (raw, e164) => {
    expect(classifyPhone(raw)).toEqual({ kind: 'domestic', e164, country: 'US', areaCode: '415' })
  })

  test.each(['+1 123 555 0150', '+1 023 555 0150'])('%p: area code starting 0/1 is not fictional but invalid', (raw) => {
    expect(classifyPhone(raw).kind).toBe('invalid')
  })
})

describe('classifyPhone: premium rate', () => {
  test.each([
    ['+1 900 555 1234', '+19005551234'],
    ['+1 900 200 1234', '+19002001234'],
    ['1-900-200-1234', '+19002001234'],
    // A 976 exchange is premium under any area code.
    ['212-976-1234', '+12129761234'],
    ['415-976-1234', '+14159761234'],
    ['+1 416 976 1234', '+14169761234'],
    ['800 976 1234', '+18009761234'],
  ])('%p -> premium', (raw, e164) => {
    expect(classifyPhone(raw)).toEqual({ kind: 'premium', e164 })
  })
})

describe('classifyPhone: domestic means US or CA', () => {
  test.each([
    ['+1 604 253 1234', '+16042531234', 'CA', '604'],
    ['+1 (604) 555-2671', '+16045552671', 'CA', '604'],
    ['+1 800 555 1234', '+18005551234', 'US', '800'],
    ['+1 888 555 1234', '+18885551234', 'US', '888'],
    ['(212) 253-1234', '+12122531234', 'US', '212'],
  ])('%p -> domestic %s', (raw, e164, country, areaCode) => {
    expect(classifyPhone(raw)).toEqual({ kind: 'domestic', e164, country: country as 'US' | 'CA', areaCode })
  })
})

describe('classifyPhone: international', () => {
  // DESIGN.md: other +1 countries (Caribbean, US territories) are not domestic.
  test.each([
    ['+1 876 927 1234', '+18769271234', 'JM'],
    ['+1 876 555 1234', '+18765551234', 'JM'],
    ['+1 787 722 1234', '+17877221234', 'PR'],
    ['+1 787 555 1234', '+17875551234', 'PR'],
    ['+44 20 7946 0958', '+442079460958', 'GB'],
    ['+33 1 23 45 67 89', '+33123456789', 'FR'],
  ])('%p -> international %s', (raw, e164, country) => {
    expect(classifyPhone(raw)).toEqual({ kind: 'international', e164, country })
  })

  test('+44 mobile is international, not domestic', () => {
    const phone = classifyPhone('+44 7911 123456')
    expect(phone.kind).toBe('international')
    expect(normalizedOrNull(phone)).toBe('+447911123456')
  })
})

describe('classifyPhone: unreadable and invalid', () => {
  test.each(['hello', '', '   ', '+', '++1'])('%p -> unreadable', (raw) => {
    expect(classifyPhone(raw)).toEqual({ kind: 'unreadable' })
  })

  test.each([
    ['123', '+1123'],
    ['555-1234', '+15551234'],
    ['555-0150', '+15550150'],
    ['+1 123 456 7890', '+11234567890'],
    ['+1 415 555 267', '+1415555267'],
    ['+1 415 555 26712', '+141555526712'],
  ])('%p -> invalid with e164 %s', (raw, e164) => {
    expect(classifyPhone(raw)).toEqual({ kind: 'invalid', e164 })
  })

  test.each(['+999 1234567', '+0 123 4567', '1'])('%p -> invalid with no e164 (libphonenumber gave up)', (raw) => {
    expect(classifyPhone(raw)).toEqual({ kind: 'invalid', e164: null })
  })
})

describe('normalizedOrNull', () => {
  test.each<[PhoneClass, string | null]>([
    [{ kind: 'unreadable' }, null],
    [{ kind: 'invalid', e164: null }, null],
    [{ kind: 'invalid', e164: '+1123' }, '+1123'],
    [{ kind: 'fictional', e164: '+14155550100', areaCode: '415' }, '+14155550100'],
    [{ kind: 'domestic', e164: '+14155552671', country: 'US', areaCode: '415' }, '+14155552671'],
    [{ kind: 'international', e164: '+442079460958', country: 'GB' }, '+442079460958'],
    [{ kind: 'premium', e164: '+19002001234' }, '+19002001234'],
  ])('%o -> %p', (phone, expected) => {
    expect(normalizedOrNull(phone)).toBe(expected)
  })

  test('end to end: another format of the same number gives the same normalized value', () => {
    expect(normalizedOrNull(classifyPhone('(415) 555-2671'))).toBe(normalizedOrNull(classifyPhone('+1.415.555.2671')))
    expect(normalizedOrNull(classifyPhone('hello'))).toBeNull()
  })
})

describe('restoreQueryPlus', () => {
  test.each([
    // An unencoded "+" in a query string arrives as a space.
    [' 14155552671', '+14155552671'],
    [' 44 20 7946 0958', '+44 20 7946 0958'],
    ['+14155552671', '+14155552671'],
    ['14155552671', '14155552671'],
    ['(415) 555-2671', '(415) 555-2671'],
    [' (415) 555-2671', ' (415) 555-2671'],
    ['  14155552671', '  14155552671'],
    [' hello', ' hello'],
    ['', ''],
  ])('%p -> %p', (input, expected) => {
    expect(restoreQueryPlus(input)).toBe(expected)
  })

  test('a restored query value classifies as the number meant', () => {
    expect(classifyPhone(restoreQueryPlus(' 442079460958')).kind).toBe('international')
  })
})

describe('classifyPhone memo', () => {
  test('answers stay right after the memo has turned over twice', () => {
    const first = classifyPhone('(212) 212-0001')
    for (let i = 0; i < 25_000; i++) classifyPhone(`+1212${300 + Math.floor(i / 10_000)}${String(i % 10_000).padStart(4, '0')}`)
    expect(classifyPhone('(212) 212-0001')).toEqual(first)
    expect(classifyPhone('+1212300' + '0042')).toEqual({ kind: 'domestic', e164: '+12123000042', country: 'US', areaCode: '212' })
  })
})

describe('classifyFromTable (generated from libphonenumber-js)', () => {
  test.each([
    ['+12125550123', { kind: 'fictional', e164: '+12125550123', areaCode: '212' }],
    ['+12125551234', { kind: 'domestic', e164: '+12125551234', country: 'US', areaCode: '212' }],
    ['+14165551234', { kind: 'domestic', e164: '+14165551234', country: 'CA', areaCode: '416' }],
    ['+18765551234', { kind: 'international', e164: '+18765551234', country: 'JM' }],
    ['+19005551234', { kind: 'premium', e164: '+19005551234' }],
    ['+12129761234', { kind: 'premium', e164: '+12129761234' }],
    ['+12120551234', { kind: 'invalid', e164: '+12120551234' }],
  ])('%s', (raw, expected) => {
    expect(classifyFromTable(raw)).toEqual(expected as PhoneClass)
    expect(classifyWithLibrary(raw)).toEqual(expected as PhoneClass)
  })

  test.each(['(212) 555-1234', '+1 212 555 1234', '12125551234', '+442071838750', '+11235551234', ' +12125551234'])(
    'anything but +1 and ten digits is left to the library: %p',
    (raw) => {
      expect(classifyFromTable(raw)).toBeNull()
    },
  )

  test('gives the library\'s answer for 20,000 random +1 numbers (every area code 200-999)', () => {
    // A seeded generator, so a failure can be replayed.
    let seed = 20261122
    const next = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    let fromTable = 0
    for (let i = 0; i < 20_000; i++) {
      const area = 200 + (i % 800)
      const raw = `+1${area}${String(next(1000)).padStart(3, '0')}${String(next(10000)).padStart(4, '0')}`
      const table = classifyFromTable(raw)
      if (table === null) continue
      fromTable++
      expect(table, raw).toEqual(classifyWithLibrary(raw))
    }
    // Nearly every exchange is in the table; '?' ones go to the library.
    expect(fromTable).toBeGreaterThan(19_900)
  })
})
