import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { refuseDeclaredSize } from '../../src/http/body-reader'
import { CALLBACK_MAX_BYTES, checkCallbackFields, formFieldCount, TWILIO_FORM } from '../../src/http/callback-body'
import { refusalOf } from './thrown'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Twilio callback forms are refused by size and field count before any signature work.

describe('formFieldCount', () => {
  test.each([
    ['', 0],
    ['a=1', 1],
    ['a=1&b=2', 2],
    ['a', 1],
    ['&&&', 0],
    ['a=1&&b=2&', 2],
    ['=&=', 2],
    ['a=1&a=2', 2],
    ['?', 0],
    ['?a=1&?b', 2],
  ])('%p has %i fields', (form, count) => {
    expect(formFieldCount(form)).toBe(count)
  })

  test('counts what URLSearchParams reads', () => {
    const part = fc.oneof(fc.constantFrom('', '=', 'a', 'a=', '=b', 'a=b', '%26', 'x=%3D', '?', '?a'), fc.string({ maxLength: 6 }).map((s) => s.replaceAll('&', '')))
    fc.assert(
      fc.property(fc.array(part, { maxLength: 30 }), (parts) => {
        const form = parts.join('&')
        expect(formFieldCount(form)).toBe([...new URLSearchParams(form)].length)
      }),
      { numRuns: 2_000 },
    )
  })

  test('stops counting once past the limit', () => {
    expect(formFieldCount('a&'.repeat(1_000_000), 200)).toBe(201)
  })
})

describe('the checks', () => {
  test('200 fields pass, 201 are 400 invalid_request', () => {
    const form = (n: number) => Array.from({ length: n }, (_, i) => `F${i}=v`).join('&')
    expect(refusalOf(() => checkCallbackFields(form(200)))).toBeNull()
    const refused = refusalOf(() => checkCallbackFields(form(201)))
    expect([refused?.status, refused?.code, refused?.param]).toEqual([400, 'invalid_request', null])
  })

  test('a declared size over 64 KB is 413 payload_too_large; at the cap, or undeclared, it is read', () => {
    const request = (length: string | null) => new Request('http://x/twilio/calls/a/status', { method: 'POST', headers: length === null ? {} : { 'content-length': length } })
    expect(CALLBACK_MAX_BYTES).toBe(65_536)
    expect(refusalOf(() => refuseDeclaredSize(request(String(CALLBACK_MAX_BYTES)), TWILIO_FORM))).toBeNull()
    expect(refusalOf(() => refuseDeclaredSize(request(null), TWILIO_FORM))).toBeNull()
    const refused = refusalOf(() => refuseDeclaredSize(request(String(CALLBACK_MAX_BYTES + 1)), TWILIO_FORM))
    expect([refused?.status, refused?.code, refused?.type]).toEqual([413, 'payload_too_large', 'invalid_request_error'])
  })
})
