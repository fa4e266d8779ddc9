import { ApiError } from '../../errors'

import { PERMISSIONS, type Permission } from './permission-names'

export { PERMISSIONS, type Permission } from './permission-names'

export const isPermission = (value: string): value is Permission => (PERMISSIONS as readonly string[]).includes(value)

/** Who is calling: an API key, with its organization, mode, rights and campaign scope. */
export interface Principal {
  readonly keyId: string
  readonly keyName: string
  readonly orgId: string
  readonly orgTimezone: string
  readonly livemode: boolean
  readonly permissions: ReadonlySet<Permission>
  /** null: every campaign of the organization. */
  readonly campaignIds: ReadonlySet<string> | null
  readonly maxConcurrent: number
  readonly requestsPerMinute: number
  readonly burst: number
  readonly leadsPerMinute: number
  readonly planRequestsPerMinute: number
}

export function requirePermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.has(permission)) {
    throw new ApiError('permission_denied', `This key does not have the ${permission} permission.`, {
      extras: { missing_permission: permission, campaign_id: null },
    })
  }
}

/** Whether the key may see objects of this campaign (scope only; the organization is checked by the caller). */
export function inScope(principal: Principal, campaignId: string | null): boolean {
  if (principal.campaignIds === null) return true
  return campaignId !== null && principal.campaignIds.has(campaignId)
}

/**
 * A campaign named in a request by a key limited to other campaigns: 403 permission_denied
 * with that campaign (DESIGN.md "Requests, errors, scope").
 */
export function requireCampaignScope(principal: Principal, campaignId: string, permission: Permission, param = 'campaign_id'): void {
  if (!inScope(principal, campaignId)) {
    throw new ApiError('permission_denied', `This key is limited to other campaigns.`, {
      param,
      extras: { missing_permission: permission, campaign_id: campaignId },
    })
  }
}

/** Endpoints that need a key for every campaign (exports). */
export function requireAllCampaigns(principal: Principal, permission: Permission): void {
  if (principal.campaignIds !== null) {
    throw new ApiError('permission_denied', 'This endpoint needs a key that is not limited to some campaigns.', {
      extras: { missing_permission: permission, campaign_id: null },
    })
  }
}
