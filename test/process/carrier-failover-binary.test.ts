import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { TelnyxEmulator } from '../emulators/telnyx/emulator'
import { CALLER, ny, twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Issue 31, carrier pools on the service as shipped (DIALER_TEST_BINARY from an empty folder)
 * against the Twilio and Telnyx emulators over loopback: a pool set with `dialer admin org
 * carriers --json-file` (secrets in the file), an outage at Twilio (503 and 429 at its create
 * request) moves those calls to Telnyx (the admin call read names it, /metrics counts it, the
 * breaker opens), and a refused number (400 / 422) is not moved.
 */
const ADMIN = 'dat_failover_binary_0123456789abcdef012'
const SID = `AC${'d4'.repeat(16)}`
const TOKEN = 'f'.repeat(32)
const ACCOUNT = '6a1b7c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d'
const API_KEY = `KEY${'a1B2c3D4'.repeat(4)}`
const APP = '1773070540731319841'
const TELNYX_CALLER = '+13125550100'

describe('a pool of Twilio and Telnyx through the service as shipped', () => {
  const service = twilioService({ prefix: 'dialer-failover-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: 50 })
  const telnyx = TelnyxEmulator.start({ accounts: [{ accountSid: ACCOUNT, apiKey: API_KEY, applicationSid: APP, callerIds: [TELNYX_CALLER] }], speed: 50 })
  const { emulator: twilio, admin, addLead, callOf } = service
  let orgId = ''

  const createsTo = (phone: string) => ({
    twilio: twilio.received.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls.json') && r.params.To === phone).map((r) => r.status),
    telnyx: telnyx.received.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls') && r.params.To === phone).map((r) => r.status),
  })

  beforeAll(async () => {
    await service.start()
    // Telnyx signs with its own clock; the service checks the window against its fake one (moving at real speed).
    const serviceNow = Date.parse((await admin('GET', '/clock')).body.data.now)
    telnyx.clockSkew = Math.round((serviceNow - Date.now()) / 1000)
    orgId = (await service.seedOrg({ name: 'Spring roofs', lines: 2, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }] })).orgId
    // Twilio takes nearly every dial by weight, so its outage is met at once.
    const pool = [
      { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER], api_base_url: twilio.url, weight: 99 },
      { kind: 'telnyx', account_sid: ACCOUNT, api_key: API_KEY, application_sid: APP, public_key: telnyx.publicKey, caller_ids: [TELNYX_CALLER], api_base_url: telnyx.url, weight: 1 },
    ]
    const file = join(service.work.path, 'carriers.json')
    await Bun.write(file, JSON.stringify(pool))
    const set = service.cli(['org', 'carriers', orgId, '--json-file', file])
    expect(set.code).toBe(0)
    expect(set.out).not.toContain(TOKEN)
    expect(set.out).not.toContain(API_KEY)
    expect(JSON.parse(set.out).data.carriers.map((c: { kind: string; weight: number }) => [c.kind, c.weight])).toEqual([['twilio', 99], ['telnyx', 1]])
    // A secret on the command line is refused before anything is sent.
    const inline = service.cli(['org', 'carriers', orgId, '--json', JSON.stringify(pool)])
    expect(inline.code).toBe(2)
    expect(inline.err).toContain('--json-file')
  }, 40_000)

  afterAll(async () => {
    await service.close()
    await telnyx.stop()
  })

  test('an outage at Twilio (503, 429 at the create) moves the calls to Telnyx; the breaker opens after 5; the admin read names the carrier', async () => {
    for (let i = 0; i < 4; i++) twilio.failNext(503, 20500, 'Service unavailable')
    twilio.failNext(429, 20429, 'Too many requests')
    twilio.failNext(503, 20500, 'Service unavailable')
    const phones = ['02', '03', '00', '02', '03', '00'].map((nn, i) => ny(nn, 60 + i))
    const leads: string[] = []
    for (const phone of phones) leads.push(await addLead(phone))
    for (const [i, leadId] of leads.entries()) {
      const call = await callOf(leadId, (c) => c.status === 'ended').catch((e) => {
        console.log(service.output().split('\n').filter((l) => /carrier|twilio|telnyx|dial|fail/i.test(l)).slice(-30).join('\n'))
        console.log(JSON.stringify(twilio.received.map((r) => [r.method, r.path, r.status])), JSON.stringify(telnyx.received.map((r) => [r.method, r.path, r.status])))
        throw e
      })
      const read = await admin('GET', `/calls/${call.id}`)
      expect(read.status).toBe(200)
      // Placed at Telnyx, whichever carrier the weight picked first; never failed for the outage.
      expect(read.body.data.carrier).toBe('telnyx')
      expect(call.outcome).not.toBe('failed')
      const creates = createsTo(phones[i]!)
      expect(creates.telnyx).toEqual([200])
      expect(creates.twilio.every((status) => status === 503 || status === 429)).toBe(true)
    }
    // Five outages in a row opened Twilio's breaker: the sixth dial went to Telnyx without asking Twilio.
    const twilioTries = phones.map((p) => createsTo(p).twilio.length)
    expect(twilioTries.reduce((a, b) => a + b, 0)).toBe(5)
    const metrics = await (await fetch(`${service.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text()
    expect(metrics).toContain('dialer_carrier_failovers_total{from="twilio"} 5')
    expect(metrics).toContain('dialer_carrier_breaker_opened_total{carrier="twilio"} 1')
    expect(metrics).toContain(`dialer_carrier_breaker_open{org_id="${orgId}",carrier="twilio",state="open"} 1`)
  }, 60_000)

  test('a refused number (400 at Twilio, 422 at Telnyx) ends failed where it was refused, never moved', async () => {
    // Whichever carrier the dial goes to refuses the number.
    twilio.failNext(400, 21211, "The 'To' number is not a valid phone number.")
    telnyx.failNext(422, '10002', 'The To number is invalid.')
    const phone = ny('02', 70)
    const leadId = await addLead(phone)
    const call = await callOf(leadId, (c) => c.status === 'ended')
    expect(call.outcome).toBe('failed')
    const creates = createsTo(phone)
    // One create in all, refused; no second carrier asked.
    expect([...creates.twilio, ...creates.telnyx]).toHaveLength(1)
    expect([...creates.twilio, ...creates.telnyx][0]).toBeOneOf([400, 422])
    const read = await admin('GET', `/calls/${call.id}`)
    expect(read.body.data.carrier).toBe(creates.twilio.length === 1 ? 'twilio' : 'telnyx')
  }, 60_000)
})
