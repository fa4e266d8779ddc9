import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { CallEvents, CallReport } from '../../src/telephony/carrier'
import { initialCarrierState, type CallPlan, type CarrierState } from '../../src/telephony/twilio/call-plan'
import { applyEvent, lookupEvent, runStep, tellEnded, type LookedUpCall } from '../../src/telephony/twilio/callback-steps'
import { apply, initialState } from '../../src/telephony/twilio/lifecycle'

setDefaultTimeout(60_000)

// A call looked up at Twilio after the fact (the restart reconcile, the watchdog): one Twilio
// ended because it could not reach the service for the call's TwiML is a failure, not a lead
// who hung up.

const NOW = Date.parse('2026-03-02T15:00:00Z')
const plan = (over: Partial<CallPlan> = {}): CallPlan => ({
  to: '+12125550123', from: '+12125550100', leadName: 'Jordan Lee', agentName: 'Owner Olsen', machineDetection: true, record: true,
  bridge: [{ id: 'sdr-1', name: 'Alex Rivera', role: 'sdr', phone: '+13125550150' }], voicemail: null, ...over,
})

function lookUp(state: CarrierState, call: LookedUpCall, p = plan()) {
  const reports: CallReport[] = []
  const answered: string[] = []
  const events: CallEvents = {
    answered: (_, by) => void answered.push(by), intent: () => {}, handover: () => {}, transcribed: () => {}, recorded: () => {},
    ended: (_, report) => void reports.push(report),
  }
  const result = applyEvent({ callId: 'call-1', plan: p, publicUrl: 'https://dialer.example.com', now: NOW, events }, state, lookupEvent(state, call), false)
  // As TwilioCarrier.reconcile: an end that would wait for its recording is told at once.
  if (result.state.pendingEnd) tellEnded({ callId: 'call-1', events }, result.state, result.state.pendingEnd)
  return { result, reports, answered }
}

const UNREACHABLE_NOTE = 'Twilio ended the call while the service was unreachable'
const completed = (durationSeconds: number | null, answeredBy: string | null = null): LookedUpCall => ({ status: 'completed', durationSeconds, answeredBy })

describe('a looked-up call Twilio ended without our TwiML', () => {
  test('answered, no AMD result, duration 0, the answer never served: failed with the note, not hung_up', () => {
    const { result, reports, answered } = lookUp(initialCarrierState(plan()), completed(0))
    expect(reports).toHaveLength(1)
    expect(reports[0]!.outcome).toBe('failed')
    expect(reports[0]!.note).toContain(UNREACHABLE_NOTE)
    // The service's outage, not the number: the failure streak that retires numbers stands.
    expect(reports[0]!.carrierFault).toBe('unavailable')
    expect(answered).toEqual([])
    expect(result.state.life).toMatchObject({ stage: 'ended', outcome: 'failed' })
    expect(result.state.reported).toBe(true)
    // Failed calls do not wait for a recording.
    expect(result.actions).toEqual([])
  })

  test('the same without machine detection (nobody fetched the answer, so nobody was bridged)', () => {
    const p = plan({ machineDetection: false })
    expect(lookUp(initialCarrierState(p), completed(0), p).reports[0]!.outcome).toBe('failed')
  })

  test('Twilio\u2019s error message took seconds: still failed when the answer was never served', () => {
    expect(lookUp(initialCarrierState(plan()), completed(4)).reports[0]!.outcome).toBe('failed')
  })

  test('a row saved before answerServed was kept: only a call of 0 seconds counts as unreachable', () => {
    const { answerServed: _, ...old } = initialCarrierState(plan())
    expect(lookUp(old, completed(0)).reports[0]!.outcome).toBe('failed')
    expect(lookUp(old, completed(30)).reports[0]!.outcome).toBe('hung_up')
  })
})

describe('looked-up calls that reached the service are filed as before', () => {
  const served = (): CarrierState => {
    const { events } = { events: { answered: () => {}, intent: () => {}, handover: () => {}, transcribed: () => {}, recorded: () => {}, ended: () => {} } as CallEvents }
    return runStep({ callId: 'call-1', plan: plan(), publicUrl: 'https://dialer.example.com', now: NOW, events }, initialCarrierState(plan()), 'answer', null, {}).state
  }

  test('the answer step marks the answer served', () => {
    expect(initialCarrierState(plan()).answerServed).toBe(false)
    expect(served().answerServed).toBe(true)
  })

  test('answer served, no AMD result: the lead hung up before anyone took it', () => {
    const { reports } = lookUp(served(), completed(12))
    expect(reports[0]!.outcome).toBe('hung_up')
  })

  test('an AnsweredBy from Twilio decides, answer served or not', () => {
    const { reports, answered } = lookUp(initialCarrierState(plan({ record: false })), completed(0, 'machine_end_beep'), plan({ record: false }))
    expect(answered).toEqual(['machine'])
    expect(reports[0]!.outcome).toBe('voicemail')
  })

  test.each([['no-answer', 'no_answer'], ['busy', 'busy'], ['failed', 'failed'], ['canceled', 'no_answer']])('%s is %s with its usual note', (status, outcome) => {
    const { reports } = lookUp(initialCarrierState(plan()), { status, durationSeconds: 0, answeredBy: null })
    expect(reports[0]!.outcome as string).toBe(outcome)
    expect(reports[0]!.note ?? '').not.toContain(UNREACHABLE_NOTE)
  })

  test('still up at Twilio: nothing is told', () => {
    expect(lookUp(initialCarrierState(plan()), { status: 'in-progress', durationSeconds: null, answeredBy: null }).reports).toEqual([])
  })
})

describe('lifecycle: the unreachable flag', () => {
  test('ends the call failed with the flag on the effect, only for completed without an answer', () => {
    const state = initialState({ amdExpected: true, legs: 1 })
    const step = apply(state, { kind: 'status', callStatus: 'completed', callDuration: 3, answeredBy: null, unreachable: true })
    expect(step.effects).toEqual([{ type: 'ended', outcome: 'failed', durationSeconds: 3, carrierStatus: 'completed', unreachable: true }])
    // A callback (no flag) is a person, as before.
    expect(apply(state, { kind: 'status', callStatus: 'completed', callDuration: 3 }).effects.at(-1)).toMatchObject({ type: 'ended', outcome: 'completed' })
    // An answer already known wins over the flag.
    const human = apply(state, { kind: 'amd', answeredBy: 'human' }).state
    expect(apply(human, { kind: 'status', callStatus: 'completed', callDuration: 0, unreachable: true }).effects).toEqual([
      { type: 'ended', outcome: 'completed', durationSeconds: 0, carrierStatus: 'completed' },
    ])
  })
})
