import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { createHarness, seedWorld, type Harness, type World } from '../harness'
import { apiHelpers } from './helpers'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * An exchange missing from the zone table of an area code split across zones, through the
 * handler: checked in every zone of its area code, and a deferral only the guessed zones
 * caused reads exchange_unknown. January: Eastern is UTC-5, Central UTC-6.
 */

let h: Harness
let w: World
const iso = (ms: number) => new Date(ms).toISOString()
const { addLead, getLead, callsOf } = apiHelpers(() => ({ h, w }))
const contactability = async (id: string) => (await h.api('GET', `/leads/${id}/contactability`, { key: w.live })).body.data

async function start(at: number, autoDial: boolean) {
  h = createHarness({ autoDial, start: at })
  w = await seedWorld(h)
  h.services.stores.campaigns.update(w.campaignId, { callingHoursStart: '08:00', callingHoursEnd: '21:00' })
}

afterEach(() => h?.close())

describe('split area codes, unlisted exchange', () => {
  test('POST /leads, 850 unlisted at 07:30 Central (08:30 Eastern): scheduled for 08:00 Central, both zones shown', async () => {
    await start(Date.UTC(2026, 0, 6, 13, 30), true)
    const eight = iso(Date.UTC(2026, 0, 6, 14))
    const lead = await addLead({ phone: '+18505552009' })
    expect(lead).toMatchObject({ status: 'scheduled', scheduled_reason: 'outside_calling_hours', scheduled_for: eight })
    const c = await contactability(lead.id)
    expect([...c.zones].sort()).toEqual(['America/Chicago', 'America/New_York'])
    expect(c.blocked_by).toContainEqual({ rule_id: 'US-hours', reason: 'outside_calling_hours', until: eight })
    // The deferral the guessed zone caused is recorded at intake, marked exchange_unknown.
    const at = iso(Date.UTC(2026, 0, 6, 13, 30))
    expect(c.decisions).toContainEqual({ at, rule_id: 'US-hours', outcome: 'deferred', until: eight, reason: 'exchange_unknown' })
    for (const d of c.decisions) expect(d).toMatchObject({ outcome: 'deferred', reason: 'exchange_unknown' })
    // A listed exchange of 850 (Central) is checked in Central only, and is equally early.
    const listed = await addLead({ phone: '+18502002009' })
    const l = await contactability(listed.id)
    expect(l.zones).toEqual(['America/Chicago'])
    expect(listed.status).toBe('scheduled')
    // Its own zone's deferral: nothing guessed, nothing recorded at intake (the reply says why).
    expect(l.decisions).toEqual([])
    // At 08:00 Central the lead is dialed.
    await h.advance(30 * 60)
    expect((await getLead(lead.id)).status).toBe('dialing')
    expect((await contactability(lead.id)).decisions[0]).toMatchObject({ at: eight, rule_id: null, outcome: 'dialed' })
  })

  test('423 unlisted queued at 20:50 Eastern, taken at 21:05: deferred, and the decision says exchange_unknown', async () => {
    await start(Date.UTC(2026, 0, 7, 1, 50), false)
    const guessed = await addLead({ phone: '+14235552009' })
    const known = await addLead({ phone: '+12125552109' })
    expect([guessed.status, known.status]).toEqual(['queued', 'queued'])
    await h.advance(15 * 60)
    h.services.dialer.setEnabled(true)
    expect(await callsOf(guessed.id)).toEqual([])
    const eightCentral = iso(Date.UTC(2026, 0, 7, 14))
    expect(await getLead(guessed.id)).toMatchObject({ status: 'scheduled', scheduled_for: eightCentral })
    const c = await contactability(guessed.id)
    expect(c.decisions.length).toBeGreaterThanOrEqual(1)
    const us = c.decisions.find((d: any) => d.rule_id === 'US-hours')
    expect(us).toEqual({ at: iso(Date.UTC(2026, 0, 7, 2, 5)), rule_id: 'US-hours', outcome: 'deferred', until: eightCentral, reason: 'exchange_unknown' })
    // The New York lead's deferral is its own zone's: no reason.
    const plain = (await contactability(known.id)).decisions
    expect(plain.length).toBeGreaterThanOrEqual(1)
    for (const d of plain) expect(d.reason).toBeUndefined()
  })
})
