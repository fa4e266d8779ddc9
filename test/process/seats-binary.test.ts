import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { CALLER, twilioService } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Seats on the service as shipped, against the Twilio emulator: POST /api/v1/admin/campaigns/{id}/seats
 * calls the person's phone, which presses 1 (a phone ending 11) and sits in its own conference,
 * waiting; one ending 12 answers and presses nothing, and the seat ends not_accepted; DELETE ends
 * a waiting seat and the emulator sees its leg hung up. The CLI's `dialer admin seat` does the same.
 */
const ADMIN = 'dat_twilio_seats_0123456789abcdef0123456'
const SID = `AC${'d1'.repeat(16)}`
const TOKEN = 'd'.repeat(32)
const SDR = { name: 'Ada Park', phone: '+13125550111' }
const CLOSER = { name: 'Cy Close', phone: '+13125550112' }

describe('seats (compiled binary, Twilio emulator)', () => {
  const service = twilioService({ prefix: 'dialer-seats-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: 10 })
  const { emulator, admin } = service
  const seats = () => `/campaigns/${service.campaignId}/seats`

  beforeAll(async () => {
    await service.start()
    await service.seedOrg({
      name: 'Spring roofs', lines: 2, dial_mode: 'power', abandon_message: { say: 'This is Acme Roofing. Call us at 212 555 0100.' },
      sdrs: [SDR], closers: [CLOSER],
    })
  }, 40_000)

  afterAll(() => service.close())

  async function seatUntil(id: string, until: (seat: any) => boolean, ms = 20_000): Promise<any> {
    const deadline = Date.now() + ms
    for (;;) {
      const r = await admin('GET', `${seats()}/${id}`)
      if (r.status === 200 && until(r.body.data)) return r.body.data
      if (Date.now() > deadline) throw new Error(`seat ${id} not as wanted: ${r.text}`)
      await Bun.sleep(50)
    }
  }
  const legOf = (phone: string) => [...emulator.calls.values()].find((c) => c.to === phone)

  test('a person presses 1 and waits in their own room; DELETE hangs the leg up', async () => {
    const created = await admin('POST', seats(), SDR)
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({ state: 'calling', phone: SDR.phone, person: { name: SDR.name, role: 'sdr' } })
    const id = created.body.data.id
    const waiting = await seatUntil(id, (s) => s.state === 'waiting')
    expect(waiting.seated_at).not.toBeNull()
    const leg = legOf(SDR.phone)!
    expect(leg.from).toBe(CALLER)
    expect(leg.pressed).toEqual(['1'])
    // The seat waits once its press 1 is answered; the emulator runs that answer's TwiML (the room) just after.
    const roomBy = Date.now() + 5_000
    while (emulator.conference(`seat-${id}`)?.status !== 'in-progress' && Date.now() < roomBy) await Bun.sleep(20)
    const room = emulator.conference(`seat-${id}`)!
    expect(room.status).toBe('in-progress')
    expect(room.participants.map((p) => p.call.sid)).toEqual([leg.sid])
    expect(service.json(['seat', 'list', service.campaignId]).map((s: any) => [s.id, s.state])).toEqual([[id, 'waiting']])

    const ended = await admin('DELETE', `${seats()}/${id}`)
    expect(ended.status).toBe(200)
    expect(ended.body.data).toMatchObject({ state: 'ended', ended_reason: 'deleted' })
    const deadline = Date.now() + 10_000
    while (legOf(SDR.phone)!.status !== 'completed' && Date.now() < deadline) await Bun.sleep(50)
    expect(legOf(SDR.phone)!.status).toBe('completed')
    expect(emulator.received.some((r) => r.method === 'POST' && r.path.endsWith(`/Calls/${leg.sid}.json`) && r.params.Status === 'completed')).toBe(true)
    expect(emulator.conference(`seat-${id}`)!.status).toBe('completed')
    // The leg's own end does not change why the seat ended.
    await Bun.sleep(300)
    expect(service.json(['seat', 'end', service.campaignId, id])).toMatchObject({ state: 'ended', ended_reason: 'deleted' })
  })

  test('a person who presses nothing is never seated (not_accepted); bad input is refused by the API and the CLI', async () => {
    const created = service.json(['seat', 'add', service.campaignId, '--name', CLOSER.name, '--phone', CLOSER.phone])
    expect(created).toMatchObject({ state: 'calling', person: { name: CLOSER.name, role: 'closer' } })
    const over = await seatUntil(created.id, (s) => s.state === 'ended')
    expect(over).toMatchObject({ ended_reason: 'not_accepted', seated_at: null })
    expect(legOf(CLOSER.phone)!.pressed ?? []).toEqual([])
    expect(emulator.conference(`seat-${created.id}`)).toBeNull()

    const stranger = await admin('POST', seats(), { name: 'Stranger', phone: '+13125550177' })
    expect(stranger.status).toBe(400)
    expect(stranger.body.error).toMatchObject({ code: 'invalid_request', param: 'phone' })
    const cli = service.cli(['seat', 'add', service.campaignId, '--name', 'Stranger', '--phone', '+13125550177'])
    expect(cli.code).not.toBe(0)
    expect(cli.err).toContain('param phone')
    expect((await admin('DELETE', `${seats()}/0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b`)).status).toBe(404)
    expect(service.cli(['seat', 'end', service.campaignId]).code).not.toBe(0)
  })
})
