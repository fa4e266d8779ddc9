import { describeCache, type CacheRegistry } from '../../cache-registry'
import type { CampaignStore } from '../../db/stores/campaign-store'
import type { ApiKeyRow, KeyStore } from '../../db/stores/key-store'
import type { OrgRow, OrgStore } from '../../db/stores/org-store'
import { invalid, notFound } from '../../errors'
import type { Clock } from '../../jobs/clock'
import { authEntry, mintKey, type AuthEntry } from './api-keys'
import { PERMISSIONS, isPermission } from './permissions'

export interface KeyInput {
  name: string
  mode: 'live' | 'test'
  permissions?: string[]
  campaign_ids?: string[] | null
  max_concurrent?: number
  requests_per_minute?: number
  burst?: number
  leads_per_minute?: number
  expires_at?: string | null
}

export interface KeyPatch extends Partial<Omit<KeyInput, 'mode'>> {
  disabled?: boolean
}

// Defaults from the spec's Limits table and DESIGN.md "Admin API".
const DEFAULTS = { max_concurrent: 20, requests_per_minute: 120, burst: 20, leads_per_minute: 60 }

/**
 * Who sets a key's limits: the operator (admin API and CLI, the console signed in with the
 * admin token) or an organization's owner in the console, who may only stay at or below the
 * operator's numbers (ownerCeilings).
 */
export type KeyAuthor = 'operator' | 'owner'

type LimitField = 'requests_per_minute' | 'burst' | 'leads_per_minute' | 'max_concurrent'

/**
 * The most an owner may give a key: requests a minute up to the organization's plan (the
 * operator's number for the whole organization); the others up to the defaults every key gets
 * from the operator, as there is no per-organization number for them.
 */
export function ownerCeilings(org: Pick<OrgRow, 'planRequestsPerMinute'>): Record<LimitField, number> {
  return {
    requests_per_minute: org.planRequestsPerMinute,
    burst: DEFAULTS.burst,
    leads_per_minute: DEFAULTS.leads_per_minute,
    max_concurrent: DEFAULTS.max_concurrent,
  }
}

const LIMIT_NAMES: Record<LimitField, string> = {
  requests_per_minute: 'requests a minute', burst: 'burst', leads_per_minute: 'new leads a minute', max_concurrent: 'requests at once',
}

const AUTH_KEYS = describeCache({
  name: 'auth-keys',
  holds: 'API keys ready for authentication by key id: row, principal, hash, the verified secret',
  bound: 'one per existing key (unknown ids are not kept)',
  clearedBy: 'a key update or revoke forgets the key; an organization change forgets its keys',
  gain: '0.14–0.22 vs 12.7–13.9 µs a request (key and organization reads, principal, SHA-256)',
  source: 'database',
})

