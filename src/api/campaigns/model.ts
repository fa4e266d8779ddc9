import { t } from 'elysia'
import type { CampaignRow } from '../../db/stores/campaign-store'

/** A test key sees the id and name only (spec "Campaign"). */
export const Campaign = t.Object({
  id: t.String({ format: 'uuid' }),
  name: t.String(),
  status: t.Optional(t.String({ description: 'draft, active, paused or completed; not shown to test keys' })),
  livemode: t.Boolean(),
})

export const CampaignAction = t.Object({
  id: t.String({ format: 'uuid' }),
  status: t.String({ description: 'the status after the action (for a test key: what it would be)' }),
  livemode: t.Boolean(),
})

export function presentCampaign(row: CampaignRow, livemode: boolean) {
  return livemode ? { id: row.id, name: row.name, status: row.status, livemode } : { id: row.id, name: row.name, livemode }
}
