import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { migrate, openDatabase } from '../../src/db/client'
import { migrations } from '../../src/db/migrations.generated'
import { createHarness, scratchDir, seedWorld } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

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

  test('events stored before migration 0012 keep their ids, their order, lookups and cursors; new ones follow them', async () => {
    const dir = scratchDir('dialer-upgrade-events-')
    const file = join(dir.path, 'old.db')
    const ORG = '01a00000-0000-7000-8000-000000000011'
    const at = Date.UTC(2026, 0, 5, 14, 0, 0)
    const hex = (n: number, digits: number) => n.toString(16).padStart(digits, '0')
    // Older ids: a millisecond, then random digits. Several share a millisecond; they go in out of order.
    const oldIds = [
      `evt_${hex(at, 12)}7fff8000000000000001`,
      `evt_${hex(at, 12)}70009fffffffffffffff`,
      `evt_${hex(at, 12)}7a01b000000000000000`,
      `evt_${hex(at + 1, 12)}7000a000000000000000`,
      `evt_${hex(at + 90_000, 12)}7123b123456789abcdef`,
    ]
    const sorted = [...oldIds].sort()
    try {
      const old = openDatabase(file)
      migrate(old, 12)
      old.sqlite.run(
        `INSERT INTO orgs (id, name, timezone, rate_usd_per_minute, plan_requests_per_minute, recording_enabled, webhook_endpoint_limit, outcome_labels, created, updated)
         VALUES (?, 'Old Org', 'America/New_York', 0.1, 100000, 1, 10, '{}', ?, ?)`,
        [ORG, at, at],
      )
      for (const id of [oldIds[2], oldIds[4], oldIds[0], oldIds[3], oldIds[1]] as string[]) {
        const body = JSON.stringify({ id, type: 'lead.created', created: new Date(at).toISOString(), livemode: true, api_version: '2026-01-01', data: { object: { id: 'x' } } })
        old.sqlite.run(
          `INSERT INTO events (id, org_id, livemode, type, campaign_id, object_id, created, body) VALUES (?, ?, 1, 'lead.created', NULL, '01a00000-0000-7000-8000-0000000000ff', ?, ?)`,
          [id, ORG, at, body],
        )
      }
      old.close()

      const h = createHarness({ env: { DIALER_DATABASE: file, DIALER_DATA_DIR: dir.path }, start: at + 100_000 })
      try {
        const seqOrder = h.services.database.sqlite.query('SELECT id FROM events ORDER BY seq').all() as { id: string }[]
        expect(seqOrder.map((r) => r.id)).toEqual(sorted)
        const key = await h.createKey(ORG, { name: 'after upgrade', mode: 'live' })
        for (const id of oldIds) {
          const one = await h.api('GET', `/events/${id}`, { key })
          expect(one.status, one.text).toBe(200)
          expect(one.body.data.id).toBe(id)
        }
        const newestFirst = [...sorted].reverse()
        const page = await h.api('GET', '/events?limit=2', { key })
        expect(page.body.data.map((e: { id: string }) => e.id)).toEqual(newestFirst.slice(0, 2))
        const rest = await h.api('GET', `/events?starting_after=${page.body.meta.next_cursor}`, { key })
        expect(rest.body.data.map((e: { id: string }) => e.id)).toEqual(newestFirst.slice(2))
        // A cursor naming no stored event still means "older than this id".
        const between = `evt_${hex(at, 12)}7a00ffffffffffffffff`
        const after = await h.api('GET', `/events?starting_after=${between}`, { key })
        expect(after.body.data.map((e: { id: string }) => e.id)).toEqual(newestFirst.filter((id) => id < between))

        // New events come after the old ones, in the list and in the table.
        const campaign = await h.admin('POST', `/orgs/${ORG}/campaigns`, { name: 'New', status: 'active', sdrs: [{ name: 'A' }] })
        const lead = await h.api('POST', '/leads', { key, body: { campaign_id: campaign.body.data.id, phone: '+12126230123' } })
        expect(lead.status, lead.text).toBe(201)
        const all = await h.api('GET', '/events?limit=100', { key })
        const ids = all.body.data.map((e: { id: string }) => e.id)
        expect(ids.slice(-oldIds.length)).toEqual(newestFirst)
        expect(ids.slice(0, 2).map((id: string) => all.body.data.find((e: { id: string }) => e.id === id).type)).toEqual(['lead.queued', 'lead.created'])
        expect([...ids].sort().reverse()).toEqual(ids)
      } finally {
        h.close()
      }
    } finally {
      dir.remove()
    }
  })
})
