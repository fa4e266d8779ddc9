import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { adminMain, buildAdminRequest, CliError, EXIT } from '../../src/cli/admin-cli'
import { scratchDir } from '../harness'
import { usageErrorOf } from './cli-usage-error'

setDefaultTimeout(60_000)

// `dialer admin org carrier` and the campaign flags of issue 18 (people phones, voicemail).

const ORG = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'
const SID = `AC${'ab'.repeat(16)}`
const TOKEN = '0123456789abcdef'.repeat(2)

describe('org carrier: flags to the carrier object', () => {
  test('--twilio with every flag; --caller-id repeats and comma-separates; the token is not read while parsing', () => {
    expect(buildAdminRequest([
      'org', 'carrier', ORG, '--twilio', '--account-sid', SID, '--auth-token-file', '/nonexistent/token',
      '--caller-id', '+14155550100', '--caller-id', '+12125550100,+13125550100', '--api-base-url', 'http://127.0.0.1:9999', '--machine-detection', 'false',
    ])).toMatchObject({
      method: 'PATCH',
      path: `/orgs/${ORG}`,
      body: {
        carrier: {
          kind: 'twilio', account_sid: SID, caller_ids: ['+14155550100', '+12125550100', '+13125550100'], api_base_url: 'http://127.0.0.1:9999', machine_detection: false,
        },
      },
    })
  })

  test('--simulator alone', () => {
    expect(buildAdminRequest(['org', 'carrier', ORG, '--simulator'])).toMatchObject({ body: { carrier: { kind: 'simulator' } } })
  })

  test.each([
    [['org', 'carrier', ORG], '--twilio or --telnyx or --simulator'],
    [['org', 'carrier', ORG, '--twilio', '--simulator'], '--twilio or --telnyx or --simulator'],
    [['org', 'carrier', ORG, '--simulator', '--account-sid', SID], '--account-sid goes only with --twilio'],
    [['org', 'carrier', ORG, '--twilio', '--auth-token-file', 'f', '--auth-token-stdin'], 'not both'],
    [['org', 'carrier', ORG, '--twilio', '--auth-token', TOKEN], 'unknown flag --auth-token'],
    [['org', 'carrier', '--twilio'], 'needs ORG_ID'],
  ])('%j is a usage error: %s', (args, message) => {
    const error = usageErrorOf(args)
    expect(error.message).toContain(message)
    expect(error.exitCode).toBe(EXIT.usage)
    // A token given on the command line is never echoed back.
    expect(error.message).not.toContain(TOKEN)
  })
})

describe('campaign people with phones, voicemail, retention', () => {
  test('"Name <+1...>" gives the person a phone; plain names have none', () => {
    expect(buildAdminRequest(['campaign', 'update', ORG, '--sdrs', 'Alex Rivera <+13125550150>, Sam', '--closers', 'Pat Lee<+13125550151>']).body).toEqual({
      sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }, { name: 'Sam' }],
      closers: [{ name: 'Pat Lee', phone: '+13125550151' }],
    })
  })

  test('--voicemail is JSON or null; --recording-retention-days an integer', () => {
    expect(buildAdminRequest(['campaign', 'update', ORG, '--voicemail', '{"say":"Hi"}']).body).toEqual({ voicemail: { say: 'Hi' } })
    expect(buildAdminRequest(['campaign', 'update', ORG, '--voicemail', 'null']).body).toEqual({ voicemail: null })
    expect(buildAdminRequest(['org', 'update', ORG, '--recording-retention-days', '30']).body).toEqual({ recording_retention_days: 30 })
    expect(usageErrorOf(['org', 'update', ORG, '--recording-retention-days', 'a month']).message).toContain('whole number')
  })
})

describe('org carrier: the token file is read when the command runs', () => {
  let server: ReturnType<typeof Bun.serve>
  let url = ''
  let received: unknown = null
  const dir = scratchDir()
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(request) {
        received = await request.json()
        return Response.json({ data: { id: ORG, carrier: { kind: 'twilio', auth_token_set: true } } })
      },
    })
    url = `http://127.0.0.1:${server.port}`
  })
  afterAll(() => {
    void server.stop(true)
    dir.remove()
  })

  async function run(args: string[]) {
    const out: string[] = []
    try {
      const code = await adminMain([...args, '--url', url], { DIALER_ADMIN_TOKEN: 't' }, { out: (t) => out.push(t), err: () => {} })
      return { code, out: out.join('\n'), err: '' }
    } catch (error) {
      if (!(error instanceof CliError)) throw error
      return { code: error.exitCode, out: out.join('\n'), err: error.message }
    }
  }

  test('the file\u2019s token (trimmed) goes in carrier.auth_token; the reply is printed', async () => {
    const file = join(dir.path, 'token')
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 })
    const r = await run(['org', 'carrier', ORG, '--twilio', '--account-sid', SID, '--auth-token-file', file, '--caller-id', '+14155550100'])
    expect(r.code).toBe(EXIT.ok)
    expect(received).toEqual({ carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: ['+14155550100'] } })
    expect(r.out).not.toContain(TOKEN)
  })

  test('a missing or empty token file: a clear error, nothing sent', async () => {
    received = null
    const missing = await run(['org', 'carrier', ORG, '--twilio', '--account-sid', SID, '--auth-token-file', join(dir.path, 'nope')])
    expect(missing.code).toBe(EXIT.usage)
    expect(missing.err).toContain('no such file')
    const empty = join(dir.path, 'empty')
    writeFileSync(empty, '\n')
    const blank = await run(['org', 'carrier', ORG, '--twilio', '--account-sid', SID, '--auth-token-file', empty])
    expect(blank.err).toContain('is empty')
    expect(received).toBeNull()
  })
})
