import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { SettingsStore } from '../../db/stores/settings-store'
import { hashSecret } from './api-keys'

const SETTING = 'admin_token_sha256'

const mint = () => `dat_${randomBytes(32).toString('base64url')}`

/**
 * The operator's bearer token. From DIALER_ADMIN_TOKEN when set; otherwise minted on first
 * boot, stored only as a hash, and handed back once (`minted`) so the CLI can print it.
 * The stored hash is read on every check, so `dialer admin-token reset` applies at once.
 */
export function adminToken(settings: SettingsStore, configured: string | null) {
  let minted: string | null = null
  if (configured === null && settings.get(SETTING) === null) {
    minted = mint()
    settings.set(SETTING, hashSecret(minted))
  }
  const configuredHash = configured !== null ? hashSecret(configured) : null
  return {
    minted,
    matches(token: string): boolean {
      const expected = configuredHash ?? settings.get(SETTING)
      if (expected === null) return false
      return timingSafeEqual(Buffer.from(hashSecret(token), 'hex'), Buffer.from(expected, 'hex'))
    },
  }
}

/** Replaces the stored token (CLI `dialer admin-token reset`); returns the new one. */
export function resetAdminToken(settings: SettingsStore): string {
  const token = mint()
  settings.set(SETTING, hashSecret(token))
  return token
}

export type AdminToken = ReturnType<typeof adminToken>
