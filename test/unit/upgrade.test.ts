import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { migrate, openDatabase } from '../../src/db/client'
import { migrations } from '../../src/db/migrations.generated'
import { createHarness, scratchDir, seedWorld } from '../harness'

/**
 * Upgrades: a database made by the first release (only migration 0000) is opened by this
 * build, which applies every later migration at start and keeps the data.
 */
describe('upgrade from the first migration', () => {
  test('a new build migrates an old database on start; its organizations, campaigns and DNC entries still work', async () => {
    const dir = scratchDir('dialer-upgrade-')
    const file = join(dir.path, 'old.db')
    const ORG = '01a00000-0000-7000-8000-000000000001'
    const CAMPAIGN = '01a00000-0000-7000-8000-000000000002'
    try {
      // What the first release wrote: its schema, an organization, a campaign and a DNC entry.
      const old = openDatabase(file)
      expect(migrate(old, 1)).toBe(1)
      const at = Date.UTC(2025, 11, 1)
      old.sqlite.run(
        `INSERT INTO orgs (id, name, timezone, rate_usd_per_minute, plan_requests_per_minute, recording_enabled, webhook_endpoint_limit, outcome_labels, created, updated)
         VALUES (?, 'Old Org', 'America/Chicago', 0.1, 100000, 1, 10, '{}', ?, ?)`,
        [ORG, at, at],
      )
      old.sqlite.run(
        `INSERT INTO campaigns (id, org_id, name, status, lines, sdrs, closers, requires_consent, call_now_default, late_minutes, calling_hours_start,
           calling_hours_end, max_attempts, retry_minutes, duplicate_window_hours, cooldown_hours, spend_cap_usd, created, updated)
         VALUES (?, ?, 'Old campaign', 'active', 2, '[{"id":"01a00000-0000-7000-8000-000000000003","name":"Alex"}]', '[]', 0, 0, 15, '08:00', '21:00', 3, 60, 24, 0, NULL, ?, ?)`,
        [CAMPAIGN, ORG, at, at],
      )
      old.sqlite.run(
        `INSERT INTO dnc_entries (id, org_id, livemode, phone, source, reason, created) VALUES ('01a00000-0000-7000-8000-000000000004', ?, 1, '+14155552199', 'api', NULL, ?)`,
        [ORG, at],
      )
      old.close()

      // This build starts on it.
      const h = createHarness({ env: { DIALER_DATABASE: file, DIALER_DATA_DIR: dir.path } })
      try {
        const applied = h.services.database.sqlite.query('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }
        expect(applied.n).toBe(migrations.length)
        const key = await h.createKey(ORG, { name: 'after upgrade', mode: 'live' })
        const campaign = await h.api('GET', `/campaigns/${CAMPAIGN}`, { key })
        expect(campaign.status).toBe(200)
        expect(campaign.body.data.name).toBe('Old campaign')
        const dnc = await h.api('GET', '/dnc/check?phone=%2B14155552199', { key })
        expect(dnc.status, dnc.text).toBe(200)
        expect(dnc.body.data.onDncList).toBe(true)
        // Tables the later migrations made work too: leads, calls, usage.
        const lead = await h.api('POST', '/leads', { key, body: { campaign_id: CAMPAIGN, phone: '+13125552001' } })
        expect(lead.status).toBe(201)
        expect((await h.api('GET', '/usage', { key })).status).toBe(200)
        // And the new world works beside the old one.
        await seedWorld(h)
      } finally {
        h.close()
      }
    } finally {
      dir.remove()
    }
  })
})
