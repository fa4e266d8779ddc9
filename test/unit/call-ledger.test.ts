import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallRow } from '../../src/db/stores/call-store'
import { callLedger } from '../../src/domain/calls/call-ledger'
import { FakeClock } from '../../src/jobs/clock'
import { FakeScheduler } from '../../src/jobs/scheduler'
import type { CallEvents, CallReport } from '../../src/telephony/carrier'
import { SimulatedCarrier } from '../../src/telephony/simulator/simulated-carrier'
import { initialCarrierState, type CallbackStep, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { runStep } from '../../src/telephony/twilio/callback-steps'

setDefaultTimeout(60_000)

/**
 * The abandonment ledger of one call (src/domain/calls/call-ledger.ts): answered_at, connected_at
 * and abandoned as the carrier tells them, in any order; and what the Twilio bridge and the
 * simulator tell it (the answer instant, the press 1, the AI's answer). Injected clocks only.
 */

const T0 = Date.parse('2026-03-02T15:00:00Z')
type Ledger = Pick<CallRow, 'id' | 'status' | 'ended' | 'answeredAt' | 'connectedAt' | 'abandoned'>

/** One call row in memory; `update` writes through as the call store would. */
function ledgerOf(row: Partial<Ledger> = {}) {
  let current: Ledger = { id: 'call-1', status: 'in_progress', ended: null, answeredAt: null, connectedAt: null, abandoned: null, ...row }
  let transactions = 0
  const ledger = callLedger({
    stores: {
      calls: { get: (id: string) => (id === current.id ? (current as CallRow) : undefined) } as never,
      transaction: (<T>(work: () => T): T => {
        transactions++
        return work()
      }) as never,
    },
    update: (r, changes) => (current = { ...current, ...changes }) as CallRow,
  })
  return { ledger, row: () => current, end: (at: number) => (current = { ...current, ...ledger.atEnd(current, at), status: 'ended', ended: at }), transactions: () => transactions }
}

describe('the call ledger', () => {
  test('connected within 2 s of the answer: not abandoned; after 2 s: abandoned (decided at the connection)', () => {
    const fast = ledgerOf()
    fast.ledger.personAnswered('call-1', T0)
    expect(fast.row()).toMatchObject({ answeredAt: T0, connectedAt: null, abandoned: null })
    fast.ledger.connected('call-1', T0 + 2_000)
    expect(fast.row()).toMatchObject({ answeredAt: T0, connectedAt: T0 + 2_000, abandoned: false })
    const slow = ledgerOf()
    slow.ledger.personAnswered('call-1', T0)
    slow.ledger.connected('call-1', T0 + 2_001)
    expect(slow.row().abandoned).toBe(true)
    // The end keeps the decision made at the connection.
    slow.end(T0 + 60_000)
    expect(slow.row()).toMatchObject({ connectedAt: T0 + 2_001, abandoned: true })
  })

  test('nobody connected: a hang-up inside 2 s is not abandoned, a later end is', () => {
    const quick = ledgerOf()
    quick.ledger.personAnswered('call-1', T0)
    quick.end(T0 + 1_900)
    expect(quick.row()).toMatchObject({ connectedAt: null, abandoned: false })
    const held = ledgerOf()
    held.ledger.personAnswered('call-1', T0)
    held.end(T0 + 7_000)
    expect(held.row().abandoned).toBe(true)
    // Too late: a connection told after the end decided changes nothing.
    held.ledger.connected('call-1', T0 + 7_500)
    expect(held.row()).toMatchObject({ connectedAt: null, abandoned: true })
  })

  test('connected before the person is known (the conference joins first): decided when the answer is told', () => {
    const c = ledgerOf()
    c.ledger.connected('call-1', T0 + 300)
    expect(c.row()).toMatchObject({ answeredAt: null, connectedAt: T0 + 300, abandoned: null })
    c.ledger.personAnswered('call-1', T0)
    expect(c.row()).toMatchObject({ answeredAt: T0, connectedAt: T0 + 300, abandoned: false })
  })

  test('a machine (no person told) is never in the ledger; a late answer after the end is decided at once', () => {
    const machine = ledgerOf()
    machine.end(T0 + 30_000)
    expect(machine.row()).toMatchObject({ answeredAt: null, abandoned: null })
    const late = ledgerOf({ status: 'ended', ended: T0 + 1_000 })
    late.ledger.personAnswered('call-1', T0)
    expect(late.row()).toMatchObject({ answeredAt: T0, abandoned: false })
  })

  test('told twice: the first of each is kept; an unknown call changes nothing', () => {
    const c = ledgerOf()
    c.ledger.personAnswered('call-1', T0)
    c.ledger.personAnswered('call-1', T0 + 5_000)
    c.ledger.connected('call-1', T0 + 1_000)
    c.ledger.connected('call-1', T0 + 9_000)
    expect(c.row()).toMatchObject({ answeredAt: T0, connectedAt: T0 + 1_000, abandoned: false })
    expect(c.transactions()).toBe(2)
    c.ledger.personAnswered('nope', T0)
    c.ledger.connected('nope', T0)
    expect(c.transactions()).toBe(2)
  })
})

// ---- what the Twilio bridge tells the ledger ----

const SID = `CA${'a'.repeat(32)}`
const LEG_SID = `CA${'b'.repeat(32)}`
const plan = (over: Partial<CallPlan> = {}): CallPlan => ({
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', campaignName: 'Spring Roofing', agentName: 'Owner Olsen', machineDetection: true,
  record: false, bridge: [{ id: 'sdr-1', name: 'Alex Rivera', role: 'sdr', phone: '+13125550111' }], voicemail: null, ...over,
})

interface Told { kind: 'personAnswered' | 'connected'; at: number }

/** Runs callbacks, each at its own instant (ms after T0), and records what the ledger is told. */
function drive(steps: [number, CallbackStep, Record<string, string>, number?][], p: CallPlan = plan()) {
  const told: Told[] = []
  const ended: CallReport[] = []
  const events: CallEvents = {
    answered: () => {}, intent: () => {}, transcribed: () => {}, recorded: () => {}, handover: () => {},
    ended: (_, report) => void ended.push(report),
    personAnswered: (_, at) => void told.push({ kind: 'personAnswered', at }),
    connected: (_, at) => void told.push({ kind: 'connected', at }),
  }
  let state: CarrierState = initialCarrierState(p)
  for (const [ms, step, params, leg] of steps) {
    state = runStep({ callId: 'call-1', plan: p, publicUrl: 'https://dialer.example.com', now: T0 + ms, events }, state, step, leg ?? null, { CallSid: SID, ...params }).state
  }
  return { told, ended, state }
}

const leg = (extra: Record<string, string>) => ({ CallSid: LEG_SID, ParentCallSid: SID, ...extra })

describe('Twilio bridge mode tells the ledger', () => {
  test('the answer is the answer fetch (told once detection says human); the connection is the press 1', () => {
    const { told } = drive([
      [0, 'answer', {}],
      [150, 'status', { CallStatus: 'in-progress' }],
      [2_400, 'amd', { AnsweredBy: 'human' }],
      [2_450, 'bridge', {}],
      [9_000, 'whisper', leg({}), 0],
      [13_000, 'keypress', leg({ Digits: '1' }), 0],
      // A replayed keypress connects nobody again.
      [13_500, 'keypress', leg({ Digits: '1' }), 0],
    ])
    expect(told).toEqual([{ kind: 'personAnswered', at: T0 }, { kind: 'connected', at: T0 + 13_000 }])
  })

  test('the in-progress status before the answer fetch is the answer; unknown is a person; another key connects nobody', () => {
    const { told } = drive([
      [0, 'status', { CallStatus: 'in-progress' }],
      [80, 'answer', {}],
      [4_000, 'amd', { AnsweredBy: 'unknown' }],
      [9_000, 'whisper', leg({}), 0],
      [13_000, 'keypress', leg({ Digits: '2' }), 0],
    ])
    expect(told).toEqual([{ kind: 'personAnswered', at: T0 }])
  })

  test('a machine is not told; without detection the person is told at the answer fetch', () => {
    expect(drive([[0, 'answer', {}], [5_000, 'amd', { AnsweredBy: 'machine_end_beep' }]]).told).toEqual([])
    expect(drive([[0, 'answer', {}]], plan({ machineDetection: false })).told).toEqual([{ kind: 'personAnswered', at: T0 }])
  })

  test('a lead who hangs up before detection decides is a person answered at the fetch; the end says when it ended', () => {
    const { told, ended } = drive([[0, 'answer', {}], [1_200, 'status', { CallStatus: 'completed', CallDuration: '1' }]])
    expect(told).toEqual([{ kind: 'personAnswered', at: T0 }])
    expect(ended.map((r) => r.endedAt)).toEqual([T0 + 1_200])
  })

  test('an end told after its recording keeps the instant the call ended', () => {
    const { ended } = drive([
      [0, 'answer', {}],
      [2_000, 'amd', { AnsweredBy: 'human' }],
      [3_000, 'status', { CallStatus: 'completed', CallDuration: '3' }],
      [9_000, 'recording', { RecordingStatus: 'absent' }],
    ], plan({ record: true }))
    expect(ended).toHaveLength(1)
    expect(ended[0]!.endedAt).toBe(T0 + 3_000)
  })
})

describe('the simulator tells the ledger', () => {
  async function play(to: string) {
    const clock = new FakeClock(T0)
    const scheduler = new FakeScheduler(clock)
    const carrier = new SimulatedCarrier({ clock, scheduler, speed: 1 })
    const told: Told[] = []
    carrier.dial({
      callId: 'call-1', orgId: 'org-1', to, livemode: true, record: false, leadName: 'Jordan Lee', agentName: 'Alex Rivera', leadZone: 'America/New_York',
      callerId: null, machineDetection: true, onAnswer: { bridge: [], voicemail: null },
    }, {
      answered: () => {}, intent: () => {}, transcribed: () => {}, recorded: () => {}, handover: () => {}, ended: () => {},
      personAnswered: (_, at) => void told.push({ kind: 'personAnswered', at }),
      connected: (_, at) => void told.push({ kind: 'connected', at }),
    })
    await scheduler.advanceTo(T0 + 300_000)
    return told
  }

  test('the AI assistant speaks at the answer: a person (or unknown) is answered and connected then; a machine is not told', async () => {
    expect(await play('+12125552001')).toEqual([{ kind: 'personAnswered', at: T0 + 5_000 }, { kind: 'connected', at: T0 + 5_000 }])
    expect(await play('+12125552010')).toEqual([{ kind: 'personAnswered', at: T0 + 5_000 }, { kind: 'connected', at: T0 + 5_000 }])
    expect(await play('+12125552004')).toEqual([])
  })
})
