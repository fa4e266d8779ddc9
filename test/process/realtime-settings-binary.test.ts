import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { scratchDir } from '../harness'
import { daytimeStart } from './daytime-clock'
import { placeBinary, spawnService, type RunningService } from './spawn-service'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * The built-in agent's settings on the compiled binary, started from an empty folder: the admin
 * API and the CLI set `ai_agent.kind: "openai_realtime"` (the key write-only: `api_key_set` on
 * reads), a bad placeholder is 400 naming `ai_agent.instructions`, the CLI sets the
 * organization's `ai_prices`, a call's admin read shows its rendered instructions; and the key
 * is found in the clear nowhere: not in replies, the CLI's output, the service's log, an export,
 * the database file or a backup of it.
 */

const ADMIN = 'realtime-settings-binary-admin-token-0123'
const KEY_API = 'sk-proj-apiKEY-7f3c1b9e5d2a4c6e8f0a1b3c5d7e9f11'
const KEY_CLI = 'sk-proj-cliKEY-0a2b4c6d8e0f1a3b5c7d9e1f3a5b7c9d'
const DISCLOSURE = { say: 'This is an AI assistant calling for Acme Roofing.' }
const PROMPT = 'You are calling {{lead.name}} about a {{lead.fields.roof}} roof for {{org.name}}.'
const AGENT = { kind: 'openai_realtime', model: 'gpt-realtime', voice: 'marin', instructions: PROMPT, disclosure: DISCLOSURE }
const STORED = { ...AGENT, first_audio_ms: 2000, base_url: 'wss://api.openai.com/v1/realtime', api_key_set: true }
const PRICE = { input_text: 4, input_audio: 32, input_cached: 0.4, output_text: 16, output_audio: 64 }
const CONSENT = { source: 'web form', agreed_at: '2026-01-01T00:00:00Z', text: 'I agree to be called, including by an AI voice.' }

const work = scratchDir('dialer-realtime-settings-')
const binary = join(work.path, 'dialer')
const dataDir = join(work.path, 'data')
const env = { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_FAKE_CLOCK: '1' }
let service: RunningService
let orgId = ''
/** Every reply body and CLI output seen, to look for the keys. */
const seen: string[] = []

beforeAll(async () => {
  placeBinary(binary)
  service = await spawnService({ command: [binary], dataDir, cwd: work.path, env })
  // A daytime instant in New York, so the lead is called at once.
  expect((await admin('POST', '/clock', { now: new Date(daytimeStart(Date.now(), ['America/New_York'])).toISOString() })).status).toBe(200)
  orgId = (await admin('POST', '/orgs', { name: 'Acme Roofing', plan_requests_per_minute: 100_000 })).body.data.id
}, 120_000)

afterAll(() => {
  service?.proc.kill('SIGKILL')
  work.remove()
})

