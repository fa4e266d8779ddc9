import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { migrate, openDatabase } from '../../src/db/client'
import { migrations } from '../../src/db/migrations.generated'
import { ConfigError } from '../../src/config'
import { secretBox } from '../../src/domain/secrets/secret-box'
import type { TwilioSettings } from '../../src/telephony/twilio/settings'
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

  test('Twilio settings stored before carriers were generic keep their view, and their sealed token opens and is kept', async () => {
    const dir = scratchDir('dialer-upgrade-carriers-')
    const file = join(dir.path, 'old.db')
    const KEY = '5a'.repeat(32)
    const SID = `AC${'0123456789abcdef'.repeat(2)}`
    const TOKEN = '9f'.repeat(16)
    const ORGS = ['01a00000-0000-7000-8000-000000000021', '01a00000-0000-7000-8000-000000000022']
    const at = Date.UTC(2026, 1, 2)
    const sealedFor = (orgId: string) => secretBox(Buffer.from(KEY, 'hex')).seal(TOKEN, `org:${orgId}:twilio_auth_token`)
    const sealed = ORGS.map(sealedFor)
    try {
      // Every migration before the generic carrier table, and two organizations with Twilio in the old columns.
      const old = openDatabase(file)
      migrate(old, migrations.findIndex((m) => m.tag === '0019_generic_carrier_settings'))
      ORGS.forEach((orgId, i) => {
        old.sqlite.run(
          `INSERT INTO orgs (id, name, timezone, rate_usd_per_minute, plan_requests_per_minute, recording_enabled, webhook_endpoint_limit, outcome_labels, created, updated)
           VALUES (?, 'Old Org', 'America/New_York', 0.1, 100000, 1, 10, '{}', ?, ?)`,
          [orgId, at, at],
        )
        old.sqlite.run(
          `INSERT INTO org_carriers (org_id, kind, account_sid, auth_token_sealed, caller_ids, api_base_url, machine_detection, created, updated)
           VALUES (?, 'twilio', ?, ?, ?, ?, ?, ?, ?)`,
          [orgId, SID, sealed[i]!, i === 0 ? '["+14155550100","+12125550123"]' : '["+14155550100"]', i === 0 ? 'http://127.0.0.1:3901' : 'https://api.twilio.com', i === 0 ? 0 : 1, at, at + i],
        )
      })
      old.close()

      const env = { DIALER_DATABASE: file, DIALER_DATA_DIR: dir.path, DIALER_SECRET_KEY: KEY }
      const h = createHarness({ env })
      try {
        // The start's key check opened the tokens where they now are; the rows carry over, sealed values unchanged.
        const rows = h.services.database.sqlite.query('SELECT org_id, kind, settings, secrets_sealed, created, updated FROM org_carriers ORDER BY org_id').all()
        expect(rows).toEqual([
          {
            org_id: ORGS[0], kind: 'twilio', created: at, updated: at,
            settings: `{"account_sid":"${SID}","caller_ids":["+14155550100","+12125550123"],"api_base_url":"http://127.0.0.1:3901","machine_detection":false}`,
            secrets_sealed: JSON.stringify({ auth_token: sealed[0] }),
          },
          {
            org_id: ORGS[1], kind: 'twilio', created: at, updated: at + 1,
            settings: `{"account_sid":"${SID}","caller_ids":["+14155550100"],"api_base_url":"https://api.twilio.com","machine_detection":true}`,
            secrets_sealed: JSON.stringify({ auth_token: sealed[1] }),
          },
        ])
        // The admin reply is the one the old columns gave, byte for byte.
        const reply = await h.admin('GET', `/orgs/${ORGS[0]}`)
        expect(JSON.stringify(reply.body.data.carrier)).toBe(
          `{"kind":"twilio","account_sid":"${SID}","caller_ids":["+14155550100","+12125550123"],"api_base_url":"http://127.0.0.1:3901","machine_detection":false,"auth_token_set":true}`,
        )
        expect(h.services.orgs.carrier(ORGS[0]!) as TwilioSettings).toEqual({
          kind: 'twilio', accountSid: SID, authToken: TOKEN, callerIds: ['+14155550100', '+12125550123'], apiBaseUrl: 'http://127.0.0.1:3901', machineDetection: false,
        })
        expect(h.services.orgs.dialSettings(ORGS[1]!)).toEqual({ kind: 'twilio', callerIds: ['+14155550100'], machineDetection: true })
        // A change that sends no token keeps the migrated one.
        const patched = await h.admin('PATCH', `/orgs/${ORGS[1]}`, { carrier: { kind: 'twilio', account_sid: SID, caller_ids: ['+12125550123'] } })
        expect(patched.status, patched.text).toBe(200)
        expect(h.services.orgs.carrier(ORGS[1]!)).toMatchObject({ authToken: TOKEN, callerIds: ['+12125550123'] })
      } finally {
        h.close()
      }
      // Another key cannot open them: the start stops, counting both.
      expect(() => createHarness({ env: { ...env, DIALER_SECRET_KEY: 'ab'.repeat(32) } })).toThrow(ConfigError)
      expect(() => createHarness({ env: { ...env, DIALER_SECRET_KEY: 'ab'.repeat(32) } })).toThrow(/does not open the 2 carrier auth tokens/)
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
