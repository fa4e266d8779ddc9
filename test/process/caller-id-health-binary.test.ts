import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { basic } from '../harness'
import { daytimeStart, readClock } from './daytime-clock'
import { twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Caller-ID health on the service as shipped, against the Twilio emulator: an organization
 * calls from a New York and a San Francisco number (each lead gets the one sharing its area
 * code). Every New York lead's phone declines (busy at once); the San Francisco leads answer.
 * After 32 calls on each, the hourly job rests the New York number with its evidence (the
 * console's Numbers page shows it), the next New York lead is called from the San Francisco
 * number, and once an owner puts the number back in use it is chosen again.
 */
const ADMIN = 'dat_caller_id_health_0123456789abcdef'
const SID = `AC${'d4'.repeat(16)}`
const TOKEN = 'f'.repeat(32)
const NY_CALLER = '+12125550100'
const SF_CALLER = '+14155550100'
const PER_NUMBER = 32
// The emulator plays calls by To's last two digits: 03 busy at once, 09 a person who answers and hangs up.
const nyLead = (i: number) => `+1212555${10 + i}03`
const sfLead = (i: number) => `+1415555${10 + i}09`

describe('caller-ID health through the service as shipped', () => {
  const service = twilioService({ prefix: 'dialer-caller-ids-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: 50, callTimeoutMs: 30_000 })
  // An account of its own that owns both numbers (twilio-service's owns one).
  const emulator = TwilioEmulator.start({ accounts: [{ sid: SID, authToken: TOKEN, callerIds: [NY_CALLER, SF_CALLER] }], speed: 50 })
  let orgId = ''
  const fromFor = (to: string) => emulator.received.filter((r) => r.method === 'POST' && r.params.To === to).map((r) => r.params.From)

  beforeAll(async () => {
    await service.start()
    // Daytime in both zones (calling hours), moving at real speed.
    await service.clockAt(daytimeStart(await readClock(service.base, ADMIN), ['America/New_York', 'America/Los_Angeles']))
    orgId = (await service.seedOrg({ name: 'Numbers', lines: 8, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }] })).orgId
    const tokenFile = join(service.work.path, 'token-2')
    await Bun.write(tokenFile, `${TOKEN}\n`)
    const set = service.cli(['org', 'carrier', orgId, '--twilio', '--account-sid', SID, '--auth-token-file', tokenFile, '--caller-id', NY_CALLER, '--caller-id', SF_CALLER, '--api-base-url', emulator.url])
    expect(set.code).toBe(0)
    // A key that may add all the leads in one minute.
    const key = service.json(['key', 'create', '--org', orgId, '--name', 'many', '--mode', 'live', '--requests-per-minute', '100000', '--burst', '100000', '--leads-per-minute', '1000'])
    service.auth = basic(key.id, key.secret)
  }, 60_000)

  afterAll(async () => {
    await service.close()
    await emulator.stop()
  })

  async function console() {
    const r = await fetch(`${service.base}/console/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ admin_token: ADMIN }) })
    expect(r.status).toBe(200)
    const cookie = r.headers.get('set-cookie')!.split(';')[0]!
    const csrf = ((await r.json()) as { data: { csrf_token: string } }).data.csrf_token
    return async (method: string, path: string) => {
      const reply = await fetch(`${service.base}/console/api/orgs/${orgId}${path}`, { method, headers: { cookie, 'x-csrf-token': csrf } })
      return { status: reply.status, body: (await reply.json()) as any }
    }
  }

  test('a number its leads decline is rested with the evidence, then not chosen until an owner puts it back', async () => {
    const leads: string[] = []
    for (let i = 0; i < PER_NUMBER; i++) leads.push(await service.addLead(nyLead(i)), await service.addLead(sfLead(i)))
    for (const id of leads) await service.callOf(id, (c) => c.status === 'ended')
    expect(fromFor(nyLead(0))).toEqual([NY_CALLER])
    expect(fromFor(sfLead(0))).toEqual([SF_CALLER])

    const ran = await service.admin('POST', '/jobs/caller_id_health/run')
    expect(ran.status).toBe(200)
    expect(service.output()).toContain('caller_id_rested')

    const page = await console()
    const read = await page('GET', '/numbers')
    expect(read.status).toBe(200)
    expect(read.body.data.carriers).toEqual([expect.objectContaining({ kind: 'twilio', weight: null, caller_ids: [NY_CALLER, SF_CALLER], secrets_set: ['auth_token'] })])
    expect(JSON.stringify(read.body)).not.toContain(TOKEN)
    const ny = read.body.data.numbers.find((n: any) => n.caller_id === NY_CALLER)
    const sf = read.body.data.numbers.find((n: any) => n.caller_id === SF_CALLER)
    expect(ny).toMatchObject({ status: 'rested', figures: { calls: PER_NUMBER, answered: 0, declined: PER_NUMBER } })
    expect(ny.evidence).toMatchObject({ rule: 'answer_rate', rest_days: 7, number: { calls: PER_NUMBER }, baseline: { calls: PER_NUMBER, answered: PER_NUMBER } })
    expect(sf.status).toBe('in_use')

    // The next New York lead is called from the number still in use.
    const next = nyLead(40)
    await service.callOf(await service.addLead(next), (c) => c.status === 'ended')
    expect(fromFor(next)).toEqual([SF_CALLER])

    const back = await page('POST', `/numbers/${encodeURIComponent(NY_CALLER)}/put-back`)
    expect(back.status).toBe(200)
    expect(back.body.data).toMatchObject({ caller_id: NY_CALLER, status: 'in_use', figures: { calls: 0 } })
    expect(service.output()).toContain('caller_id_put_back')
    const after = nyLead(41)
    await service.callOf(await service.addLead(after), (c) => c.status === 'ended')
    expect(fromFor(after)).toEqual([NY_CALLER])
  }, 120_000)
})
