import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallRow } from '../../src/db/stores/call-store'
import { MAX_PER_CALL, MAX_PER_ORG, SUPERVISE_WINDOW_MS, supervision } from '../../src/domain/calls/supervision'
import type { Call } from '../../src/domain/calls/call-shape'
import { FakeClock } from '../../src/jobs/clock'
import type { Carrier, SuperviseRequest } from '../../src/telephony/carrier'
import { refusalOf } from './thrown'

setDefaultTimeout(60_000)

/**
 * The supervise rule on doubles and the fake clock: which calls can be supervised (live, through
 * a carrier with conferences, in a seat's conference, of the asker's organization), the limits
 * per call and per organization and their window, and the order: the event is written in the
 * transaction, the carrier asked only once it is durable.
 */

const SEAT = { seatId: 'seat-1', conference: 'seat-seat-1', conferenceSid: null, carrierCallId: `CA${'d'.repeat(32)}`, personName: 'Alex' }

function world(options: { seatLeg?: string | null } = {}) {
  const clock = new FakeClock()
  const rows = new Map<string, Partial<CallRow>>()
  const log: string[] = []
  const asked: SuperviseRequest[] = []
  const durable: (() => void)[] = []
  const twilio = { name: 'twilio', supervise: (r: SuperviseRequest) => void (log.push('carrier'), asked.push(r)) } as unknown as Carrier
  const simulator = { name: 'simulator' } as unknown as Carrier
  const seats = { ofCall: (id: string) => (id.startsWith('seated') ? { ...SEAT, carrierCallId: options.seatLeg === undefined ? SEAT.carrierCallId : options.seatLeg } : null) }
  const s = supervision({
    stores: {
      calls: { get: (id: string) => rows.get(id) as CallRow | undefined } as never,
      transaction: <T>(work: () => T) => {
        const out = work()
        log.push('commit')
        for (const effect of durable.splice(0)) effect()
        return out
      },
      afterDurable: (effect: () => void) => void durable.push(effect),
    },
    events: { record: (e: { type: string }) => (log.push(e.type), {}) as never },
    clock,
    carriers: { named: (name: string) => (name === 'twilio' ? twilio : name === 'simulator' ? simulator : undefined) },
    seats: () => seats,
    view: (row) => ({ id: row.id }) as Call,
  })
  const call = (id: string, changes: Partial<CallRow> = {}) =>
    rows.set(id, { id, orgId: 'org-1', campaignId: 'camp-1', livemode: true, status: 'in_progress', carrier: 'twilio', ...changes })
  return { s, clock, log, asked, call }
}

const PHONE = '+13125550160'

describe('supervise', () => {
  test('a live seated call: call.supervised committed, then the carrier is asked with the seat\u2019s room and leg', () => {
    const { s, log, asked, call } = world()
    call('seated-1')
    const made = s.supervise('seated-1', { mode: 'whisper', phone: PHONE })
    expect(made).toMatchObject({ object: 'supervision', call_id: 'seated-1', mode: 'whisper', phone: PHONE, seat_id: 'seat-1' })
    expect(log).toEqual(['call.supervised', 'commit', 'carrier'])
    expect(asked).toEqual([{ callId: 'seated-1', orgId: 'org-1', mode: 'whisper', phone: PHONE, conference: 'seat-seat-1', conferenceSid: null, seatCallId: SEAT.carrierCallId }])
  })

  test('404 for an unknown call, another organization\u2019s, an ended or test-mode one, the simulator\u2019s, one without a seat, a whisper without the seat\u2019s leg', () => {
    const { s, call, log } = world()
    call('seated-ended', { status: 'ended' })
    call('seated-test', { livemode: false })
    call('seated-sim', { carrier: 'simulator' })
    call('seated-ok')
    call('alone')
    const codeOf = (id: string, mode: 'listen' | 'whisper' = 'listen', orgId?: string) => refusalOf(() => s.supervise(id, { mode, phone: PHONE }, { orgId }))?.code
    for (const id of ['missing', 'seated-ended', 'seated-test', 'seated-sim', 'alone']) expect(codeOf(id)).toBe('not_found')
    expect(codeOf('seated-ok', 'listen', 'org-2')).toBe('not_found')
    expect(codeOf('seated-ok', 'listen', 'org-1')).toBeUndefined()
    const noLeg = world({ seatLeg: null })
    noLeg.call('seated-1')
    expect(refusalOf(() => noLeg.s.supervise('seated-1', { mode: 'whisper', phone: PHONE }))?.code).toBe('not_found')
    expect(refusalOf(() => noLeg.s.supervise('seated-1', { mode: 'barge', phone: PHONE }))).toBeNull()
    // Refusals wrote nothing.
    expect(log.filter((l) => l === 'call.supervised')).toHaveLength(1)
  })

  test('a phone that is not a US or Canadian E.164 number is 400 phone', () => {
    const { s, call } = world()
    call('seated-1')
    for (const phone of ['3125550160', '+44207946000', 'call me']) {
      const refusal = refusalOf(() => s.supervise('seated-1', { mode: 'listen', phone }))
      expect([refusal?.code, refusal?.param]).toEqual(['invalid_request', 'phone'])
    }
  })

  test('at most MAX_PER_CALL a call and MAX_PER_ORG an organization in the window; the window passes', () => {
    const { s, clock, call } = world()
    call('seated-1')
    for (let i = 0; i < MAX_PER_CALL; i++) s.supervise('seated-1', { mode: 'listen', phone: PHONE })
    const refused = refusalOf(() => s.supervise('seated-1', { mode: 'listen', phone: PHONE }))
    expect(refused?.code).toBe('rate_limited')
    expect(refused?.retryAfter).toBe(SUPERVISE_WINDOW_MS / 1000)
    clock.set(clock.now() + SUPERVISE_WINDOW_MS + 1)
    expect(refusalOf(() => s.supervise('seated-1', { mode: 'listen', phone: PHONE }))).toBeNull()
    // The organization's budget over many calls.
    clock.set(clock.now() + SUPERVISE_WINDOW_MS + 1)
    let admitted = 0
    for (let i = 0; i < MAX_PER_ORG + 5; i++) {
      call(`seated-${i + 10}`)
      if (refusalOf(() => s.supervise(`seated-${i + 10}`, { mode: 'barge', phone: PHONE })) === null) admitted++
    }
    expect(admitted).toBe(MAX_PER_ORG)
  })
})
