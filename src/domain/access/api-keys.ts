import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { ApiKeyRow } from '../../db/stores/key-store'
import type { OrgRow } from '../../db/stores/org-store'
import { isPermission, type Permission, type Principal } from './permissions'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

function base62(bytes: number): string {
  const raw = randomBytes(bytes)
  let out = ''
  for (const byte of raw) out += BASE62[byte % 62]
  return out
}

/** A new key ID (`dk_live_...`/`dk_test_...`, not secret) and secret (shown once). */
export function mintKey(mode: 'live' | 'test'): { id: string; secret: string; secretHash: string } {
  const id = `dk_${mode}_${base62(24)}`
  const secret = `dks_${randomBytes(32).toString('base64url')}`
  return { id, secret, secretHash: hashSecret(secret) }
}

/** Secrets are long random strings, so one SHA-256 is enough; no salt or slow hash needed. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

const DUMMY_HASH = hashSecret('no such key')

/** Constant-time comparison of a presented secret with a stored hash. */
export function secretMatches(secret: string, storedHash: string | undefined): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex')
  const stored = Buffer.from(storedHash ?? DUMMY_HASH, 'hex')
  return timingSafeEqual(presented, stored) && storedHash !== undefined
}

export type AuthFailureReason = 'missing' | 'wrong' | 'revoked' | 'expired' | 'disabled'

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: AuthFailureReason }

/**
 * Decides whether a key ID and secret may call the API at `now`.
 * A wrong secret is reported as `wrong` whatever the key's state, so the state of a key
 * is only told to someone who holds its secret.
 */
export function checkKey(
  found: { key: ApiKeyRow; org: OrgRow } | undefined,
  secret: string,
  now: number,
): AuthResult {
  if (!secretMatches(secret, found?.key.secretHash) || !found) return { ok: false, reason: 'wrong' }
  const { key, org } = found
  if (key.revokedAt !== null) return { ok: false, reason: 'revoked' }
  if (key.disabled) return { ok: false, reason: 'disabled' }
  if (key.expiresAt !== null && key.expiresAt <= now) return { ok: false, reason: 'expired' }
  return { ok: true, principal: principalOf(key, org) }
}

export function principalOf(key: ApiKeyRow, org: OrgRow): Principal {
  return {
    keyId: key.id,
    keyName: key.name,
    orgId: org.id,
    orgTimezone: org.timezone,
    livemode: key.mode === 'live',
    permissions: new Set(key.permissions.filter(isPermission) as Permission[]),
    campaignIds: key.campaignIds ? new Set(key.campaignIds) : null,
    maxConcurrent: key.maxConcurrent,
    requestsPerMinute: key.requestsPerMinute,
    burst: key.burst,
    leadsPerMinute: key.leadsPerMinute,
    planRequestsPerMinute: org.planRequestsPerMinute,
  }
}
