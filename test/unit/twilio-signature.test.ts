import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHash } from 'node:crypto'
import fc from 'fast-check'
import twilio from 'twilio'
import {
  formParams,
  signTwilioRequest,
  type TwilioParams,
  validateTwilioRequest,
  validateTwilioRequestWithBody,
} from '../../src/telephony/twilio/signature'

setDefaultTimeout(60_000)

/**
 * Issue 18 "Callbacks are authenticated": our X-Twilio-Signature check must agree with the
 * official `twilio` package's validateRequest for every URL, parameter set and signature.
 */

const token = fc.string({ minLength: 1, maxLength: 40 })
const url = fc.webUrl({ withQueryParameters: true, authoritySettings: { withPort: true, withUserInfo: true } })
const name = fc.oneof(fc.constantFrom('CallSid', 'CallStatus', 'To', 'From', 'StatusCallbackEvent', 'AnsweredBy', 'a', 'A', 'b'), fc.string({ minLength: 1, maxLength: 12 }))
const value = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('+12125550100', 'in-progress', "O'Brien & Sons", 'ä☎ 1+1=2', ''))
const params: fc.Arbitrary<TwilioParams> = fc.dictionary(name, fc.oneof(value, fc.array(value, { minLength: 1, maxLength: 4 })), { maxKeys: 8 })

/** The official helper's types take Record<string, any>; it mutates nothing. */
const official = (authToken: string, signature: string, u: string, p: TwilioParams): boolean =>
  twilio.validateRequest(authToken, signature, u, p as Record<string, unknown>)

