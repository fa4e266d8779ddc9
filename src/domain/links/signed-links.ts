import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { SettingsStore } from '../../db/stores/settings-store'
import { ApiError } from '../../errors'

const SETTING = 'link_signing_key'

/**
 * Links the service serves without an API key (recordings, export files): the path and an
 * expiry, signed with HMAC-SHA256 under a key made on first boot and kept in the database.
 */
export function signedLinks(settings: SettingsStore, publicUrl: string) {
  let key = settings.get(SETTING)
  if (!key) {
    key = randomBytes(32).toString('base64url')
    settings.set(SETTING, key)
  }
  const secret = Buffer.from(key, 'base64url')
  const sign = (path: string, expires: number) => createHmac('sha256', secret).update(`${path}\n${expires}`).digest('base64url')

  return {
    /** An absolute URL for `path`, valid until `expiresAt` (unix ms). */
    url(path: string, expiresAt: number): string {
      const expires = Math.floor(expiresAt / 1000)
      return `${publicUrl}${path}?expires=${expires}&signature=${sign(path, expires)}`
    },

    /** Throws 403 when the signature does not match or the link has expired. */
    verify(path: string, expires: string | undefined, signature: string | undefined, now: number): void {
      const seconds = Number(expires)
      const expected = Number.isSafeInteger(seconds) ? Buffer.from(sign(path, seconds)) : null
      const given = Buffer.from(signature ?? '')
      if (!expected || given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw new ApiError('permission_denied', 'This link is not valid.', { extras: { reason: 'bad_signature' } })
      }
      if (seconds * 1000 <= now) {
        throw new ApiError('permission_denied', 'This link has expired; ask the API for a new one.', { extras: { reason: 'expired' } })
      }
    },
  }
}

export type SignedLinks = ReturnType<typeof signedLinks>
