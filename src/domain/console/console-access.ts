import type { OrgRow } from '../../db/stores/org-store'
import { ApiError, notFound } from '../../errors'
import { PERMISSIONS, type Permission, type Principal } from '../access/permissions'
import type { ConsoleSession } from './sessions'

/**
 * What a console session may do in an organization, as the external API's Principal so every
 * rule the API keys meet (campaign scope, permissions, live data) applies unchanged. The
 * operator and owners have every permission; an SDR reads and files outcomes (calls:write).
 */
const SDR_PERMISSIONS: readonly Permission[] = ['leads:read', 'calls:read', 'calls:write', 'campaigns:read', 'dnc:read', 'events:read', 'usage:read']

export function consolePrincipal(session: ConsoleSession, org: OrgRow | undefined): Principal {
  const identity = session.identity
  // Another organization is not there at all for a person of this one.
  if (!org || (identity.kind === 'user' && identity.user.orgId !== org.id)) throw notFound('No such organization')
  const permissions = identity.kind === 'operator' || identity.user.role === 'owner' ? PERMISSIONS : SDR_PERMISSIONS
  return personPrincipal(org, {
    keyId: identity.kind === 'operator' ? 'console:operator' : `console:${identity.user.id}`,
    keyName: identity.kind === 'operator' ? 'operator (console)' : `${identity.user.email} (console)`,
    permissions,
  })
}

/** A person acting in an organization (the console, the operator's admin API): live data, no API-key limits. */
export function personPrincipal(org: OrgRow, who: { keyId: string; keyName: string; permissions: readonly Permission[] }): Principal {
  return {
    keyId: who.keyId,
    keyName: who.keyName,
    orgId: org.id,
    orgTimezone: org.timezone,
    livemode: true,
    permissions: new Set(who.permissions),
    campaignIds: null,
    maxConcurrent: 50,
    requestsPerMinute: 100_000,
    burst: 100_000,
    leadsPerMinute: 100_000,
    planRequestsPerMinute: org.planRequestsPerMinute,
  }
}

/**
 * What a console route may require: a permission of the session's role in the organization,
 * an owner of it (API keys), or the operator (console accounts).
 */
export type ConsoleRequirement = Permission | 'owner' | 'operator'

type Identity = ConsoleSession['identity']

/** Whether a session of this identity meets the requirement (in an organization it may open). */
export function consoleAllows(identity: Identity, requirement: ConsoleRequirement): boolean {
  if (identity.kind === 'operator') return true
  if (requirement === 'operator') return false
  if (requirement === 'owner') return identity.user.role === 'owner'
  return (identity.user.role === 'owner' ? PERMISSIONS : SDR_PERMISSIONS).includes(requirement)
}

/**
 * The session as a principal of the organization, if it meets the requirement: 404 for an
 * organization that is not there for it, else 403 naming what is missing.
 */
export function requireConsole(session: ConsoleSession, org: OrgRow | undefined, requirement: ConsoleRequirement): Principal {
  const principal = consolePrincipal(session, org)
  if (requirement === 'operator') {
    if (session.identity.kind !== 'operator') throw new ApiError('permission_denied', 'Only the operator manages console accounts.', { extras: { reason: 'operator_only' } })
  } else if (requirement === 'owner') {
    if (!consoleAllows(session.identity, 'owner')) throw new ApiError('permission_denied', 'Only an owner of the organization manages its API keys and numbers.', { extras: { reason: 'owner_only' } })
  } else {
    requireConsolePermission(principal, requirement)
  }
  return principal
}

/** Throws 403 unless the session's role has the permission (the page hides what a role cannot do; this is the rule). */
export function requireConsolePermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.has(permission)) {
    throw new ApiError('permission_denied', `Your role cannot do this (it needs ${permission}); ask an owner of the organization.`, {
      extras: { missing_permission: permission, campaign_id: null },
    })
  }
}
