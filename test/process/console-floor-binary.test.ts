import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { basic, scratchDir } from '../harness'
import { daytimeStart, startClock, type RunningClock } from './daytime-clock'
import { serviceCommand, spawnService, type ServiceProcess } from './spawn-service'

setDefaultTimeout(60_000)

/**
 * The console's floor view and the campaigns' abandonment rate on the service as shipped (the
 * compiled binary when DIALER_TEST_BINARY is set), from an empty folder: an owner signs in; a live
 * lead's call (the simulated carrier) shows on the floor with its lead and campaign; the
 * abandonment column reads each campaign's 30 days; an SDR reads the floor but may not supervise;
 * the served page's script carries the Floor page.
 */

const ADMIN = 'console-floor-binary-admin-0123456789'
const work = scratchDir('dialer-console-floor-')
let server: ServiceProcess | null = null
let clock: RunningClock | null = null
let base = ''
let orgId = ''
let campaignId = ''
const PASSWORD = 'floor binary 123456'

const admin = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${base}/api/v1/admin${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: r.status, body: (await r.json()) as any }
}

async function signIn(email: string) {
  const r = await fetch(`${base}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) })
  expect(r.status).toBe(200)
  const json = (await r.json()) as any
  return { cookie: r.headers.get('set-cookie')!.split(';')[0]!, csrf: json.data.csrf_token as string }
}

async function consoleCall(session: { cookie: string; csrf: string }, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { cookie: session.cookie, 'x-csrf-token': session.csrf }
  if (body !== undefined) headers['content-type'] = 'application/json'
  const r = await fetch(`${base}/console/api${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: r.status, body: (await r.json()) as any }
}

beforeAll(async () => {
  mkdirSync(join(work.path, 'run'))
  const command = serviceCommand(work.path)
  const started = await spawnService({
    command, dataDir: join(work.path, 'data'), cwd: join(work.path, 'run'),
    env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_LOG_REQUESTS: '0', DIALER_CHECK_REPLIES: '1', DIALER_FAKE_CLOCK: '1' },
  })
  server = started.proc
  base = started.base
  // A New York daytime hour, so the live lead is called whatever the time of the run.
  clock = await startClock(base, ADMIN, daytimeStart(Date.now(), ['America/New_York']))
  orgId = (await admin('POST', '/orgs', { name: 'Floor Roofing', timezone: 'America/New_York' })).body.data.id
  campaignId = (await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Floor roofs', status: 'active', sdrs: [{ name: 'Alex Rivera', phone: '+12125550111' }] })).body.data.id
  for (const [email, role] of [['owner@floor.example', 'owner'], ['sdr@floor.example', 'sdr']]) {
    expect((await admin('POST', `/orgs/${orgId}/users`, { email, password: PASSWORD, role })).status).toBe(201)
  }
}, 60_000)

afterAll(async () => {
  await clock?.stop()
  server?.kill('SIGTERM')
  await server?.exited
  work.remove()
})

describe('console floor view (compiled binary)', () => {
  test("a live call shows on the floor with its lead; the abandonment column reads each campaign's 30 days", async () => {
    const owner = await signIn('owner@floor.example')
    const key = (await admin('POST', `/orgs/${orgId}/keys`, { name: 'crm', mode: 'live' })).body.data
    // Scenario 02 rings 30 s: the call stays live while the floor is read.
    const lead = await fetch(`${base}/api/v1/external/leads`, {
      method: 'POST', headers: { authorization: basic(key.id, key.secret), 'content-type': 'application/json' },
      body: JSON.stringify({ campaign_id: campaignId, phone: '+12125553102', name: 'Bea Floor' }),
    })
    expect(lead.status).toBe(201)
    let floor: any = null
    for (let i = 0; i < 50; i++) {
      const r = await consoleCall(owner, 'GET', `/orgs/${orgId}/floor`)
      expect(r.status).toBe(200)
      floor = r.body.data
      if (floor.calls.length > 0) break
      await Bun.sleep(100)
    }
    expect(floor.calls[0]).toMatchObject({ lead_name: 'Bea Floor', campaign_name: 'Floor roofs', status: 'ringing', person_name: null, seat_id: null })
    expect(floor.seats).toEqual([])
    const rates = await consoleCall(owner, 'GET', `/orgs/${orgId}/abandonment`)
    expect(rates.status).toBe(200)
    expect(rates.body.data).toEqual([{ campaign_id: campaignId, answered_by_person: 0, abandoned: 0, rate: 0, max_abandon_rate: 0.03, warning: false }])
  })

  test('an SDR reads the floor and its stream but may not supervise; the page script has the Floor page', async () => {
    const sdr = await signIn('sdr@floor.example')
    expect((await consoleCall(sdr, 'GET', `/orgs/${orgId}/floor`)).status).toBe(200)
    const stream = await fetch(`${base}/console/api/orgs/${orgId}/floor/stream`, { headers: { cookie: sdr.cookie } })
    expect(stream.headers.get('content-type')).toBe('text/event-stream')
    const reader = stream.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value).startsWith('event: floor\n')).toBe(true)
    await reader.cancel()
    const refused = await consoleCall(sdr, 'POST', `/orgs/${orgId}/calls/${crypto.randomUUID()}/supervise`, { mode: 'listen', phone: '+12125550150' })
    expect([refused.status, refused.body.error.missing_permission]).toEqual([403, 'campaigns:write'])
    // HEAD on a stream gets its head at once (a body that never ends used to hold the connection silent).
    for (const which of ['floor', 'campaigns']) {
      const head = await fetch(`${base}/console/api/orgs/${orgId}/${which}/stream`, { method: 'HEAD', headers: { cookie: sdr.cookie }, signal: AbortSignal.timeout(3_000) })
      expect([head.status, head.headers.get('content-type')]).toEqual([200, 'text/event-stream'])
    }
    const html = await (await fetch(`${base}/console/floor?org=${orgId}`)).text()
    const script = /src="(\/console\/assets\/app-[^"]+\.js)"/.exec(html)![1]!
    expect(await (await fetch(`${base}${script}`)).text()).toContain('/floor/stream')
  })
})
