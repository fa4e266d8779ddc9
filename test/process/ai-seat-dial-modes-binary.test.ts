import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { DEFAULT_SUMMARY } from '../../scripts/reference-agent'
import { aiSeatService, DISCLOSURE, until } from './ai-seat-service'
import { ny } from './twilio-service'

setDefaultTimeout(60_000)

/**
 * Power and predictive campaigns with an AI seat, on the service as shipped: the seat answers
 * every person at once, so no person's seat is needed to dial and nobody hears the abandon
 * message; the dial mode applies to the handover (a waiting seat's room, else the press-1 bridge).
 */
const ADMIN = 'dat_ai_seat_modes_0123456789abcdef0123'
const SID = `AC${'b7'.repeat(16)}`
const TOKEN = 'b'.repeat(32)
const SPEED = 10
const ABANDON = 'This is Acme Roofing returning your request. Call us at 212 555 0100.'
const SEAT = { name: 'Sid Seated', phone: '+13125550311' }

describe('AI-seated power and predictive campaigns (compiled binary, Twilio emulator, reference agent)', () => {
  const seat = aiSeatService({ prefix: 'dialer-ai-modes-', adminToken: ADMIN, sid: SID, token: TOKEN, speed: SPEED, callTimeoutMs: 40_000 })
  const { service } = seat

  beforeAll(() => seat.start(), 40_000)
  afterAll(() => seat.close())

  const modeCampaign = (dialMode: 'power' | 'predictive', more: Record<string, unknown> = {}) =>
    seat.aiCampaign({ behaviour: 'interested', after_ms: '1500' }, { more: { dial_mode: dialMode, abandon_message: { say: ABANDON }, ...more } })

  test('power, no seat anywhere: the lead is dialed, hears the disclosure and the agent (never the abandon message); interest goes to the press-1 bridge with the summary', async () => {
    const campaignId = await modeCampaign('power')
    const lead = ny('00', 91)
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, (c) => c.handled_by?.role === 'sdr')
    expect(call.handled_by).toMatchObject({ name: 'Ada Accepts', role: 'sdr' })
    const twilioCall = seat.twilioCall(lead)
    const spoken = (twilioCall.spoken ?? []).map((s: any) => s.text)
    expect(spoken).toContain(DISCLOSURE)
    expect(spoken).not.toContain(ABANDON)
    expect(seat.emulatorStream(twilioCall.sid).firstAudioAt).not.toBeNull()
    const legs = twilioCall.legs ?? []
    expect(legs.map((l: any) => [l.to, l.key, l.bridged])).toEqual([['+13125550811', '1', true]])
    expect(legs[0].heard.join(' ')).toContain(DEFAULT_SUMMARY)
    const done = await service.callOf(leadId, (c) => c.status === 'ended')
    const record = await seat.adminCall(done.id)
    expect(record.ai_seated).toBe(true)
    // The organization's artificial voice spoke at once: connected, not abandoned.
    expect(record.abandoned).toBe(false)
  })

  test('predictive with a seat waiting: the AI still answers first; at interest the lead joins the waiting seat\u2019s room and that person takes the handover', async () => {
    // The seat's person is one of the campaign's SDRs (a seat is one of its people).
    const campaignId = await modeCampaign('predictive', { sdrs: [SEAT, { name: 'Ada Accepts', phone: '+13125550811' }] })
    const created = await service.admin('POST', `/campaigns/${campaignId}/seats`, SEAT)
    expect(created.status).toBe(201)
    const seatId = created.body.data.id
    const seatOf = async () => ((await service.admin('GET', `/campaigns/${campaignId}/seats`)).body?.data as any[] | undefined)?.find((s) => s.id === seatId)
    await until('the seat waits', async () => (await seatOf())?.state === 'waiting')
    const lead = ny('00', 92)
    const leadId = await seat.addLead(campaignId, lead)
    const call = await service.callOf(leadId, (c) => c.handled_by?.role === 'sdr')
    expect(call.handled_by).toMatchObject({ name: SEAT.name, role: 'sdr' })
    const twilioCall = seat.twilioCall(lead)
    // First the disclosure on the lead's own leg, then the agent; the room only after the interest.
    expect(twilioCall.heard?.kind).toBe('message')
    expect((twilioCall.spoken ?? []).map((s: any) => s.text)).toContain(DISCLOSURE)
    const interested = await seat.events(call.id, 'lead.interested')
    expect(interested).toHaveLength(1)
    // The seat's room holds the seat's leg from the start; the lead joins it after the interest.
    await until('the lead in the seat\u2019s room', () => service.emulator.conference(`seat-${seatId}`)?.participants.some((p: any) => p.call.sid === twilioCall.sid))
    const accepted = await until('handover.accepted', async () => (await seat.events(call.id, 'handover.accepted'))[0])
    expect(Date.parse(accepted.created)).toBeGreaterThanOrEqual(Date.parse(interested[0].data.object.intent.at))
    // No press-1 leg was rung: the seat took the lead.
    expect(twilioCall.legs ?? []).toEqual([])
    await service.admin('DELETE', `/campaigns/${campaignId}/seats/${seatId}`)
  })
})
