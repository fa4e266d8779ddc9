import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { adminConnection, adminMain, CliError, COMMANDS, describeErrorReply, EXIT, parseAdmin } from '../../src/cli/admin-cli'
import { FLAG_TYPES, KIND_TYPES } from '../../src/cli/admin-commands'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/** `dialer admin ...` help, connection settings, and how replies become output and exit codes. */

/** Splits an example command line the way a shell would (double quotes only, which is all they use). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!)
}

const helpOf = (args: string[]) => {
  const parsed = parseAdmin(args)
  if (parsed.kind !== 'help') throw new Error(`expected help for ${args.join(' ')}`)
  return parsed.text
}

describe('help', () => {
  test.each(Object.keys(COMMANDS))('%s --help: what it does, every flag with its type, an example that parses', (name) => {
    const command = COMMANDS[name]!
    const text = helpOf([...name.split(' '), '--help'])
    expect(helpOf([...name.split(' '), 'x', '-h'])).toBe(text)
    expect(text).toContain(command.summary)
    if (command.arg) expect(text).toContain(command.arg)
    for (const [field, kind] of Object.entries(command.fields ?? {})) {
      expect(text).toContain(`--${field.replace(/_/g, '-')} ${FLAG_TYPES[field] ?? KIND_TYPES[kind]}`)
    }
    for (const field of command.query ?? []) expect(text).toContain(`--${field.replace(/_/g, '-')} `)
    if (command.path.includes(':org')) expect(text).toContain('--org ORG_ID')
    for (const connection of ['--url URL', '--token TOKEN', '--timeout SECONDS']) expect(text).toContain(connection)
    expect(text).toContain(`Example:\n  ${command.example}`)
    expect(text).toContain('4 refused by the service (4xx)')
    const words = shellWords(command.example)
    expect(words.slice(0, 2)).toEqual(['dialer', 'admin'])
    expect(parseAdmin(words.slice(2)).kind).toBe('request')
  })

  test('RESOURCE --help lists its actions', () => {
    const text = helpOf(['campaign', '--help'])
    for (const action of ['create', 'list', 'get', 'update', 'retire-number', 'retired-numbers']) expect(text).toMatch(new RegExp(`^  ${action} `, 'm'))
    expect(text).not.toContain('org create')
    expect(helpOf(['campaign', 'help'])).toBe(text)
    expect(helpOf(['campaign', '-h'])).toBe(text)
  })

  test('no arguments, help, --help and -h list every command', () => {
    const text = helpOf([])
    for (const name of Object.keys(COMMANDS)) expect(text).toContain(`  ${name}`)
    for (const args of [['help'], ['--help'], ['-h']]) expect(helpOf(args)).toBe(text)
  })
})

describe('connection', () => {
  const flags = (entries: [string, string][] = []) => new Map(entries)

  test('flags win over DIALER_ADMIN_URL, which wins over DIALER_HOST and DIALER_PORT', () => {
    expect(adminConnection(flags(), {})).toEqual({ url: 'http://127.0.0.1:8080', token: null, timeoutMs: 60_000 })
    expect(adminConnection(flags(), { DIALER_HOST: '::1', DIALER_PORT: '9000', DIALER_ADMIN_TOKEN: 't' })).toEqual({ url: 'http://[::1]:9000', token: 't', timeoutMs: 60_000 })
    expect(adminConnection(flags(), { DIALER_ADMIN_URL: 'https://dialer.example.com/', DIALER_PORT: '1' }).url).toBe('https://dialer.example.com')
    expect(adminConnection(flags([['url', 'http://h:2'], ['token', 'f'], ['timeout', '2.5']]), { DIALER_ADMIN_URL: 'http://e:1', DIALER_ADMIN_TOKEN: 'e' })).toEqual({ url: 'http://h:2', token: 'f', timeoutMs: 2500 })
  })

  test.each<[string, string]>([['url', 'localhost:8080'], ['url', 'ftp://h'], ['timeout', '0'], ['timeout', 'soon']])('--%s %s is a usage error', (name, value) => {
    expect(() => adminConnection(flags([[name, value]]), {})).toThrow(`--${name}`)
  })
})

describe('describeErrorReply', () => {
  const context = (object: { noun: string; id: string } | null) => ({ object, url: 'http://h:1', method: 'GET', path: '/orgs/x' })

  test('a 404 names the object from the command, not the API message', () => {
    const org = { noun: 'organization', id: '0190abcd-0000-7000-8000-000000000000' }
    expect(describeErrorReply(404, { code: 'not_found', message: 'No such organization' }, context(org))).toBe('no organization 0190abcd-0000-7000-8000-000000000000 (not_found)')
    expect(describeErrorReply(404, { code: 'not_found', message: 'No such object' }, context({ noun: 'API key', id: 'k' }))).toBe('no API key k (not_found)')
  })

  test('a 404 whose message says more keeps it', () => {
    const line = describeErrorReply(404, { code: 'not_found', message: 'No job named "x". Jobs: a, b.' }, context({ noun: 'job', id: 'x' }))
    expect(line).toBe('no job x (not_found): No job named "x". Jobs: a, b.')
  })

  test('a 404 about a field, or a missing endpoint, is not blamed on the object', () => {
    const org = { noun: 'organization', id: 'o1' }
    expect(describeErrorReply(404, { code: 'not_found', message: 'No such campaign in this organization.', param: 'campaign_ids[0]' }, context(org)))
      .toBe('No such campaign in this organization. (not_found, param campaign_ids[0])')
    expect(describeErrorReply(404, { code: 'not_found', message: 'No such endpoint.' }, context(org))).toStartWith('GET /api/v1/admin/orgs/x: no such endpoint at http://h:1')
    expect(describeErrorReply(404, { code: 'not_found', message: 'Only with DIALER_FAKE_CLOCK=1.' }, context(null))).toBe('Only with DIALER_FAKE_CLOCK=1. (not_found)')
  })

  test('other replies: message, code, param; 5xx adds the request id; 401 says where the token comes from; always one line', () => {
    expect(describeErrorReply(400, { code: 'invalid_request', message: 'lines: too big.', param: 'lines' }, context(null))).toBe('lines: too big. (invalid_request, param lines)')
    expect(describeErrorReply(500, { code: 'internal_error', message: 'Something broke.', request_id: 'req_1' }, context(null))).toBe('Something broke. (internal_error, request req_1)')
    expect(describeErrorReply(401, { code: 'authentication_failed', message: 'Wrong token.' }, context(null))).toBe('Wrong token. (authentication_failed); check DIALER_ADMIN_TOKEN or --token')
    expect(describeErrorReply(422, { code: 'x', message: 'two\nlines' }, context(null))).toBe('two lines (x)')
    expect(describeErrorReply(502, {}, context(null))).toBe('HTTP 502 (http_502)')
  })
})

describe('adminMain: replies to exit codes', () => {
  // A stand-in for the service: answers by path, so each exit code has its reply.
  let server: ReturnType<typeof Bun.serve>
  let url = ''
  const envelope = (status: number, code: string, message: string) => Response.json({ error: { code, message, param: null, request_id: 'req_9' } }, { status })
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch(request) {
        const path = new URL(request.url).pathname
        if (request.headers.get('authorization') !== 'Bearer good-token') return envelope(401, 'authentication_failed', 'Wrong token.')
        if (path === '/api/v1/admin/orgs') return Response.json({ data: [], has_more: false })
        if (path === '/api/v1/admin/orgs/gone') return envelope(404, 'not_found', 'No such organization')
        if (path === '/api/v1/admin/jobs') return envelope(503, 'service_unavailable', 'Stopping.')
        return new Response('<html>not dialer</html>', { status: 200 })
      },
    })
    url = `http://127.0.0.1:${server.port}`
  })
  afterAll(() => void server.stop(true))

  async function run(args: string[], token = 'good-token') {
    const out: string[] = []
    const err: string[] = []
    try {
      const code = await adminMain([...args, '--url', url], { DIALER_ADMIN_TOKEN: token }, { out: (t) => out.push(t), err: (t) => err.push(t) })
      return { code, out: out.join('\n'), err: err.join('\n') }
    } catch (error) {
      if (!(error instanceof CliError)) throw error
      return { code: error.exitCode, out: out.join('\n'), err: error.message }
    }
  }

  test('0: the JSON reply on stdout, nothing on stderr', async () => {
    const r = await run(['org', 'list'])
    expect(r).toEqual({ code: EXIT.ok, out: JSON.stringify({ data: [], has_more: false }, null, 2), err: '' })
  })

  test('4: the object named on stderr, the error envelope on stdout', async () => {
    const r = await run(['org', 'get', 'gone'])
    expect(r.code).toBe(4)
    expect(r.err).toBe('no organization gone (not_found)')
    expect(JSON.parse(r.out).error.code).toBe('not_found')
    expect((await run(['org', 'list'], 'bad-token')).code).toBe(4)
  })

  test('5: a 5xx reply', async () => {
    const r = await run(['job', 'list'])
    expect(r.code).toBe(5)
    expect(r.err).toBe('Stopping. (service_unavailable, request req_9)')
  })

  test('1: a reply that is not Dialer JSON', async () => {
    const r = await run(['clock', 'get'])
    expect(r.code).toBe(EXIT.failure)
    expect(r.err).toStartWith(`unexpected reply from ${url} (HTTP 200, not JSON)`)
  })

  test('2: no token, before anything is sent', async () => {
    const r = await run(['org', 'list'], '')
    expect(r.code).toBe(2)
    expect(r.err).toStartWith('no admin token')
  })

  test('3: nothing listening, and the URL tried is named', async () => {
    const closed = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response() })
    const gone = `http://127.0.0.1:${closed.port}`
    await closed.stop(true)
    const out: string[] = []
    const error = await adminMain(['org', 'list', '--url', gone], { DIALER_ADMIN_TOKEN: 't' }, { out: (t) => out.push(t), err: () => {} }).catch((e) => e)
    expect(error).toBeInstanceOf(CliError)
    expect(error.exitCode).toBe(3)
    expect(error.message).toBe(`cannot reach the service at ${gone}: connection refused`)
    expect(out).toEqual([])
  })
})
