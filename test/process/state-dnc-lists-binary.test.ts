import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { basic, scratchDir } from '../harness'
import { binaryClients } from './binary-clients'
import { serviceCommand, spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * State Do Not Call lists on the service as shipped (the compiled binary in CI, started from an
 * empty folder; docs/dnc-registry.md, "State lists"): `dialer admin registry import FILE --list TX`
 * replaces the Texas list only, intake refuses a listed number for a lead in Texas (area code or
 * address), contactability names TX-dnc, and the list is back after a restart. A test key
 * (555-01XX numbers); real clock: nothing asserted depends on the hour.
 */
const ADMIN = 'dat_state_dnc_binary_0123456789abcdef'

describe('state Do Not Call lists on the service as shipped', () => {
  const work = scratchDir('dialer-state-dnc-')
  const command = serviceCommand(work.path)
  const dataDir = join(work.path, 'data')
  let server: ServiceProcess | null = null
  let base = ''
  const { admin, json, api, useKey } = binaryClients({ command, cwd: work.path, adminToken: ADMIN, base: () => base })
  let campaignId = ''
  const lead = (phone: string, extra: Record<string, unknown> = {}) => api('POST', '/leads', { campaign_id: campaignId, phone, ...extra })
  const start = async () => {
    const started = await spawnService({ command, dataDir, cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN } })
    server = started.proc
    base = started.base
  }
  const stop = async () => {
    server?.kill('SIGTERM')
    await server?.exited
    server = null
  }
  const texasOf = (shown: { states: { state: string; total: number }[] }) => shown.states.find((s) => s.state === 'TX')

  beforeAll(async () => {
    await start()
    const org = json(['org', 'create', '--name', 'Acme'])
    campaignId = json(['campaign', 'create', '--org', org.id, '--name', 'Roofs', '--status', 'active', '--sdrs', 'Alex']).id
    const key = json(['key', 'create', '--org', org.id, '--name', 'k', '--mode', 'test'])
    useKey(basic(key.id, key.secret))
  }, 30_000)

  afterAll(async () => {
    await stop()
    work.remove()
  })

  let waiting = ''

  test('the CLI imports the Texas list beside the national one; an unknown list is refused', async () => {
    const national = join(work.path, 'national.txt')
    writeFileSync(national, '3105550142\n')
    expect(json(['registry', 'import', national])).toMatchObject({ list: 'national', total: 1 })
    // Queued before the Texas list names its number.
    const before = await lead('+1 512 555 0150')
    expect(before.status).toBe(201)
    waiting = before.body.data.id

    const texas = join(work.path, 'texas.txt')
    writeFileSync(texas, '5125550142\n214,5550143\n(212) 555-0144\n5125550150\nnot a number\n')
    expect(json(['registry', 'import', texas, '--list', 'TX'])).toMatchObject({ list: 'TX', imported: 4, total: 4, rejected: [5] })
    const shown = json(['registry', 'show'])
    expect(shown.total).toBe(1)
    expect(texasOf(shown)).toMatchObject({ state: 'TX', total: 4, imported_at: expect.any(String) })

    const refused = admin(['registry', 'import', texas, '--list', 'CA'])
    expect(refused.code).not.toBe(0)
    expect(refused.err).toContain('param list')
    expect(texasOf(json(['registry', 'show']))?.total).toBe(4)
  })

  test('intake refuses a listed number for a lead in Texas (area code or address); consent lifts it', async () => {
    for (const phone of ['+15125550142', '+12145550143']) {
      const r = await lead(phone)
      expect(r.status).toBe(422)
      expect(r.body.error).toMatchObject({ code: 'on_dnc_list', reason: 'state_registry', param: 'phone' })
    }
    const inTexas = await lead('+12125550144', { address: '100 Congress Ave, Austin, TX 78701' })
    expect([inTexas.status, inTexas.body.error?.reason]).toEqual([422, 'state_registry'])
    expect((await lead('+12125550144')).status).toBe(201)
    const consent = { source: 'web form', agreed_at: '2026-11-20T10:00:00Z', text: 'I agree to calls from Acme Roofing.' }
    expect((await lead('+15125550142', { consent })).status).toBe(201)
    // The national list binds as before.
    expect((await lead('+13105550142')).body.error?.reason).toBe('national_registry')
  })

  test('contactability of a lead whose number joined the Texas list names TX-dnc', async () => {
    const c = (await api('GET', `/leads/${waiting}/contactability`)).body.data
    expect(c).toMatchObject({ allowed_now: false, next_allowed_at: null, states: ['TX'] })
    expect(c.blocked_by).toContainEqual({ rule_id: 'TX-dnc', reason: 'state_registry', until: null })
  })

  test('after a restart the Texas list is loaded again', async () => {
    await stop()
    await start()
    expect(texasOf(json(['registry', 'show']))?.total).toBe(4)
    expect((await lead('+12145550143')).body.error?.reason).toBe('state_registry')
  })
})
