import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ny, twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Press 1 to take the call, on the service as shipped against the Twilio emulator: each person
 * the bridge rings hears a briefing on their own leg, and only the one who presses 1 takes the
 * lead. The people's phones script their key by their last two digits (docs/telephony.md "The
 * emulator"): 11 presses 1, 12 presses nothing, 13 presses 2, 14 is a voicemail box.
 */
const ADMIN = 'dat_twilio_press1_0123456789abcdef01234'
const SID = `AC${'d4'.repeat(16)}`
const TOKEN = 'd'.repeat(32)

describe('press 1 to take the call (compiled binary)', () => {
  const service = twilioService({ prefix: 'dialer-press1-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: 50 })
  const { emulator, admin, start, callOf, addLead } = service
  let orgId = ''

  beforeAll(async () => {
    await start()
    const seeded = await service.seedOrg({
      name: 'Spring roofs', lines: 3,
      // A voicemail box, silence and the wrong key come first: none of them may take the lead.
      sdrs: [{ name: 'Vic Voicemail', phone: '+13125550114' }, { name: 'Nia Nokey', phone: '+13125550112' }, { name: 'Otto Otherkey', phone: '+13125550113' }],
      closers: [{ name: 'Ada Accepts', phone: '+13125550111' }],
      voicemail: { say: 'Hi, this is Acme Roofing returning your request.' },
    })
    orgId = seeded.orgId
  }, 40_000)

  afterAll(() => service.close())

  const isEnded = (c: any) => c.status === 'ended' && c.answered !== null && (c.handled_by?.role === 'closer' || c.handled_by?.role === 'sdr' || c.outcome !== null)
  const legsOf = (phone: string) => [...emulator.calls.values()].find((c) => c.to === phone)?.legs ?? []

  test('the first person who presses 1 takes the lead; voicemail, no key and another key are skipped', async () => {
    const lead = ny('00', 61)
    const leadId = await addLead(lead)
    const call = await callOf(leadId, isEnded, 30_000)
    expect(call.handled_by).toMatchObject({ name: 'Ada Accepts', role: 'closer' })
    expect(call.tth_seconds).toBeGreaterThanOrEqual(0)
    expect(call.outcome).toBeNull()
    const legs = legsOf(lead)
    expect(legs.map((l) => [l.to, l.key, l.bridged])).toEqual([
      ['+13125550114', null, false], ['+13125550112', null, false], ['+13125550113', '2', false], ['+13125550111', '1', true],
    ])
    // Each heard the briefing (the lead's and the campaign's names) on their own leg.
    for (const leg of legs) expect(leg.heard).toEqual(['Call from Jordan Lee for Spring roofs. Press 1 to take the call.'])
    expect(emulator.sent.filter((s) => s.status !== 200).map((s) => `${s.kind} ${s.status}`)).toEqual([])
    const events = await service.api('GET', '/events?limit=100')
    const handovers = (events.body.data as any[]).filter((e) => e.type === 'handover.accepted' && e.data.object.id === call.id)
    expect(handovers).toHaveLength(1)
  })

  test('nobody presses 1: never bridged, handled by nobody, a callback is booked', async () => {
    const campaign = await admin('POST', `/orgs/${orgId}/campaigns`, {
      name: 'Autumn gutters', status: 'active', lines: 3,
      sdrs: [{ name: 'Nia Nokey', phone: '+13125550212' }, { name: 'Otto Otherkey', phone: '+13125550213' }],
      closers: [{ name: 'Vic Voicemail', phone: '+13125550214' }],
    })
    expect(campaign.status).toBe(201)
    service.campaignId = campaign.body.data.id
    const lead = ny('01', 62)
    const leadId = await addLead(lead)
    const call = await callOf(leadId, (c) => c.status === 'ended' && c.outcome !== null, 30_000)
    expect(call.outcome).toBe('callback')
    expect(['sdr', 'closer']).not.toContain(call.handled_by?.role)
    expect(legsOf(lead).map((l) => [l.key, l.bridged])).toEqual([[null, false], ['2', false], [null, false]])
    const events = await service.api('GET', '/events?limit=100')
    expect((events.body.data as any[]).some((e) => e.type === 'handover.accepted' && e.data.object.id === call.id)).toBe(false)
  })
})
