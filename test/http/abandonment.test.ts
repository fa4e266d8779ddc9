import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { newId } from '../../src/domain/ids'
import { createHarness, expectError, seedWorld, START, type Harness, type World } from '../harness'
import { apiHelpers } from './helpers'
import { addLead as addTwilioLead, callOf, ny as twilioNy, setup } from './twilio-world'

setDefaultTimeout(60_000)

/**
 * The abandonment ledger through the handler: the admin call read shows answered_at,
 * connected_at and abandoned; GET /api/v1/admin/campaigns/{id}/abandonment reports a campaign's
 * live person-answered and abandoned calls day by day in the organization's zone. The fake
 * clock starts Monday 2026-01-05 15:00 UTC, which is midnight of Tuesday the 6th in Tokyo.
 */

const S = 1000
const DAY = 86_400 * S
const iso = (ms: number) => new Date(ms).toISOString()
const ny = (nn: string, series: number) => `+1212555${String(series).padStart(2, '0')}${nn}`

let h: Harness
let w: World
let open: Harness | null = null
afterEach(() => {
  open?.close()
  open = null
})
const harness = (autoDial = true) => (open = h = createHarness({ autoDial }))
const { addLeadId, onlyCall, patchCampaign } = apiHelpers(() => ({ h, w }))

/** A lead's one call once it has ended (the fake clock moved until then). */
async function endedCall(leadId: string, key = w.live) {
  await h.advance(120)
  const call = await onlyCall(leadId, key)
  expect(call.status).toBe('ended')
  return call
}

/** Writes a call's ledger as a carrier that rang people after the answer would have left it. */
const ledger = (callId: string, answeredAt: number, abandoned: boolean) =>
  h.services.stores.transaction(() => h.services.stores.calls.update(callId, { answeredAt, connectedAt: abandoned ? null : answeredAt + 1_500, abandoned }))

const report = (query = '', campaignId = w.campaignId) => h.admin('GET', `/campaigns/${campaignId}/abandonment${query}`)

