import { createPublicKey, verify, type KeyObject } from 'node:crypto'

/**
 * Telnyx's callback signature (developers.telnyx.com/api-reference/callbacks/texml-call-initiated;
 * team-telnyx/telnyx-node src/lib/webhooks.ts): `telnyx-signature-ed25519` is base64 of an
 * Ed25519 signature of `${telnyx-timestamp}|${raw body}` under the account's public key (base64 of
 * the raw 32 bytes); `telnyx-timestamp` is unix seconds and is accepted within ±300 s of the
 * service's clock, as the SDK does. The same signature seen again inside that window is a replay.
 */

export const SIGNATURE_HEADER = 'telnyx-signature-ed25519'
export const TIMESTAMP_HEADER = 'telnyx-timestamp'
export const TOLERANCE_SECONDS = 300

// DER SPKI header of an Ed25519 public key (RFC 8410): node:crypto takes the raw key behind it.
const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')
/** Base64 of a 64-byte signature is 88 characters. */
const SIGNATURE_CHARS = 88
const TIMESTAMP = /^\d{1,12}$/

export type SignatureCheck = 'ok' | 'signature' | 'stale' | 'replay'

/**
 * A signed request's identity for replays: the signature covers the body and time only, not the
 * URL (a TeXML fetch and a redirect of the same call in the same second are signed alike), so
 * the path it came to is part of it.
 */
export const replayKey = (url: string, signature: string): string => `${url.replace(/^[a-z]+:\/\/[^/]+/i, '')}|${signature}`

/** Checks signatures, keeping the keys it has parsed and the signatures seen within the window (both bounded). */
export class TelnyxVerifier {
  private readonly keys = new Map<string, KeyObject | null>()
  /** Signature → the unix second it stops mattering (its timestamp + the window), oldest first. */
  private readonly seen = new Map<string, number>()

  constructor(private readonly limits = { keys: 1_000, seen: 100_000 }) {}

  /** `scope`: what besides the signature names the request (replayKey); the signature is seen once per scope. */
  check(publicKey: string, signature: string | null | undefined, timestamp: string | null | undefined, body: string, nowMs: number, scope = ''): SignatureCheck {
    if (!signature || !timestamp || signature.length !== SIGNATURE_CHARS || !TIMESTAMP.test(timestamp)) return 'signature'
    // The time first: a stale request (forged or not) costs no Ed25519 check.
    const now = Math.floor(nowMs / 1000)
    const at = Number(timestamp)
    if (Math.abs(now - at) > TOLERANCE_SECONDS) return 'stale'
    const key = this.keyOf(publicKey)
    const sig = Buffer.from(signature, 'base64')
    if (!key || sig.length !== 64) return 'signature'
    let good = false
    try {
      good = verify(null, Buffer.from(`${timestamp}|${body}`, 'utf8'), key, sig)
    } catch {
      good = false
    }
    if (!good) return 'signature'
    this.forget(now)
    const seenAs = `${scope}|${signature}`
    if (this.seen.has(seenAs)) return 'replay'
    this.seen.set(seenAs, at + TOLERANCE_SECONDS)
    // Bounded: past the cap the oldest goes (its timestamp will soon be stale anyway).
    if (this.seen.size > this.limits.seen) this.seen.delete(this.seen.keys().next().value!)
    return 'ok'
  }

  /** Drops signatures whose timestamps are out of the window (insertion order is roughly time order). */
  private forget(now: number): void {
    for (const [sig, until] of this.seen) {
      if (until >= now) break
      this.seen.delete(sig)
    }
  }

  private keyOf(publicKey: string): KeyObject | null {
    const known = this.keys.get(publicKey)
    if (known !== undefined) return known
    const raw = Buffer.from(publicKey, 'base64')
    let key: KeyObject | null = null
    if (raw.length === 32) {
      try {
        key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' })
      } catch {
        key = null
      }
    }
    if (this.keys.size >= this.limits.keys) this.keys.clear()
    this.keys.set(publicKey, key)
    return key
  }
}
