import { afterEach, describe, expect, setDefaultTimeout, setSystemTime, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { Webhook, WebhookVerificationError } from 'standardwebhooks'
import { newSecret, signatureHeader } from '../../src/domain/webhooks/signature'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * DESIGN.md "Signature": the Standard Webhooks scheme, `v1,<base64 HMAC-SHA256 of
 * "{id}.{timestamp}.{body}">` keyed by the base64 after `whsec_`, space-separated when two
 * secrets sign. The `standardwebhooks` package is the reference.
 */

const ID = 'evt_019b8f0a5e007c3a9d1f2e3b4c5d6e7f'
const TS = 1767625200 // 2026-01-05T15:00:00Z
const BODY = '{"id":"evt_019b8f0a5e007c3a9d1f2e3b4c5d6e7f","type":"lead.created","data":{"object":{"name":"Zoë Ñúñez ☎"}}}'

afterEach(() => setSystemTime())

function verifyAt(secret: string, headers: Record<string, string>, body: string, atSeconds = TS): unknown {
  setSystemTime(new Date(atSeconds * 1000))
  try {
    return new Webhook(secret).verify(body, headers)
  } finally {
    setSystemTime()
  }
}

describe('newSecret', () => {
  test('whsec_ + base64 of 24 random bytes, different each time', () => {
    const secrets = Array.from({ length: 20 }, newSecret)
    for (const secret of secrets) {
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(24)
      // The package accepts it as a key.
      expect(() => new Webhook(secret)).not.toThrow()
    }
    expect(new Set(secrets).size).toBe(20)
  })
})

describe('signatureHeader', () => {
  test('the Standard Webhooks published example', () => {
    // From the Standard Webhooks / Svix documentation.
    const header = signatureHeader(['whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'], 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')
    expect(header).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=')
  })

  test('one secret: equal to the package sign() for the same inputs', () => {
    for (let i = 0; i < 10; i++) {
      const secret = newSecret()
      const body = `${BODY}${'x'.repeat(i * 37)}`
      const ts = TS + i * 7919
      expect(signatureHeader([secret], ID, ts, body)).toBe(new Webhook(secret).sign(ID, new Date(ts * 1000), body))
    }
  })

  test('exact HMAC-SHA256 of "{id}.{timestamp}.{body}" under the decoded key', () => {
    const key = Buffer.from('0123456789abcdef01234567', 'utf8')
    const secret = `whsec_${key.toString('base64')}`
    const expected = createHmac('sha256', key).update(`${ID}.${TS}.${BODY}`, 'utf8').digest('base64')
    expect(signatureHeader([secret], ID, TS, BODY)).toBe(`v1,${expected}`)
    // A secret without the prefix is the same base64 key.
    expect(signatureHeader([key.toString('base64')], ID, TS, BODY)).toBe(`v1,${expected}`)
  })

  test('two secrets: two space-separated signatures, in the given order, each one verifying', () => {
    const current = newSecret()
    const previous = newSecret()
    const header = signatureHeader([current, previous], ID, TS, BODY)
    const parts = header.split(' ')
    expect(parts).toEqual([
      new Webhook(current).sign(ID, new Date(TS * 1000), BODY),
      new Webhook(previous).sign(ID, new Date(TS * 1000), BODY),
    ])
    const headers = { 'webhook-id': ID, 'webhook-timestamp': String(TS), 'webhook-signature': header }
    expect(verifyAt(current, headers, BODY)).toEqual(JSON.parse(BODY))
    expect(verifyAt(previous, headers, BODY)).toEqual(JSON.parse(BODY))
    expect(() => verifyAt(newSecret(), headers, BODY)).toThrow(WebhookVerificationError)
  })

  test('the package verifies a header made here; any change to id, timestamp or body breaks it', () => {
    const secret = newSecret()
    const headers = { 'webhook-id': ID, 'webhook-timestamp': String(TS), 'webhook-signature': signatureHeader([secret], ID, TS, BODY) }
    expect(verifyAt(secret, headers, BODY)).toEqual(JSON.parse(BODY))
    expect(() => verifyAt(secret, { ...headers, 'webhook-id': `${ID.slice(0, -1)}0` }, BODY)).toThrow(WebhookVerificationError)
    expect(() => verifyAt(secret, { ...headers, 'webhook-timestamp': String(TS + 1) }, BODY)).toThrow(WebhookVerificationError)
    expect(() => verifyAt(secret, headers, BODY.replace('Zoë', 'Zoe'))).toThrow(WebhookVerificationError)
    // The package's 5-minute tolerance is about "now", which the caller controls.
    expect(() => verifyAt(secret, headers, BODY, TS + 301)).toThrow(WebhookVerificationError)
    expect(verifyAt(secret, headers, BODY, TS + 300)).toEqual(JSON.parse(BODY))
  })

  test('no secrets: an empty header', () => {
    expect(signatureHeader([], ID, TS, BODY)).toBe('')
  })
})
