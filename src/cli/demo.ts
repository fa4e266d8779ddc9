import type { Services } from '../services'

const DEMO_ORG = 'Demo organization'

export interface DemoKeys {
  orgId: string
  campaignId: string
  live: { id: string; secret: string }
  test: { id: string; secret: string }
  created: boolean
}

/**
 * `serve --demo`: on an empty database, a demo organization with an active campaign (one SDR,
 * one closer); on every run a fresh live and test key, since secrets are never stored.
 */
export function seedDemo(s: Services): DemoKeys {
  const existing = s.orgs.list(100).find((o) => o.name === DEMO_ORG)
  let orgId: string
  let campaignId: string
  let created = false
  if (existing) {
    orgId = existing.id
    campaignId = s.campaigns.listForOrg(orgId, 1)[0]?.id ?? ''
  } else {
    created = true
    orgId = s.orgs.create({ name: DEMO_ORG, outcome_labels: { 'Hot lead': 'interested', 'Call back later': 'callback' } }).id
    campaignId = s.campaigns.create(orgId, {
      name: 'Demo campaign',
      status: 'active',
      lines: 2,
      sdrs: [{ name: 'Alex Rivera' }],
      closers: [{ name: 'Sam Chen' }],
    }).id
  }
  const live = s.keys.create(orgId, { name: 'Demo live key', mode: 'live' })
  const test = s.keys.create(orgId, { name: 'Demo test key', mode: 'test' })
  return {
    orgId,
    campaignId,
    live: { id: live.key.id, secret: live.secret },
    test: { id: test.key.id, secret: test.secret },
    created,
  }
}
