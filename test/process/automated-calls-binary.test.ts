import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { basic, scratchDir } from '../harness'
import { binaryClients } from './binary-clients'
import { serviceCommand, spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Automated-call rules and toll-free numbers on the service as shipped (the compiled binary,
 * started from an empty folder, on its fake clock): a campaign marked automated_voice by the CLI
 * holds a California lead at 08:30 Pacific until 09:00 (Cal. Pub. Util. Code 2872(c)) where a
 * person campaign queues it; a toll-free number waits for 08:00 in Honolulu; restarted with
 * DIALER_TOLL_FREE=refuse the service refuses toll-free numbers at intake and POST /calls, and
 * a bad value stops the start with a message.
 */
const ADMIN = 'dat_automated_binary_0123456789abcdef'
const DAY = 86_400_000
const HOUR = 3_600_000

describe('automated-voice campaigns and toll-free numbers on the service as shipped', () => {
  const work = scratchDir('dialer-automated-')
  const command = serviceCommand(work.path)
  const dataDir = join(work.path, 'data')
  let server: ServiceProcess | null = null
  let base = ''
  let robotId = ''
  let personId = ''
  // Two days ahead of the real date: the fake clock only moves forward.
  const day = Math.floor(Date.now() / DAY) * DAY + 2 * DAY
  const iso = (ms: number) => new Date(ms).toISOString()
  const pacificOffset = (t: number) => (new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', timeZoneName: 'short' }).format(t).endsWith('PDT') ? 7 : 8)
  // 08:30 Pacific that day, as UTC.
  const start = day + (8 + pacificOffset(day + 12 * HOUR)) * HOUR + 30 * 60_000
  const env = (more: Record<string, string> = {}) => ({
    PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_FAKE_CLOCK: '1', DIALER_LOG_REQUESTS: '0', ...more,
  })

  const clients = binaryClients({ command, cwd: work.path, adminToken: ADMIN, base: () => base, env })
  const { json, api } = clients
  const clock = async (body: { now?: string }) => expect(await clients.clock(body)).toBe(200)
  const serve = async (more: Record<string, string> = {}) => {
    const started = await spawnService({ command, dataDir, cwd: work.path, env: env(more) })
    server = started.proc
    base = started.base
  }
  const stop = async () => {
    server?.kill('SIGTERM')
    await server?.exited
    server = null
  }

  beforeAll(async () => {
    await serve()
    await clock({ now: iso(start) })
    const org = json(['org', 'create', '--name', 'Acme', '--timezone', 'America/New_York'])
    robotId = json(['campaign', 'create', '--org', org.id, '--name', 'Robo', '--status', 'active', '--sdrs', 'Alex', '--automated-voice', 'true']).id
    personId = json(['campaign', 'create', '--org', org.id, '--name', 'People', '--status', 'active', '--sdrs', 'Alex']).id
    const key = json(['key', 'create', '--org', org.id, '--name', 'k', '--mode', 'test'])
    clients.useKey(basic(key.id, key.secret))
  }, 30_000)

  afterAll(async () => {
    await stop()
    work.remove()
  })

  test('the CLI sets and shows automated_voice', () => {
    expect(json(['campaign', 'get', robotId]).automated_voice).toBe(true)
    expect(json(['campaign', 'get', personId]).automated_voice).toBe(false)
  })

  test('a California lead at 08:30 Pacific: scheduled for 09:00 by CA-automated in the automated campaign, queued in the person campaign', async () => {
    const robot = await api('POST', '/leads', { campaign_id: robotId, phone: '+1 415 555 0142' })
    expect(robot.status).toBe(201)
    expect(robot.body.data).toMatchObject({ status: 'scheduled', scheduled_reason: 'outside_calling_hours', scheduled_for: iso(start + 30 * 60_000) })
    const c = (await api('GET', `/leads/${robot.body.data.id}/contactability`)).body.data
    expect(c.rules).toContainEqual(expect.objectContaining({ id: 'CA-automated', kind: 'automated', state: 'CA' }))
    expect(c.blocked_by).toEqual([{ rule_id: 'CA-automated', reason: 'outside_calling_hours', until: iso(start + 30 * 60_000) }])

    const person = await api('POST', '/leads', { campaign_id: personId, phone: '+1 415 555 0143' })
    expect(person.status).toBe(201)
    expect(['queued', 'dialing']).toContain(person.body.data.status)
    const p = (await api('GET', `/leads/${person.body.data.id}/contactability`)).body.data
    expect(p.allowed_now).toBe(true)
    expect(p.rules.map((r: { id: string }) => r.id)).not.toContain('CA-automated')
  })

  test('toll-free: waits for 08:00 in Honolulu by default; refused at intake and POST /calls with DIALER_TOLL_FREE=refuse; a bad value stops the start', async () => {
    const tollFree = await api('POST', '/leads', { campaign_id: personId, phone: '+1 800 555 0144' })
    expect(tollFree.status).toBe(201)
    // 08:30 Pacific is 06:30 (PDT: 05:30) in Honolulu: every US clock applies.
    expect(tollFree.body.data.status).toBe('scheduled')
    expect((await api('GET', `/leads/${tollFree.body.data.id}/contactability`)).body.data.zones).toContain('Pacific/Honolulu')

    await stop()
    await serve({ DIALER_TOLL_FREE: 'refuse' })
    const refused = await api('POST', '/leads', { campaign_id: personId, phone: '+1 888 555 0145' })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({ code: 'number_not_allowed', reason: 'toll_free', param: 'phone' })
    const call = await api('POST', '/calls', { lead_id: tollFree.body.data.id })
    expect(call.status).toBe(422)
    expect(call.body.error).toMatchObject({ code: 'number_not_allowed', reason: 'toll_free' })

    await stop()
    const bad = Bun.spawnSync([...command, 'serve', '--port', '0', '--data-dir', dataDir], { cwd: work.path, env: env({ DIALER_TOLL_FREE: 'block' }) })
    expect(bad.exitCode).toBe(2)
    expect(bad.stderr.toString()).toBe('DIALER_TOLL_FREE must be strictest_zone or refuse, got "block"\n')
  })
})
