import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { copyFileSync, existsSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { scratchDir } from '../harness'
import { consoleCase, consoleRoutes } from './fuzz-console'
import { send, type SendResult } from './fuzz-http'
import {
  ADMIN_ROUTES, ADMIN_TOKEN, caseArbitrary, checkReply, describeCase, describeResult, externalRoutes, OPEN_ROUTES,
  type CaseOptions, type Credential, type FuzzCase, type IdKind, type Route, type World,
} from './fuzz-kit'
import { appRoutes, renewSessions, seedSurfaces, stopEmulator, TWILIO_SID, TWILIO_TOKEN, warmSurfaces, type AppRoute, type SurfaceWorld } from './fuzz-surfaces'
import { callbackCase, importCase, importRoutes } from './fuzz-uploads'
import type { RunningService } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Issue 14, item 8: a property-based fuzz test of every external and admin route, against a
 * real server process: the compiled binary when DIALER_TEST_BINARY is set (CI: dist/dialer),
 * else `bun run src/main.ts` from this repository. It starts from an empty data folder, seeds
 * two organizations (campaigns, keys of every kind, leads, calls with recordings, events, Do
 * Not Call entries, webhook endpoints, an export) and a playground organization for the admin
 * API, then sends a few thousand generated requests: random and hostile methods, paths (real
 * ids, the other organization's ids, junk, dot segments, encodings, prefixes with short Host
 * values), query strings, headers and bodies (plausible shapes from the spec, mutated; deep
 * nesting, prototype keys, huge numbers, NUL bytes, invalid UTF-8, non-JSON, over 1 MB).
 *
 * Three families cover the newer surfaces, their routes read off the app's own route table
 * (fuzz-surfaces.ts; seeded on top: console accounts and sessions, keys and accounts the fuzzer
 * may revoke or disable, and an organization whose carrier is the Twilio emulator, over
 * loopback, with calls placed):
 * - console (fuzz-console.ts): every /console/api route with an owner's, an SDR's, the
 *   operator's and another organization's session, no cookie or a dead one (signed out,
 *   disabled account, altered token); with and without the session's X-CSRF-Token; both
 *   organizations' ids and junk in the path; bodies from the route's own schema, mutated. The
 *   campaign board's event stream is done once its head has come (fuzz-http.ts). The fuzzer
 *   never signs its own sessions out, and sends wrong passwords only for a decoy account;
 * - imports (fuzz-uploads.ts): the admin and console CSV imports and the import records, with
 *   generated files (odd quoting, BOMs, CR/CRLF, NUL bytes, invalid UTF-8, huge fields, many
 *   columns, header only, empty, a few of 1-5 MB) and campaign_id, dry_run and map mutated;
 * - callbacks (fuzz-uploads.ts): the Twilio callbacks, to Twilio calls, simulator calls and
 *   junk ids, with no, random, wrong-token, wrong-URL and right X-Twilio-Signature values, form
 *   bodies with Twilio's fields and random ones, hundreds of fields, up to 1.1 MB, other types.
 *
 * Every reply must (fuzz-kit.ts `checkReply`):
 * - not be a 5xx, and arrive within 250 ms (DIALER_FUZZ_MAX_MS); a request that checks or hashes a
 *   password (console sign-in, new account) within 2 s (argon2id is slow on purpose), a CSV file
 *   over 256 KB within 250 ms plus 1 s a megabyte;
 * - carry Request-Id; on the external API (a plain path under /api/v1/external other than the
 *   open OpenAPI document) also RateLimit-Limit/-Remaining/-Reset, failed authentication included;
 * - with a status of 400 or more, be JSON in the error envelope { error: { type, code, message,
 *   param, request_id } } whose request_id is the Request-Id header. Decision: this holds on
 *   every path, not only the API's: the service answers unknown paths and methods (404
 *   not_found), signed-link refusals and admin errors with the same envelope, and a client
 *   should not need to know which part of the service refused it. A HEAD reply has no body;
 * - not be a success when the request had to be refused: credentials that do not open the
 *   route's door (API key for /api/v1/external, admin token for /api/v1/admin and /metrics),
 *   wherever dot segments, encodings or a short Host header point the path; a path with junk
 *   before a route; a query value its documented schema (the served OpenAPI document) forbids,
 *   e.g. limit=0 or limit=101; a body over 1 MB; a webhook URL on a loopback or private address;
 *   on the console: no live session (but for signing in), a change without the session's CSRF
 *   token, an organization in the path that is not the person's (or does not exist), an id of
 *   another organization than the path's, an SDR on an owner-only route (keys, webhook changes,
 *   Do Not Call changes, imports, campaign pause and activate), a person on the operator-only
 *   People routes, a sign-in without working credentials; an import of another organization's
 *   campaign, or without the admin token (admin route); a callback without a valid signature,
 *   for a call not on Twilio, or to no route;
 * - carry no stack trace, source path or module path (what the request itself sent aside);
 * - leave the process running.
 * Requests with a method Bun's HTTP parser does not know never reach the service (Bun closes
 * the connection): for those only the last rule applies. At the end the service is stopped
 * (SIGTERM, exit code 0), nothing it logged was an unhandled error, and its database passes
 * PRAGMA integrity_check.
 *
 * Reproducible: a fixed seed unless DIALER_FUZZ_SEED is set; DIALER_FUZZ_RUNS (default 3000)
 * is the total number of requests over the first six families (external, admin, open, paths,
 * webhooks, bodies); imports, console and callbacks add 7, 20 and 12 % of it. On failure the
 * seed, the family, a replay line and the shrunk request (raw HTTP) are printed, with the reply
 * and what the service logged. DIALER_FUZZ_ONLY=family runs one family;
 * DIALER_FUZZ_KEEP_GOING=1 does not stop at a family's first failure but lists every distinct
 * failure (no shrinking): what to use when hunting, with another seed and more runs. DIALER_FUZZ_TRACE=1 prints one line per request; DIALER_FUZZ_MAX_MS changes the
 * 250 ms limit (a reply over it is sent again and fails only if slow twice: the machine may be
 * busy); DIALER_FUZZ_FAMILY_MS (12 s) bounds each family, shrinking included. The fuzzed
 * service keeps its state across cases, so a replay with the same seed sends the same requests
 * but may meet a slightly different world. A service that hangs (no reply in 5 s, or three
 * times a case's own limit) or dies is reported and restarted on the same data folder, so the
 * other families still run.
 */

const SEED = Number(process.env.DIALER_FUZZ_SEED ?? 20_261_114)
const RUNS = Number(process.env.DIALER_FUZZ_RUNS ?? 3000)
const MAX_MS = Number(process.env.DIALER_FUZZ_MAX_MS ?? 250)
const ONLY = process.env.DIALER_FUZZ_ONLY ?? null
const KEEP_GOING = process.env.DIALER_FUZZ_KEEP_GOING === '1'
/** One line per request (family, credentials, request line, status, start of the reply). */
const TRACE = process.env.DIALER_FUZZ_TRACE === '1'
/** Budget per family, shrinking included; what is not run by then is reported, not failed. */
const FAMILY_MS = Number(process.env.DIALER_FUZZ_FAMILY_MS ?? (KEEP_GOING ? 600_000 : 12_000))

const root = join(import.meta.dir, '../..')
const work = scratchDir('dialer-fuzz-')
const dataDir = join(work.path, 'data')

let service: RunningService
let port = 0
let stderr = ''
let startService: () => Promise<void>
let restarts = 0
/** Every process started, so none outlives the file (a start that fails is killed too). */
const spawned: Bun.Subprocess[] = []
/** Set once the final test stops the service: no restart after that. */
let stopping = false

/** As spawn-service.ts, but the process is known before it listens, so a failed start is still cleaned up. */
async function spawnTracked(command: string[], cwd: string, env: Record<string, string>): Promise<RunningService> {
  const proc = Bun.spawn([...command, 'serve', '--port', '0', '--data-dir', dataDir], { cwd, env, stdout: 'pipe', stderr: 'pipe' })
  spawned.push(proc)
  const reader = proc.stdout.getReader()
  const decoder = new TextDecoder()
  let output = ''
  const deadline = Date.now() + 20_000
  while (!/listening on (http:\/\/\S+)/.test(output)) {
    const next = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => null)])
    if (next === null || next.done) {
      proc.kill('SIGKILL')
      throw new Error(`the service did not start: ${output}`)
    }
    output += decoder.decode(next.value, { stream: true })
  }
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }))
      if (done) break
      output += decoder.decode(value, { stream: true })
    }
  })()
  return { proc, base: /listening on (http:\/\/\S+)/.exec(output)![1]!, output: () => output }
}
/** What replaced processes wrote, for the final check of the log. */
let pastOutput = ''
let world: World
let external: Route[] = []
let surfaces: SurfaceWorld
let appTable: AppRoute[] = []
// The carrier of the Twilio organization (callbacks family): real time, so its calls are still up while fuzzed.
const emulator = TwilioEmulator.start({ accounts: [{ sid: TWILIO_SID, authToken: TWILIO_TOKEN, callerIds: ['+12125550100'] }], speed: 1 })
const logErrors: string[] = []

