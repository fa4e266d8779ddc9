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

const DUMMY_HASH = createHash('sha256').update('no such key').digest()

/** Constant-time comparison of a presented secret with a stored SHA-256 (bytes). */
export function secretMatches(secret: string, storedHash: Buffer | undefined): boolean {
  const presented = createHash('sha256').update(secret).digest()
  return timingSafeEqual(presented, storedHash ?? DUMMY_HASH) && storedHash !== undefined
}

/** What authentication needs of a key, prepared once and cached (see KeyService.findForAuth). */
export interface AuthEntry {
  key: ApiKeyRow
  principal: Principal
  secretHash: Buffer
  /** The secret once it has matched the hash: later checks compare with it, skipping SHA-256. */
  verifiedSecret?: string
}

export function authEntry(key: ApiKeyRow, org: OrgRow): AuthEntry {
  return { key, principal: principalOf(key, org), secretHash: Buffer.from(key.secretHash, 'hex') }
}

/** Compares two strings in time that depends only on their lengths. */
function sameString(a: string, b: string): boolean {
  let diff = a.length ^ b.length
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i)
  return diff === 0
}

function secretOk(entry: AuthEntry | undefined, secret: string): boolean {
  if (entry?.verifiedSecret !== undefined) return sameString(secret, entry.verifiedSecret)
  if (!secretMatches(secret, entry?.secretHash) || !entry) return false
  entry.verifiedSecret = secret
  return true
}

export type AuthFailureReason = 'missing' | 'wrong' | 'revoked' | 'expired' | 'disabled'

export type AuthResult = { ok: true; principal: Principal } | { ok: false; reason: AuthFailureReason }

/**
 * Decides whether a key ID and secret may call the API at `now`.
 * A wrong secret is reported as `wrong` whatever the key's state, so the state of a key
 * is only told to someone who holds its secret.
 */
export function checkKey(entry: AuthEntry | undefined, secret: string, now: number): AuthResult {
  if (!secretOk(entry, secret) || !entry) return { ok: false, reason: 'wrong' }
  const { key } = entry
  if (key.revokedAt !== null) return { ok: false, reason: 'revoked' }
  if (key.disabled) return { ok: false, reason: 'disabled' }
  if (key.expiresAt !== null && key.expiresAt <= now) return { ok: false, reason: 'expired' }
  return { ok: true, principal: entry.principal }
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
