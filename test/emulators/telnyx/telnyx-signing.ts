import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto'

/**
 * Telnyx's webhook signature, as its reference and official SDK describe it
 * (developers.telnyx.com/api-reference/callbacks/texml-call-initiated: headers `telnyx-timestamp`,
 * Unix seconds, and `telnyx-signature-ed25519`, base64 of an Ed25519 signature of
 * `timestamp|payload`; team-telnyx/telnyx-node src/lib/webhooks.ts: the public key is base64 of
 * the raw 32-byte key). The emulator signs with a test key pair made from a fixed seed, so its
 * public key is the same on every run unless a test asks for another seed.
 */

const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

export const DEFAULT_KEY_SEED = 'dialer-telnyx-emulator-test-key!' // 32 bytes

export interface TestKeyPair {
  privateKey: KeyObject
  /** Base64 of the raw 32-byte public key (what an organization's carrier.public_key holds). */
  publicKey: string
}

/** An Ed25519 key pair from a 32-byte seed (a string of 32 ASCII characters or 32 bytes). */
export function keyPairFromSeed(seed: string | Uint8Array = DEFAULT_KEY_SEED): TestKeyPair {
  const bytes = typeof seed === 'string' ? Buffer.from(seed, 'utf8') : Buffer.from(seed)
  if (bytes.length !== 32) throw new Error('An Ed25519 seed is 32 bytes.')
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, bytes]), format: 'der', type: 'pkcs8' })
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' })
  return { privateKey, publicKey: spki.subarray(spki.length - 32).toString('base64') }
}

/** The two headers Telnyx sends with a callback whose raw body is `body`. */
export function signedHeaders(privateKey: KeyObject, timestamp: number, body: string): { 'telnyx-timestamp': string; 'telnyx-signature-ed25519': string } {
  const signature = sign(null, Buffer.from(`${timestamp}|${body}`, 'utf8'), privateKey).toString('base64')
  return { 'telnyx-timestamp': String(timestamp), 'telnyx-signature-ed25519': signature }
}

const SPKI_ED25519_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

/** For tests: does `signature` (base64) sign `${timestamp}|${body}` under `publicKey` (base64, raw 32 bytes)? */
export function verifySignature(publicKey: string, timestamp: string, body: string, signature: string): boolean {
  const raw = Buffer.from(publicKey, 'base64')
  const sig = Buffer.from(signature, 'base64')
  if (raw.length !== 32 || sig.length !== 64) return false
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, raw]), format: 'der', type: 'spki' })
  return verify(null, Buffer.from(`${timestamp}|${body}`, 'utf8'), key, sig)
}
