import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { basic, scratchDir } from '../harness'
import { spawnService, type RunningService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// Graceful stop under load: clients keep posting leads while the process gets SIGTERM. Every
// lead the service acknowledged (201) must be there after a restart, and the request log must
// be one JSON line per request with no secret or full phone number in it. Runs the compiled
// binary when CI built one (DIALER_TEST_BINARY), else the sources.
const ADMIN = 'shutdown-test-admin-token-0123456789'
const root = join(import.meta.dir, '../..')
const work = scratchDir('dialer-shutdown-')
const dataDir = join(work.path, 'data')
const prebuilt = process.env.DIALER_TEST_BINARY
// Absolute: the process starts in a scratch folder, and CI passes a path relative to the checkout.
const command = prebuilt && existsSync(prebuilt) ? [resolve(prebuilt)] : [process.execPath, 'run', join(root, 'src/main.ts')]

const procs: ServiceProcess[] = []

/** Starts `serve` on the shared data directory. */
async function startServer(): Promise<RunningService> {
  const started = await spawnService({ command, dataDir, cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN } })
  procs.push(started.proc)
  return started
}

afterAll(async () => {
  for (const proc of procs) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL')
  await Promise.all(procs.map((p) => p.exited))
  work.remove()
})

describe('graceful shutdown', () => {
  test('SIGTERM under load: in-flight requests finish, every acknowledged lead survives the restart', async () => {
    const first = await startServer()
    const admin = async (path: string, body: unknown) => {
      const r = await fetch(`${first.base}/api/v1/admin${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
      expect(r.status).toBe(201)
      return ((await r.json()) as { data: any }).data
    }
    const org = await admin('/orgs', { name: 'Shutdown Org', plan_requests_per_minute: 100_000 })
    // Paused: leads are held, not dialed, so nothing but intake writes.
    const campaign = await admin(`/orgs/${org.id}/campaigns`, { name: 'Load', status: 'paused', sdrs: [{ name: 'Alex' }] })
    const key = await admin(`/orgs/${org.id}/keys`, { name: 'load', mode: 'live', requests_per_minute: 100_000, burst: 100_000, leads_per_minute: 100_000, max_concurrent: 50 })
    const auth = basic(key.id, key.secret)

    const acknowledged: string[] = []
    let refused = 0
    let sent = 0
    let stop = false
    // 16 clients, each posting one lead after another until the server is gone.
    const client = async (c: number) => {
      for (let i = 0; !stop; i++) {
        const phone = `+1312555${String(2000 + c * 400 + (i % 400)).padStart(4, '0')}`
        sent++
        try {
          const r = await fetch(`${first.base}/api/v1/external/leads`, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: JSON.stringify({ campaign_id: campaign.id, phone, external_id: `c${c}-${i}` }),
          })
          const body = (await r.json()) as any
          if (r.status === 201) acknowledged.push(body.data.id)
          // 409: a number posted again; 429 queue_full: 5,000 leads already wait (a fast run gets there).
          else if (r.status !== 409 && !(r.status === 429 && body.error?.code === 'queue_full')) {
            throw new Error(`unexpected ${r.status}: ${JSON.stringify(body)}`)
          }
        } catch (error) {
          if (String(error).startsWith('Error: unexpected')) throw error
          // The server has stopped taking connections.
          refused++
          await Bun.sleep(5)
          if (first.proc.exitCode !== null) return
        }
      }
    }
    const clients = Array.from({ length: 16 }, (_, c) => client(c))
    await Bun.sleep(1500)
    const beforeStop = acknowledged.length
    first.proc.kill('SIGTERM')
    expect(await first.proc.exited).toBe(0)
    stop = true
    await Promise.all(clients)
    expect(beforeStop).toBeGreaterThan(50)
    expect(refused).toBeGreaterThan(0)

    // The log: one JSON line per request, nothing secret.
    const lines = first.output().split('\n').filter((l) => l.startsWith('{'))
    const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request')
    expect(requests.length).toBeGreaterThanOrEqual(acknowledged.length)
    const sample = requests.find((l) => l.route === '/api/v1/external/leads')
    expect(sample).toMatchObject({ method: 'POST', status: 201, key_id: key.id })
    expect(sample.request_id).toStartWith('req_')
    expect(typeof sample.duration_ms).toBe('number')
    const whole = first.output()
    expect(whole).not.toContain(key.secret)
    expect(whole).not.toMatch(/\+?1?312555\d{4}/)
    expect(lines.some((l) => JSON.parse(l).msg === 'stopped')).toBe(true)

    // Restart: every acknowledged lead is there.
    const second = await startServer()
    const ids = new Set<string>()
    let after = ''
    for (;;) {
      const r = await fetch(`${second.base}/api/v1/external/leads?limit=100&campaign_id=${campaign.id}${after ? `&starting_after=${after}` : ''}`, {
        headers: { authorization: auth },
      })
      expect(r.status).toBe(200)
      const page = (await r.json()) as any
      for (const lead of page.data) ids.add(lead.id)
      if (!page.meta.has_more) break
      after = page.data.at(-1).id
    }
    const lost = acknowledged.filter((id) => !ids.has(id))
    expect(lost).toEqual([])
    // Nothing was written that was not acknowledged, beyond requests cut in flight (none here).
    expect(ids.size).toBe(acknowledged.length)
    // The stop also wrote the requests counted in memory and the new leads into the usage rollups.
    const usage = (await (await fetch(`${second.base}/api/v1/external/usage`, { headers: { authorization: auth } })).json()) as any
    expect(usage.data.totals.leads_added).toBe(acknowledged.length)
    expect(usage.data.totals.requests).toBeGreaterThanOrEqual(sent - refused)
    second.proc.kill('SIGTERM')
    expect(await second.proc.exited).toBe(0)
  }, 60_000)
})
