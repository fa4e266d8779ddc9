import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { ny, twilioService } from './twilio-service'

setDefaultTimeout(90_000)

/**
 * Predictive pacing on the service as shipped against the Twilio emulator. With no seat waiting
 * nothing is dialed, whatever `lines` says; with one seat and no 30-day history the controller
 * has no abandonment budget, so it dials as power: one lead line at a time, each person joining
 * the seat's room at the answer (never the abandon message), the next lead once the seat waits
 * again.
 */
const ADMIN = 'dat_twilio_predictive_0123456789abcdef01'
const SID = `AC${'f6'.repeat(16)}`
const TOKEN = 'f'.repeat(32)
const SEAT = { name: 'Pat Predictive', phone: '+13125550411' }
const SPEED = 10

describe('predictive dialing on Twilio (compiled binary)', () => {
  const service = twilioService({ prefix: 'dialer-predictive-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 60_000 })
  const { emulator, admin, start, callOf, addLead } = service

  beforeAll(async () => {
    await start()
    await service.seedOrg({
      name: 'Autumn roofs', lines: 5, dial_mode: 'predictive', max_abandon_rate: 0.03,
      abandon_message: { say: 'This is Acme Roofing. Call us at 212 555 0100.' }, sdrs: [SEAT], retry_minutes: 600,
    })
  }, 40_000)

  afterAll(() => service.close())

  const leadCalls = (phones: string[]) => [...emulator.calls.values()].filter((c) => phones.includes(c.to))

  test('no seat: nothing is dialed; one seat, no history: one lead line at a time, each joins the seat', async () => {
    const phones = [ny('01', 81), ny('01', 82), ny('01', 83)]
    const leadIds: string[] = []
    for (const phone of phones) leadIds.push(await addLead(phone))
    // Five lines, but no seat waits: the leads stay queued and the carrier is asked for nothing.
    await Bun.sleep(1_500)
    expect(leadCalls(phones)).toHaveLength(0)
    const lead = (await service.api('GET', `/leads/${leadIds[0]}`)).body.data
    expect(lead.status).toBe('queued')

    const seat = await admin('POST', `/campaigns/${service.campaignId}/seats`, SEAT)
    expect(seat.status).toBe(201)
    // Sampled while the three are dialed: never two lead calls up at once.
    let most = 0
    const deadline = Date.now() + 80_000
    while (leadCalls(phones).filter((c) => c.endedAt !== null).length < phones.length) {
      most = Math.max(most, leadCalls(phones).filter((c) => c.endedAt === null).length)
      if (Date.now() > deadline) throw new Error(`not every lead was called: ${JSON.stringify(leadCalls(phones).map((c) => [c.to, c.status]))}`)
      await Bun.sleep(20)
    }
    expect(most).toBe(1)
    for (const leadId of leadIds) {
      const call = await callOf(leadId, (c) => c.status === 'ended')
      expect(call.handled_by).toMatchObject({ name: SEAT.name, role: 'sdr' })
      const record = (await admin('GET', `/calls/${call.id}`)).body.data
      expect(record.abandoned).toBe(false)
    }
    for (const call of leadCalls(phones)) {
      expect(call.heard?.kind).toBe('person')
      expect(call.heard!.at - call.answeredAt!).toBeLessThanOrEqual(2)
    }
    const report = (await admin('GET', `/campaigns/${service.campaignId}/abandonment?days=1`)).body.data
    expect([report.answered_by_person, report.abandoned, report.rate]).toEqual([3, 0, 0])
  })
})
