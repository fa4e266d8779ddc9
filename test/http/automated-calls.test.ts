import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, type Harness, type World } from '../harness'
import { apiHelpers } from './helpers'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Automated-voice campaigns through the handler: the admin field, the automated rows at intake
 * and in contactability, and toll-free numbers (strictest zone, or refused).
 */

let h: Harness
let w: World
const iso = (ms: number) => new Date(ms).toISOString()
const { addLead } = apiHelpers(() => ({ h, w }))
const contactability = async (id: string) => (await h.api('GET', `/leads/${id}/contactability`, { key: w.live })).body.data

async function start(at: number, env?: Record<string, string>) {
  h = createHarness({ autoDial: false, start: at, ...(env ? { env } : {}) })
  w = await seedWorld(h)
  h.services.stores.campaigns.update(w.campaignId, { callingHoursStart: '08:00', callingHoursEnd: '21:00' })
}

afterEach(() => h?.close())

describe('campaign automated_voice (admin API)', () => {
  test('defaults to false; create, PATCH and read carry it; a non-boolean is a 400 naming the field', async () => {
    await start(Date.UTC(2026, 6, 15, 16))
    expect((await h.admin('GET', `/campaigns/${w.campaignId}`)).body.data.automated_voice).toBe(false)
    const made = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Robo', automated_voice: true })
    expect(made.status).toBe(201)
    expect(made.body.data.automated_voice).toBe(true)
    const patched = await h.admin('PATCH', `/campaigns/${made.body.data.id}`, { automated_voice: false })
    expect(patched.status).toBe(200)
    expect(patched.body.data.automated_voice).toBe(false)
    expect((await h.admin('GET', `/campaigns/${made.body.data.id}`)).body.data.automated_voice).toBe(false)
    for (const bad of ['yes', 1, null]) {
      const refused = await h.admin('PATCH', `/campaigns/${w.campaignId}`, { automated_voice: bad })
      expect(refused.status).toBe(400)
      expect(refused.body.error).toMatchObject({ code: 'invalid_request', param: 'automated_voice' })
    }
    const refusedCreate = await h.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Bad', automated_voice: 'true' })
    expect(refusedCreate.status).toBe(400)
    expect(refusedCreate.body.error.param).toBe('automated_voice')
  })
})

describe('an automated campaign at intake and in contactability', () => {
  test('California at 08:30 Pacific: the automated campaign schedules for 09:00 (CA-automated), a person campaign queues', async () => {
    await start(Date.UTC(2026, 6, 15, 15, 30))
    const person = await addLead({ phone: '+14155552301' })
    expect(person.status).toBe('queued')
    expect((await contactability(person.id)).rules.map((r: { id: string }) => r.id)).not.toContain('CA-automated')
    await h.admin('PATCH', `/campaigns/${w.campaignId}`, { automated_voice: true })
    const robot = await addLead({ phone: '+14155552302' })
    expect(robot).toMatchObject({ status: 'scheduled', scheduled_reason: 'outside_calling_hours', scheduled_for: iso(Date.UTC(2026, 6, 15, 16)) })
    const c = await contactability(robot.id)
    expect(c.allowed_now).toBe(false)
    expect(c.rules).toContainEqual(expect.objectContaining({ id: 'CA-automated', kind: 'automated', state: 'CA', source: 'Cal. Pub. Util. Code 2872(c)' }))
    expect(c.blocked_by).toEqual([{ rule_id: 'CA-automated', reason: 'outside_calling_hours', until: iso(Date.UTC(2026, 6, 15, 16)) }])
  })

  test('Mississippi in July: 08:30 CDT is before 08:00 CST; the rule shows its zone', async () => {
    await start(Date.UTC(2026, 6, 15, 13, 30))
    const lead = await addLead({ phone: '+16015552303' })
    expect(lead).toMatchObject({ status: 'scheduled', scheduled_for: iso(Date.UTC(2026, 6, 15, 14)) })
    const c = await contactability(lead.id)
    expect(c.rules).toContainEqual(expect.objectContaining({ id: 'MS-hours', timezone: 'Etc/GMT+6' }))
    expect(c.blocked_by).toEqual([{ rule_id: 'MS-hours', reason: 'outside_calling_hours', until: iso(Date.UTC(2026, 6, 15, 14)) }])
  })
})

describe('toll-free numbers', () => {
  test('strictest_zone (default): +1 800 at 13:30 EDT waits for 08:00 in Honolulu; every US clock in zones', async () => {
    await start(Date.UTC(2026, 6, 15, 17, 30))
    const lead = await addLead({ phone: '+18005552304' })
    expect(lead).toMatchObject({ status: 'scheduled', scheduled_for: iso(Date.UTC(2026, 6, 15, 18)) })
    expect((await contactability(lead.id)).zones).toContain('Pacific/Honolulu')
  })

  test('DIALER_TOLL_FREE=refuse: intake answers 422 number_not_allowed, reason toll_free', async () => {
    await start(Date.UTC(2026, 6, 15, 18), { DIALER_TOLL_FREE: 'refuse' })
    const refused = await h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone: '+18885552305' } })
    expect(refused.status).toBe(422)
    expect(refused.body.error).toMatchObject({ code: 'number_not_allowed', reason: 'toll_free', param: 'phone' })
    // The older path too (POST /calls of a lead stored before the switch: test/process/automated-calls-binary.test.ts).
    const older = await h.api('POST', `/campaigns/${w.campaignId}/leads`, { key: w.live, body: { phone: '+15005552305' } })
    expect(older.status).toBe(422)
    expect(older.body.error).toMatchObject({ code: 'number_not_allowed', reason: 'toll_free' })
    // A geographic number is taken as before.
    expect((await addLead({ phone: '+12125552306' })).status).toBe('queued')
  })
})