beforeAll(async () => {
  const prebuilt = process.env.DIALER_TEST_BINARY
  let command: string[]
  let cwd: string
  if (prebuilt) {
    if (!existsSync(prebuilt)) throw new Error(`DIALER_TEST_BINARY=${prebuilt} does not exist`)
    copyFileSync(prebuilt, join(work.path, 'dialer'))
    command = [join(work.path, 'dialer')]
    cwd = work.path
  } else {
    command = [process.execPath, 'run', join(root, 'src/main.ts')]
    cwd = root
  }
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: work.path,
    DIALER_ADMIN_TOKEN: ADMIN_TOKEN,
    DIALER_FAKE_CLOCK: '1',
    DIALER_CHECK_REPLIES: '1',
    DIALER_LOG_REQUESTS: '0',
    DIALER_AUTH_FAILURES_PER_MINUTE: '1000000',
    // Wrong passwords and admin tokens close an account after a few; the fuzzer sends many (the console family keeps them to a decoy account).
    DIALER_ACCOUNT_FAILURES: '1000000',
    DIALER_TRUST_PROXY: '1',
    DIALER_SHUTDOWN_GRACE_SECONDS: '2',
  }
  startService = async () => {
    service = await spawnTracked(command, cwd, env)
    port = Number(new URL(service.base).port)
    const proc = service.proc
    void (async () => {
      const decoder = new TextDecoder()
      for await (const chunk of proc.stderr) stderr += decoder.decode(chunk, { stream: true })
    })()
  }
  await startService()
  world = await seedWorld()
  surfaces = await seedSurfaces(service.base, emulator)
  appTable = appRoutes()
  const openapi = await (await fetch(`${service.base}/api/v1/external/openapi.json`)).json()
  external = externalRoutes(openapi)
  await warmUp()
}, 60_000)

