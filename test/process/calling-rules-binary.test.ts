import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { writeFileSync } from 'node:fs'
import { basic, scratchDir } from '../harness'
import { binaryClients } from './binary-clients'
import { serviceCommand, spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Issue 17 as a user meets it, on the service under test (the compiled binary in CI, started
 * from an empty folder): the registry loaded with `dialer admin registry import FILE`, the
 * refusal at intake, consent lifting it, the contactability explanation, and the federal floor
 * refused by the admin CLI. A test key (555-01XX numbers are for test keys; the rules apply to
 * test mode as to live). Real clock: nothing here depends on the hour (a lead outside the
 * window is scheduled, and the assertions accept either placement).
 */
const ADMIN = 'dat_calling_rules_binary_0123456789abcdef'

describe('calling rules on the service as shipped', () => {
  const work = scratchDir('dialer-rules-')
  const command = serviceCommand(work.path)
  let server: ServiceProcess | null = null
  let base = ''
  const { admin, json, api, useKey } = binaryClients({ command, cwd: work.path, adminToken: ADMIN, base: () => base })
  let campaignId = ''

  beforeAll(async () => {
    const started = await spawnService({ command, dataDir: join(work.path, 'data'), cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN } })
    server = started.proc
    base = started.base
    const org = json(['org', 'create', '--name', 'Acme'])
    campaignId = json(['campaign', 'create', '--org', org.id, '--name', 'Roofs', '--status', 'active', '--sdrs', 'Alex']).id
    const key = json(['key', 'create', '--org', org.id, '--name', 'k', '--mode', 'test'])
    useKey(basic(key.id, key.secret))
  }, 30_000)

  afterAll(async () => {
    server?.kill('SIGTERM')
    await server?.exited
    work.remove()
  })

  test('the registry imported from a file by the CLI binds intake; consent lifts it; bad lines are reported', async () => {
    const file = join(work.path, 'registry.txt')
    writeFileSync(file, '2125550199\r\n+1 (305) 555-0142\nnot a number\n212555\n')
    const imported = json(['registry', 'import', file])
    expect(imported).toMatchObject({ imported: 2, total: 2, rejected: [3, 4], rejected_count: 2 })
    expect(json(['registry', 'show']).total).toBe(2)

    const refused = await api('POST', '/leads', { campaign_id: campaignId, phone: '(212) 555-0199' })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({ code: 'on_dnc_list', reason: 'national_registry', param: 'phone' })

    const consent = { source: 'web form', agreed_at: '2026-11-20T10:00:00Z', text: 'I agree to calls from Acme Roofing.' }
    const taken = await api('POST', '/leads', { campaign_id: campaignId, phone: '(212) 555-0199', consent })
    expect(taken.status).toBe(201)
    expect(['queued', 'dialing', 'scheduled']).toContain(taken.body.data.status)

    const explained = await api('GET', `/leads/${taken.body.data.id}/contactability`)
    expect(explained.status).toBe(200)
    const c = explained.body.data
    expect(c).toMatchObject({ lead_id: taken.body.data.id, states: ['NY'], zones: ['America/New_York'], livemode: false })
    expect(c.rules.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining(['campaign-hours', 'US-hours']))
    expect(c.rules_version).toMatch(/^\d{4}-\d{2}-\d{2}\.\d+$/)
    expect(c.consent.evidence_sha256).toBe(new Bun.CryptoHasher('sha256').update(consent.text).digest('hex'))
    // Allowed now exactly when nothing blocks; when blocked, the next allowed instant is later.
    expect(c.allowed_now).toBe(c.blocked_by.length === 0)
    if (!c.allowed_now) expect(Date.parse(c.next_allowed_at)).toBeGreaterThan(Date.now() - 60_000)
  })

  test('a Florida address adds Florida and its cap; an unknown ZIP is only a note', async () => {
    const lead = await api('POST', '/leads', { campaign_id: campaignId, phone: '(212) 555-0177', address: '1 Ocean Dr, Miami, FL 33139' })
    expect(lead.status).toBe(201)
    const c = (await api('GET', `/leads/${lead.body.data.id}/contactability`)).body.data
    expect(c.states).toEqual(['FL', 'NY'])
    expect(c.rules.map((r: { id: string }) => r.id)).toEqual(expect.arrayContaining(['FL-hours', 'FL-cap']))
    const nowhere = await api('POST', '/leads', { campaign_id: campaignId, phone: '(212) 555-0178', address: '9 Elm St, 00000' })
    expect((await api('GET', `/leads/${nowhere.body.data.id}/contactability`)).body.data.notes).toEqual(['zip_unknown:00000'])
  })

  test('the admin CLI cannot open calling hours past the federal floor', () => {
    const r = admin(['campaign', 'update', campaignId, '--calling-hours', '{"start":"00:00","end":"24:00"}'])
    expect(r.code).toBe(4)
    expect(r.err).toContain('param calling_hours.start')
  })

  // Split area codes: an exchange the zone table does not list is checked in every zone of its
  // area code; a listed exchange keeps its one zone. Real clock: only the zones are asserted.
  const zonesOf = async (phone: string): Promise<string[]> => {
    const lead = await api('POST', '/leads', { campaign_id: campaignId, phone })
    expect(lead.status).toBe(201)
    const c = await api('GET', `/leads/${lead.body.data.id}/contactability`)
    expect(c.status).toBe(200)
    for (const d of c.body.data.decisions) if ('reason' in d) expect(d.reason).toBe('exchange_unknown')
    return c.body.data.zones
  }

  test('unlisted exchanges of 850, 423 and 605 get every zone of their area code; a listed 850 exchange one', async () => {
    expect(await zonesOf('+18505550142')).toEqual(['America/New_York', 'America/Chicago'])
    expect(await zonesOf('+14235550142')).toEqual(['America/Chicago', 'America/New_York'])
    expect(await zonesOf('+16055550142')).toEqual(['America/Denver', 'America/North_Dakota/Center', 'America/Chicago'])
    expect(await zonesOf('+18502000142')).toEqual(['America/Chicago'])
  })
})
