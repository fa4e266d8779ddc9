import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { replayKey, TelnyxVerifier, TOLERANCE_SECONDS } from '../../src/telephony/telnyx/signature'
import { keyPairFromSeed, signedHeaders } from '../emulators/telnyx/telnyx-signing'

setDefaultTimeout(60_000)

// Telnyx's Ed25519 callback signature over `timestamp|body`, checked against the service's clock.

const keys = keyPairFromSeed()
const other = keyPairFromSeed('another-key-that-telnyx-never-us')
const NOW = 1_767_625_200_000
const BODY = 'AccountSid=6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b&CallSid=v3%3Aabc&CallStatus=ringing'
const signed = (body = BODY, at = NOW / 1000, key = keys.privateKey) => signedHeaders(key, at, body)

describe('TelnyxVerifier', () => {
  test('a signature of the body at the current time is good, once per request (the same again is a replay)', () => {
    const v = new TelnyxVerifier()
    const h = signed()
    expect(v.check(keys.publicKey, h['telnyx-signature-ed25519'], h['telnyx-timestamp'], BODY, NOW, '/telnyx/calls/c/status')).toBe('ok')
    expect(v.check(keys.publicKey, h['telnyx-signature-ed25519'], h['telnyx-timestamp'], BODY, NOW + 1000, '/telnyx/calls/c/status')).toBe('replay')
    // The signature does not cover the URL: the same signed body to another step is its own request.
    expect(v.check(keys.publicKey, h['telnyx-signature-ed25519'], h['telnyx-timestamp'], BODY, NOW, '/telnyx/calls/c/bridge')).toBe('ok')
  })

  test('another key, another body, another timestamp than the signed one, or a malformed header: refused', () => {
    const v = new TelnyxVerifier()
    const h = signed()
    const sig = h['telnyx-signature-ed25519']
    expect(v.check(other.publicKey, sig, h['telnyx-timestamp'], BODY, NOW)).toBe('signature')
    expect(v.check(keys.publicKey, sig, h['telnyx-timestamp'], `${BODY}&Digits=1`, NOW)).toBe('signature')
    expect(v.check(keys.publicKey, sig, String(NOW / 1000 + 1), BODY, NOW)).toBe('signature')
    expect(v.check(keys.publicKey, signed(BODY, NOW / 1000, other.privateKey)['telnyx-signature-ed25519'], h['telnyx-timestamp'], BODY, NOW)).toBe('signature')
    const flipped = `${sig.slice(0, 10)}${sig[10] === 'A' ? 'B' : 'A'}${sig.slice(11)}`
    for (const bad of [null, '', 'x', flipped, sig.slice(1), `${sig} `]) expect(v.check(keys.publicKey, bad, h['telnyx-timestamp'], BODY, NOW)).toBe('signature')
    for (const ts of [null, '', '1.5', '-1', ' 1767625200', '17676252001234567']) expect(v.check(keys.publicKey, sig, ts, BODY, NOW)).toBe('signature')
    // A public key that is not 32 bytes verifies nothing.
    expect(v.check(Buffer.alloc(31).toString('base64'), sig, h['telnyx-timestamp'], BODY, NOW)).toBe('signature')
  })

  test('±300 s of the service clock: inside is good, outside is stale (either side)', () => {
    const v = new TelnyxVerifier()
    const at = (offset: number) => signed(BODY, NOW / 1000 + offset)
    for (const offset of [-TOLERANCE_SECONDS, TOLERANCE_SECONDS, 0]) {
      const h = at(offset)
      expect(v.check(keys.publicKey, h['telnyx-signature-ed25519'], h['telnyx-timestamp'], BODY, NOW, String(offset))).toBe('ok')
    }
    for (const offset of [-TOLERANCE_SECONDS - 1, TOLERANCE_SECONDS + 1, -86_400]) {
      const h = at(offset)
      expect(v.check(keys.publicKey, h['telnyx-signature-ed25519'], h['telnyx-timestamp'], BODY, NOW)).toBe('stale')
    }
  })

  test('the replay memory is bounded, and a signature out of its window is stale rather than remembered', () => {
    const v = new TelnyxVerifier({ keys: 10, seen: 3 })
    const hs = [0, 1, 2, 3].map((i) => signed(`${BODY}&n=${i}`))
    hs.forEach((h, i) => expect(v.check(keys.publicKey, h['telnyx-signature-ed25519'], h['telnyx-timestamp'], `${BODY}&n=${i}`, NOW)).toBe('ok'))
    // The oldest was let go past the cap; the newest is still known.
    expect(v.check(keys.publicKey, hs[3]!['telnyx-signature-ed25519'], hs[3]!['telnyx-timestamp'], `${BODY}&n=3`, NOW)).toBe('replay')
    expect(v.check(keys.publicKey, hs[0]!['telnyx-signature-ed25519'], hs[0]!['telnyx-timestamp'], `${BODY}&n=0`, NOW)).toBe('ok')
    expect(v.check(keys.publicKey, hs[1]!['telnyx-signature-ed25519'], hs[1]!['telnyx-timestamp'], `${BODY}&n=1`, NOW + 301_000)).toBe('stale')
  })

  test('replayKey: the path and the signature, the origin left out', () => {
    expect(replayKey('https://dialer.example.com/telnyx/calls/c/status?leg=1', 'SIG')).toBe('/telnyx/calls/c/status?leg=1|SIG')
  })
})
