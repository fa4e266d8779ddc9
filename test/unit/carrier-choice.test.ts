import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import type { Person } from '../../src/db/schema'
import { bridgeOf, carrierDirectory, chooseCallerId } from '../../src/domain/calls/carrier-choice'
import type { Carrier } from '../../src/telephony/carrier'

setDefaultTimeout(60_000)

// Issue 18: which carrier a dial goes through (src/domain/calls/carrier-choice.ts), from which
// of the organization's numbers, and whom a lead who answers is bridged to.

const carrier = (name: string) => ({ name }) as Carrier

describe('carrierDirectory', () => {
  function directory() {
    const simulator = carrier('simulator')
    const twilio = carrier('twilio')
    const settings = new Map([['org-twilio', { kind: 'twilio', callerIds: ['+12125550100', '+13125550100'], machineDetection: false }]])
    const asked: string[] = []
    const dir = carrierDirectory({
      carriers: { simulator, twilio },
      fallback: simulator,
      poolOf: (orgId) => {
        asked.push(orgId)
        const one = settings.get(orgId)
        return one ? [{ ...one, weight: 1 }] : []
      },
    })
    return { dir, simulator, twilio, asked }
  }

  test.each([
    ['test key, organization set for Twilio', 'simulator', 'org-twilio', false],
    ['test key, organization without carrier settings', 'simulator', 'org-plain', false],
    ['live key, organization set for Twilio', 'twilio', 'org-twilio', true],
    ['live key, organization without carrier settings', 'simulator', 'org-plain', true],
  ])('%s: dials the %s', (_, name, orgId, livemode) => {
    const { dir, simulator, twilio } = directory()
    expect(dir.forDial(orgId, livemode).carrier).toBe(name === 'twilio' ? twilio : simulator)
  })

  test('a test key never reads the organization’s carrier settings', () => {
    const { dir, asked } = directory()
    dir.forDial('org-twilio', false)
    expect(asked).toEqual([])
    dir.forDial('org-twilio', true)
    expect(asked).toEqual(['org-twilio'])
  })

  test('the Twilio choice carries the organization’s caller IDs and detection setting; the simulator none and detection on', () => {
    const { dir } = directory()
    expect(dir.forDial('org-twilio', true)).toMatchObject({ callerIds: ['+12125550100', '+13125550100'], machineDetection: false })
    for (const [orgId, livemode] of [['org-twilio', false], ['org-plain', true]] as const) {
      expect(dir.forDial(orgId, livemode)).toMatchObject({ callerIds: [], machineDetection: true })
    }
  })

  test('named finds the carrier a call was placed through by its stored name', () => {
    const { dir, simulator, twilio } = directory()
    expect(dir.named('twilio')).toBe(twilio)
    expect(dir.named('simulator')).toBe(simulator)
    expect(dir.named('Twilio')).toBeUndefined()
    expect(dir.named('')).toBeUndefined()
    expect(dir.named('toString')).toBeUndefined()
  })
})

describe('chooseCallerId', () => {
  test.each([
    ['one caller ID sharing the area code', ['+14155550100', '+12125550100'], '+12125550177', '+12125550100'],
    ['the first of several sharing it', ['+13125550100', '+12125550101', '+12125550102'], '+12125550177', '+12125550101'],
    ['the first when none shares it', ['+14155550100', '+13125550100'], '+16175550123', '+14155550100'],
    // The whole NPA: 212 and 213 differ in the last digit only.
    ['a neighbouring area code is no match', ['+14155550100', '+12135550100'], '+12125550123', '+14155550100'],
    // Only the NPA counts: a number equal in every other digit loses to one in the lead's area.
    ['the area code beats the rest of the number', ['+13125550177', '+12129990000'], '+12125550177', '+12129990000'],
    ['a single caller ID', ['+13125550100'], '+12125550123', '+13125550100'],
    ['none: null (no call is placed)', [], '+12125550123', null],
  ])('%s', (_, callerIds, lead, chosen) => {
    expect(chooseCallerId(callerIds, lead)).toBe(chosen)
  })
})

describe('bridgeOf', () => {
  const person = (id: string, name: string, phone?: string): Person => (phone === undefined ? { id, name } : { id, name, phone })

  test('SDRs with a phone in order, then closers with one; no phone, no leg', () => {
    const bridge = bridgeOf({
      sdrs: [person('s1', 'Alex', '+13125550150'), person('s2', 'No Phone'), person('s3', 'Pat', '+13125550152')],
      closers: [person('c1', 'Sam', '+13125550151'), person('c2', 'Lee'), person('c3', 'Kim', '+13125550153')],
    })
    expect(bridge).toEqual([
      { id: 's1', name: 'Alex', role: 'sdr', phone: '+13125550150' },
      { id: 's3', name: 'Pat', role: 'sdr', phone: '+13125550152' },
      // A closer is bridged without an id (handled_by: closers have no SDR id).
      { id: null, name: 'Sam', role: 'closer', phone: '+13125550151' },
      { id: null, name: 'Kim', role: 'closer', phone: '+13125550153' },
    ])
  })

  test('no SDR with a phone: the closers alone', () => {
    const closersOnly = bridgeOf({ sdrs: [person('s1', 'Alex')], closers: [person('c1', 'Sam', '+13125550151')] })
    expect(closersOnly).toEqual([{ id: null, name: 'Sam', role: 'closer', phone: '+13125550151' }])
  })

  test('an empty phone counts as none', () => {
    expect(bridgeOf({ sdrs: [person('s1', 'Alex', '')], closers: [person('c1', 'Sam', '')] })).toEqual([])
  })

  test('nobody with a phone: an empty bridge', () => {
    expect(bridgeOf({ sdrs: [person('s1', 'Alex')], closers: [] })).toEqual([])
    expect(bridgeOf({ sdrs: [], closers: [] })).toEqual([])
  })
})
