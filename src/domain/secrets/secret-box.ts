import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto'

/**
 * Secrets at rest (a carrier's auth token): AES-256-GCM under the service's secret key
 * (DIALER_SECRET_KEY, or the key file minted in the data directory: secret-key-file.ts).
 *
 * A sealed value is `v1.<key id>.<nonce>.<ciphertext and tag>` (base64url parts): the version
 * says how to open it, the key id which key sealed it, so a changed key is reported as such
 * rather than as damage, and the 12-byte nonce is fresh for every seal. The caller's
 * `context` (e.g. "org:<id>:twilio_auth_token") is authenticated too, so a sealed value
 * copied to another row does not open there.
 */

export const SECRET_KEY_BYTES = 32
const VERSION = 'v1'
const NONCE_BYTES = 12
const TAG_BYTES = 16

/** Why a sealed value did not open; the message never holds the secret or the key. */
export class SecretBoxError extends Error {
  constructor(
    readonly reason: 'malformed' | 'wrong_key' | 'tampered',
    message: string,
  ) {
    super(message)
    this.name = 'SecretBoxError'
  }
}

export const SECRET_KEY_FORMAT =
  'DIALER_SECRET_KEY must be 32 bytes written as 64 hex characters or as base64 (make one with `openssl rand -hex 32`)'

/**
 * DIALER_SECRET_KEY as 32 bytes: 64 hex characters, or base64 / base64url (padding
 * optional). Null when it is neither; the caller words the error (never echoing the value).
 */
export function parseSecretKey(raw: string): Buffer | null {
  const text = raw.trim()
  if (/^[0-9a-fA-F]{64}$/.test(text)) return Buffer.from(text, 'hex')
  // 32 bytes are 43 base64 characters and one '=' of padding.
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(text)) {
    const bytes = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
    if (bytes.length === SECRET_KEY_BYTES) return bytes
  }
  return null
}

/** A short public name of a key (HMAC of a fixed label): says which key sealed a value, reveals nothing of it. */
export function keyIdOf(key: Uint8Array): string {
  return createHmac('sha256', key).update('dialer secret key id').digest('hex').slice(0, 16)
}

export interface SecretBox {
  /** The key's id, as stamped on every value it seals. */
  readonly keyId: string
  seal(plaintext: string, context: string): string
  /** Throws SecretBoxError when the value is malformed, from another key, or changed. */
  open(sealed: string, context: string): string
}

export function secretBox(key: Uint8Array): SecretBox {
  if (key.length !== SECRET_KEY_BYTES) throw new Error(`a secret key is ${SECRET_KEY_BYTES} bytes, got ${key.length}`)
  // A copy, so a caller zeroing or reusing its buffer cannot change the box's key.
  const ownKey = Buffer.from(key)
  const keyId = keyIdOf(ownKey)
  return {
    keyId,
    seal(plaintext, context) {
      const nonce = randomBytes(NONCE_BYTES)
      const cipher = createCipheriv('aes-256-gcm', ownKey, nonce)
      cipher.setAAD(Buffer.from(`${VERSION}.${keyId}.${context}`))
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
      return `${VERSION}.${keyId}.${nonce.toString('base64url')}.${body.toString('base64url')}`
    },
    open(sealed, context) {
      const parts = sealed.split('.')
      if (parts.length !== 4 || parts[0] !== VERSION) {
        throw new SecretBoxError('malformed', `the stored secret is not a sealed value this version can open (expected ${VERSION}.<key id>.<nonce>.<data>)`)
      }
      const [, sealedBy, nonceText, bodyText] = parts as [string, string, string, string]
      if (sealedBy !== keyId) {
        throw new SecretBoxError(
          'wrong_key',
          `the stored secret was sealed with key ${sealedBy}, but this service's secret key is ${keyId}: ` +
            'DIALER_SECRET_KEY or the key file in the data directory changed (restore the key it was sealed with, or set the secret again)',
        )
      }
      const nonce = Buffer.from(nonceText, 'base64url')
      const body = Buffer.from(bodyText, 'base64url')
      if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES) {
        throw new SecretBoxError('malformed', 'the stored secret is truncated')
      }
      const decipher = createDecipheriv('aes-256-gcm', ownKey, nonce)
      decipher.setAAD(Buffer.from(`${VERSION}.${keyId}.${context}`))
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES))
      try {
        return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8')
      } catch {
        throw new SecretBoxError('tampered', 'the stored secret failed its integrity check (changed, or copied from another record)')
      }
    },
  }
}
