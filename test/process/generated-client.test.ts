import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { scratchDir } from '../harness'
import { generateClientTypes } from '../client/generate'
import { daytimeStart, startClock, type RunningClock } from './daytime-clock'
import { serviceCommand, spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Issue 15: a client generated from the published OpenAPI document works with no hand edits.
 * openapi-typescript generates the `paths` type from the document the running service serves,
 * tsc --strict checks test/client/walk.ts (an openapi-fetch program as a developer would write
 * it) against it, and the program walks the API of the running service: the compiled binary
 * when CI set DIALER_TEST_BINARY, else `bun run src/main.ts`. A document change that breaks a
 * generated client fails here.
 *
 * walk.ts names the reply objects and operations as the document does (`components['schemas']['Lead']`,
 * `operations['createLead']`), so renaming one fails here.
 *
 * The calling rules (issue 17) dial the walk's Chicago lead only in its daytime (and it looks at
 * New York numbers too), so the service runs on the fake clock, moved at real speed from now or
 * the next hour both zones are in daytime.
 */

const ADMIN = 'generated-client-admin-token-0123456789'
const root = join(import.meta.dir, '../..')
const clientDir = join(root, 'test/client')
const work = scratchDir('dialer-client-')

let server: ServiceProcess | null = null
let base = ''
let clock: RunningClock | null = null

beforeAll(async () => {
  const command = serviceCommand(work.path)
  const started = await spawnService({
    command,
    dataDir: join(work.path, 'data'),
    cwd: process.env.DIALER_TEST_BINARY ? work.path : root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: work.path,
      DIALER_ADMIN_TOKEN: ADMIN,
      DIALER_LOG_REQUESTS: '0',
      DIALER_CHECK_REPLIES: '1',
      // Scenario 09 (answered, hung up at 12 s) ends in well under a second.
      DIALER_SIM_SPEED: '30',
      DIALER_FAKE_CLOCK: '1',
    },
  })
  server = started.proc
  base = started.base
  clock = await startClock(base, ADMIN, daytimeStart(Date.now(), ['America/Chicago', 'America/New_York']))
}, 60_000)

afterAll(async () => {
  await clock?.stop()
  server?.kill('SIGKILL')
  work.remove()
})

async function admin(method: string, path: string, body?: unknown): Promise<any> {
  const reply = await fetch(`${base}/api/v1/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await reply.text()
  if (reply.status >= 300) throw new Error(`admin ${method} ${path}: ${reply.status} ${text}`)
  return JSON.parse(text)
}

describe('a client generated from the published OpenAPI document', () => {
  test('the service serves the committed document (with its own URL as the server)', async () => {
    const served = (await (await fetch(`${base}/api/v1/external/openapi.json`)).json()) as Record<string, unknown>
    const committed = JSON.parse(readFileSync(join(root, 'src/api/openapi.generated.json'), 'utf8'))
    expect({ ...served, servers: null }).toEqual({ ...committed, servers: null })
  })

  test('openapi-typescript generates its types and tsc --strict accepts walk.ts', async () => {
    await generateClientTypes(`${base}/api/v1/external/openapi.json`, join(clientDir, 'api.generated.d.ts'))
    // Readable names: the reply objects and the operations are named, as walk.ts uses them.
    const types = readFileSync(join(clientDir, 'api.generated.d.ts'), 'utf8')
    for (const name of ['Lead', 'Call', 'Campaign', 'Event', 'Error', 'DncEntry', 'WebhookEndpoint', 'Export', 'Usage']) {
      expect(types).toMatch(new RegExp(`^\\s+${name}: \\{`, 'm'))
    }
    for (const id of ['createLead', 'listCalls', 'getCall', 'createDncEntry']) expect(types).toMatch(new RegExp(`^\\s+${id}: \\{`, 'm'))
    expect(types).not.toContain('getApiV1External')
    // Written as a developer would: no casts to any, no silenced errors.
    const walk = readFileSync(join(clientDir, 'walk.ts'), 'utf8')
    expect(walk).not.toMatch(/\bas\s+(any|unknown)\b|:\s*any\b|<any>|@ts-(ignore|expect-error|nocheck)/)
    const tsc = Bun.spawnSync([process.execPath, join(root, 'node_modules/typescript/bin/tsc'), '-p', clientDir], { cwd: root })
    const output = `${tsc.stdout.toString()}${tsc.stderr.toString()}`
    if (tsc.exitCode !== 0 || output.trim() !== '') {
      throw new Error(`tsc -p test/client: the generated client no longer type-checks against the published document:\n${output}`)
    }
  })

  test('the client walks every resource against the running service', async () => {
    const org = await admin('POST', '/orgs', { name: 'Generated Client Org', plan_requests_per_minute: 100000 })
    const campaign = await admin('POST', `/orgs/${org.data.id}/campaigns`, {
      name: 'Client walk', status: 'active', sdrs: [{ name: 'Alex Rivera' }], lines: 4, calling_hours: { start: '08:00', end: '21:00' },
    })
    // A key made with the default permissions holds all of them.
    const key = await admin('POST', `/orgs/${org.data.id}/keys`, { name: 'walk', mode: 'live', requests_per_minute: 100000, burst: 10000 })
    const walk = Bun.spawn([process.execPath, join(clientDir, 'walk.ts')], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', BASE: base, KEY: key.data.id, SECRET: key.data.secret, CAMPAIGN: campaign.data.id },
      stdout: 'pipe',
      stderr: 'pipe',
    })
    const [stdout, stderr, code] = await Promise.all([new Response(walk.stdout).text(), new Response(walk.stderr).text(), walk.exited])
    if (code !== 0 || stderr !== '') throw new Error(`walk.ts exited ${code}:\n${stdout}${stderr}`)
    expect(stdout).toContain('walk: every step passed')
  })
})