describe('the abandonment report', () => {
  test('live person-answered calls by day in the organization zone, abandoned ones newest first; test mode and machines left out', async () => {
    harness()
    w = await seedWorld(h)
    expect((await h.admin('PATCH', `/orgs/${w.orgId}`, { timezone: 'Asia/Tokyo' })).status).toBe(200)
    await patchCampaign({ lines: 10 })
    // Tokyo, Tuesday the 6th: the AI assistant takes a person at the answer (not abandoned).
    const a = await addLeadId({ phone: ny('01', 31) })
    const b = await addLeadId({ phone: ny('02', 31) })
    const machine = await addLeadId({ phone: ny('04', 31) })
    const testMode = await addLeadId({ phone: ny('01', 32) }, w.test)
    const callA = await endedCall(a)
    const callB = await endedCall(b)
    const callMachine = await endedCall(machine)
    const callTest = await endedCall(testMode, w.test)
    // One second before Tokyo's midnight: Monday the 5th there.
    ledger(callB.id, START - 1 * S, true)
    // Tokyo, Wednesday the 7th.
    await h.advance(DAY / S)
    const d = await addLeadId({ phone: ny('01', 33) })
    const e = await addLeadId({ phone: ny('02', 33) })
    const f = await addLeadId({ phone: ny('02', 34) })
    const callD = await endedCall(d)
    const callE = await endedCall(e)
    const callF = await endedCall(f)
    ledger(callE.id, START + DAY + 10 * S, true)
    ledger(callF.id, START + DAY + 20 * S, false)

    // The admin call read: the simulator answered and connected at once.
    const readA = (await h.admin('GET', `/calls/${callA.id}`)).body.data
    expect(readA).toMatchObject({ answered_at: readA.answered, connected_at: readA.answered, abandoned: false })
    expect(readA.answered).toBe(iso(START + 5 * S))
    expect((await h.admin('GET', `/calls/${callMachine.id}`)).body.data).toMatchObject({ answered_at: null, connected_at: null, abandoned: null })
    expect((await h.admin('GET', `/calls/${callTest.id}`)).body.data).toMatchObject({ answered_at: callTest.answered, abandoned: false })

    const three = await report('?days=3')
    expect(three.status).toBe(200)
    expect(three.body.data).toEqual({
      campaign_id: w.campaignId,
      days: 3,
      answered_by_person: 5,
      abandoned: 2,
      rate: 0.4,
      by_day: [
        { date: '2026-01-05', answered_by_person: 1, abandoned: 1 },
        { date: '2026-01-06', answered_by_person: 1, abandoned: 0 },
        { date: '2026-01-07', answered_by_person: 3, abandoned: 1 },
      ],
      abandoned_call_ids: [callE.id, callB.id],
    })
    // One day: today only; the rate to 4 decimals.
    expect((await report('?days=1')).body.data).toMatchObject({ answered_by_person: 3, abandoned: 1, rate: 0.3333, abandoned_call_ids: [callE.id] })
    expect(callD.answered).not.toBeNull()
    // The default: 30 days, every one of them, oldest first, ending today in Tokyo.
    const month = (await report()).body.data
    expect(month.days).toBe(30)
    expect(month.by_day).toHaveLength(30)
    expect(month.by_day[0].date).toBe('2025-12-09')
    expect(month.by_day[29].date).toBe('2026-01-07')
    expect(month.by_day.slice(0, 27).every((day: any) => day.answered_by_person === 0 && day.abandoned === 0)).toBe(true)
    expect(month).toMatchObject({ answered_by_person: 5, abandoned: 2, rate: 0.4 })
    // A campaign without calls: 0, not a division by zero.
    expect((await report('?days=2', w.draftCampaignId)).body.data).toMatchObject({
      answered_by_person: 0, abandoned: 0, rate: 0, abandoned_call_ids: [],
      by_day: [{ date: '2026-01-06', answered_by_person: 0, abandoned: 0 }, { date: '2026-01-07', answered_by_person: 0, abandoned: 0 }],
    })
  })

  test('the newest 1,000 abandoned calls are listed; the counts take them all', async () => {
    harness()
    w = await seedWorld(h)
    const call = await endedCall(await addLeadId({ phone: ny('02', 41) }))
    const row = h.services.stores.calls.get(call.id)!
    const ids: string[] = []
    h.services.stores.transaction(() => {
      for (let i = 0; i < 1_003; i++) {
        const id = newId()
        ids.push(id)
        h.services.stores.calls.insert({ ...row, id, answeredAt: START - i * S, connectedAt: null, abandoned: true })
      }
    })
    const data = (await report('?days=1')).body.data
    expect(data).toMatchObject({ answered_by_person: 1_003, abandoned: 1_003, rate: 1 })
    expect(data.abandoned_call_ids).toEqual(ids.slice(0, 1_000))
  })

  test('bad days: 400 param days; an unknown campaign: 404', async () => {
    harness(false)
    w = await seedWorld(h)
    for (const days of ['0', '91', '1.5', 'abc', '', '-3']) expectError(await report(`?days=${days}`), 400, 'invalid_request', 'days')
    expectError(await report('?weeks=2'), 400, 'invalid_request', 'weeks')
    expect((await report('?days=90')).body.data.by_day).toHaveLength(90)
    expectError(await report('', newId()), 404, 'not_found')
    expectError(await report('', 'not-a-campaign'), 404, 'not_found')
    expect((await h.call('GET', `/api/v1/admin/campaigns/${w.campaignId}/abandonment`)).status).toBe(401)
  })
})

describe('the ledger through Twilio (bridge mode, the handler and the emulator)', () => {
  test('press 1: answered and connected are kept on the call; a machine is not in the ledger; every lead call rings at least 15 s', async () => {
    const tw = await setup({ sdrs: [{ name: 'Ada Accepts', phone: '+13125550111' }], closers: [] })
    const taken = await callOf(tw, await addTwilioLead(tw, twilioNy('00')), (c) => c.status === 'ended' && c.handled_by?.role === 'sdr')
    const machine = await callOf(tw, await addTwilioLead(tw, twilioNy('04')))
    const read = async (id: string) => (await tw.h.admin('GET', `/calls/${id}`)).body.data
    // The service's fake clock stands still here: the answer and the press 1 read the same instant.
    expect(await read(taken.id)).toMatchObject({ answered_at: iso(START), connected_at: iso(START), abandoned: false })
    expect(await read(machine.id)).toMatchObject({ answered_at: null, connected_at: null, abandoned: null })
    const creates = tw.emulator.received.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls.json'))
    expect(creates.map((r) => r.params.To)).toEqual([twilioNy('00'), twilioNy('04')])
    for (const create of creates) expect(Number(create.params.Timeout)).toBeGreaterThanOrEqual(15)
  })
})
