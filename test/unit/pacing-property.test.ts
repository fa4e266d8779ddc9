import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import fc from 'fast-check'
import { Dialer } from '../../src/domain/calls/dialer'
import { abandonedOnConnect, abandonedOnEnd, CONNECT_WITHIN_MS } from '../../src/domain/calls/ledger'
import { WINDOW_MS, type DialMode } from '../../src/domain/calls/pacing'
import type { SeatBoard } from '../../src/domain/seats/contract'
import { FakeClock } from '../../src/jobs/clock'
import { FakeScheduler } from '../../src/jobs/scheduler'
import type { CallEvents, DialRequest } from '../../src/telephony/carrier'
import { initialCarrierState, planOf, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { runStep } from '../../src/telephony/twilio/callback-steps'
import { seededRandom } from '../seeded-random'

setDefaultTimeout(120_000)

/**
 * The "Done when" property of dial_mode power and predictive, on the fake clock: for any arrival
 * of leads, seats and answer times, the real Dialer (with the real pacing controller) dials,
 * and each lead's Twilio callbacks (answer, detection result, end) run through the real callback
 * steps (src/telephony/twilio/callback-steps.ts) against a seat board that keeps the SeatBoard
 * contract (src/domain/seats/contract.ts: claim a waiting seat at the answer, release it when the
 * lead leaves, pump the dialer when a seat starts waiting). The ledger's rule (ledger.ts) decides
 * each call; the dialer reads the 30-day counts as ledger-store.ts gives them (answered as soon
 * as a person is known, abandoned once decided). Checked:
 * - power never abandons a call while a seat waits (and with no seat ever leaving, never at all);
 * - every person-answered call hears a person (the answer TwiML joins a waiting seat's
 *   conference) or the abandon message (its <Say>/<Play>) within 2 s of the answer: here, at it;
 * - predictive keeps every 30-day window at or under max_abandon_rate. The windows checked are
 *   the 30 days ending at each person-answered call of the run (answered in (t - 30 d, t]), each
 *   call counted as finally decided, history included; a window that holds an abandonment of the
 *   run must be at or under the bound (history alone may already be over it, and then the run
 *   may add none). Seats in predictive runs stay seated once they sit (a seat that leaves strands
 *   the line dialed for it, which no pacing can foresee: power runs cover leaving seats).
 */

const START = Date.UTC(2026, 2, 2, 15)
const SEC = 1000
const MIN = 60 * SEC
const HOUR = 60 * MIN
const CAMPAIGN = 'camp-1'
const MESSAGE = { say: 'This is Acme Roofing. Call us back at 212 555 0100.' }

interface LeadScript { arriveAt: number; kind: 'none' | 'person' | 'machine'; ringMs: number; amdMs: number; stayMs: number }
interface SeatScript { sitAt: number; leaveAfter: number | null }
interface Scenario { mode: 'power' | 'predictive'; lines: number; rate: number; leads: LeadScript[]; seats: SeatScript[]; history: { count: number; share: number; seed: number } }

interface ModelCall {
  id: string
  kind: LeadScript['kind']
  answerAt: number | null
  /** Counted in the ledger once a person is known (ledger-store counts answered_at rows). */
  personKnown: boolean
  connectedAt: number | null
  endedAt: number | null
  heard: { at: number; what: 'person' | 'message' } | null
  waitingAtAnswer: number
  abandoned: boolean | null
}

const leadArb = (span: number) => fc.record({
  // Bursts (a list posted at once) and leads spread over the run.
  arriveAt: fc.oneof(fc.integer({ min: 0, max: 10 * MIN }), fc.integer({ min: 0, max: span })),
  kind: fc.constantFrom<LeadScript['kind']>('none', 'person', 'person', 'person', 'machine'),
  // Twilio rings a lead call for at most its Timeout (30 s).
  ringMs: fc.integer({ min: 500, max: 30 * SEC }),
  amdMs: fc.integer({ min: 0, max: 5 * SEC }),
  stayMs: fc.integer({ min: 0, max: 10 * MIN }),
})

const scenarioArb = (mode: 'power' | 'predictive', span: number): fc.Arbitrary<Scenario> => fc.record({
  mode: fc.constant(mode),
  lines: fc.integer({ min: 1, max: 20 }),
  rate: fc.oneof(fc.constant(0.03), fc.double({ min: 0.001, max: 0.03, noNaN: true })),
  leads: fc.array(leadArb(span), { minLength: 1, maxLength: 250, size: 'max' }),
  seats: fc.array(fc.record({
    sitAt: fc.oneof(fc.integer({ min: 0, max: 10 * MIN }), fc.integer({ min: 0, max: span })),
    leaveAfter: mode === 'power' ? fc.option(fc.integer({ min: 0, max: span }), { nil: null }) : fc.constant(null),
  }), { minLength: 0, maxLength: 8, size: 'max' }),
  history: fc.record({ count: fc.integer({ min: 0, max: 4000 }), share: fc.double({ min: 0, max: 0.04, noNaN: true }), seed: fc.integer() }),
})

async function simulate(s: Scenario) {
  const clock = new FakeClock(START)
  const scheduler = new FakeScheduler(clock)
  const random = seededRandom(s.history.seed)
  // The 30 days before the run: calls answered at random, some abandoned.
  const history = Array.from({ length: s.history.count }, () => ({ answeredAt: START - Math.floor(random() * WINDOW_MS) - 1, abandoned: random() < s.history.share }))
  const campaign = {
    id: CAMPAIGN, orgId: 'org-1', name: 'Spring roofs', status: 'active', lines: s.lines, sdrs: [{ id: 'sdr-1', name: 'Alex Rivera' }],
    dialMode: s.mode as DialMode, maxAbandonRate: s.rate, abandonMessage: MESSAGE,
  }
  const calls: ModelCall[] = []
  const queue: string[] = []
  let active = 0
  let maxActive = 0
  let extraLinesSeen = false
  let seatsLeft = false

  // ---- the seat board (the SeatBoard contract) ----
  const seats: { id: string; state: 'waiting' | 'on_call' | 'ended'; lead: string | null; leaving: boolean }[] = []
  const waitingNow = () => seats.filter((x) => x.state === 'waiting').length
  let dialer: Dialer
  const board: Pick<SeatBoard, 'waiting' | 'onCall' | 'claim' | 'release'> = {
    waiting: () => waitingNow(),
    onCall: () => seats.filter((x) => x.state === 'on_call').length,
    claim: (_campaignId, leadCallId) => {
      const seat = seats.find((x) => x.state === 'waiting')
      if (!seat) return null
      seat.state = 'on_call'
      seat.lead = leadCallId
      return { seatId: seat.id, conference: `seat-${seat.id}`, person: { id: 'sdr-1', name: 'Alex Rivera', role: 'sdr' } }
    },
    release: (leadCallId) => {
      const seat = seats.find((x) => x.lead === leadCallId && x.state === 'on_call')
      if (!seat) return
      seat.lead = null
      seat.state = seat.leaving ? 'ended' : 'waiting'
      if (seat.state === 'waiting') dialer.pump(CAMPAIGN, true)
    },
  }

  // ---- the ledger's counts, as ledger-store.ts answers them ----
  const counts = (_: string, since: number) => {
    let answered = 0
    let abandoned = 0
    for (const h of history) if (h.answeredAt >= since) (answered++, (abandoned += h.abandoned ? 1 : 0))
    for (const c of calls) if (c.personKnown && c.answerAt! >= since) (answered++, (abandoned += c.abandoned ? 1 : 0))
    return { answered, abandoned }
  }

  // ---- the carrier: each lead's callbacks through the real Twilio steps ----
  function dial(leadId: string) {
    const script = s.leads[Number(leadId.slice(5))]!
    const call: ModelCall = { id: `call-${calls.length}`, kind: script.kind, answerAt: null, personKnown: false, connectedAt: null, endedAt: null, heard: null, waitingAtAnswer: 0, abandoned: null }
    calls.push(call)
    active++
    maxActive = Math.max(maxActive, active)
    if (active - board.onCall(CAMPAIGN) > waitingNow()) extraLinesSeen = true
    const request: DialRequest = {
      callId: call.id, orgId: 'org-1', campaignId: CAMPAIGN, to: '+12125550123', livemode: true, record: false, consent: null, leadName: 'Jordan Lee',
      dialMode: campaign.dialMode, abandonMessage: campaign.abandonMessage, campaignName: campaign.name, agentName: 'Alex Rivera', leadZone: 'America/New_York',
      callerId: '+12125550100', machineDetection: true, onAnswer: { bridge: [], voicemail: { say: 'Hi, this is Acme Roofing.' } },
    }
    const plan = planOf(request, '+12125550100')
    let state: CarrierState = initialCarrierState(plan)
    const decide = () => {
      if (call.abandoned !== null || call.answerAt === null || call.kind !== 'person') return
      if (call.connectedAt !== null) call.abandoned = abandonedOnConnect(call.answerAt, call.connectedAt)
      else if (call.endedAt !== null) call.abandoned = abandonedOnEnd(call.answerAt, call.endedAt)
    }
    const events: CallEvents = {
      answered: () => {}, intent: () => {}, transcribed: () => {}, recorded: () => {}, handover: () => {},
      connected: (_, at) => void (call.connectedAt ??= at, decide()),
      ended: () => {
        if (call.endedAt !== null) return
        call.endedAt = clock.now()
        decide()
        active--
        dialer.lineFree(CAMPAIGN, true)
      },
    }
    const step = (name: Parameters<typeof runStep>[2], params: Record<string, string> = {}) => {
      const result = runStep({ callId: call.id, plan, publicUrl: 'https://dialer.example.com', now: clock.now(), events, seats: board }, state, name, null, { CallSid: `CA${call.id}`, ...params })
      state = result.state
      return result
    }
    const d = clock.now()
    scheduler.at(d + 100, () => void step('status', { CallStatus: 'ringing' }))
    if (script.kind === 'none') {
      scheduler.at(d + script.ringMs, () => void step('status', { CallStatus: 'no-answer', CallDuration: '0' }))
      return
    }
    const t = d + script.ringMs
    scheduler.at(t, () => {
      call.answerAt = t
      call.waitingAtAnswer = waitingNow()
      step('status', { CallStatus: 'in-progress' })
      const twiml = step('answer').twiml ?? ''
      if (twiml.includes('<Conference')) call.heard = { at: t, what: 'person' }
      else if (/<(Say|Play)\b/.test(twiml)) call.heard = { at: t, what: 'message' }
    })
    const known = t + script.amdMs
    scheduler.at(known, () => {
      if (script.kind === 'person') call.personKnown = true
      step('amd', { AnsweredBy: script.kind === 'person' ? 'human' : 'machine_end_beep' })
    })
    const end = script.kind === 'person' ? known + script.stayMs : known + 20 * SEC
    scheduler.at(end, () => void step('status', { CallStatus: 'completed', CallDuration: String(Math.round((end - t) / SEC)) }))
  }

  dialer = new Dialer({
    stores: {
      campaigns: { get: () => campaign },
      leads: { get: (id: string) => ({ id, status: 'queued', queueKey: 1 }) },
      ledger: { counts },
    } as never,
    queues: { take: () => { const id = queue.shift(); return id === undefined ? null : { id, key: 1 } }, nonEmpty: () => [] } as never,
    leads: { atDial: () => true } as never,
    calls: { start: (lead: { id: string }) => void dial(lead.id) } as never,
    handleTimes: { forget: () => {} } as never,
    clock,
    scheduler,
    seats: board,
    seatedCarrier: () => true,
  }, true)

  s.leads.forEach((lead, i) => scheduler.at(START + lead.arriveAt, () => {
    queue.push(`lead-${i}`)
    dialer.pump(CAMPAIGN, true)
  }))
  s.seats.forEach((script, i) => {
    scheduler.at(START + script.sitAt, () => {
      seats.push({ id: `s${i}`, state: 'waiting', lead: null, leaving: false })
      dialer.pump(CAMPAIGN, true)
    })
    if (script.leaveAfter !== null) {
      scheduler.at(START + script.sitAt + script.leaveAfter, () => {
        const seat = seats.find((x) => x.id === `s${i}`)!
        seatsLeft = true
        if (seat.state === 'waiting') seat.state = 'ended'
        else seat.leaving = true
      })
    }
  })
  await scheduler.advanceTo(START + 40 * 86_400_000)
  return { calls, history, maxActive, extraLinesSeen, seatsLeft }
}

/** Person-answered calls that heard nobody and no message within 2 s (and did not hang up inside them). */
function leftInSilence(calls: ModelCall[]): ModelCall[] {
  return calls.filter((c) => c.kind === 'person' && c.answerAt !== null && (c.heard === null || c.heard.at - c.answerAt > CONNECT_WITHIN_MS) && c.endedAt! - c.answerAt > CONNECT_WITHIN_MS)
}

describe('power and predictive on the fake clock', () => {
  test('power: no abandonment while a seat waits, none at all while no seat leaves; nobody answered is left in silence', async () => {
    let abandonedRuns = 0
    await fc.assert(fc.asyncProperty(scenarioArb('power', 2 * HOUR), async (s) => {
      const run = await simulate(s)
      expect(run.maxActive).toBeLessThanOrEqual(s.lines)
      for (const c of run.calls) {
        expect(c.endedAt).not.toBeNull()
        if (c.abandoned) expect(c.waitingAtAnswer).toBe(0)
        if (c.heard?.what === 'message') expect(c.waitingAtAnswer).toBe(0)
      }
      if (!run.seatsLeft) expect(run.calls.filter((c) => c.abandoned)).toEqual([])
      if (run.calls.some((c) => c.abandoned)) abandonedRuns++
      expect(leftInSilence(run.calls)).toEqual([])
    }), { numRuns: 120, seed: 2801 })
    // The runs did reach the case the property is about (a seat that left stranded a line).
    expect(abandonedRuns).toBeGreaterThan(0)
  })

  test('predictive: every 30-day window ending at an answer stays at or under its bound; nobody answered is left in silence', async () => {
    let extraRuns = 0
    let abandonedRuns = 0
    await fc.assert(fc.asyncProperty(scenarioArb('predictive', 3 * 86_400_000), async (s) => {
      const run = await simulate(s)
      expect(run.maxActive).toBeLessThanOrEqual(s.lines)
      expect(leftInSilence(run.calls)).toEqual([])
      const answered = run.calls.filter((c) => c.kind === 'person' && c.answerAt !== null)
      const all = [...run.history.map((h) => ({ at: h.answeredAt, abandoned: h.abandoned, run: false })), ...answered.map((c) => ({ at: c.answerAt!, abandoned: c.abandoned === true, run: true }))]
        .sort((a, b) => a.at - b.at)
      // Two pointers over the calls in answer order: the window (t - 30 d, t] of each run answer t.
      let from = 0
      let inWindow = { answered: 0, abandoned: 0, runAbandoned: 0 }
      for (let to = 0; to < all.length; to++) {
        const end = all[to]!
        inWindow = { answered: inWindow.answered + 1, abandoned: inWindow.abandoned + (end.abandoned ? 1 : 0), runAbandoned: inWindow.runAbandoned + (end.abandoned && end.run ? 1 : 0) }
        while (all[from]!.at <= end.at - WINDOW_MS) {
          const gone = all[from++]!
          inWindow = { answered: inWindow.answered - 1, abandoned: inWindow.abandoned - (gone.abandoned ? 1 : 0), runAbandoned: inWindow.runAbandoned - (gone.abandoned && gone.run ? 1 : 0) }
        }
        // Calls answered at the same instant are in the same window: it is checked once they all are.
        if (!end.run || inWindow.runAbandoned === 0 || all[to + 1]?.at === end.at) continue
        expect({ window_end: new Date(end.at).toISOString(), ...inWindow, within: inWindow.abandoned <= s.rate * inWindow.answered + 1e-9 })
          .toMatchObject({ within: true })
      }
      if (run.extraLinesSeen) extraRuns++
      if (run.calls.some((c) => c.abandoned)) abandonedRuns++
    }), { numRuns: 120, seed: 2802 })
    // The controller did dial past one line per seat, and abandonments did happen under it.
    expect(extraRuns).toBeGreaterThan(10)
    expect(abandonedRuns).toBeGreaterThan(0)
  })
})