afterAll(async () => {
  stopping = true
  for (const proc of spawned) {
    if (proc.exitCode === null && !proc.signalCode) proc.kill('SIGKILL')
    await proc.exited
  }
  await stopEmulator(emulator)
  work.remove()
})

// ---------------------------------------------------------------------------------------------
// Seeding, through the admin and external APIs

async function call(method: string, path: string, auth: Credential | 'admin', body?: unknown): Promise<any> {
  const authorization = auth === 'admin' ? `Bearer ${ADMIN_TOKEN}` : `Basic ${Buffer.from(`${auth.id}:${auth.secret}`).toString('base64')}`
  const r = await fetch(`${service.base}${path}`, {
    method,
    headers: { authorization, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await r.text()
  if (r.status >= 300) throw new Error(`seeding: ${method} ${path} answered ${r.status}: ${text}`)
  return JSON.parse(text)
}

async function seedWorld(): Promise<World> {
  const admin = (method: string, path: string, body?: unknown) => call(method, `/api/v1/admin${path}`, 'admin', body)
  const generous = { requests_per_minute: 100_000, burst: 100_000, leads_per_minute: 100_000, max_concurrent: 50 }
  const org = async (name: string) => (await admin('POST', '/orgs', { name, plan_requests_per_minute: 100_000, webhook_endpoint_limit: 1000 })).data.id as string
  const campaign = async (orgId: string, body: Record<string, unknown>) => (await admin('POST', `/orgs/${orgId}/campaigns`, body)).data.id as string
  const key = async (orgId: string, body: Record<string, unknown>): Promise<Credential & { keyId: string }> => {
    const d = (await admin('POST', `/orgs/${orgId}/keys`, { ...generous, ...body })).data
    return { id: d.id, secret: d.secret, keyId: d.id }
  }

  const a = await org('Fuzzed Org')
  const b = await org('Other Org')
  const playground = await org('Admin Playground')
  const person = { sdrs: [{ name: 'Alex Rivera' }], closers: [{ name: 'Sam Chen' }] }
  const active = await campaign(a, { name: 'Active', status: 'active', lines: 20, ...person })
  const draft = await campaign(a, { name: 'Draft' })
  const paused = await campaign(a, { name: 'Paused', status: 'paused', ...person })
  const consent = await campaign(a, { name: 'Consent', status: 'active', requires_consent: true, ...person })
  const otherActive = await campaign(b, { name: 'Other active', status: 'active', lines: 5, ...person })
  const playActive = await campaign(playground, { name: 'Play active', status: 'active', ...person })
  const playDraft = await campaign(playground, { name: 'Play draft' })

  const live = await key(a, { name: 'live', mode: 'live' })
  const test = await key(a, { name: 'test', mode: 'test' })
  const scoped = await key(a, { name: 'scoped', mode: 'live', campaign_ids: [active] })
  const readonly = await key(a, { name: 'readonly', mode: 'live', permissions: ['leads:read', 'calls:read', 'campaigns:read', 'dnc:read', 'events:read', 'usage:read'] })
  const other = await key(b, { name: 'other', mode: 'live' })
  const revoked = await key(a, { name: 'revoked', mode: 'live' })
  await admin('POST', `/keys/${revoked.id}/revoke`)
  const disabled = await key(a, { name: 'disabled', mode: 'live' })
  await admin('PATCH', `/keys/${disabled.id}`, { disabled: true })
  const now = Date.parse((await admin('GET', '/clock')).data.now)
  const expired = await key(a, { name: 'expired', mode: 'live', expires_at: new Date(now + 1000).toISOString() })
  const playKeys = [await key(playground, { name: 'play 1', mode: 'live' }), await key(playground, { name: 'play 2', mode: 'test' })]

  // Leads: +1 212 555 SSNN plays simulator scenario NN (00 interested, 01 not interested, 04 voicemail, 05 failed).
  const ny = (series: number, nn: string) => `+1212555${String(series).padStart(2, '0')}${nn}`
  const ext = '/api/v1/external'
  const leads: string[] = []
  let n = 0
  for (const nn of ['00', '01', '04', '05', '00', '02']) {
    const r = await call('POST', `${ext}/leads`, live, { campaign_id: active, phone: ny(20 + n, nn), name: `Lead ${n}`, external_id: `ext-${n}`, call_now: true })
    leads.push(r.data.id)
    n++
  }
  leads.push((await call('POST', `${ext}/leads`, live, { campaign_id: paused, phone: ny(40, '01'), external_id: 'ext-1' })).data.id)
  leads.push((await call('POST', `${ext}/leads`, live, { campaign_id: draft, phone: ny(41, '01') })).data.id)
  leads.push((await call('POST', `${ext}/leads`, live, { campaign_id: consent, phone: ny(42, '01'), consent: { source: 'web_form', agreed_at: '2026-01-01T00:00:00Z', text: 'yes' } })).data.id)
  const testLeads = [
    (await call('POST', `${ext}/leads`, test, { campaign_id: active, phone: '+12125550100', call_now: true })).data.id,
    (await call('POST', `${ext}/leads`, test, { campaign_id: active, phone: '+12125550104' })).data.id,
  ]
  const otherLeads = [(await call('POST', `${ext}/leads`, other, { campaign_id: otherActive, phone: ny(50, '00'), call_now: true })).data.id]

  // Several of what DELETE removes, so the fuzzer still finds some late in the run.
  const dnc = [(await call('POST', `${ext}/dnc`, test, { phone: '+14155552672' })).data.id]
  for (let i = 0; i < 5; i++) dnc.push((await call('POST', `${ext}/dnc`, live, { phone: `+1415555267${i === 0 ? 1 : i + 3}` })).data.id)
  const otherDnc = [(await call('POST', `${ext}/dnc`, other, { phone: '+14155552673' })).data.id]

  const hooks = [(await call('POST', `${ext}/webhook_endpoints`, test, { url: 'https://93.184.215.14:9/test-hook', events: ['lead.created'] })).data.id]
  for (let i = 0; i < 5; i++) hooks.unshift((await call('POST', `${ext}/webhook_endpoints`, live, { url: `https://93.184.215.14:9/hook-${i}`, events: ['call.completed', 'lead.created'] })).data.id)
  const otherHooks = [(await call('POST', `${ext}/webhook_endpoints`, other, { url: 'https://93.184.215.14:9/other-hook', events: ['lead.created'] })).data.id]
  const deliveries = [(await call('POST', `${ext}/webhook_endpoints/${hooks[0]}/test`, live)).data.id]
  const otherDeliveries = [(await call('POST', `${ext}/webhook_endpoints/${otherHooks[0]}/test`, other)).data.id]

  // Let the calls play out (and the expiring key expire).
  await admin('POST', '/clock', { advance_seconds: 100 })
  const calls = (await call('GET', `${ext}/calls?limit=100`, live)).data as any[]
  const testCalls = (await call('GET', `${ext}/calls?limit=100`, test)).data as any[]
  const otherCalls = (await call('GET', `${ext}/calls?limit=100`, other)).data as any[]
  const recording: string[] = []
  for (const c of [...calls, ...testCalls]) {
    if (!c.recording_available) continue
    const key = calls.includes(c) ? live : test
    const url = new URL((await call('GET', `${ext}/calls/${c.id}/recording`, key)).data.url)
    recording.push(url.pathname + url.search)
  }
  const events = ((await call('GET', `${ext}/events?limit=20`, live)).data as any[]).map((e) => e.id)
  const otherEvents = ((await call('GET', `${ext}/events?limit=5`, other)).data as any[]).map((e) => e.id)
  const made = (await call('POST', `${ext}/exports`, live, { exportType: 'leads' })).data
  const exportUrl = new URL(made.downloadUrl)
  const testExport = (await call('POST', `${ext}/exports`, test, { exportType: 'call_history' })).data
  const otherExport = (await call('POST', `${ext}/exports`, other, { exportType: 'leads' })).data
  const retired = (await admin('POST', `/campaigns/${playActive}/retired_numbers`, { phone: '+13125550199', reason: 'fuzz' })).data.id
  const jobs = ((await admin('GET', '/jobs')).data as any[]).map((j) => j.name as string)

  if (recording.length === 0) throw new Error(`seeding: no call has a recording (calls: ${JSON.stringify(calls.map((c) => [c.outcome, c.recording_available]))})`)
  const ids: Record<IdKind, { mine: string[]; other: string[] }> = {
    campaign: { mine: [active, draft, paused, consent], other: [otherActive, playActive] },
    lead: { mine: [...leads, ...testLeads], other: otherLeads },
    call: { mine: [...calls, ...testCalls].map((c) => c.id), other: otherCalls.map((c) => c.id) },
    dnc: { mine: dnc, other: otherDnc },
    event: { mine: events, other: otherEvents },
    webhook: { mine: hooks, other: otherHooks },
    delivery: { mine: deliveries, other: otherDeliveries },
    export: { mine: [made.export.id, testExport.export.id], other: [otherExport.export.id] },
    recording: { mine: calls.filter((c) => c.recording_available).map((c) => c.id), other: otherCalls.map((c) => c.id) },
    // The admin API may change or revoke what it is given: only the playground's organization,
    // keys and campaigns (the fuzzed organization's keys and plan stay as seeded).
    org: { mine: [playground], other: [] },
    key: { mine: playKeys.map((k) => k.id), other: [] },
    retired: { mine: [retired], other: [] },
    job: { mine: jobs, other: ['nope', '__proto__', 'constructor'] },
  }
  return {
    good: { live, test, scoped, readonly, other },
    bad: { revoked, disabled, expired },
    ids,
    links: { recording, export: [exportUrl.pathname + exportUrl.search] },
    phones: [ny(60, '00'), ny(61, '01'), ny(62, '04'), '+14155552671', '+12125550150', '+12125550101', '+19005551234', '+18095551234', '(415) 555-2671', '415.555.2672'],
  }
}

/** One plain request per route first, so the 250 ms rule measures the service, not first-call compilation. */
async function warmUp(): Promise<void> {
  const auth = (door: string) => (door === 'external' ? `Basic ${Buffer.from(`${world.good.live.id}:${world.good.live.secret}`).toString('base64')}` : `Bearer ${ADMIN_TOKEN}`)
  for (const route of [...external, ...ADMIN_ROUTES, ...OPEN_ROUTES]) {
    if (route.template.endsWith('/clock') && route.method === 'POST') continue
    const path = route.template.replace(/\{[^}]+\}/g, '00000000-0000-4000-8000-000000000000')
    await send(port, { method: route.method, target: path, headers: [['Host', 'localhost'], ['Authorization', auth(route.door)], ['Content-Type', 'application/json']], body: route.hasBody ? Buffer.from('{}') : null })
  }
  await warmSurfaces(port, surfaces, appTable.filter((r) => r.template.startsWith('/console/api/') || r.template.startsWith('/twilio/') || importRoutes([r]).length > 0))
}

// ---------------------------------------------------------------------------------------------
// Running a family

interface Outcome {
  problems: string[]
  result: SendResult
  log: string
}

async function runCase(c: FuzzCase): Promise<Outcome> {
  const before = service.output().length
  const beforeErr = stderr.length
  // A large upload has a time limit of its own (fuzz-uploads.ts).
  const maxMs = c.maxMs ?? MAX_MS
  const timeout = Math.max(5_000, 3 * maxMs)
  let result = await send(port, c.request, timeout)
  let problems = checkReply(c, result, { maxMs })
  if (result.kind === 'reply' && result.reply.ms > maxMs) {
    // Slow once may be the machine (two cores, shared): the same request again must be slow too.
    const first = Math.round(result.reply.ms)
    await Bun.sleep(50)
    const again = await send(port, c.request, timeout)
    const slow = again.kind !== 'reply' || again.reply.ms > maxMs
    problems = problems.filter((p) => !p.startsWith('reply took'))
    if (slow) problems.push(`reply took ${first} ms, and ${again.kind === 'reply' ? Math.round(again.reply.ms) : again.kind} ms when sent again (limit ${maxMs})`)
    result = again.kind === 'reply' ? result : again
    if (again.kind === 'reply') problems.push(...checkReply(c, again, { maxMs: Number.POSITIVE_INFINITY }).filter((p) => !problems.includes(p)))
  }
  if (service.proc.exitCode !== null || service.proc.signalCode) {
    await Bun.sleep(50)
    problems.push(`the service exited (code ${service.proc.exitCode}, signal ${service.proc.signalCode}): ${stderr.slice(-2000)}`)
  }
  if (!stopping && (result.kind === 'timeout' || service.proc.exitCode !== null || service.proc.signalCode)) {
    // A service that hangs or died is replaced (same data folder), so shrinking and the other
    // families still run against one that answers. The failure is reported all the same.
    service.proc.kill('SIGKILL')
    await service.proc.exited
    pastOutput += service.output()
    restarts++
    await startService()
    await warmUp()
  }
  const log = (service.output().slice(before) + stderr.slice(beforeErr))
    .split('\n')
    .filter((line) => /"level":"(error|warn)"|error|panic/i.test(line))
    .map((line) => (line.length > 1500 ? `${line.slice(0, 1500)}...` : line))
    .join('\n    ')
  return { problems, result, log }
}

function report(c: FuzzCase, o: Outcome): string {
  return `${o.problems.map((p) => `- ${p}`).join('\n')}\nrequest:${describeCase(c)}reply: ${describeResult(o.result)}${o.log ? `\nservice log:\n    ${o.log}` : ''}`
}

const FAMILIES: { name: string; share: number; options?: (w: World) => Omit<CaseOptions, 'family'>; cases?: (name: string) => fc.Arbitrary<FuzzCase> }[] = [
  {
    // The external API as a client would call it, with every kind of key and plausible (then mutated) input.
    name: 'external',
    share: 0.3,
    options: () => ({ routes: external, documentedMethod: 12, headers: { auth: { admin: 1, good: 16, bad: 2, none: 1 }, oddHost: 0 }, bendPaths: false, hostileBodies: false }),
  },
  {
    // The admin API with the admin token, mostly; on the playground organization.
    name: 'admin',
    share: 0.15,
    options: () => ({ routes: ADMIN_ROUTES, documentedMethod: 12, headers: { auth: { admin: 12, good: 2, bad: 3, none: 1 }, oddHost: 0 }, bendPaths: false, hostileBodies: false }),
  },
  {
    // Metrics, health, docs, the OpenAPI document and the signed links (real ones and tampered ones).
    name: 'open',
    share: 0.1,
    options: () => ({ routes: OPEN_ROUTES, documentedMethod: 10, headers: { auth: { admin: 3, good: 2, bad: 2, none: 4 }, oddHost: 1 }, bendPaths: false, hostileBodies: false }),
  },
  {
    // Every route, with bent paths, odd Host values, junk methods and odd headers.
    name: 'paths',
    share: 0.2,
    options: () => ({ routes: [...external, ...ADMIN_ROUTES, ...OPEN_ROUTES], documentedMethod: 6, headers: { auth: { admin: 3, good: 3, bad: 2, none: 3 }, oddHost: 4, shortHost: 6 }, bendPaths: true, hostileBodies: false }),
  },
  {
    // Webhook endpoints created and changed with plausible bodies: targets on this machine or a private network must be refused.
    name: 'webhooks',
    share: 0.05,
    options: () => ({
      routes: external.filter((r) => /^\/api\/v1\/external\/webhook(s|_endpoints(\/\{id\})?)$/.test(r.template) && (r.method === 'POST' || r.method === 'PATCH')),
      documentedMethod: 30,
      headers: { auth: { admin: 0, good: 12, bad: 1, none: 0 }, oddHost: 0 },
      bendPaths: false,
      hostileBodies: false,
      plainBodies: 12,
    }),
  },
  {
    // Every write route with valid credentials and a hostile body.
    name: 'bodies',
    share: 0.2,
    options: () => ({
      routes: [...external, ...ADMIN_ROUTES].filter((r) => r.hasBody),
      documentedMethod: 30,
      headers: { auth: { admin: 0, good: 12, bad: 1, none: 0 }, oddHost: 0 },
      bendPaths: false,
      hostileBodies: true,
    }),
  },
  {
    // Lead CSV imports, admin and console, with generated files up to 5 MB (fuzz-uploads.ts). Before
    // the console family, so its lead search meets the imported leads.
    name: 'imports',
    share: 0.07,
    cases: (name) => importCase(world, surfaces, importRoutes(appTable), name, MAX_MS),
  },
  {
    // The console's JSON API with every kind of session (fuzz-console.ts).
    name: 'console',
    share: 0.2,
    cases: (name) => consoleCase(world, surfaces, consoleRoutes(appTable), name),
  },
  {
    // Twilio's callbacks: real and junk call ids, signatures right and wrong, odd forms (fuzz-uploads.ts).
    name: 'callbacks',
    share: 0.12,
    cases: (name) => callbackCase(world, surfaces, appTable, name, () => service.base),
  },
]

/** Admin routes only open with the admin token, external ones with a key: the bodies family picks the right one. */
function withDoorCredentials(arb: fc.Arbitrary<FuzzCase>): fc.Arbitrary<FuzzCase> {
  return arb.map((c) => {
    if (c.route.door !== 'admin' || c.auth === 'admin') return c
    const headers = c.request.headers.filter(([k]) => k.toLowerCase() !== 'authorization')
    headers.push(['Authorization', `Bearer ${ADMIN_TOKEN}`])
    const fixed: FuzzCase = { ...c, auth: 'admin', mustRefuse: c.mustRefuse.filter((m) => !m.includes('credentials')), request: { ...c.request, headers } }
    return Object.assign(fixed, { [fc.toStringMethod]: () => describeCase(fixed) })
  })
}

describe('fuzz: every route, random and hostile requests, against the running service', () => {
  FAMILIES.forEach((family, index) => {
    const runs = Math.max(1, Math.round(RUNS * family.share))
    const skip = ONLY !== null && ONLY !== family.name
    test.skipIf(skip)(`${family.name}: ${runs} requests (seed ${SEED + index})`, async () => {
      // The admin family moves the fake clock past a session's idle time: the new families sign in afresh.
      if (family.name === 'console' || family.name === 'imports') await renewSessions(service.base, surfaces)
      let arb = family.cases ? family.cases(family.name) : caseArbitrary(world, { family: family.name, ...family.options!(world) })
      if (family.name === 'bodies') arb = withDoorCredentials(arb)
      const failures = new Map<string, { count: number; text: string }>()
      const statuses = new Map<string, number>()
      const routesSeen = new Set<string>()
      const details = await fc.check(
        fc.asyncProperty(arb, async (c) => {
          const o = await runCase(c)
          const status = o.result.kind === 'reply' ? `${o.result.reply.status}` : o.result.kind
          statuses.set(status, (statuses.get(status) ?? 0) + 1)
          if (o.result.kind === 'reply' && o.result.reply.status < 300) routesSeen.add(`${c.route.method} ${c.route.template}`)
          if (TRACE) console.log(`${family.name} ${c.auth} ${c.request.method} ${c.request.target.slice(0, 100)} -> ${status} ${o.result.kind === 'reply' ? `${Math.round(o.result.reply.ms)} ms ${o.result.reply.body.toString('utf8').slice(0, 140)}` : ''}`)
          if (o.problems.length === 0) return true
          if (KEEP_GOING) {
            // One entry per kind of failure and route (numbers and ids blurred).
            const kind = `${c.route.method} ${c.route.template} | ${o.problems.map((p) => p.replace(/[0-9a-f]{8}-[0-9a-f-]{27}|\d+/g, '#').slice(0, 90)).join(' | ')}`
            const seen = failures.get(kind)
            if (seen) seen.count++
            else failures.set(kind, { count: 1, text: report(c, o) })
            return true
          }
          throw new Error(report(c, o))
        }),
        {
          seed: SEED + index,
          numRuns: runs,
          path: process.env.DIALER_FUZZ_PATH,
          interruptAfterTimeLimit: FAMILY_MS,
          includeErrorInReport: true,
          endOnFailure: false,
        },
      )
      // One line per family for the log: what the service answered, and how many routes answered a success at least once.
      const byStatus = [...statuses.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`).join(', ')
      console.log(`fuzz ${family.name}: ${details.numRuns} requests; ${byStatus}; ${routesSeen.size} routes answered 2xx`)
      if (KEEP_GOING && failures.size) {
        const list = [...failures.entries()].map(([kind, f], i) => `#${i + 1} (${f.count}x) ${kind}\n${f.text}`).join('\n\n')
        throw new Error(`${failures.size} distinct failures in family ${family.name} (seed ${SEED + index}):\n\n${list}`)
      }
      if (details.failed) {
        const shrunk = details.counterexample ? fc.stringify(details.counterexample[0]) : '(none)'
        const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)
        throw new Error(
          `fuzz family "${family.name}" failed after ${details.numRuns} requests (${details.numShrinks} shrinks).\n` +
            `Replay: DIALER_FUZZ_SEED=${SEED} DIALER_FUZZ_ONLY=${family.name} DIALER_FUZZ_PATH=${details.counterexamplePath} bun test test/process/fuzz.test.ts\n` +
            `Shrunk request:${shrunk}\n${error}`,
        )
      }
      if (details.interrupted) console.warn(`fuzz family "${family.name}": stopped after ${details.numRuns} of ${runs} requests (${FAMILY_MS} ms budget)`)
    }, FAMILY_MS + 30_000)
  })

  test('the service stops cleanly, logged no unhandled error, and its database passes integrity_check', async () => {
    if (restarts) console.warn(`fuzz: the service hung or died ${restarts} time(s) and was restarted (see the failures above)`)
    stopping = true
    service.proc.kill('SIGTERM')
    const code = await Promise.race([service.proc.exited, Bun.sleep(15_000).then(() => 'still running')])
    expect(code).toBe(0)
    const unhandled = (pastOutput + service.output() + stderr).split('\n').filter((line) => /"msg":"(unhandled_error|response_validation_failed|uncaught|unhandled_rejection)"|panic|Unhandled/i.test(line))
    for (const line of unhandled.slice(0, 5)) logErrors.push(line.slice(0, 1500))
    if (unhandled.length > 5) logErrors.push(`... and ${unhandled.length - 5} more`)
    expect(logErrors).toEqual([])
    const db = new Database(join(dataDir, 'dialer.db'))
    try {
      expect(db.query('PRAGMA integrity_check').all()).toEqual([{ integrity_check: 'ok' }])
    } finally {
      db.close()
    }
  }, 30_000)
})
