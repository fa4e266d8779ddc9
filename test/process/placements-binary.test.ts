import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { basic, scratchDir } from '../harness'
import { binaryClients } from './binary-clients'
import { serviceCommand, spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * A retry after an outcome waits for the calling rules, on the service as shipped (the compiled
 * binary, started from an empty folder, on its fake clock moved by the admin API): a Florida lead
 * whose third call in 24 hours goes unanswered is scheduled `recent_contact_cooldown` until its
 * first call is 24 hours old (FL-cap), not `retry_after_outcome` five minutes later, and is dialed
 * then. The simulator plays +1 305 555 0002 as a call that rings 30 s unanswered.
 */
const ADMIN = 'dat_placements_binary_0123456789abcdef'
const S = 1000
const DAY = 86_400_000

describe('placements on the service as shipped', () => {
  const work = scratchDir('dialer-placements-')
  const command = serviceCommand(work.path)
  let server: ServiceProcess | null = null
  let base = ''
  let campaignId = ''
  // 15:00 UTC two days ahead of the real date (10:00 or 11:00 in Miami): the fake clock only moves forward.
  const start = Math.floor(Date.now() / DAY) * DAY + 2 * DAY + 15 * 3_600_000
  const iso = (ms: number) => new Date(ms).toISOString()

  const clients = binaryClients({ command, cwd: work.path, adminToken: ADMIN, base: () => base })
  const { json, api } = clients
  const clock = async (body: { now?: string; advance_seconds?: number }) => expect(await clients.clock(body)).toBe(200)
  const lead = async (id: string) => (await api('GET', `/leads/${id}`)).body.data

  beforeAll(async () => {
    const started = await spawnService({
      command, dataDir: join(work.path, 'data'), cwd: work.path,
      env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_FAKE_CLOCK: '1', DIALER_LOG_REQUESTS: '0' },
    })
    server = started.proc
    base = started.base
    await clock({ now: iso(start) })
    const org = json(['org', 'create', '--name', 'Acme'])
    campaignId = json(['campaign', 'create', '--org', org.id, '--name', 'Roofs', '--status', 'active', '--sdrs', 'Alex', '--retry-minutes', '5', '--max-attempts', '5']).id
    const key = json(['key', 'create', '--org', org.id, '--name', 'k', '--mode', 'live'])
    clients.useKey(basic(key.id, key.secret))
  }, 30_000)

  afterAll(async () => {
    server?.kill('SIGTERM')
    await server?.exited
    work.remove()
  })

  test('a Florida lead after its third unanswered call in 24 h: recent_contact_cooldown until its first call is 24 h old (FL-cap), then dialed', async () => {
    const added = await api('POST', '/leads', { campaign_id: campaignId, phone: '+13055550002' })
    expect(added.status).toBe(201)
    expect(added.body.data.status).toBe('dialing')
    const id = added.body.data.id
    // Calls at 0 s, 330 s and 660 s, each unanswered after 30 s; the first two retries keep their 5 minutes.
    for (const ended of [30, 360]) {
      await clock({ advance_seconds: 30 })
      expect(await lead(id)).toMatchObject({ status: 'scheduled', scheduled_reason: 'retry_after_outcome', scheduled_for: iso(start + (ended + 300) * S) })
      await clock({ advance_seconds: 300 })
      expect((await lead(id)).status).toBe('dialing')
    }
    await clock({ advance_seconds: 30 })
    expect(await lead(id)).toMatchObject({
      status: 'scheduled', attempts: 3, last_outcome: 'no_answer',
      scheduled_reason: 'recent_contact_cooldown', scheduled_for: iso(start + DAY), next_dial_at: iso(start + DAY),
    })
    const c = (await api('GET', `/leads/${id}/contactability`)).body.data
    expect(c.decisions[0]).toMatchObject({ rule_id: 'FL-cap', outcome: 'deferred', until: iso(start + DAY) })

    await clock({ advance_seconds: DAY / S - 690 - 1 })
    expect((await lead(id)).status).toBe('scheduled')
    await clock({ advance_seconds: 1 })
    expect(await lead(id)).toMatchObject({ status: 'dialing', attempts: 4 })
  })
})
