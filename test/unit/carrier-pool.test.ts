import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { BREAKER_COOL_DOWN_MS, BREAKER_THRESHOLD, carrierBreakers } from '../../src/domain/calls/carrier-breaker'
import { carrierDirectory, pickWeighted, type PoolEntry } from '../../src/domain/calls/carrier-choice'
import { carrierFailover, endVerdict } from '../../src/domain/calls/carrier-failover'
import type { CallReport, Carrier, DialRequest } from '../../src/telephony/carrier'
import { seededRandom } from '../seeded-random'

setDefaultTimeout(60_000)

// Issue 31, carrier pools: the weighted pick, the breaker per organization and carrier, and
// which ended calls fail over to the pool's next carrier (src/domain/calls/carrier-*.ts).

const carrier = (name: string) => ({ name }) as Carrier
const CARRIERS = { simulator: carrier('simulator'), twilio: carrier('twilio'), telnyx: carrier('telnyx'), other: carrier('other') }
const TWILIO: PoolEntry = { kind: 'twilio', callerIds: ['+12125550100'], machineDetection: true, weight: 75 }
const TELNYX: PoolEntry = { kind: 'telnyx', callerIds: ['+13125550100', '+12125550199'], machineDetection: false, weight: 25 }

function clock(start = 1_000_000) {
  let now = start
  return { now: () => now, advance: (ms: number) => void (now += ms) }
}

describe('pickWeighted', () => {
  test('each entry takes its weight\u2019s share of [0, 1), in order', () => {
    const entries = [{ id: 'a', weight: 75 }, { id: 'b', weight: 25 }]
    expect(pickWeighted(entries, 0).id).toBe('a')
    expect(pickWeighted(entries, 0.7499).id).toBe('a')
    expect(pickWeighted(entries, 0.75).id).toBe('b')
    expect(pickWeighted(entries, 0.9999).id).toBe('b')
  })

  test('over 4,000 seeded draws the shares follow the weights (within 3 points)', () => {
    const random = seededRandom(31)
    const entries = [{ id: 'a', weight: 60 }, { id: 'b', weight: 30 }, { id: 'c', weight: 10 }]
    const counts = { a: 0, b: 0, c: 0 }
    for (let i = 0; i < 4000; i++) counts[pickWeighted(entries, random()).id as 'a']++
    expect(Math.abs(counts.a / 4000 - 0.6)).toBeLessThan(0.03)
    expect(Math.abs(counts.b / 4000 - 0.3)).toBeLessThan(0.03)
    expect(Math.abs(counts.c / 4000 - 0.1)).toBeLessThan(0.03)
  })
})

describe('the breaker', () => {
  test(`opens after ${BREAKER_THRESHOLD} outages in a row, lets one trial through after the cool-down, closes when it is placed`, () => {
    const c = clock()
    const opened: string[] = []
    const b = carrierBreakers({ now: c.now, onOpen: (org, kind) => void opened.push(`${org}/${kind}`) })
    for (let i = 1; i < BREAKER_THRESHOLD; i++) b.fault('org', 'twilio')
    expect(b.state('org', 'twilio')).toBe('closed')
    b.fault('org', 'twilio')
    expect(b.state('org', 'twilio')).toBe('open')
    expect(b.allows('org', 'twilio')).toBe(false)
    // Per organization and kind: the others are untouched.
    expect(b.allows('org', 'telnyx')).toBe(true)
    expect(b.allows('org-2', 'twilio')).toBe(true)
    c.advance(BREAKER_COOL_DOWN_MS - 1)
    expect(b.allows('org', 'twilio')).toBe(false)
    c.advance(1)
    expect(b.state('org', 'twilio')).toBe('half_open')
    expect(b.allows('org', 'twilio')).toBe(true)
    b.dialing('org', 'twilio')
    // One trial at a time.
    expect(b.allows('org', 'twilio')).toBe(false)
    b.placed('org', 'twilio')
    expect(b.state('org', 'twilio')).toBe('closed')
    expect(b.notClosed()).toEqual([])
    expect(opened).toEqual(['org/twilio'])
  })

  test('a failed trial opens it again for a whole cool-down; a trial never heard of is replaced after one', () => {
    const c = clock()
    const b = carrierBreakers({ now: c.now, threshold: 2, coolDownMs: 1000 })
    b.fault('org', 'telnyx')
    b.fault('org', 'telnyx')
    c.advance(1000)
    b.dialing('org', 'telnyx')
    b.fault('org', 'telnyx')
    expect(b.notClosed()).toEqual([{ orgId: 'org', kind: 'telnyx', state: 'open' }])
    c.advance(999)
    expect(b.allows('org', 'telnyx')).toBe(false)
    c.advance(1)
    b.dialing('org', 'telnyx')
    expect(b.allows('org', 'telnyx')).toBe(false)
    c.advance(1000)
    expect(b.allows('org', 'telnyx')).toBe(true)
  })

  test('a placed call between outages resets the count', () => {
    const b = carrierBreakers({ now: clock().now })
    for (let i = 0; i < 3 * BREAKER_THRESHOLD; i++) {
      if (i % BREAKER_THRESHOLD === BREAKER_THRESHOLD - 1) b.placed('org', 'twilio')
      else b.fault('org', 'twilio')
    }
    expect(b.state('org', 'twilio')).toBe('closed')
  })
})

