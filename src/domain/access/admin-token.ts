import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { SettingsStore } from '../../db/stores/settings-store'
import { hashSecret } from './api-keys'

const SETTING = 'admin_token_sha256'
/** argon2id of DIALER_ADMIN_TOKEN as last started with ('' once the minted token is in force). */
const CONFIGURED_HASH = 'admin_token_argon2'
/** A random id that changes whenever the token in force does; operator sessions carry it. */
const EPOCH = 'admin_token_epoch'

const mint = () => `dat_${randomBytes(32).toString('base64url')}`
const newEpoch = () => randomBytes(16).toString('base64url')

// One process may start several services with the same token (tests): each argon2 check costs
// a quarter second there, and its answer for the same token and hash never changes.
const verified = new Map<string, boolean>()
function sameToken(token: string, hash: string): boolean {
  const key = `${hashSecret(token)}:${hash}`
  let same = verified.get(key)
  if (same === undefined) {
    same = Bun.password.verifySync(token, hash)
    verified.set(key, same)
  }
  return same
}
let lastHash: { of: string; hash: string } | null = null
function slowHash(token: string): string {
  const of = hashSecret(token)
  if (lastHash?.of !== of) lastHash = { of, hash: Bun.password.hashSync(token, { algorithm: 'argon2id' }) }
  return lastHash.hash
}

/**
 * The operator's bearer token. From DIALER_ADMIN_TOKEN when set; otherwise minted on first
 * boot, stored only as a hash, and handed back once (`minted`) so the CLI can print it.
 * The stored hash is read on every check, so `dialer admin-token reset` applies at once.
 *
 * Its epoch changes with the token: a reset writes a new one, and at start a DIALER_ADMIN_TOKEN
 * that fails to verify against the argon2id hash stored last time (or the switch between a set
 * and a minted token) does too. A set token is a chosen secret, so only a slow hash of it is
 * stored; checks compare the SHA-256 kept in memory.
 */
export function adminToken(settings: SettingsStore, configured: string | null) {
  let minted: string | null = null
  if (configured === null && settings.get(SETTING) === null) {
    minted = mint()
    settings.set(SETTING, hashSecret(minted))
    settings.set(EPOCH, newEpoch())
  }
  const stored = settings.get(CONFIGURED_HASH) ?? ''
  if (configured !== null) {
    if (stored === '' || !sameToken(configured, stored)) {
      settings.set(CONFIGURED_HASH, slowHash(configured))
      settings.set(EPOCH, newEpoch())
    }
  } else if (stored !== '') {
    settings.set(CONFIGURED_HASH, '')
    settings.set(EPOCH, newEpoch())
  }
  // A database from before epochs: sessions made then have none and end.
  if (settings.get(EPOCH) === null) settings.set(EPOCH, newEpoch())
  const configuredHash = configured !== null ? hashSecret(configured) : null
  return {
    minted,
    matches(token: string): boolean {
      const expected = configuredHash ?? settings.get(SETTING)
      if (expected === null) return false
      return timingSafeEqual(Buffer.from(hashSecret(token), 'hex'), Buffer.from(expected, 'hex'))
    },
    /** The epoch in force (read each time: a reset from the CLI writes it from another process). */
    epoch(): string {
      return settings.get(EPOCH) ?? ''
    },
  }
}

/** Replaces the stored token (CLI `dialer admin-token reset`); returns the new one. Operator sessions end with the old one. */
export function resetAdminToken(settings: SettingsStore): string {
  const token = mint()
  settings.set(SETTING, hashSecret(token))
  settings.set(EPOCH, newEpoch())
  return token
}

export type AdminToken = ReturnType<typeof adminToken>
