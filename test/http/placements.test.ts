import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, START, type Harness, type World } from '../harness'
import { apiHelpers } from './helpers'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Every placement gives the time the lead can really be called and the rule that decided it:
 * a retry after an outcome, a booked callback and POST /calls ask the calling rules at the
 * instant their wait ends. Calls come from the simulator (+1 NPA 555 XXNN plays scenario NN:
 * 02 rings 30 s unanswered, 14 books a callback 2 h after its end at 50 s, 01 is over at 45 s).
 */

let h: Harness
let w: World

const S = 1000
const MIN = 60 * S
const HOUR = 60 * MIN
const iso = (ms: number) => new Date(ms).toISOString()
const { addLead, getLead, callsOf, patchCampaign } = apiHelpers(() => ({ h, w }))
const contactability = async (id: string) => (await h.api('GET', `/leads/${id}/contactability`, { key: w.live })).body.data

async function start(at = START) {
  h = createHarness({ autoDial: true, start: at })
  w = await seedWorld(h)
}

afterEach(() => h?.close())

describe('a retry after an outcome', () => {
  test('a Florida lead after its third unanswered call in 24 h: scheduled recent_contact_cooldown 24 h after its first call (FL-cap), dialed then', async () => {
    // Monday 10:00 Miami.
    await start()
    await patchCampaign({ retry_minutes: 5, max_attempts: 5 })
    const lead = await addLead({ phone: '+13055550002' })
    expect(lead.status).toBe('dialing')
    await h.advance(30)
    // Two retries keep their 5 minutes: the cap allows three calls.
    expect(await getLead(lead.id)).toMatchObject({ status: 'scheduled', scheduled_reason: 'retry_after_outcome', scheduled_for: iso(START + 30 * S + 5 * MIN) })
    await h.advance(5 * 60 + 30)
    expect(await getLead(lead.id)).toMatchObject({ status: 'scheduled', scheduled_reason: 'retry_after_outcome', scheduled_for: iso(START + 11 * MIN) })
    await h.advance(5 * 60 + 30)
    const third = await getLead(lead.id)
    expect(third).toMatchObject({
      status: 'scheduled', attempts: 3, last_outcome: 'no_answer',
      scheduled_reason: 'recent_contact_cooldown', scheduled_for: iso(START + 24 * HOUR), next_dial_at: iso(START + 24 * HOUR),
    })
    expect((await callsOf(lead.id)).map((c) => c.started)).toEqual([iso(START + 11 * MIN), iso(START + 5 * MIN + 30 * S), iso(START)])
    const c = await contactability(lead.id)
    expect(c.decisions[0]).toEqual({ at: iso(START + 16 * MIN + 30 * S), rule_id: 'FL-cap', outcome: 'deferred', until: iso(START + 24 * HOUR) })
    expect(c.decisions.filter((d: any) => d.outcome === 'deferred')).toHaveLength(1)

    // Due when the first call is 24 h old, not before; placed once and dialed, no re-placement.
    await h.advance(24 * 3600 - (11 * 60 + 30) - 1)
    expect((await getLead(lead.id)).status).toBe('scheduled')
    await h.advance(1)
    expect(await getLead(lead.id)).toMatchObject({ status: 'dialing', attempts: 4 })
    expect((await contactability(lead.id)).decisions.filter((d: any) => d.outcome === 'deferred')).toHaveLength(1)
  })

  test('a retry landing at 20:58 in Florida (hours end 20:00): scheduled outside_calling_hours for 08:00 the next day', async () => {
    // Monday 19:57:30 Miami.
    const at = Date.UTC(2026, 0, 6, 0, 57, 30)
    await start(at)
    await patchCampaign({ retry_minutes: 60 })
    const lead = await addLead({ phone: '+13055550002' })
    expect(lead.status).toBe('dialing')
    await h.advance(30)
    const morning = Date.UTC(2026, 0, 6, 13)
    expect(await getLead(lead.id)).toMatchObject({ status: 'scheduled', scheduled_reason: 'outside_calling_hours', scheduled_for: iso(morning), next_dial_at: iso(morning) })
    const c = await contactability(lead.id)
    // Dated the instant the rules were asked: the end of the retry's wait (20:58).
    expect(c.decisions[0]).toEqual({ at: iso(at + 30 * S + HOUR), rule_id: 'FL-hours', outcome: 'deferred', until: iso(morning) })
    await h.advance((morning - at) / S - 30 - 1)
    expect((await getLead(lead.id)).status).toBe('scheduled')
    await h.advance(1)
    expect(await getLead(lead.id)).toMatchObject({ status: 'dialing', attempts: 2 })
  })

  test('the same retry for a New York lead (21:00) keeps retry_after_outcome at 20:58', async () => {
    await start(Date.UTC(2026, 0, 6, 0, 57, 30))
    await patchCampaign({ retry_minutes: 60 })
    const lead = await addLead({ phone: '+12125550002' })
    await h.advance(30)
    expect(await getLead(lead.id)).toMatchObject({ status: 'scheduled', scheduled_reason: 'retry_after_outcome', scheduled_for: iso(Date.UTC(2026, 0, 6, 1, 58)) })
    expect((await contactability(lead.id)).decisions.map((d: any) => d.outcome)).toEqual(['dialed'])
  })
})

