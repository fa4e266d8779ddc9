import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { basic, scratchDir } from '../harness'
import { serviceCommand, spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Split area codes on the service as shipped (the compiled binary in CI, from an empty folder):
 * a number whose exchange the zone table does not list is checked in every zone of its area
 * code; a listed exchange keeps its one zone. Real clock: only the zones are asserted.
 */
const ADMIN = 'dat_split_area_binary_0123456789abcdef'

describe('split area codes on the service as shipped', () => {
  const work = scratchDir('dialer-split-')
  const command = serviceCommand(work.path)
  let server: ServiceProcess | null = null
  let base = ''
  let auth = ''
  let campaignId = ''
  const json = (args: string[]) => {
    const r = Bun.spawnSync([...command, 'admin', ...args], { cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_URL: base, DIALER_ADMIN_TOKEN: ADMIN } })
    if (r.exitCode !== 0) throw new Error(`dialer admin ${args.join(' ')}: exit ${r.exitCode} ${r.stderr.toString()}`)
    return JSON.parse(r.stdout.toString()).data
  }
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${base}/api/v1/external${path}`, {
      method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: r.status, body: (await r.json()) as any }
  }

  beforeAll(async () => {
    const started = await spawnService({ command, dataDir: join(work.path, 'data'), cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN } })
    server = started.proc
    base = started.base
    const org = json(['org', 'create', '--name', 'Acme'])
    campaignId = json(['campaign', 'create', '--org', org.id, '--name', 'Roofs', '--status', 'active', '--sdrs', 'Alex']).id
    const key = json(['key', 'create', '--org', org.id, '--name', 'k', '--mode', 'test'])
    auth = basic(key.id, key.secret)
  }, 30_000)

  afterAll(async () => {
    server?.kill('SIGTERM')
    await server?.exited
    work.remove()
  })

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