async function admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const reply = await fetch(`${service.base}/api/v1/admin${path}`, {
    method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await reply.text()
  seen.push(text)
  return { status: reply.status, body: JSON.parse(text) }
}

function cli(args: string[]): { code: number | null; out: string; err: string } {
  const r = Bun.spawnSync([binary, 'admin', ...args], { cwd: work.path, env: { PATH: env.PATH, HOME: work.path, DIALER_ADMIN_URL: service.base, DIALER_ADMIN_TOKEN: ADMIN } })
  const result = { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
  seen.push(result.out, result.err)
  return result
}

describe('the built-in agent on the binary', () => {
  let campaignId = ''

  test('the admin API sets it: the key sealed, reads show api_key_set; a PATCH without the key keeps it', async () => {
    const made = await admin('POST', `/orgs/${orgId}/campaigns`, {
      name: 'AI roofs', status: 'active', sdrs: [{ name: 'Alex' }], requires_consent: true, ai_agent: { ...AGENT, api_key: KEY_API },
    })
    expect(made.status).toBe(201)
    campaignId = made.body.data.id
    expect(made.body.data.ai_agent).toEqual(STORED)
    const changed = await admin('PATCH', `/campaigns/${campaignId}`, { ai_agent: { ...AGENT, voice: 'cedar' } })
    expect([changed.status, changed.body.data.ai_agent]).toEqual([200, { ...STORED, voice: 'cedar' }])
    const bad = await admin('PATCH', `/campaigns/${campaignId}`, { ai_agent: { ...AGENT, instructions: 'Hi {{lead.nickname}}' } })
    expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([400, 'invalid_request', 'ai_agent.instructions'])
    const keyless = await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'No key', requires_consent: true, ai_agent: AGENT })
    expect([keyless.status, keyless.body.error.param]).toEqual([400, 'ai_agent.api_key'])
  })

  test('the CLI sets it with --ai-agent JSON (the key from --ai-agent-key-file, never a flag) and the prices with --ai-prices', async () => {
    const keyFile = join(work.path, 'agent-key')
    writeFileSync(keyFile, `${KEY_CLI}\n`, { mode: 0o600 })
    const made = cli(['campaign', 'create', '--org', orgId, '--name', 'CLI AI', '--requires-consent', 'true', '--ai-agent', JSON.stringify(AGENT), '--ai-agent-key-file', keyFile])
    expect(made.code).toBe(0)
    // Without --ai-agent there is nothing to put the key in: a usage error, nothing sent.
    expect(cli(['campaign', 'update', JSON.parse(made.out).data.id, '--ai-agent-key-file', keyFile]).code).toBe(2)
    const id = JSON.parse(made.out).data.id
    expect(JSON.parse(cli(['campaign', 'get', id]).out).data.ai_agent).toEqual(STORED)
    const bad = cli(['campaign', 'update', id, '--ai-agent', JSON.stringify({ ...AGENT, model: '' })])
    expect(bad.code).not.toBe(0)
    expect(bad.err + bad.out).toContain('ai_agent.model')
    expect(cli(['org', 'update', orgId, '--ai-prices', JSON.stringify({ 'gpt-realtime': PRICE })]).code).toBe(0)
    expect((await admin('GET', `/orgs/${orgId}`)).body.data.ai_prices).toEqual({ 'gpt-realtime': PRICE })
  })

  test("a call's admin read shows the instructions rendered for it, no usage yet", async () => {
    const key = (await admin('POST', `/orgs/${orgId}/keys`, { name: 'live', mode: 'live', requests_per_minute: 100_000, burst: 100_000 })).body.data
    const auth = `Basic ${btoa(`${key.id}:${key.secret}`)}`
    const lead = await fetch(`${service.base}/api/v1/external/leads`, {
      method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ campaign_id: campaignId, phone: '+12125552009', name: 'Ann Lee', fields: { roof: 'slate' }, consent: CONSENT, call_now: true }),
    })
    expect(lead.status).toBe(201)
    const leadId = ((await lead.json()) as any).data.id
    let callId = ''
    for (let i = 0; i < 100 && !callId; i++) {
      const calls = (await (await fetch(`${service.base}/api/v1/external/calls?lead_id=${leadId}`, { headers: { authorization: auth } })).json()) as any
      callId = calls.data?.[0]?.id ?? ''
      if (!callId) await Bun.sleep(50)
    }
    expect(callId).not.toBe('')
    const read = await admin('GET', `/calls/${callId}`)
    expect(read.body.data).toMatchObject({ ai_instructions: 'You are calling Ann Lee about a slate roof for Acme Roofing.', ai_usage: null, ai_minutes: null })
    // The external API's call has none of it.
    const external = (await (await fetch(`${service.base}/api/v1/external/calls/${callId}`, { headers: { authorization: auth } })).json()) as any
    expect(external.data.ai_instructions).toBeUndefined()
    // An export of the calls, and the events, carry neither the key nor the prompt.
    const made = await fetch(`${service.base}/api/v1/external/exports`, {
      method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify({ exportType: 'call_history' }),
    })
    expect(made.status).toBe(200)
    const file = await (await fetch(((await made.json()) as any).data.downloadUrl)).text()
    expect(file).toContain(callId)
    const events = await (await fetch(`${service.base}/api/v1/external/events?limit=100`, { headers: { authorization: auth } })).text()
    for (const text of [file, events]) {
      expect(text).not.toContain('slate roof')
      expect(text).not.toContain(KEY_API)
    }
  })

  test('the keys are in the clear nowhere: replies, CLI output, the log, the database file, a backup', async () => {
    const backup = join(work.path, 'backup.db')
    const made = Bun.spawnSync([binary, 'backup', backup, '--data-dir', dataDir], { cwd: work.path, env: { PATH: env.PATH, HOME: work.path } })
    expect(made.exitCode).toBe(0)
    // Let the log flush what the requests above wrote.
    await Bun.sleep(200)
    const places: [string, string][] = [
      ['replies and CLI output', seen.join('\n')],
      ['stdout', service.output()],
      // The database with its write-ahead log (recent writes may be only there).
      ['database', ['dialer.db', 'dialer.db-wal'].map((f) => (existsSync(join(dataDir, f)) ? readFileSync(join(dataDir, f)).toString('latin1') : '')).join('')],
      ['backup', readFileSync(backup).toString('latin1')],
    ]
    // What is looked through holds the settings (the check can see them): the prompt, stored as sent.
    expect(seen.join('\n')).toContain('api_key_set')
    for (const [, text] of places.slice(2)) expect(text).toContain('{{lead.fields.roof}}')
    for (const [place, text] of places) {
      for (const key of [KEY_API, KEY_CLI]) expect({ place, found: text.includes(key) }).toEqual({ place, found: false })
    }
  })
})
