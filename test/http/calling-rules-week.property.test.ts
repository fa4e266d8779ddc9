import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { NANP_ZONES, SPLIT_AREA_ZONES } from '../../src/domain/calling-hours/area-zones.generated'
import { classifyPhone } from '../../src/domain/phone/phone-number'
import { callingRules as engine } from '../../src/domain/calling-rules'
import { campaignIsAutomated } from '../../src/domain/campaigns/automated'
import { createHarness, seedWorld, type Harness, type World } from '../harness'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

/**
 * Issue 17, "Speed": a simulated week on the fake clock. Leads from area codes all over the
 * US and Canada, with random addresses (a ZIP or a state of anywhere, nonsense, a ZIP that
 * does not exist), random simulator outcomes (retries, callbacks, hang-ups...) and the same
 * numbers sent to two campaigns, arrive at random moments of the week. Afterwards every
 * call.started is checked against the rules engine at its start instant, with the calls to
 * the number before it: each must have been allowed (no call outside any applicable window,
 * none over a cap); and every cap is checked again directly over rolling windows.
 *
 * Issue 27: the numbers also come from every area code split across zones, through an exchange
 * the table does not list; one campaign is person-first, the other automated (its calls play an
 * artificial voice); the organization records. Besides the engine's own verdict, each call is
 * checked against an oracle written here from the statutes and the raw zone data (not from the
 * engine): the federal 08:00-21:00 in every zone the area code spans and the address's zone, and
 * the automated-call hours of CA, IL and SC for the automated campaign. Every answered call to a
 * lead in an all-party-consent state was recorded only after its notice had played.
 */

const WEEK_S = 7 * 24 * 3600
// Monday 2026-01-05 00:00 UTC (Sunday evening in the US): the week crosses a Sunday.
const START = Date.UTC(2026, 0, 5, 0, 0)

/** Area codes split across zones whose exchange 555 the table does not list (so the unlisted-exchange rule decides). */
const SPLIT_UNLISTED = Object.keys(SPLIT_AREA_ZONES).map((p) => p.slice(1))
  .filter((npa) => !Object.keys(NANP_ZONES).some((key) => key.length > 4 && `1${npa}555`.startsWith(key)))

/** Area codes whose 555-2xxx numbers are ordinary US or Canadian numbers for a live key; the split ones first. */
const AREA_CODES = [...new Set([...SPLIT_UNLISTED, ...Object.keys(NANP_ZONES).filter((p) => p.length === 4).map((p) => p.slice(1))])]
  .filter((npa) => classifyPhone(`+1${npa}5552009`).kind === 'domestic')

const SPLIT_COUNT = AREA_CODES.filter((npa) => SPLIT_UNLISTED.includes(npa)).length

/** Every zone of an area code's entries in the raw table: where a lead on an unlisted exchange may be. */
function areaZones(npa: string): string[] {
  const zones = new Set<string>()
  for (const [key, joined] of Object.entries(NANP_ZONES)) if (key.startsWith(`1${npa}`)) for (const z of joined.split('&')) zones.add(z)
  return [...zones]
}