describe('a booked callback', () => {
  test('booked for 22:00 New York: callback_at as booked, due (scheduled_for) at 08:00 the next day, outside_calling_hours; callback.booked keeps the booked time', async () => {
    // Monday 20:00 New York; scenario 14 ends at 50 s and books 2 h later: 22:00:50.
    const at = Date.UTC(2026, 0, 6, 1)
    await start(at)
    const lead = await addLead({ phone: '+12125550014' })
    await h.advance(50)
    const booked = iso(at + 50 * S + 2 * HOUR)
    const morning = Date.UTC(2026, 0, 6, 13)
    expect(await getLead(lead.id)).toMatchObject({
      status: 'callback_scheduled', callback_at: booked, scheduled_for: iso(morning), scheduled_reason: 'outside_calling_hours',
    })
    const events = (await h.api('GET', `/events?type=callback.booked&object_id=${lead.id}`, { key: w.live })).body.data
    expect(events).toHaveLength(1)
    expect(events[0].data.object).toMatchObject({
      id: lead.id, callback_at: booked, scheduled_for: iso(morning), scheduled_reason: 'outside_calling_hours',
      callback: { at: booked, timezone: 'America/New_York' },
    })
    const deferred = (await contactability(lead.id)).decisions.filter((d: any) => d.outcome === 'deferred')
    expect(deferred.map((d: any) => d.rule_id).sort()).toEqual(['US-hours', 'campaign-hours'])
    for (const d of deferred) expect(d).toMatchObject({ at: booked, until: iso(morning) })

    // Not dialed at its booked time; dialed at 08:00 as a callback.
    await h.advance((morning - at) / S - 50 - 1)
    expect(await getLead(lead.id)).toMatchObject({ status: 'callback_scheduled' })
    await h.advance(1)
    expect(await getLead(lead.id)).toMatchObject({ status: 'dialing', attempts: 2 })
  })

  test('booked for a lawful time: no scheduled_for of its own, nothing deferred', async () => {
    await start()
    const lead = await addLead({ phone: '+12125550014' })
    await h.advance(50)
    expect(await getLead(lead.id)).toMatchObject({
      status: 'callback_scheduled', callback_at: iso(START + 50 * S + 2 * HOUR), scheduled_for: null, scheduled_reason: null,
    })
    expect((await contactability(lead.id)).decisions.map((d: any) => d.outcome)).toEqual(['dialed'])
  })
})

describe('call now (POST /calls)', () => {
  test('at 23:00 New York: 202 scheduled outside_calling_hours for 08:00, the deferral recorded; dialed ahead of the rest then', async () => {
    // Monday 20:55 New York: the lead is called (scenario 01, over at 45 s) and done.
    const at = Date.UTC(2026, 0, 6, 1, 55)
    await start(at)
    await patchCampaign({ lines: 1 })
    const lead = await addLead({ phone: '+12125550001' })
    await h.advance(45)
    expect((await getLead(lead.id)).status).toBe('done')
    // 23:00: POST /calls.
    await h.advance(2 * 3600 + 5 * 60 - 45)
    const night = at + 2 * HOUR + 5 * MIN
    const morning = Date.UTC(2026, 0, 6, 13)
    const other = await addLead({ phone: '+12125550201' })
    expect(other.status).toBe('scheduled')
    const r = await h.api('POST', '/calls', { key: w.live, body: { lead_id: lead.id } })
    expect(r.status).toBe(202)
    expect(r.body.data).toMatchObject({ status: 'scheduled', scheduled_for: iso(morning), scheduled_reason: 'outside_calling_hours', place_in_line: null, calls_left_today: 2 })
    expect(await getLead(lead.id)).toMatchObject({ status: 'scheduled', call_now: true, scheduled_for: iso(morning) })
    const deferred = (await contactability(lead.id)).decisions.filter((d: any) => d.outcome === 'deferred')
    expect(deferred.map((d: any) => d.rule_id).sort()).toEqual(['US-hours', 'campaign-hours'])
    for (const d of deferred) expect(d).toMatchObject({ at: iso(night), until: iso(morning) })

    await h.advance((morning - night) / S - 1)
    expect((await getLead(lead.id)).status).toBe('scheduled')
    await h.advance(1)
    // One line: the call-now lead goes first, the other lead waits in line.
    expect(await getLead(lead.id)).toMatchObject({ status: 'dialing', attempts: 2 })
    expect((await getLead(other.id)).status).toBe('queued')
  })
})
