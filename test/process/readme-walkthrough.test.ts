import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { lookup } from 'node:dns/promises'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { callingRules } from '../../src/domain/calling-rules'
import { scratchDir } from '../harness'
import { startClock, type RunningClock } from './daytime-clock'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * The README's "A walk through the API with curl", run as written against `bun run demo`
 * (that is `bun run src/main.ts serve --demo`; here with a scratch data directory and a free
 * port). The five variables the README asks the reader to copy from the demo's banner are
 * filled from the banner; every other line runs unchanged, one after the other, in one bash.
 * A `.curlrc` (CURL_HOME) makes each curl also write its status to stderr, so every request
 * the walk-through makes is checked, including those inside `$(...)` and the wait loop.
 *
 * The calling rules allow a call only in the lead's daytime. The demo picks its phone from the
 * zones open now and prints it, so the walk-through runs on the real clock and its call starts
 * at once. From about 07:00 to 13:00 UTC no US or Canadian zone is open: the banner says so, and
 * then (only then) the demo is started again on the fake clock, moved to when the phone's zone
 * opens and on at real speed while the lines run.
 */

const root = join(import.meta.dir, '../..')
const work = scratchDir('dialer-walk-')
const README_SECTION = '## A walk through the API with curl'

/** Where the README tells the reader to find each value in what `bun run demo` printed. */
const BANNER: Record<string, { label: string; pattern: RegExp }> = {
  URL: { label: 'listening on', pattern: /listening on (http:\/\/\S+)/ },
  KEY: { label: 'Live key:', pattern: /Live key:\s+(\S+)/ },
  SECRET: { label: 'Live secret:', pattern: /Live secret:\s+(\S+)/ },
  CAMPAIGN: { label: 'Campaign:', pattern: /Campaign:\s+(\S+)/ },
  ADMIN: { label: 'Admin token', pattern: /Admin token[^:]*:\s+(\S+)/ },
  PHONE: { label: 'Phone:', pattern: /Phone:\s+(\S+)/ },
}

let server: Bun.Subprocess<'ignore', 'pipe', 'pipe'> | null = null
let banner = ''
let clock: RunningClock | null = null
/** How long the README's lines took, and on which clock. */
const walked = { ms: 0, clock: 'real' }

/** A port nobody listens on now (the signed links use the configured port, so not `--port 0`). */
function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
  const port = probe.port!
  probe.stop(true)
  return port
}

async function startDemo(fakeClock: boolean): Promise<void> {
  banner = ''
  const proc = Bun.spawn(
    [process.execPath, 'run', 'src/main.ts', 'serve', '--demo', '--port', String(freePort()), '--data-dir', join(work.path, fakeClock ? 'data-fake-clock' : 'data')],
    {
      cwd: root,
      // No DIALER_ADMIN_TOKEN: the first start mints one and prints it, as for a reader.
      env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_LOG_REQUESTS: '0', DIALER_CHECK_REPLIES: '1', ...(fakeClock ? { DIALER_FAKE_CLOCK: '1' } : {}) },
      stdout: 'pipe',
      stderr: 'pipe',
    },
  )
  server = proc
  // The minted admin token comes on stderr (stdout is for the log and the demo's banner).
  let errors = ''
  const errorsDone = (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of proc.stderr) errors += decoder.decode(chunk, { stream: true })
  })()
  const reader = proc.stdout.getReader()
  const decoder = new TextDecoder()
  const deadline = Date.now() + 20_000
  while (!/Test secret:\s+\S+/.test(banner) || !/dnc\/check/.test(banner)) {
    if (Date.now() > deadline) throw new Error(`demo did not print its banner: ${banner}`)
    const { value, done } = await reader.read()
    if (done) {
      await errorsDone
      throw new Error(`demo exited: ${banner}${errors}`)
    }
    banner += decoder.decode(value, { stream: true })
  }
  while (!BANNER.ADMIN!.pattern.test(errors)) {
    if (Date.now() > deadline) throw new Error(`demo did not print its admin token on stderr: ${errors}`)
    await Bun.sleep(20)
  }
  // Printed once, and only there.
  expect(banner).not.toContain('Admin token')
  banner += errors
  // Keep draining stdout so the service never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { done } = await reader.read().catch(() => ({ done: true }))
      if (done) break
    }
  })()
}