describe('the directory with a pool', () => {
  function directory(pool: PoolEntry[], randoms: number[] = [0]) {
    const c = clock()
    const breakers = carrierBreakers({ now: c.now, threshold: 1 })
    let i = 0
    const dir = carrierDirectory({ carriers: CARRIERS, fallback: CARRIERS.simulator, poolOf: () => pool, breakers, random: () => randoms[i++ % randoms.length]! })
    return { dir, breakers }
  }

  test('a live dial picks by weight, with the pool\u2019s other kinds in order as fallbacks and the entry\u2019s own caller IDs', () => {
    const { dir } = directory([TWILIO, TELNYX], [0.1, 0.9])
    expect(dir.forDial('org', true)).toEqual({ carrier: CARRIERS.twilio, callerIds: TWILIO.callerIds, machineDetection: true, fallbacks: ['telnyx'] })
    expect(dir.forDial('org', true)).toEqual({ carrier: CARRIERS.telnyx, callerIds: TELNYX.callerIds, machineDetection: false, fallbacks: ['twilio'] })
    // Test keys never: the simulator.
    expect(dir.forDial('org', false).carrier).toBe(CARRIERS.simulator)
  })

  test('a carrier whose breaker is open is skipped; with every one open the dial goes by weight anyway', () => {
    const { dir, breakers } = directory([TWILIO, TELNYX], [0.1])
    breakers.fault('org', 'twilio')
    expect(dir.forDial('org', true).carrier).toBe(CARRIERS.telnyx)
    breakers.fault('org', 'telnyx')
    expect(dir.forDial('org', true).carrier).toBe(CARRIERS.twilio)
  })

  test('seated dials and seats take the pool\u2019s first entry, without fallbacks', () => {
    const { dir } = directory([TELNYX, TWILIO], [0.99])
    expect(dir.forDial('org', true, { seated: true })).toMatchObject({ carrier: CARRIERS.telnyx, fallbacks: [] })
  })

  test('next: the first entry in order not tried whose breaker allows; null when none is left', () => {
    const third: PoolEntry = { kind: 'other', callerIds: ['+14155550100'], machineDetection: true, weight: 1 }
    const { dir, breakers } = directory([TWILIO, TELNYX, third])
    expect(dir.next('org', ['twilio'])?.carrier).toBe(CARRIERS.telnyx)
    breakers.fault('org', 'telnyx')
    expect(dir.next('org', ['twilio'])?.carrier).toBe(CARRIERS.other)
    expect(dir.next('org', ['twilio', 'other'])).toBeNull()
  })

  test('forNumber: the entry whose caller IDs hold the number (calls back to it)', () => {
    const { dir } = directory([TWILIO, TELNYX])
    expect(dir.forNumber('org', '+12125550199')?.carrier).toBe(CARRIERS.telnyx)
    expect(dir.forNumber('org', '+12125550100')?.carrier).toBe(CARRIERS.twilio)
    expect(dir.forNumber('org', '+19995550100')).toBeNull()
  })

  test('a kind this build does not know is never chosen', () => {
    const { dir } = directory([{ ...TWILIO, kind: 'gone' }, TELNYX], [0])
    expect(dir.forDial('org', true).carrier).toBe(CARRIERS.telnyx)
  })
})

const report = (over: Partial<CallReport> = {}): CallReport => ({
  outcome: 'failed', note: null, voicemailDelivered: false, callbackAt: null, optOut: false, durationSeconds: 0, transcript: [], recorded: false, ...over,
})

