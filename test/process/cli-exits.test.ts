import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { COMMANDS } from '../../src/cli/admin-commands'
import { scratchDir } from '../harness'
import { spawnService, type ServiceProcess } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

// The command line as operators script it: exit codes, one-line messages and --help, from
// `bun run src/main.ts` and, when DIALER_TEST_BINARY points at one, the compiled binary.
const ADMIN = 'cli-exits-admin-token-0123456789'
const root = join(import.meta.dir, '../..')
// Resolved here: the commands run from a scratch folder, where a relative path means nothing.
const binary = process.env.DIALER_TEST_BINARY ? resolve(process.env.DIALER_TEST_BINARY) : undefined
const targets: [string, string[]][] = [['source', [process.execPath, 'run', join(root, 'src/main.ts')]]]
if (binary && existsSync(binary)) targets.push(['binary', [binary]])

describe.each(targets)('dialer CLI (%s)', (_label, command) => {
  const work = scratchDir('dialer-cli-')
  let server: ServiceProcess | null = null
  let base = ''

  const run = (args: string[], env: Record<string, string> = {}) => {
    const r = Bun.spawnSync([...command, ...args], { cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, ...env } })
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
  }
  const admin = (args: string[]) => run(['admin', ...args], { DIALER_ADMIN_URL: base, DIALER_ADMIN_TOKEN: ADMIN })

  beforeAll(async () => {
    const started = await spawnService({ command, dataDir: join(work.path, 'data'), cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN } })
    server = started.proc
    base = started.base
  }, 20_000)

  afterAll(async () => {
    server?.kill('SIGTERM')
    await server?.exited
    work.remove()
  })

  test('3 when nothing listens there, naming the URL', async () => {
    const idle = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const url = `http://127.0.0.1:${idle.port}`
    await idle.stop(true)
    const r = run(['admin', 'org', 'list'], { DIALER_ADMIN_URL: url, DIALER_ADMIN_TOKEN: ADMIN })
    expect(r.code).toBe(3)
    expect(r.out).toBe('')
    expect(r.err.trim().split('\n')).toEqual([`cannot reach the service at ${url}: connection refused`, 'Is `dialer serve` running there? Set DIALER_ADMIN_URL or pass --url.'])
  })

  test('0 with the JSON reply; 4 on a 404, naming the object', () => {
    const created = admin(['org', 'create', '--name', 'CLI exits'])
    expect(created.code).toBe(0)
    const org = JSON.parse(created.out).data
    expect(org.name).toBe('CLI exits')
    expect(admin(['org', 'get', org.id]).code).toBe(0)

    const missing = '0190abcd-0000-7000-8000-000000000000'
    const r = admin(['org', 'get', missing])
    expect(r.code).toBe(4)
    expect(r.err).toBe(`no organization ${missing} (not_found)\n`)
    expect(JSON.parse(r.out).error.code).toBe('not_found')
    expect(admin(['campaign', 'list', '--org', missing]).err).toBe(`no organization ${missing} (not_found)\n`)
    expect(admin(['key', 'get', 'dk_live_nope']).err).toBe('no API key dk_live_nope (not_found)\n')
    const bad = admin(['key', 'create', '--org', org.id, '--name', 'x', '--mode', 'nope'])
    expect(bad.code).toBe(4)
    expect(bad.err).toContain('(invalid_request, param mode)')
  })

  test('2 for usage errors: one line and a hint', () => {
    for (const args of [['org', 'destroy'], ['org', 'get'], ['org', 'create', '--name', 'A', '--colour', 'blue'], ['org', 'update', 'o1', '--recording-enabled', 'yes']]) {
      const r = admin(args)
      expect(r.code).toBe(2)
      expect(r.out).toBe('')
      expect(r.err.trim().split('\n').length).toBeLessThanOrEqual(2)
    }
  })

  test('--help for every command, exit 0', async () => {
    const names = Object.keys(COMMANDS)
    const replies = await Promise.all(names.map(async (name) => {
      const proc = Bun.spawn([...command, 'admin', ...name.split(' '), '--help'], { cwd: work.path, env: { PATH: process.env.PATH ?? '' }, stdout: 'pipe' })
      const [code, out] = await Promise.all([proc.exited, new Response(proc.stdout).text()])
      return { name, code, out }
    }))
    for (const { name, code, out } of replies) {
      expect(code).toBe(0)
      expect(out).toContain(`Usage: dialer admin ${name}`)
      expect(out).toContain(`Example:\n  ${COMMANDS[name]!.example}`)
    }
    expect(run(['admin', 'key', '--help']).out).toContain('revoke')
    expect(run(['admin', 'help']).code).toBe(0)
  })

  test('serve on a busy port: one line, exit 75, and no database touched', () => {
    const port = Number(new URL(base).port)
    const r = run(['serve', '--port', String(port), '--data-dir', join(work.path, 'second')])
    expect(r.code).toBe(75)
    expect(r.err).toBe(`port ${port} on 127.0.0.1 is already in use; set DIALER_PORT or --port\n`)
    expect(existsSync(join(work.path, 'second'))).toBe(false)
  })

  test('serve with a file where the data directory should be: one line, exit 73; a bad setting: exit 2', () => {
    const r = run(['serve', '--port', '0', '--data-dir', join(work.path, 'data', 'dialer.db')])
    expect(r.code).toBe(73)
    expect(r.err.trim().split('\n')).toHaveLength(1)
    expect(r.err).toStartWith(`cannot use the database ${join(work.path, 'data', 'dialer.db', 'dialer.db')}:`)
    const bad = run(['serve', '--port', 'eighty'])
    expect(bad).toEqual({ code: 2, out: '', err: 'DIALER_PORT must be a whole number from 0 to 65535, got "eighty"\n' })
    // A log level that names none stops the start too (it used to fall back to info), before any data directory is made.
    const level = run(['serve', '--port', '0', '--data-dir', join(work.path, 'loud')], { DIALER_LOG_LEVEL: 'verbose' })
    expect(level).toEqual({ code: 2, out: '', err: 'DIALER_LOG_LEVEL must be debug, info, warn or error, got "verbose"\n' })
    expect(existsSync(join(work.path, 'loud'))).toBe(false)
  })

  test('admin-token reset refuses a data directory with no database and creates nothing', () => {
    const empty = join(work.path, 'nowhere')
    const r = run(['admin-token', 'reset', '--data-dir', empty])
    expect(r.code).toBe(2)
    expect(r.err.trim().split('\n')).toHaveLength(1)
    expect(r.err).toStartWith(`no database at ${join(empty, 'dialer.db')};`)
    expect(existsSync(empty)).toBe(false)
  })
})
