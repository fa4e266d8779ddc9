import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ny, twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * The abandonment ledger on the service as shipped, against the Twilio emulator in bridge mode:
 * every call a person answers keeps answered_at (Twilio's answer), connected_at (the press 1)
 * and abandoned (nobody on the line within 2 s of the answer; a lead who hangs up inside the
 * 2 s is not), and GET /api/v1/admin/campaigns/{id}/abandonment (and the CLI) counts them.
 * The emulator plays calls 10 times faster than the service's clock moves, so 2 s of the
 * service's time is 20 emulated seconds; phones script themselves by their last two digits
 * (docs/telephony.md "The emulator"): SDR 11 presses 1, 12 presses nothing.
 */
const ADMIN = 'dat_twilio_ledger_0123456789abcdef012345'
const SID = `AC${'e5'.repeat(16)}`
const TOKEN = 'e'.repeat(32)
const SPEED = 10

describe('the abandonment ledger (compiled binary, Twilio emulator, bridge mode)', () => {
  const service = twilioService({ prefix: 'dialer-ledger-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 30_000 })
  const { emulator, admin } = service
  let pressOne = ''
  let nobody = ''

  beforeAll(async () => {
    await service.start()
    await service.seedOrg({ name: 'Spring roofs', lines: 3, sdrs: [{ name: 'Ada Accepts', phone: '+13125550111' }] })
    pressOne = service.campaignId
    // Two people who never press 1: the lead hears silence, then the nobody-took message.
    const other = await admin('POST', `/orgs/${(await admin('GET', `/campaigns/${pressOne}`)).body.data.org_id}/campaigns`, {
      name: 'Autumn gutters', status: 'active', lines: 3,
      sdrs: [{ name: 'Nia Nokey', phone: '+13125550212' }], closers: [{ name: 'Noel Nokey', phone: '+13125550312' }],
    })
    expect(other.status).toBe(201)
    nobody = other.body.data.id
  }, 40_000)

  afterAll(() => service.close())

  const adminCall = async (id: string) => (await admin('GET', `/calls/${id}`)).body.data
  const ms = (isoTime: string) => Date.parse(isoTime)
  const leadCall = (phone: string) => [...emulator.calls.values()].find((c) => c.to === phone)!
  /** Emulated seconds as the service's milliseconds. */
  const serviceMs = (emulatedSeconds: number) => (emulatedSeconds * 1000) / SPEED
  /** The emulator's own record of a lead's call: answer to hang-up, in the service's milliseconds. */
  const emulatedMs = (phone: string) => {
    const call = leadCall(phone)
    return serviceMs(call.endedAt! - call.answeredAt!)
  }
  // The service's clock moves in 100 ms steps (daytime-clock.ts) and each instant is read when a callback arrives.
  const SLACK_MS = 400

  test('the SDR presses 1: answered_at, connected_at and abandoned are on the admin call read', async () => {
    service.campaignId = pressOne
    const lead = ny('01', 71)
    const leadId = await service.addLead(lead)
    const call = await service.callOf(leadId, (c) => c.handled_by?.role === 'sdr')
    const read = await adminCall(call.id)
    expect(read.answered_at).not.toBeNull()
    expect(read.connected_at).not.toBeNull()
    const waited = ms(read.connected_at) - ms(read.answered_at)
    // The answer is Twilio's (before detection decided, which `answered` records); the press 1 comes after the briefing.
    expect(ms(read.answered_at)).toBeGreaterThanOrEqual(ms(read.started))
    expect(ms(read.answered_at)).toBeLessThanOrEqual(ms(read.answered))
    expect(waited).toBeGreaterThan(0)
    expect(read.abandoned).toBe(waited > 2_000)
    const leg = leadCall(lead).legs!
    expect(leg.map((l) => [l.key, l.bridged])).toEqual([['1', true]])
    // The emulator's record of when the lead first heard a person agrees with the ledger.
    const heard = emulator.heardAt(leadCall(lead).sid)!
    expect(heard.personAnswered).toBe(true)
    expect(heard.firstHeard?.kind).toBe('person')
    const heardMs = serviceMs(heard.waited!)
    expect(Math.abs(waited - heardMs)).toBeLessThan(SLACK_MS)
    if (Math.abs(heardMs - 2_000) > SLACK_MS) expect(read.abandoned).toBe(heardMs > 2_000)
    // The end keeps what the connection decided.
    const over = await adminCall((await service.callOf(leadId, (c) => c.status === 'ended')).id)
    expect([over.answered_at, over.connected_at, over.abandoned]).toEqual([read.answered_at, read.connected_at, read.abandoned])
  })

  test('a lead who hangs up inside 2 s is not abandoned; one left 2 s and more with nobody is', async () => {
    service.campaignId = nobody
    const quick = ny('09', 72)
    const held = ny('01', 72)
    const quickId = await service.addLead(quick)
    const heldId = await service.addLead(held)
    const ended = (c: any) => c.status === 'ended' && c.outcome !== null
    const quickCall = await adminCall((await service.callOf(quickId, ended)).id)
    const heldCall = await adminCall((await service.callOf(heldId, ended)).id)
    expect(quickCall).toMatchObject({ connected_at: null, abandoned: false })
    expect(quickCall.answered_at).not.toBeNull()
    expect(heldCall).toMatchObject({ connected_at: null, abandoned: true })
    expect(heldCall.outcome).toBe('callback')
    // What the emulator played agrees: one hung up inside 2 s of the answer, the other long after.
    expect(emulatedMs(quick)).toBeLessThan(2_000 - SLACK_MS)
    expect(emulatedMs(held)).toBeGreaterThan(2_000 + SLACK_MS)
    // Neither heard a person; the one left waiting heard the nobody-took message, long after 2 s, which is no connection.
    const quickHeard = emulator.heardAt(leadCall(quick).sid)!
    const heldHeard = emulator.heardAt(leadCall(held).sid)!
    expect([quickHeard.personAnswered, heldHeard.personAnswered]).toEqual([true, true])
    expect(quickHeard.firstHeard?.kind).not.toBe('person')
    expect(heldHeard.firstHeard?.kind).toBe('message')
    expect(serviceMs(heldHeard.waited!)).toBeGreaterThan(2_000 + SLACK_MS)

    // The report counts them (live calls a person answered, today in the organization's zone).
    const report = await admin('GET', `/campaigns/${nobody}/abandonment?days=1`)
    expect(report.status).toBe(200)
    expect(report.body.data).toMatchObject({ campaign_id: nobody, days: 1, answered_by_person: 2, abandoned: 1, rate: 0.5, abandoned_call_ids: [heldCall.id] })
    expect(report.body.data.by_day).toEqual([{ date: expect.any(String), answered_by_person: 2, abandoned: 1 }])
    const month = (await admin('GET', `/campaigns/${pressOne}/abandonment`)).body.data
    expect(month.by_day).toHaveLength(30)
    expect(month.answered_by_person).toBe(1)
    // The CLI asks the same.
    expect(service.json(['campaign', 'abandonment', nobody, '--days', '1'])).toEqual(report.body.data)
    const bad = service.cli(['campaign', 'abandonment', nobody, '--days', '91'])
    expect(bad.code).not.toBe(0)
    expect(JSON.parse(bad.out || bad.err).error).toMatchObject({ code: 'invalid_request', param: 'days' })
    expect((await admin('GET', `/campaigns/${nobody}/abandonment?days=0`)).body.error).toMatchObject({ code: 'invalid_request', param: 'days' })
  })

  test('every lead call was created to ring at least 15 s', () => {
    const timeouts = emulator.timeouts()
    expect([...timeouts.keys()].map((sid) => emulator.calls.get(sid)!.to).sort()).toEqual([ny('01', 71), ny('01', 72), ny('09', 72)].sort())
    for (const timeout of timeouts.values()) expect(timeout).toBeGreaterThanOrEqual(15)
  })
})