/** A URL spelled with or without its default port, as Twilio may have signed it. */
function portVariant(u: string, withPort: boolean): string {
  const m = /^(https?:\/\/)([^/?#]*)(.*)$/i.exec(u)
  if (!m) return u
  const [, scheme, authority, rest] = m as unknown as [string, string, string, string]
  const host = authority.replace(/:\d*$/, '')
  if (!withPort) return scheme + host + rest
  return scheme + host + (scheme.toLowerCase() === 'https://' ? ':443' : ':80') + rest
}

describe('signTwilioRequest', () => {
  test("matches the official package's expected signature", () => {
    fc.assert(
      fc.property(token, url, params, (t, u, p) => {
        expect(signTwilioRequest(t, u, p)).toBe(twilio.getExpectedTwilioSignature(t, u, p as Record<string, unknown>))
      }),
      { numRuns: 500 },
    )
  })

  test('the published vectors (Twilio security docs, twilio-node tests: token "12345")', () => {
    const u = 'https://mycompany.com/myapp.php?foo=1&bar=2'
    const doc = (caller: string) => ({ CallSid: 'CA1234567890ABCDE', Caller: caller, Digits: '1234', From: caller, To: '+18005551212' })
    for (const [caller, expected] of [['+14158675310', 'GvWf1cFY/Q7PnoempGyD5oXAezc='], ['+14158675309', 'RSOYDt4T1cUTdK1PDd93/VVr8B8=']] as const) {
      expect(signTwilioRequest('12345', u, doc(caller))).toBe(expected)
      expect(validateTwilioRequest('12345', expected, u, doc(caller))).toBe(true)
      expect(official('12345', expected, u, doc(caller))).toBe(true)
    }
  })

  test('a repeated parameter signs each distinct value in sorted order', () => {
    const u = 'https://example.com/cb'
    const a = signTwilioRequest('tok', u, { StatusCallbackEvent: ['ringing', 'initiated', 'ringing'] })
    expect(a).toBe(signTwilioRequest('tok', u, { StatusCallbackEvent: ['initiated', 'ringing'] }))
    expect(official('tok', a, u, { StatusCallbackEvent: ['ringing', 'initiated'] })).toBe(true)
    expect(validateTwilioRequest('tok', a, u, { StatusCallbackEvent: ['initiated'] })).toBe(false)
  })
})

describe('validateTwilioRequest agrees with twilio.validateRequest', () => {
  test('for signatures Twilio made, over any spelling of the URL', () => {
    fc.assert(
      fc.property(token, url, params, fc.constantFrom('same', 'bare', 'ported'), (t, u, p, spelling) => {
        const signedUrl = spelling === 'same' ? u : portVariant(u, spelling === 'ported')
        const sig = signTwilioRequest(t, signedUrl, p)
        const ours = validateTwilioRequest(t, sig, u, p)
        expect(ours).toBe(official(t, sig, u, p))
        if (spelling === 'same') expect(ours).toBe(true)
      }),
      { numRuns: 500 },
    )
  })

  test('for arbitrary signatures (empty, random, base64-looking)', () => {
    fc.assert(
      fc.property(token, url, params, fc.oneof(fc.string({ maxLength: 40 }), fc.base64String({ minLength: 28, maxLength: 28 })), (t, u, p, sig) => {
        expect(validateTwilioRequest(t, sig, u, p)).toBe(official(t, sig, u, p))
      }),
      { numRuns: 300 },
    )
  })

  test('a missing signature fails', () => {
    expect(validateTwilioRequest('tok', undefined, 'https://example.com/', {})).toBe(false)
    expect(validateTwilioRequest('tok', null, 'https://example.com/', {})).toBe(false)
    expect(validateTwilioRequest('tok', '', 'https://example.com/', {})).toBe(false)
  })

  test('a URL that does not parse is refused, not thrown', () => {
    expect(validateTwilioRequest('tok', 'x', 'not a url', {})).toBe(false)
  })
})

/** One byte of a string changed to another printable byte. */
const mutate = (s: string, at: number, delta: number): string => {
  const bytes = Buffer.from(s, 'utf8')
  const i = at % bytes.length
  bytes[i] = 0x20 + ((bytes[i]! - 0x20 + delta) % 0x5f + 0x5f) % 0x5f
  return bytes.toString('latin1')
}

describe('any one-byte change fails', () => {
  const ascii = fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEF0123456789+-_.'), minLength: 1, maxLength: 16 })
  const asciiParams = fc.dictionary(fc.constantFrom('CallSid', 'CallStatus', 'To', 'From', 'Digits'), ascii, { minKeys: 1, maxKeys: 5 })
  const delta = fc.integer({ min: 1, max: 0x5e })

  test('of the signature, a parameter value, the path or the token', () => {
    fc.assert(
      fc.property(ascii, asciiParams, ascii, fc.nat(), delta, fc.constantFrom('signature', 'param', 'path', 'token'), (t, p, path, at, d, what) => {
        const u = `https://dialer.example.com/twilio/${path}?call=abc`
        const sig = signTwilioRequest(t, u, p)
        let [t2, u2, p2, sig2] = [t, u, { ...p }, sig]
        if (what === 'signature') sig2 = mutate(sig, at, d)
        else if (what === 'token') t2 = mutate(t, at, d)
        else if (what === 'path') u2 = `https://dialer.example.com/twilio/${mutate(path, at, d)}?call=abc`
        else {
          const key = Object.keys(p).sort()[at % Object.keys(p).length]!
          p2 = { ...p, [key]: mutate(p[key]!, at, d) }
        }
        fc.pre(sig2 !== sig || t2 !== t || u2 !== u || JSON.stringify(p2) !== JSON.stringify(p))
        expect(validateTwilioRequest(t2, sig2, u2, p2)).toBe(false)
        expect(official(t2, sig2, u2, p2)).toBe(false)
      }),
      { numRuns: 500 },
    )
  })

  test('adding or dropping a parameter fails', () => {
    const u = 'https://dialer.example.com/twilio/status'
    const p = { CallSid: 'CA1', CallStatus: 'ringing' }
    const sig = signTwilioRequest('tok', u, p)
    expect(validateTwilioRequest('tok', sig, u, p)).toBe(true)
    expect(validateTwilioRequest('tok', sig, u, { CallSid: 'CA1' })).toBe(false)
    expect(validateTwilioRequest('tok', sig, u, { ...p, AnsweredBy: 'human' })).toBe(false)
  })
})

describe('JSON bodies (bodySHA256)', () => {
  test('agrees with twilio.validateRequestWithBody', () => {
    fc.assert(
      fc.property(token, fc.json(), fc.boolean(), (t, body, tamper) => {
        const hash = createHash('sha256').update(body).digest('hex')
        const u = `https://dialer.example.com/twilio/json?bodySHA256=${hash}`
        const sig = signTwilioRequest(t, u, {})
        const sent = tamper ? `${body} ` : body
        const ours = validateTwilioRequestWithBody(t, sig, u, sent)
        expect(ours).toBe(twilio.validateRequestWithBody(t, sig, u, sent))
        expect(ours).toBe(!tamper)
      }),
      { numRuns: 200 },
    )
  })
})

describe('formParams', () => {
  test('repeated names become arrays and the signature matches the official one', () => {
    const body = 'To=%2B12125550100&StatusCallbackEvent=initiated&StatusCallbackEvent=ringing&From=%2B13125550111'
    const p = formParams(body)
    expect(p).toEqual({ To: '+12125550100', StatusCallbackEvent: ['initiated', 'ringing'], From: '+13125550111' })
    const sig = signTwilioRequest('tok', 'https://x.example/', p)
    expect(official('tok', sig, 'https://x.example/', p)).toBe(true)
  })
})

describe('the parameters are encoded once for every URL spelling tried', () => {
  test('any text, lone surrogates included, signs as the official package does', () => {
    const anyText = fc.string({ unit: 'binary', maxLength: 12 })
    const anyParams = fc.dictionary(anyText.filter((s) => s.length > 0), fc.oneof(anyText, fc.array(anyText, { minLength: 1, maxLength: 3 })), { maxKeys: 5 })
    // The URL may end in half a surrogate pair that the parameters' first character completes.
    fc.assert(
      fc.property(token, fc.constantFrom('', '\uD83D', 'x\uD800'), anyParams, (t, tail, p) => {
        const u = `https://dialer.example.com/twilio/calls/a/status${tail}`
        const expected = twilio.getExpectedTwilioSignature(t, u, p as Record<string, unknown>)
        expect(signTwilioRequest(t, u, p)).toBe(expected)
        expect(validateTwilioRequest(t, expected, u, p)).toBe(true)
      }),
      { numRuns: 500 },
    )
    expect(signTwilioRequest('tok', 'https://x.example/\uD83D', { '\uDE00': 'v' })).toBe(twilio.getExpectedTwilioSignature('tok', 'https://x.example/\uD83D', { '\uDE00': 'v' }))
  })

  test('a signature of the wrong length is refused before any hashing, as the official package refuses it', () => {
    const big: Record<string, string> = {}
    for (let i = 0; i < 100_000; i++) big[`F${i}`] = 'x'
    const u = 'https://dialer.example.com/twilio/calls/a/status'
    for (const sig of ['', 'AAAA', `${signTwilioRequest('tok', u, big)}=`]) {
      const started = performance.now()
      expect(validateTwilioRequest('tok', sig, u, big)).toBe(false)
      expect(performance.now() - started).toBeLessThan(5)
    }
    expect(official('tok', 'AAAA', u, { a: '1' })).toBe(false)
  })
})

describe('formParams', () => {
  test('fields named __proto__ and constructor are plain fields (a forged form once gave a 500)', () => {
    const params: Record<string, unknown> = formParams('__proto__=a&constructor=b&__proto__=c&toString=d')
    const field = (name: string) => Object.getOwnPropertyDescriptor(params, name)?.value
    expect(field('__proto__')).toEqual(['a', 'c'])
    expect(field('constructor')).toBe('b')
    expect(field('toString')).toBe('d')
    expect(Object.keys(params)).toEqual(['__proto__', 'constructor', 'toString'])
  })
})
