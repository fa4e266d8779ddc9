import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { scratchDir } from '../harness'
import { writeSearchLeads } from './search-leads'
import { serviceCommand, spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(120_000)

// The console under load, against the compiled binary (DIALER_TEST_BINARY): campaign streams
// end once access does, a session holds at most 4 of them, lead search over 100,000 leads
// answers in milliseconds and leaves the health check alone, and a session's burst is 100.
const ADMIN = 'console-load-admin-token-0123456789'
const LEADS = 100_000
const work = scratchDir('dialer-console-load-')
const dataDir = join(work.path, 'data')
const command = serviceCommand(work.path)
const env = { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_LOG_REQUESTS: '0' }
const PASSWORD = 'console load password 1'

let server: ServiceProcess | null = null
let base = ''
let orgId = ''
const users: Record<string, string> = {}

async function admin(method: string, path: string, body?: unknown): Promise<any> {
  const reply = await fetch(`${base}/api/v1/admin${path}`, {
    method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (reply.status >= 300) throw new Error(`admin ${method} ${path}: ${reply.status} ${await reply.text()}`)
  return reply.json()
}

async function signIn(email: string): Promise<string> {
  const r = await fetch(`${base}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) })
  expect(r.status).toBe(200)
  return r.headers.get('set-cookie')!.split(';')[0]!
}

const start = async () => {
  const started = await spawnService({ command, dataDir, cwd: work.path, env })
  server = started.proc
  base = started.base
}

/** `count` leads straight into the stopped service's database (the oldest one named to be found). */
function seed(campaignId: string, count: number): void {
  const db = new Database(join(dataDir, 'dialer.db'))
  writeSearchLeads(db, orgId, campaignId, count)
  db.close()
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

beforeAll(async () => {
  await start()
  orgId = (await admin('POST', '/orgs', { name: 'Load Org', plan_requests_per_minute: 100_000 })).data.id
  const campaignId = (await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Load', status: 'paused', sdrs: [{ name: 'Ann' }] })).data.id
  for (const [who, role] of [['gone', 'sdr'], ['sdr', 'sdr'], ['owner', 'owner'], ['burst', 'sdr']] as const) {
    users[who] = (await admin('POST', `/orgs/${orgId}/users`, { email: `${who}@load.example`, password: PASSWORD, role })).data.id
  }
  server!.kill('SIGTERM')
  await server!.exited
  seed(campaignId, LEADS)
  await start()
}, 300_000)

afterAll(() => {
  server?.kill('SIGKILL')
  work.remove()
})

describe('console under load (compiled binary)', () => {
  test('an open campaign stream ends within two ticks of its account being disabled', async () => {
    const cookie = await signIn('gone@load.example')
    const r = await fetch(`${base}/console/api/orgs/${orgId}/campaigns/stream`, { headers: { cookie } })
    expect(r.status).toBe(200)
    const reader = r.body!.getReader()
    expect((await reader.read()).done).toBe(false)
    await admin('PATCH', `/users/${users.gone}`, { disabled: true })
    const deadline = Date.now() + 5_000
    let ended = false
    while (!ended && Date.now() < deadline) {
      const next = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => null)])
      if (next === null) break
      ended = next.done
    }
    await reader.cancel().catch(() => {})
    expect(ended).toBe(true)
  })

  test('a session holds at most 4 campaign streams: the fifth is 429 with Retry-After', async () => {
    const cookie = await signIn('owner@load.example')
    const aborts = Array.from({ length: 5 }, () => new AbortController())
    const replies: Response[] = []
    for (const abort of aborts) replies.push(await fetch(`${base}/console/api/orgs/${orgId}/campaigns/stream`, { headers: { cookie }, signal: abort.signal }))
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200, 429])
    expect(Number(replies[4]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(((await replies[4]!.json()) as any).error.code).toBe('rate_limited')
    for (const abort of aborts) abort.abort()
  })

  test(`search over ${LEADS.toLocaleString('en-US')} leads reaches the oldest, answers in under 20 ms (median), and 4 search loops leave the health check fast`, async () => {
    const cookie = await signIn('sdr@load.example')
    const search = async (q: string, who = cookie) => {
      const started = performance.now()
      const r = await fetch(`${base}/console/api/orgs/${orgId}/leads?q=${encodeURIComponent(q)}`, { headers: { cookie: who } })
      const body = (await r.json()) as any
      return { status: r.status, ms: performance.now() - started, names: r.status === 200 ? (body.data as any[]).map((l) => l.name) : [] }
    }
    // Leads past the newest 5,000 are found once the background indexing (oldest first) has
    // reached them: then both named ones, and a second later it has reached the end.
    const deadline = Date.now() + 60_000
    let found: string[] = []
    const poller = await signIn('sdr@load.example')
    while (Date.now() < deadline) {
      found = (await search('quentin', poller)).names
      if (found.length > 1) break
      await Bun.sleep(250)
    }
    expect(found).toEqual(['Quentin Lately', 'Quentin Oldest'])
    await Bun.sleep(1_500)

    const terms = ['ntin olde', 'lead 4242', 'ead9999', 'crm-7777', 'nobody here', 'example.com', 'lead1234@', '55 ', 'd 31415']
    const times: number[] = []
    for (let round = 0; round < 5; round++) {
      for (const q of terms) {
        const r = await search(q)
        expect(r.status).toBe(200)
        times.push(r.ms)
        if (round === 4) console.log(`  ${q}: ${r.ms.toFixed(2)} ms, ${r.names.length} leads`)
      }
    }
    console.log(`search, ${LEADS} leads: median ${median(times).toFixed(2)} ms, max ${Math.max(...times).toFixed(2)} ms over ${times.length}`)
    expect(median(times)).toBeLessThan(20)

    // Four search loops (four sessions) against the health check.
    const sessions = await Promise.all([0, 1, 2, 3].map(() => signIn('sdr@load.example')))
    let running = true
    let searches = 0
    const loops = sessions.map(async (who, i) => {
      while (running) {
        await search(terms[(searches + i) % terms.length]!, who)
        searches++
      }
    })
    const health: number[] = []
    const until = Date.now() + 3_000
    while (Date.now() < until) {
      const started = performance.now()
      await (await fetch(`${base}/healthz`)).text()
      health.push(performance.now() - started)
      await Bun.sleep(20)
    }
    running = false
    await Promise.all(loops)
    console.log(`health check during 4 search loops: p50 ${median(health).toFixed(2)} ms over ${health.length}; ${searches} searches`)
    expect(median(health)).toBeLessThan(20)
  })

  test('a session’s burst is 100: requests past it (and past the 10 a second refill) are 429 with Retry-After', async () => {
    const cookie = await signIn('burst@load.example')
    const started = performance.now()
    const replies = await Promise.all(Array.from({ length: 110 }, () => fetch(`${base}/console/api/session`, { headers: { cookie } })))
    const seconds = (performance.now() - started) / 1000
    const answered = replies.filter((r) => r.status === 200).length
    const refused = replies.filter((r) => r.status === 429)
    console.log(`burst of 110 in ${seconds.toFixed(2)} s: ${answered} answered, ${refused.length} refused`)
    expect(answered).toBeGreaterThanOrEqual(100)
    expect(answered).toBeLessThanOrEqual(100 + Math.ceil(seconds * 10))
    expect(refused.length).toBeGreaterThanOrEqual(1)
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    for (const r of replies) await r.arrayBuffer()
  })
})