/** The oracle's zone and state of each address below (null: nothing the rules can read). */
const ADDRESS_PLACES: Record<string, { zone: string; state: string } | { state: string; zones: string[] } | null> = {
  '1 Main St, Tallahassee, FL 32301': { zone: 'America/New_York', state: 'FL' },
  'Birmingham, AL 35203': { zone: 'America/Chicago', state: 'AL' },
  'New Orleans, LA 70112': { zone: 'America/Chicago', state: 'LA' },
  'Jackson MS 39201': { zone: 'America/Chicago', state: 'MS' },
  'Boston, MA 02108': { zone: 'America/New_York', state: 'MA' },
  'Baltimore, MD 21201': { zone: 'America/New_York', state: 'MD' },
  'Oklahoma City, OK 73102': { zone: 'America/Chicago', state: 'OK' },
  'Seattle, WA 98101': { zone: 'America/Los_Angeles', state: 'WA' },
  'Portland, ME 04101': { zone: 'America/New_York', state: 'ME' },
  'New York, NY 10001': { zone: 'America/New_York', state: 'NY' },
  'Los Angeles, CA 90012': { zone: 'America/Los_Angeles', state: 'CA' },
  'Honolulu, HI 96813': { zone: 'Pacific/Honolulu', state: 'HI' },
  'Anchorage, AK 99501': { zone: 'America/Anchorage', state: 'AK' },
  'Austin TX': { state: 'TX', zones: ['America/Chicago', 'America/Denver'] },
  'somewhere nice': null,
  'ZIP 00000': null,
  '12 Elm St, Springfield, IL': { state: 'IL', zones: ['America/Chicago'] },
  'Box 9, UT': { state: 'UT', zones: ['America/Denver'] },
  'Helena, MT 59601': { zone: 'America/Denver', state: 'MT' },
  'Hartford, CT 06103': { zone: 'America/New_York', state: 'CT' },
  'Columbia, SC 29201': { zone: 'America/New_York', state: 'SC' },
  'Chicago, IL 60601': { zone: 'America/Chicago', state: 'IL' },
}

/** Every party must consent to a recording (docs/calling-rules.md, "Recording consent"; stricter reading of DE, MI, NV). */
const ALL_PARTY = new Set(['CA', 'CT', 'DE', 'FL', 'IL', 'MA', 'MD', 'MI', 'MT', 'NH', 'NV', 'PA', 'WA'])
/** Automated-call hours, local: Cal. Pub. Util. Code 2872(c); 815 ILCS 305/30(b); S.C. Code 16-17-446(C)(3). */
const AUTOMATED_HOURS: Record<string, [number, number]> = { CA: [9 * 60, 21 * 60], IL: [9 * 60, 21 * 60], SC: [8 * 60, 19 * 60] }

const localMinutes = (zone: string, t: number): number => {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(new Date(t))
  return Number(parts.find((p) => p.type === 'hour')!.value) * 60 + Number(parts.find((p) => p.type === 'minute')!.value)
}

const ADDRESSES = [
  '1 Main St, Tallahassee, FL 32301', 'Birmingham, AL 35203', 'New Orleans, LA 70112', 'Jackson MS 39201',
  'Boston, MA 02108', 'Baltimore, MD 21201', 'Oklahoma City, OK 73102', 'Seattle, WA 98101', 'Portland, ME 04101',
  'New York, NY 10001', 'Los Angeles, CA 90012', 'Honolulu, HI 96813', 'Anchorage, AK 99501', 'Austin TX',
  'somewhere nice', 'ZIP 00000', '12 Elm St, Springfield, IL', 'Box 9, UT',
  'Helena, MT 59601', 'Hartford, CT 06103', 'Columbia, SC 29201', 'Chicago, IL 60601',
]
/** Simulator scenarios (last two digits): 15 leaves the lead on a call for minutes; every other one. */
const SCENARIOS = ['00', '01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12', '13', '14']

interface Arrival {
  /** seconds into the week */
  at: number
  area: number
  line: number
  scenario: number
  address: number | null
  /** also sent to the second campaign */
  both: boolean
  callNow: boolean
}

/**
 * Half the leads arrive at any moment, half in the 20 minutes before a US closing time (20:00 or
 * 21:00 from New York to Honolulu is 01:00-07:00 UTC), so some wait in line past it.
 */
const arrivalTime = fc.oneof(
  fc.integer({ min: 0, max: WEEK_S - 3600 }),
  fc.record({ day: fc.integer({ min: 0, max: 6 }), hour: fc.integer({ min: 1, max: 7 }), before: fc.integer({ min: 0, max: 1200 }) })
    .map(({ day, hour, before }) => day * 86_400 + hour * 3600 - before),
)