export function keyService(deps: { keys: KeyStore; orgs: OrgStore; campaigns: CampaignStore; clock: Clock; caches: CacheRegistry }) {
  const { keys, orgs, campaigns, clock } = deps
  // Authentication reads every request; keys and orgs change only through this process.
  const authCache = new Map<string, AuthEntry>()
  deps.caches.register(AUTH_KEYS, () => authCache.clear())

  function checkPermissions(list: string[]): string[] {
    list.forEach((p, i) => {
      if (!isPermission(p)) throw invalid(`Unknown permission "${p}".`, `permissions[${i}]`)
    })
    return [...new Set(list)]
  }

  function checkCampaigns(orgId: string, ids: string[] | null | undefined): string[] | null | undefined {
    if (ids == null) return ids
    const known = new Set(campaigns.idsOfOrg(orgId, ids))
    ids.forEach((id, i) => {
      if (!known.has(id)) throw notFound(`No such campaign in this organization.`, `campaign_ids[${i}]`)
    })
    return [...new Set(ids)]
  }

  function expiry(value: string | null | undefined): number | null | undefined {
    if (value == null) return value
    const at = Date.parse(value)
    if (Number.isNaN(at)) throw invalid('expires_at must be an ISO 8601 date-time.', 'expires_at')
    // A key expired from its first moment would be a key that never works.
    if (at <= clock.now()) throw invalid('expires_at is not in the future; give a later time, or null for a key that does not expire.', 'expires_at')
    return at
  }

  function checkOwnerLimits(org: OrgRow, input: Partial<Record<LimitField, number>>): void {
    const ceilings = ownerCeilings(org)
    for (const field of Object.keys(ceilings) as LimitField[]) {
      const value = input[field]
      if (value !== undefined && value > ceilings[field]) {
        throw invalid(`${field} (${LIMIT_NAMES[field]}) may be at most ${ceilings[field]} when set in the console; ask the operator for more.`, field)
      }
    }
  }

  return {
    /** Returns the stored key and its secret, which is never available again. */
    create(orgId: string, input: KeyInput, by: KeyAuthor = 'operator'): { key: ApiKeyRow; secret: string } {
      const org = orgs.get(orgId)
      if (!org) throw notFound('No such organization')
      if (by === 'owner') checkOwnerLimits(org, input)
      const minted = mintKey(input.mode)
      const now = clock.now()
      const key = keys.insert({
        id: minted.id,
        orgId,
        name: input.name,
        mode: input.mode,
        secretHash: minted.secretHash,
        permissions: input.permissions ? checkPermissions(input.permissions) : [...PERMISSIONS],
        campaignIds: checkCampaigns(orgId, input.campaign_ids) ?? null,
        maxConcurrent: input.max_concurrent ?? DEFAULTS.max_concurrent,
        requestsPerMinute: input.requests_per_minute ?? DEFAULTS.requests_per_minute,
        burst: input.burst ?? DEFAULTS.burst,
        leadsPerMinute: input.leads_per_minute ?? DEFAULTS.leads_per_minute,
        expiresAt: expiry(input.expires_at) ?? null,
        disabled: false,
        revokedAt: null,
        created: now,
        updated: now,
      })
      return { key, secret: minted.secret }
    },

    update(id: string, patch: KeyPatch): ApiKeyRow {
      const current = keys.get(id)
      if (!current) throw notFound('No such key')
      if (current.revokedAt !== null) throw invalid('A revoked key cannot be changed.', null, 'revoked')
      const updated = keys.update(id, {
        name: patch.name,
        permissions: patch.permissions ? checkPermissions(patch.permissions) : undefined,
        campaignIds: checkCampaigns(current.orgId, patch.campaign_ids),
        maxConcurrent: patch.max_concurrent,
        requestsPerMinute: patch.requests_per_minute,
        burst: patch.burst,
        leadsPerMinute: patch.leads_per_minute,
        expiresAt: expiry(patch.expires_at),
        disabled: patch.disabled,
        updated: clock.now(),
      })!
      authCache.delete(id)
      return updated
    },

    revoke(id: string): ApiKeyRow {
      const current = keys.get(id)
      if (!current) throw notFound('No such key')
      if (current.revokedAt !== null) return current
      const now = clock.now()
      const revoked = keys.update(id, { revokedAt: now, updated: now })!
      authCache.delete(id)
      return revoked
    },

    get(id: string): ApiKeyRow {
      const key = keys.get(id)
      if (!key) throw notFound('No such key')
      return key
    },

    listForOrg(orgId: string, limit: number, startingAfter?: string): ApiKeyRow[] {
      if (!orgs.get(orgId)) throw notFound('No such organization')
      return keys.listForOrg(orgId, limit, startingAfter)
    },

    /** The key, ready for authentication, cached until it or its organization changes. */
    findForAuth(id: string): AuthEntry | undefined {
      const cached = authCache.get(id)
      if (cached) return cached
      const key = keys.get(id)
      const org = key ? orgs.get(key.orgId) : undefined
      if (!key || !org) return undefined // unknown ids are not cached: made-up ids must not grow the map
      const entry = authEntry(key, org)
      authCache.set(id, entry)
      return entry
    },

    /** Forgets cached keys of an organization whose settings (plan limit, zone) changed. */
    forgetOrg(orgId: string): void {
      for (const [id, entry] of authCache) if (entry.key.orgId === orgId) authCache.delete(id)
    },
  }
}

export type KeyService = ReturnType<typeof keyService>