/** The README's walk-through block, as commands: continuation lines joined, comment-only and blank lines dropped. */
function walkthroughCommands(): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  const section = readme.indexOf(README_SECTION)
  if (section < 0) throw new Error(`README.md has no "${README_SECTION}" section`)
  const open = readme.indexOf('```sh\n', section)
  const close = readme.indexOf('\n```', open + 6)
  if (open < 0 || close < 0) throw new Error('the walk-through has no ```sh block')
  const commands: string[] = []
  let pending = ''
  for (const line of readme.slice(open + 6, close).split('\n')) {
    if (pending === '' && (line.trim() === '' || line.trim().startsWith('#'))) continue
    if (line.endsWith('\\')) {
      pending += line.slice(0, -1) + ' '
      continue
    }
    commands.push(pending + line)
    pending = ''
  }
  if (pending) commands.push(pending)
  return commands
}

/** The variable lines the reader fills in: the README's placeholder replaced by the banner's value. */
function fillFromBanner(commands: string[]): string[] {
  const filled = new Set<string>()
  const out = commands.map((command) => {
    const m = /^([A-Z]+)=(\S+)\s*(?:#\s*(.*))?$/.exec(command)
    const spec = m ? BANNER[m[1]!] : undefined
    if (!m || !spec) return command
    const comment = m[3] ?? ''
    // The README must say where the value comes from.
    expect(comment, `README line for ${m[1]} names where to find it`).toContain(spec.label)
    const value = spec.pattern.exec(banner)?.[1]
    if (!value) throw new Error(`the demo banner has no ${spec.label}: ${banner}`)
    filled.add(m[1]!)
    return `${m[1]}=${value}`
  })
  expect([...filled].sort()).toEqual(Object.keys(BANNER).sort())
  return out
}

/** A stand-in for `jq -r PATH` (paths like .data[0].id) when the machine has no jq. */
function jqShim(dir: string): void {
  const script = `#!${process.execPath}
const args = process.argv.slice(2).filter((a) => a !== '-r')
const filter = args[0] ?? '.'
let value = JSON.parse(await Bun.stdin.text())
for (const [, key, index] of filter.matchAll(/\\.([A-Za-z_][A-Za-z0-9_]*)|\\[(\\d+)\\]/g)) {
  value = value == null ? null : key !== undefined ? value[key] : value[Number(index)]
}
console.log(typeof value === 'string' ? value : JSON.stringify(value ?? null))
`
  writeFileSync(join(dir, 'jq'), script)
  chmodSync(join(dir, 'jq'), 0o755)
}

interface Step {
  command: string
  exit: number | null
  /** Each curl's reply: status, method, URL. */
  replies: { status: number; method: string; url: string }[]
  stdout: string
}

async function runWalkthrough(commands: string[]): Promise<Step[]> {
  const cwd = join(work.path, 'reader')
  const curlHome = join(work.path, 'curl-home')
  const bin = join(work.path, 'bin')
  for (const dir of [cwd, curlHome, bin]) mkdirSync(dir, { recursive: true })
  writeFileSync(join(curlHome, '.curlrc'), 'silent\nshow-error\nwrite-out = "%{stderr}@@http %{http_code} %{method} %{url_effective}\\n"\n')
  if (!Bun.which('jq')) jqShim(bin)

  const script = commands
    .map((command, i) => `printf '\\n@@step ${i}\\n'; printf '@@step ${i}\\n' >&2\n${command}\nprintf '@@exit ${i} %d\\n' $? >&2`)
    .join('\n')
  writeFileSync(join(work.path, 'walkthrough.sh'), script)
  const proc = Bun.spawn(['bash', join(work.path, 'walkthrough.sh')], {
    cwd,
    env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: work.path, CURL_HOME: curlHome },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const timer = setTimeout(() => proc.kill('SIGKILL'), 75_000)
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
  await proc.exited
  clearTimeout(timer)

  const steps: Step[] = commands.map((command) => ({ command, exit: null, replies: [], stdout: '' }))
  let current = -1
  for (const line of stderr.split('\n')) {
    const step = /^@@step (\d+)$/.exec(line)
    const exit = /^@@exit (\d+) (\d+)$/.exec(line)
    const reply = /^@@http (\d+) (\S+) (\S+)$/.exec(line)
    if (step) current = Number(step[1])
    else if (exit) steps[Number(exit[1])]!.exit = Number(exit[2])
    else if (reply && current >= 0) steps[current]!.replies.push({ status: Number(reply[1]), method: reply[2]!, url: reply[3]! })
    else if (line.trim() !== '') throw new Error(`step ${current} (${steps[current]?.command}) wrote to stderr: ${line}`)
  }
  for (const part of stdout.split('\n@@step ').slice(1)) {
    const newline = part.indexOf('\n')
    steps[Number(part.slice(0, newline))]!.stdout = part.slice(newline + 1)
  }
  return steps
}

async function resolves(host: string): Promise<boolean> {
  try {
    await Promise.race([lookup(host), Bun.sleep(3000).then(() => Promise.reject(new Error('timeout')))])
    return true
  } catch {
    return false
  }
}

let steps: Step[] = []
const stepFor = (pattern: RegExp) => {
  const step = steps.find((s) => pattern.test(s.command))
  if (!step) throw new Error(`no walk-through line matches ${pattern}`)
  return step
}

async function stopDemo(): Promise<void> {
  if (!server) return
  server.kill('SIGTERM')
  await Promise.race([server.exited, Bun.sleep(5000)])
  server.kill('SIGKILL')
  server = null
}

/** The first quarter hour from `from` at which the rules allow calling `phone` for the next half hour. */
function openingFor(phone: string, from: number): number {
  const reach = callingRules.reachOf(phone, null, 'America/New_York')
  const allowed = (at: number) => callingRules.evaluate({ reach, campaignWindow: { start: '08:00', end: '21:00' }, callTimes: [], now: at }).allowed
  const quarter = 15 * 60_000
  for (let at = Math.ceil(from / quarter) * quarter; at < from + 7 * 86_400_000; at += quarter) {
    if (allowed(at) && allowed(at + 30 * 60_000)) return at
  }
  throw new Error(`no opening for ${phone} within a week`)
}

beforeAll(async () => {
  await startDemo(false)
  if (!banner.includes('in calling hours now')) {
    // No US or Canadian zone is open on the real clock: the banner says when the phone's is.
    expect(banner).toMatch(/Phone:\s+\S+ \(.*no US or Canadian zone is in calling hours now; its call waits until \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/)
    await stopDemo()
    await startDemo(true)
    const base = BANNER.URL!.pattern.exec(banner)![1]!
    clock = await startClock(base, BANNER.ADMIN!.pattern.exec(banner)![1]!, openingFor(BANNER.PHONE!.pattern.exec(banner)![1]!, Date.now()))
    walked.clock = 'fake'
  }
  const started = performance.now()
  steps = await runWalkthrough(fillFromBanner(walkthroughCommands()))
  walked.ms = performance.now() - started
  console.log(`README walk-through: ${steps.length} lines in ${(walked.ms / 1000).toFixed(1)} s on the ${walked.clock} clock`)
}, 110_000)

afterAll(async () => {
  await clock?.stop()
  await stopDemo()
  work.remove()
})

describe("README's curl walk-through against bun run demo", () => {
  test('it runs without waiting for calling hours: a simulated call of about 12 s, not hours', () => {
    expect(walked.ms).toBeLessThan(75_000)
    expect(steps.every((s) => s.exit !== null)).toBe(true)
  })

  test('the banner says where the console is and how to sign in; the console answers there', async () => {
    const url = BANNER.URL!.pattern.exec(banner)![1]!
    expect(banner).toContain(`Console: ${url}/console`)
    expect(banner).toContain('Sign in with the admin token')
    const page = await fetch(`${url}/console`)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toStartWith('text/html')
  })

  test('every line runs to the end and exits 0', () => {
    expect(steps.length).toBeGreaterThan(25)
    const failed = steps.filter((s) => s.exit !== 0).map((s) => `exit ${s.exit}: ${s.command}`)
    expect(failed).toEqual([])
  })

  test('every request succeeds', async () => {
    // Creating a webhook endpoint resolves its host; a machine with no DNS cannot, and is told so.
    const offline = !(await resolves('example.com'))
    const bad: string[] = []
    let requests = 0
    for (const step of steps) {
      if (/\bcurl\b/.test(step.command) && step.replies.length === 0) bad.push(`no request made: ${step.command}`)
      for (const reply of step.replies) {
        requests++
        if (reply.status >= 200 && reply.status < 300) continue
        // The README shows the federal floor refusing a 00:00-24:00 window.
        if (/PATCH .*admin\/campaigns/.test(step.command) && reply.status === 400 && step.stdout.includes('"param":"calling_hours.start"')) continue
        if (offline && reply.url.endsWith('/webhook_endpoints') && reply.status === 400 && step.stdout.includes('"reason":"unresolvable_host"')) continue
        bad.push(`${reply.status} ${reply.method} ${reply.url}: ${step.command}\n${step.stdout}`)
      }
    }
    expect(bad).toEqual([])
    expect(requests).toBeGreaterThan(25)
  })

  test('the steps answer what the README says', () => {
    const patch = stepFor(/PATCH .*admin\/campaigns/)
    expect(patch.replies[0]!.status).toBe(400)
    expect(patch.stdout).toContain('"code":"invalid_request"')
    expect(patch.stdout).toContain('"param":"calling_hours.start"')
    expect(stepFor(/-X POST \$BASE\/dnc -H/).replies[0]!.status).toBe(201)
    expect(stepFor(/dnc\/batch/).stdout).toContain('"errors":["bad"]')
    expect(stepFor(/-X DELETE \$BASE\/dnc\/\$ENTRY/).stdout).toContain('"phone":"+14155552671"')

    // The demo's phone is in a zone open now: the dry run is not held for later.
    const dryRun = stepFor(/"dry_run":true/)
    expect(dryRun.replies[0]!.status).toBe(200)
    expect(dryRun.stdout).toContain('"dry_run":true')
    expect(dryRun.stdout).not.toContain('"status":"scheduled"')

    const added = stepFor(/"name":"Ann Lee"/)
    expect(added.replies[0]!.status).toBe(201)
    expect(added.stdout).toContain('"status":"dialing"')

    const contactability = JSON.parse(stepFor(/\/contactability$/).stdout)
    expect(contactability.data).toMatchObject({ allowed_now: expect.any(Boolean), rules_version: expect.any(String), livemode: true })
    expect(contactability.data.zones.length).toBeGreaterThan(0)

    const calls = stepFor(/^curl .*calls\?lead_id=/)
    expect(calls.stdout).toContain('"outcome":"hung_up"')
    expect(stepFor(/transcript\?format=text/).stdout).toContain('AI assistant: ')
    expect(stepFor(/^curl .*\/recording$/).stdout).toContain('"url":"http')

    const again = stepFor(/-X POST \$BASE\/calls /)
    expect(again.replies[0]!.status).toBe(202)
    expect(again.stdout).toContain('"calls_left_today":2')

    expect(stepFor(/events\?type=/).stdout).toContain('"type":"call.completed"')

    const wav = readFileSync(join(work.path, 'reader', 'call.wav'))
    expect(wav.subarray(0, 4).toString()).toBe('RIFF')
    const csv = join(work.path, 'reader', 'calls.csv')
    expect(existsSync(csv)).toBe(true)
    const lines = readFileSync(csv, 'utf8').trim().split('\n')
    expect(lines[0]).toStartWith('id,lead_id,')
    expect(lines.length).toBeGreaterThan(1)
  })
})
