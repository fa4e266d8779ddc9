import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { basic, scratchDir } from '../harness'
import { spawnService } from './spawn-service'
import { CALLER, ny, twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * The carrier under attack, on the service as shipped (DIALER_TEST_BINARY, from an empty
 * folder) against the Twilio emulator over loopback: the carrier cannot be switched under a
 * call that is up; a call Twilio answered while the service was down is failed, not hung_up;
 * an api_base_url on a private address is refused unless DIALER_CARRIER_ALLOW_PRIVATE=1; a
 * start whose secret.key is missing while tokens are sealed stops instead of minting a key.
 * The emulator plays calls twice as fast as real time (slow enough to act while one rings).
 */
const ADMIN = 'dat_security_carrier_0123456789abcdef'
const SID = `AC${'d4'.repeat(16)}`
const TOKEN = 'c'.repeat(32)

describe('the carrier, as shipped', () => {
  const service = twilioService({ prefix: 'dialer-security-carrier-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: 2, callTimeoutMs: 30_000 })
  const { work, dataDir, command, emulator, env, cli, json, start, stop, callOf, addLead } = service
  const tokenFile = join(work.path, 'twilio-token')
  let orgId = ''
  const twilioArgs = (id: string, apiBaseUrl = emulator.url) => [
    'org', 'carrier', id, '--twilio', '--account-sid', SID, '--auth-token-file', tokenFile, '--caller-id', CALLER, '--api-base-url', apiBaseUrl,
  ]

  beforeAll(async () => {
    await Bun.write(tokenFile, `${TOKEN}\n`)
    await start()
    orgId = json(['org', 'create', '--name', 'Acme Roofing', '--plan-requests-per-minute', '100000']).id
    expect(cli(twilioArgs(orgId)).code).toBe(0)
    service.campaignId = json(['campaign', 'create', '--org', orgId, '--name', 'Spring roofs', '--status', 'active', '--lines', '3', '--sdrs', 'Alex Rivera <+13125550150>']).id
    const key = json(['key', 'create', '--org', orgId, '--name', 'live', '--mode', 'live', '--requests-per-minute', '100000', '--burst', '100000'])
    service.auth = basic(key.id, key.secret)
  }, 40_000)

  afterAll(() => service.close())

  test('switching the carrier while a call is up is 409 calls_in_progress and changes nothing; once the call ended it goes through', async () => {
    // Scenario 09: answered at 5 s, the lead hangs up at 12 s (2.5 s and 6 s here).
    const leadId = await addLead(ny('09', 61))
    await callOf(leadId, (c) => c.status === 'ringing' || c.status === 'in_progress')
    const refused = cli(['org', 'carrier', orgId, '--simulator'])
    expect(refused.code).toBe(4)
    const error = JSON.parse(refused.out).error
    expect(error).toMatchObject({ code: 'calls_in_progress', type: 'invalid_request_error', param: 'carrier' })
    expect(error.message).toContain('in progress')
    expect(json(['org', 'get', orgId]).carrier).toMatchObject({ kind: 'twilio', account_sid: SID, api_base_url: emulator.url.replace(/\/$/, ''), auth_token_set: true })
    // The name may change meanwhile.
    expect(json(['org', 'update', orgId, '--name', 'Acme Roofing West']).name).toBe('Acme Roofing West')
    // The call ends normally (its callbacks were never refused), then the switch goes through.
    const ended = await callOf(leadId, (c) => c.status === 'ended' && c.recording_available)
    expect(emulator.sent.filter((s) => s.callSid === [...emulator.calls.values()].find((c) => c.to === ny('09', 61))!.sid && s.status !== 200)).toEqual([])
    expect(ended.duration_seconds).toBeGreaterThan(0)
    let switched = cli(['org', 'carrier', orgId, '--simulator'])
    for (let i = 0; i < 100 && switched.code !== 0; i++) {
      await Bun.sleep(100)
      switched = cli(['org', 'carrier', orgId, '--simulator'])
    }
    expect(switched.code).toBe(0)
    expect(JSON.parse(switched.out).data.carrier).toEqual({ kind: 'simulator' })
    expect(cli(twilioArgs(orgId)).code).toBe(0)
  })

  test('a call Twilio answered while the service was down (TwiML unreachable) reads failed with a note after the restart', async () => {
    // Scenario 01 answers at 5 s (2.5 s here): the service is killed while it rings.
    expect(cli(twilioArgs(orgId)).code).toBe(0)
    const to = ny('01', 62)
    const leadId = await addLead(to)
    let sid = ''
    const deadline = Date.now() + 20_000
    // Once a status callback was answered, the service has stored the call's sid.
    while (!sid && Date.now() < deadline) {
      const call = [...emulator.calls.values()].find((c) => c.to === to)
      if (call && emulator.sent.some((s) => s.callSid === call.sid && s.kind === 'status' && s.status === 200)) sid = call.sid
      else await Bun.sleep(10)
    }
    expect(sid).not.toBe('')
    expect(emulator.calls.get(sid)!.answeredAt).toBeNull()
    await stop('SIGKILL')
    await emulator.settled(sid)
    expect(emulator.calls.get(sid)).toMatchObject({ status: 'completed', duration: 0, answeredBy: null })
    await start()
    const call = await callOf(leadId, (c) => c.status === 'ended')
    expect(call.outcome).toBe('failed')
    expect(call.note).toContain('Twilio ended the call while the service was unreachable')
  })

  test('api_base_url on a private, link-local or unique-local address is 400 naming it; DIALER_CARRIER_ALLOW_PRIVATE=1 takes them', async () => {
    const urls = ['https://10.0.0.1', 'https://169.254.169.254', 'https://[fd00::1]']
    for (const url of urls) {
      const r = cli(twilioArgs(orgId, url))
      expect(r.code).toBe(4)
      expect(JSON.parse(r.out).error).toMatchObject({ code: 'invalid_request', param: 'carrier.api_base_url' })
    }
    expect(json(['org', 'get', orgId]).carrier.api_base_url).toBe(emulator.url.replace(/\/$/, ''))
    // A second service, allowing them.
    const other = scratchDir('dialer-security-carrier-private-')
    const started = await spawnService({ command, dataDir: join(other.path, 'data'), cwd: other.path, env: { ...env, DIALER_CARRIER_ALLOW_PRIVATE: '1' } })
    try {
      const id = json(['org', 'create', '--name', 'Lab'], started.base).id
      for (const url of urls) {
        const r = cli(twilioArgs(id, url), { url: started.base })
        expect(r.code).toBe(0)
        expect(JSON.parse(r.out).data.carrier.api_base_url).toBe(url)
      }
    } finally {
      started.proc.kill('SIGTERM')
      await started.proc.exited
      other.remove()
    }
  })

  test('a start without secret.key while carrier tokens are sealed stops (non-zero, naming the key) and mints no new key', async () => {
    await stop('SIGTERM')
    const keyFile = join(dataDir, 'secret.key')
    expect(existsSync(keyFile)).toBe(true)
    const saved = await Bun.file(keyFile).text()
    rmSync(keyFile)
    const proc = Bun.spawn([...command, 'serve', '--port', '0', '--data-dir', dataDir], { cwd: work.path, env, stdout: 'pipe', stderr: 'pipe' })
    const outcome = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => 'still running' as const)])
    if (outcome === 'still running') proc.kill('SIGKILL')
    const stderr = await new Response(proc.stderr).text()
    expect(outcome).not.toBe('still running')
    expect(outcome).not.toBe(0)
    expect(stderr).toContain(keyFile)
    expect(stderr).toContain('DIALER_SECRET_KEY')
    expect(existsSync(keyFile)).toBe(false)
    // The key put back, it starts again.
    await Bun.write(keyFile, saved)
    const { chmodSync } = await import('node:fs')
    chmodSync(keyFile, 0o600)
    await start()
    expect(json(['org', 'get', orgId]).carrier).toMatchObject({ kind: 'twilio', auth_token_set: true })
  })
})