describe('which ended calls fail over (the decision table)', () => {
  test.each([
    ['unavailable at the create request', { carrierFault: 'unavailable', notPlaced: true }, 'outage'],
    ['throttled (429) at the create request', { carrierFault: 'throttled', notPlaced: true }, 'outage'],
    ['a refused number or request (4xx): rejected', { notPlaced: true }, 'carrier_up'],
    ['a carrier fault after the call was placed (lost after a restart, unreachable answer)', { carrierFault: 'unavailable' }, 'carrier_up'],
    ['a call that ended as usual', { outcome: 'no_answer' }, 'carrier_up'],
  ] as const)('%s', (_, over, verdict) => {
    expect(endVerdict(report(over as Partial<CallReport>))).toBe(verdict)
  })
})

describe('carrierFailover', () => {
  const request = (callId: string): DialRequest => ({
    callId, orgId: 'org', to: '+13125550123', livemode: true, record: false, leadName: null, agentName: 'Alex', leadZone: 'America/Chicago',
    callerId: '+12125550100', machineDetection: true, onAnswer: { bridge: [], voicemail: null },
  })
  function setup(pool: PoolEntry[] = [TWILIO, TELNYX], usable?: (orgId: string, ids: readonly string[]) => readonly string[]) {
    const breakers = carrierBreakers({ now: clock().now })
    const dir = carrierDirectory({ carriers: CARRIERS, fallback: CARRIERS.simulator, poolOf: () => pool, breakers, random: () => 0 })
    const moved: string[] = []
    const failover = carrierFailover({ carriers: dir, breakers, usableCallerIds: usable, onFailover: (from, to) => void moved.push(`${from}->${to}`) })
    return { failover, breakers, moved }
  }
  const outage = report({ carrierFault: 'unavailable', notPlaced: true })
  const call = (id: string, carrierName = 'twilio') => ({ id, orgId: 'org', carrier: carrierName, answered: null })

  test('an outage moves the same call to the next carrier, from its own caller ID (the one sharing the lead\u2019s area code) and detection', () => {
    const { failover, moved } = setup()
    failover.dialing(request('c1'), 'twilio', ['telnyx'])
    const redial = failover.ended(call('c1'), outage)
    expect(redial?.choice.carrier).toBe(CARRIERS.telnyx)
    expect(redial?.request).toMatchObject({ callId: 'c1', to: '+13125550123', callerId: '+13125550100', machineDetection: false })
    expect(moved).toEqual(['twilio->telnyx'])
    // The second carrier refuses too: none is left (twilio was tried), so the call ends there.
    expect(failover.ended(call('c1', 'telnyx'), outage)).toBeNull()
    expect(failover.pendingCount()).toBe(0)
  })

  test('caller-ID health: the next carrier\u2019s rested numbers are left out', () => {
    const { failover } = setup(undefined, (_, ids) => ids.filter((id) => id !== '+13125550100'))
    failover.dialing(request('c1'), 'twilio', ['telnyx'])
    expect(failover.ended(call('c1'), outage)?.request.callerId).toBe('+12125550199')
  })

  test.each([
    ['a rejected number', report({ notPlaced: true })],
    ['a fault after the call was placed', report({ carrierFault: 'unavailable' })],
  ])('%s never fails over', (_, ended) => {
    const { failover } = setup()
    failover.dialing(request('c1'), 'twilio', ['telnyx'])
    expect(failover.ended(call('c1'), ended)).toBeNull()
  })

  test('an answered call, or one dialed without fallbacks (a single carrier, a seated dial), never fails over', () => {
    const { failover } = setup()
    failover.dialing(request('c1'), 'twilio', ['telnyx'])
    failover.answered(call('c1'))
    expect(failover.ended(call('c1'), outage)).toBeNull()
    failover.dialing(request('c2'), 'twilio', [])
    expect(failover.ended(call('c2'), outage)).toBeNull()
    expect(failover.pendingCount()).toBe(0)
  })

  test('outages count toward the carrier\u2019s breaker, a placed call clears it', () => {
    const { failover, breakers } = setup()
    for (let i = 0; i < BREAKER_THRESHOLD; i++) {
      failover.dialing(request(`c${i}`), 'twilio', ['telnyx'])
      failover.ended(call(`c${i}`), outage)
    }
    expect(breakers.state('org', 'twilio')).toBe('open')
    failover.ended(call('x'), report({ outcome: 'no_answer' }))
    expect(breakers.state('org', 'twilio')).toBe('closed')
  })

  test('with the next carrier\u2019s breaker open the call ends where it is', () => {
    const { failover, breakers } = setup()
    for (let i = 0; i < BREAKER_THRESHOLD; i++) breakers.fault('org', 'telnyx')
    failover.dialing(request('c1'), 'twilio', ['telnyx'])
    expect(failover.ended(call('c1'), outage)).toBeNull()
  })
})