const arrival = fc.record({
  at: arrivalTime,
  // A third of the numbers from the split area codes (listed first), the rest from any.
  area: fc.oneof({ arbitrary: fc.nat({ max: SPLIT_COUNT - 1 }), weight: 1 }, { arbitrary: fc.nat({ max: AREA_CODES.length - 1 }), weight: 2 }),
  line: fc.integer({ min: 20, max: 99 }),
  scenario: fc.nat({ max: SCENARIOS.length - 1 }),
  address: fc.option(fc.nat({ max: ADDRESSES.length - 1 }), { freq: 2 }),
  both: fc.boolean(),
  callNow: fc.boolean(),
})

let h: Harness | null = null
afterAll(() => h?.close())

async function simulateWeek(arrivals: Arrival[]): Promise<{ checked: number; splitCalls: number; automatedCalls: number; consentCalls: number }> {
  h?.close()
  h = createHarness({ autoDial: true, start: START })
  const w: World = await seedWorld(h)
  const harness = h
  // Few lines (leads wait in line past a closing or into a cap) and quick retries.
  const campaignSettings = { lines: 1, retry_minutes: 30, max_attempts: 6 }
  expect((await harness.admin('PATCH', `/campaigns/${w.campaignId}`, campaignSettings)).status).toBe(200)
  // The second campaign's calls play an artificial voice: the automated-call rows apply to it.
  const second = await harness.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Second', status: 'active', sdrs: [{ name: 'Kim' }], automated_voice: true, ...campaignSettings })
  expect(second.body.data.automated_voice).toBe(true)
  const campaigns = [w.campaignId, second.body.data.id as string]

  const sorted = [...arrivals].sort((a, b) => a.at - b.at)
  // A number keeps the address it first came with: a lead's rules (and this check) read its address.
  const addressOf = new Map<string, number | null>()
  let now = 0
  for (const a of sorted) {
    if (a.at > now) {
      await harness.advance(a.at - now)
      now = a.at
    }
    const phone = `+1${AREA_CODES[a.area]}555${a.line}${SCENARIOS[a.scenario]}`
    if (!addressOf.has(phone)) addressOf.set(phone, a.address)
    const address = addressOf.get(phone)!
    for (const campaignId of a.both ? campaigns : campaigns.slice(0, 1)) {
      const body: Record<string, unknown> = { campaign_id: campaignId, phone, call_now: a.callNow }
      if (address !== null) body.address = ADDRESSES[address]
      const r = await harness.api('POST', '/leads', { key: w.live, body })
      // Refusals are fine (a number opted out by scenario 07, a duplicate); a 5xx is not.
      expect(r.status).toBeLessThan(500)
    }
  }
  // Through the end of the week in hour steps (retries, callbacks, scheduled leads).
  while (now < WEEK_S) {
    const step = Math.min(3600, WEEK_S - now)
    await harness.advance(step)
    now += step
  }

  // Every call, oldest first, with its lead.
  const stores = harness.services.stores
  const calls = stores.calls.list({ orgId: w.orgId, livemode: true, campaignIds: null }, 1_000_000)
    .map((c) => ({ id: c.id, started: c.started, lead: stores.leads.get(c.leadId)! }))
    .sort((a, b) => a.started - b.started || (a.id < b.id ? -1 : 1))
  const org = stores.orgs.get(w.orgId)!
  expect(org.recordingEnabled).toBe(true)
  const byPhone = new Map<string, number[]>()
  let splitCalls = 0
  let automatedCalls = 0
  let consentCalls = 0
  for (const call of calls) {
    const campaign = stores.campaigns.get(call.lead.campaignId)!
    const before = byPhone.get(call.lead.phone) ?? []
    const reach = engine.reachOf(call.lead.phone, call.lead.address, org.timezone)
    const automated = campaignIsAutomated(campaign)
    if (automated) automatedCalls++
    const verdict = engine.evaluate({
      reach,
      campaignWindow: { start: campaign.callingHoursStart, end: campaign.callingHoursEnd },
      callTimes: before,
      now: call.started,
      automated,
    })
    if (!verdict.allowed) {
      throw new Error(`call ${call.id} to ${call.lead.phone} (${call.lead.address ?? 'no address'}) started ${new Date(call.started).toISOString()} while ${JSON.stringify(verdict.blockedBy)}`)
    }
    // Caps, counted directly: at most max calls in any period ending at this one.
    for (const rule of verdict.rules) {
      if (rule.kind !== 'cap' || rule.max === undefined || rule.period_hours === undefined) continue
      const from = call.started - rule.period_hours * 3_600_000
      const inPeriod = before.filter((t) => t > from).length + 1
      if (inPeriod > rule.max) throw new Error(`${call.lead.phone}: ${inPeriod} calls within ${rule.period_hours} h (${rule.id} allows ${rule.max})`)
    }
    // The oracle: the raw zone data and the statutes, not the engine.
    const npa = call.lead.phone.slice(2, 5)
    const place = call.lead.address === null ? null : ADDRESS_PLACES[call.lead.address]!
    const zones = [...areaZones(npa), ...(place === null ? [] : 'zone' in place ? [place.zone] : place.zones)]
    if (SPLIT_UNLISTED.includes(npa)) splitCalls++
    const at = new Date(call.started).toISOString()
    for (const zone of zones) {
      const local = localMinutes(zone, call.started)
      if (local < 8 * 60 || local >= 21 * 60) throw new Error(`call ${call.id} to ${call.lead.phone} started ${at}: ${zone} was at ${Math.floor(local / 60)}:${local % 60}, outside 08:00-21:00`)
    }
    const states = new Set([...reach.states, ...(place ? [place.state] : [])])
    if (automated) {
      for (const state of states) {
        const hours = AUTOMATED_HOURS[state]
        if (!hours) continue
        // Every rule of the lead holds in every zone of the lead (docs/calling-rules.md).
        for (const zone of zones) {
          const local = localMinutes(zone, call.started)
          if (local < hours[0] || local >= hours[1]) throw new Error(`automated call ${call.id} to ${call.lead.phone} (${state}) started ${at}: ${zone} at minute ${local}`)
        }
      }
    }
    // Recording consent: an all-party state's answered call records only after its notice.
    const row = stores.calls.get(call.id)!
    const allParty = [...states].filter((s) => ALL_PARTY.has(s))
    if (allParty.length > 0 && row.status === 'ended') {
      consentCalls++
      if (row.recordingConsent === null) throw new Error(`call ${call.id} to ${call.lead.phone} (${allParty}) has no recording_consent`)
      expect([...row.recordingConsent.required_by].sort()).toEqual(expect.arrayContaining(allParty))
      if (row.recordingAvailable) {
        const announced = row.recordingConsent.announced_at
        if (announced === null || row.answered === null || announced < row.answered) throw new Error(`call ${call.id} was recorded without its notice (${JSON.stringify(row.recordingConsent)})`)
      }
    } else if (allParty.length === 0) {
      expect(row.recordingConsent).toBeNull()
    }
    before.push(call.started)
    byPhone.set(call.lead.phone, before)
  }
  return { checked: calls.length, splitCalls, automatedCalls, consentCalls }
}

describe('a simulated week', () => {
  test('no call starts outside an applicable window or over a cap; no recording before its notice', async () => {
    expect(SPLIT_UNLISTED.length).toBeGreaterThan(15)
    let result = { checked: 0, splitCalls: 0, automatedCalls: 0, consentCalls: 0 }
    await fc.assert(
      fc.asyncProperty(fc.array(arrival, { minLength: 500, maxLength: 500 }), async (arrivals) => {
        result = await simulateWeek(arrivals)
      }),
      // One week is the run; shrinking would replay it many times.
      { numRuns: 2, endOnFailure: true },
    )
    // The week made calls worth checking, of every kind.
    expect(result.checked).toBeGreaterThan(500)
    expect(result.splitCalls).toBeGreaterThan(20)
    expect(result.automatedCalls).toBeGreaterThan(50)
    expect(result.consentCalls).toBeGreaterThan(20)
  })
})
