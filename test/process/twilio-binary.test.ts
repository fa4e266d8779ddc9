import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'
import { CALLER, ny, twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Issue 18 as an operator meets it, on the service under test (the compiled binary in CI,
 * started from an empty folder) against the Twilio emulator over loopback: the carrier set with
 * the admin CLI (the token read from a file), live calls placed through Twilio's REST API,
 * signed callbacks, the bridge, the voicemail drop, the recording downloaded and served by the
 * service's own link, a forged callback refused, and a call cut by SIGKILL reconciled on the
 * next boot. The service runs on its fake clock moved at real speed (calling hours: see
 * daytime-clock.ts); the emulator plays calls 50 times faster than real time.
 */
const ADMIN = 'dat_twilio_binary_0123456789abcdef0123'
const SID = `AC${'c3'.repeat(16)}`
const TOKEN = 'e'.repeat(32)

describe('Twilio through the service as shipped', () => {
  const service = twilioService({ prefix: 'dialer-twilio-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: 50 })
  const { dataDir, emulator, cli, json, api, admin, start, stop, callOf, addLead } = service
  let orgId = ''

  beforeAll(async () => {
    await start()
    // The auth token from a file (never on the command line, where other users could read it).
    const seeded = await service.seedOrg({
      name: 'Spring roofs', lines: 3,
      sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }], closers: [{ name: 'Sam Chen', phone: '+13125550151' }],
      voicemail: { say: 'Hi, this is Acme Roofing returning your request.' },
    })
    orgId = seeded.orgId
    expect(seeded.carrierOutput).not.toContain(TOKEN)
    expect(JSON.parse(seeded.carrierOutput).data.carrier).toMatchObject({ kind: 'twilio', account_sid: SID, auth_token_set: true })
  }, 40_000)

  afterAll(() => service.close())

  test('the token is sealed at rest, and the data directory holds the minted secret key (0600)', async () => {
    const db = await Bun.file(join(dataDir, 'dialer.db')).arrayBuffer()
    expect(Buffer.from(db).includes(Buffer.from(TOKEN))).toBe(false)
    expect(statSync(join(dataDir, 'secret.key')).mode & 0o777).toBe(0o600)
  })

  test('a person answers and is bridged to the SDR; the recording is downloaded and served by the service', async () => {
    const leadId = await addLead(ny('00', 21))
    const call = await callOf(leadId, (c) => c.status === 'ended' && c.handled_by.role === 'sdr' && c.recording_available)
    expect(call.handled_by.name).toBe('Alex Rivera')
    const create = emulator.received.find((r) => r.method === 'POST' && r.params.To === ny('00', 21))!
    expect(create.params.From).toBe(CALLER)
    expect(String(create.params.StatusCallback)).toStartWith(`${service.base}/twilio/calls/${call.id}/status`)
    expect(emulator.sent.filter((s) => s.status !== 200).map((s) => `${s.kind} ${s.status}`)).toEqual([])
    const filed = await admin('POST', `/calls/${call.id}/outcome`, { outcome: 'interested' })
    expect(filed.status).toBe(200)
    const link = await api('GET', `/calls/${call.id}/recording`)
    expect(link.status).toBe(200)
    const audio = await fetch(link.body.data.url)
    expect(audio.status).toBe(200)
    expect(audio.headers.get('content-type')).toBe('audio/wav')
    expect(new TextDecoder().decode((await audio.arrayBuffer()).slice(0, 4))).toBe('RIFF')
  })

  test('an answering machine gets the voicemail; a forged callback is refused', async () => {
    const leadId = await addLead(ny('04', 22))
    const call = await callOf(leadId, (c) => c.status === 'ended' && c.outcome !== null)
    expect(call.outcome).toBe('voicemail')
    const events = await api('GET', `/events?limit=100`)
    const types = (events.body.data as any[]).filter((e) => e.data.object.id === call.id).map((e) => e.type)
    expect(types).toContain('voicemail.left')
    const url = `${service.base}/twilio/calls/${call.id}/status`
    const params = { AccountSid: SID, CallSid: `CA${'0'.repeat(32)}`, CallStatus: 'busy' }
    const forged = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signTwilioRequest('0'.repeat(32), url, params) },
      body: new URLSearchParams(params).toString(),
    })
    expect(forged.status).toBe(403)
    expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('permission_denied')
  })

  test('the token through stdin; a bad one is refused (exit 4, param named, never echoed) and changes nothing', () => {
    const args = ['org', 'carrier', orgId, '--twilio', '--account-sid', SID, '--auth-token-stdin', '--caller-id', CALLER, '--api-base-url', emulator.url]
    const good = cli(args, { stdin: `${TOKEN}\n` })
    expect(good.code).toBe(0)
    expect(good.out).not.toContain(TOKEN)
    const bad = cli(args, { stdin: 'not-a-token-but-secret\n' })
    expect(bad.code).toBe(4)
    expect(JSON.parse(bad.out).error.param).toBe('carrier.auth_token')
    expect(bad.out + bad.err).not.toContain('not-a-token-but-secret')
    const http = cli(['org', 'carrier', orgId, '--twilio', '--account-sid', SID, '--caller-id', CALLER, '--api-base-url', 'http://api.twilio.com'])
    expect(http.code).toBe(4)
    expect(JSON.parse(http.out).error.param).toBe('carrier.api_base_url')
    expect(json(['org', 'get', orgId]).carrier).toMatchObject({ kind: 'twilio', api_base_url: emulator.url.replace(/\/$/, ''), auth_token_set: true })
  })

  test('a call cut by SIGKILL is looked up at Twilio on the next boot and closed', async () => {
    const leadId = await addLead(ny('01', 23))
    const up = await callOf(leadId, (c) => c.status === 'in_progress')
    await stop('SIGKILL')
    // Twilio's callbacks to the dead process fail; the emulator ends the call.
    const sid = [...emulator.calls.values()].find((c) => c.to === ny('01', 23))!.sid
    await emulator.settled(sid)
    await start()
    const closed = await callOf(leadId, (c) => c.id === up.id && c.status === 'ended')
    expect(closed.duration_seconds).toBeGreaterThan(0)
    expect(emulator.received.some((r) => r.method === 'GET' && r.path.endsWith(`/Calls/${sid}.json`))).toBe(true)
  })
})
