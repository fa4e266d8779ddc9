import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { adminMain, adminUsage, buildAdminRequest, CliError, EXIT, parseAdmin } from '../../src/cli/admin-cli'
import { usageErrorOf } from './cli-usage-error'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** `dialer admin registry import FILE` and `registry show` (docs/dnc-registry.md). */

let dir = ''
let file = ''
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dialer-registry-cli-'))
  file = join(dir, 'dnc.txt')
  writeFileSync(file, '2015550123\n2015550124\n')
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const usageError = usageErrorOf

describe('parsing', () => {
  test('registry import FILE is a text/plain upload of the file', () => {
    expect(buildAdminRequest(['registry', 'import', '/tmp/x.txt'])).toEqual({
      method: 'POST', path: '/dnc_registry', body: undefined, upload: { file: '/tmp/x.txt', contentType: 'text/plain' },
    })
  })

  test('--list sends a state list (query list); with --force both go', () => {
    expect(buildAdminRequest(['registry', 'import', '/tmp/tx.txt', '--list', 'TX'])).toEqual({
      method: 'POST', path: '/dnc_registry?list=TX', body: undefined, upload: { file: '/tmp/tx.txt', contentType: 'text/plain' },
    })
    expect(buildAdminRequest(['registry', 'import', '/tmp/tx.txt', '--list', 'TX', '--force']).path).toBe('/dnc_registry?list=TX&force=true')
    const help = parseAdmin(['registry', 'import', '--help'])
    if (help.kind === 'help') expect(help.text).toContain('--list')
    expect(help.kind).toBe('help')
  })

  test('registry show is a GET', () => {
    expect(buildAdminRequest(['registry', 'show'])).toEqual({ method: 'GET', path: '/dnc_registry', body: undefined })
  })

  test('a missing FILE, an extra argument or a flag of no use are usage errors', () => {
    expect(usageError(['registry', 'import']).message).toBe('dialer admin registry import needs FILE')
    expect(usageError(['registry', 'import', 'a', 'b']).message).toContain('unexpected argument "b"')
    expect(usageError(['registry', 'import', 'a', '--name', 'x']).message).toContain('unknown flag --name')
  })

  test('help lists both commands and names FILE', () => {
    expect(adminUsage()).toContain('registry import FILE')
    expect(adminUsage()).toContain('registry show')
    const help = parseAdmin(['registry', 'import', '--help'])
    expect(help.kind).toBe('help')
    if (help.kind === 'help') {
      expect(help.text).toContain('Usage: dialer admin registry import FILE')
      expect(help.text).toContain('FILE')
      expect(help.text).toContain('Exit codes:')
    }
  })
})

describe('adminMain: the file goes as the body', () => {
  let server: ReturnType<typeof Bun.serve>
  let url = ''
  let received: { type: string | null; length: string | null; body: string } | null = null
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(request) {
        const path = new URL(request.url).pathname
        if (request.method === 'POST' && path === '/api/v1/admin/dnc_registry') {
          received = { type: request.headers.get('content-type'), length: request.headers.get('content-length'), body: await request.text() }
          return Response.json({ data: { imported: 2, total: 2, lines: 2, rejected: [], rejected_count: 0, duplicates: 0, imported_at: '2026-01-05T15:00:00.000Z' } })
        }
        if (path === '/api/v1/admin/dnc_registry') return Response.json({ data: { total: 2, imported_at: null } })
        return Response.json({ error: { code: 'not_found', message: 'No such endpoint.' } }, { status: 404 })
      },
    })
    url = `http://127.0.0.1:${server.port}`
  })
  afterAll(() => void server.stop(true))

  async function run(args: string[]) {
    const out: string[] = []
    const err: string[] = []
    try {
      const code = await adminMain([...args, '--url', url], { DIALER_ADMIN_TOKEN: 't' }, { out: (t) => out.push(t), err: (t) => err.push(t) })
      return { code, out: out.join('\n'), err: err.join('\n') }
    } catch (error) {
      if (!(error instanceof CliError)) throw error
      return { code: error.exitCode, out: out.join('\n'), err: error.message }
    }
  }

  test('0: the file is sent as text/plain with its length, the reply printed', async () => {
    const r = await run(['registry', 'import', file])
    expect(r.code).toBe(EXIT.ok)
    expect(received).toEqual({ type: 'text/plain', length: String('2015550123\n2015550124\n'.length), body: '2015550123\n2015550124\n' })
    expect(JSON.parse(r.out).data.total).toBe(2)
  })

  test('registry show prints the reply', async () => {
    const r = await run(['registry', 'show'])
    expect(r.code).toBe(EXIT.ok)
    expect(JSON.parse(r.out)).toEqual({ data: { total: 2, imported_at: null } })
  })

  test('2: a file that is missing, a directory or unreadable, before anything is sent', async () => {
    received = null
    expect(await run(['registry', 'import', join(dir, 'nope.txt')])).toMatchObject({ code: EXIT.usage, err: `cannot read ${join(dir, 'nope.txt')}: no such file` })
    expect(await run(['registry', 'import', dir])).toMatchObject({ code: EXIT.usage, err: `cannot read ${dir}: not a file` })
    if (process.getuid?.() !== 0) {
      const locked = join(dir, 'locked.txt')
      writeFileSync(locked, '2015550123\n')
      chmodSync(locked, 0o000)
      expect(await run(['registry', 'import', locked])).toMatchObject({ code: EXIT.usage, err: `cannot read ${locked}: permission denied` })
    }
    expect(received).toBeNull()
  })
})
