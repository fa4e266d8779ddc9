import { afterAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { NANP_ZONES } from '../../src/domain/calling-hours/area-zones.generated'
import { classifyPhone } from '../../src/domain/phone/phone-number'
import { callingRules as engine } from '../../src/domain/calling-rules'
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
 */

const WEEK_S = 7 * 24 * 3600
// Monday 2026-01-05 00:00 UTC (Sunday evening in the US): the week crosses a Sunday.
const START = Date.UTC(2026, 0, 5, 0, 0)

/** Area codes whose 555-2xxx numbers are ordinary US or Canadian numbers for a live key. */
const AREA_CODES = [...new Set(Object.keys(NANP_ZONES).filter((p) => p.length === 4).map((p) => p.slice(1)))]
  .filter((npa) => classifyPhone(`+1${npa}5552009`).kind === 'domestic')

const ADDRESSES = [
  '1 Main St, Tallahassee, FL 32301', 'Birmingham, AL 35203', 'New Orleans, LA 70112', 'Jackson MS 39201',
  'Boston, MA 02108', 'Baltimore, MD 21201', 'Oklahoma City, OK 73102', 'Seattle, WA 98101', 'Portland, ME 04101',
  'New York, NY 10001', 'Los Angeles, CA 90012', 'Honolulu, HI 96813', 'Anchorage, AK 99501', 'Austin TX',
  'somewhere nice', 'ZIP 00000', '12 Elm St, Springfield, IL', 'Box 9, UT',
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
  area: fc.nat({ max: AREA_CODES.length - 1 }),
  line: fc.integer({ min: 20, max: 99 }),
  scenario: fc.nat({ max: SCENARIOS.length - 1 }),
  address: fc.option(fc.nat({ max: ADDRESSES.length - 1 }), { freq: 2 }),
  both: fc.boolean(),
  callNow: fc.boolean(),
})

let h: Harness | null = null
afterAll(() => h?.close())

async function simulateWeek(arrivals: Arrival[]): Promise<{ checked: number }> {
  h?.close()
  h = createHarness({ autoDial: true, start: START })
  const w: World = await seedWorld(h)
  const harness = h
  // Few lines (leads wait in line past a closing or into a cap) and quick retries.
  const campaignSettings = { lines: 1, retry_minutes: 30, max_attempts: 6 }
  expect((await harness.admin('PATCH', `/campaigns/${w.campaignId}`, campaignSettings)).status).toBe(200)
  const second = await harness.admin('POST', `/orgs/${w.orgId}/campaigns`, { name: 'Second', status: 'active', sdrs: [{ name: 'Kim' }], ...campaignSettings })
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
  const byPhone = new Map<string, number[]>()
  for (const call of calls) {
    const campaign = stores.campaigns.get(call.lead.campaignId)!
    const before = byPhone.get(call.lead.phone) ?? []
    const reach = engine.reachOf(call.lead.phone, call.lead.address, org.timezone)
    const verdict = engine.evaluate({
      reach,
      campaignWindow: { start: campaign.callingHoursStart, end: campaign.callingHoursEnd },
      callTimes: before,
      now: call.started,
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
    before.push(call.started)
    byPhone.set(call.lead.phone, before)
  }
  return { checked: calls.length }
}

describe('a simulated week', () => {
  test('no call starts outside an applicable window or over a cap', async () => {
    let checked = 0
    await fc.assert(
      fc.asyncProperty(fc.array(arrival, { minLength: 500, maxLength: 500 }), async (arrivals) => {
        checked = (await simulateWeek(arrivals)).checked
      }),
      // One week is the run; shrinking would replay it many times.
      { numRuns: 2, endOnFailure: true },
    )
    // The week made calls worth checking.
    expect(checked).toBeGreaterThan(500)
  })
})
