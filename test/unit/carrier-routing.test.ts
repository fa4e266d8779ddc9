import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { bridgeOf, carrierDirectory, chooseCallerId } from '../../src/domain/calls/carrier-choice'
import { Dialer } from '../../src/domain/calls/dialer'
import { FakeClock } from '../../src/jobs/clock'
import { FakeScheduler } from '../../src/jobs/scheduler'
import type { Carrier } from '../../src/telephony/carrier'

setDefaultTimeout(60_000)

// Issue 18: which carrier a dial goes through, from which number, whom a person is bridged to,
// and how a carrier's 429 holds a campaign's dialing.

const carrier = (name: string) => ({ name }) as Carrier

describe('carrierDirectory', () => {
  const simulator = carrier('simulator')
  const twilio = carrier('twilio')
  const settings = new Map([['org-twilio', { callerIds: ['+12125550100'], machineDetection: false }]])
  const directory = carrierDirectory({ simulator, twilio, settingsOf: (orgId) => settings.get(orgId) ?? null })

  test.each([
    ['a test key of a Twilio organization', 'org-twilio', false, 'simulator'],
    ['a live key of a Twilio organization', 'org-twilio', true, 'twilio'],
    ['a live key of a simulator organization', 'org-sim', true, 'simulator'],
    ['a test key of a simulator organization', 'org-sim', false, 'simulator'],
  ])('%s dials the %s', (_, orgId, livemode, name) => {
    expect(directory.forDial(orgId, livemode).carrier.name).toBe(name)
  })

  test('the Twilio choice carries the organization’s caller IDs and detection setting', () => {
    expect(directory.forDial('org-twilio', true)).toMatchObject({ callerIds: ['+12125550100'], machineDetection: false })
    expect(directory.forDial('org-twilio', false)).toMatchObject({ callerIds: [] })
  })

  test('a call is found again by the carrier name kept with it (boot recovery)', () => {
    expect(directory.named('twilio')).toBe(twilio)
    expect(directory.named('simulator')).toBe(simulator)
    expect(directory.named('vonage')).toBeUndefined()
  })
})

describe('chooseCallerId', () => {
  const ids = ['+14155550100', '+12125550100', '+13125550100']
  test.each([
    ['+12125550123', '+12125550100'],
    ['+13125559999', '+13125550100'],
    ['+14155551234', '+14155550100'],
    // No number shares the area code: the first.
    ['+16175550123', '+14155550100'],
    // 212 is not 2125: the whole area code, not a prefix of it.
    ['+12135550123', '+14155550100'],
  ])('lead %s calls from %s', (lead, from) => {
    expect(chooseCallerId(ids, lead)).toBe(from)
  })

  test('no caller IDs: null (the call fails with a note, nothing is sent)', () => {
    expect(chooseCallerId([], '+12125550123')).toBeNull()
  })
})

describe('bridgeOf', () => {
  test('SDRs with a phone in order, then closers with one; people without a phone are skipped', () => {
    expect(bridgeOf({
      sdrs: [{ id: 's1', name: 'Alex', phone: '+13125550150' }, { id: 's2', name: 'No Phone' }, { id: 's3', name: 'Pat', phone: '+13125550152' }],
      closers: [{ id: 'c1', name: 'Sam', phone: '+13125550151' }, { id: 'c2', name: 'Lee' }],
    })).toEqual([
      { id: 's1', name: 'Alex', role: 'sdr', phone: '+13125550150' },
      { id: 's3', name: 'Pat', role: 'sdr', phone: '+13125550152' },
      // A closer is reported by name with no id (the spec's handled_by: closers have no SDR id).
      { id: null, name: 'Sam', role: 'closer', phone: '+13125550151' },
    ])
  })

  test('nobody with a phone: an empty bridge (the lead hears the nobody-took message)', () => {
    expect(bridgeOf({ sdrs: [{ id: 's1', name: 'Alex' }], closers: [] })).toEqual([])
  })
})

describe('Dialer.throttled: a 429 holds the campaign’s dialing, never a tight loop', () => {
  function world() {
    const clock = new FakeClock(Date.UTC(2026, 2, 2, 15))
    const scheduler = new FakeScheduler(clock)
    const campaign = { id: 'camp', status: 'active', lines: 2, sdrs: [{ id: 's1', name: 'Alex' }] }
    let next = 0
    const started: string[] = []
    const dialer = new Dialer({
      stores: {
        campaigns: { get: () => campaign },
        leads: { get: (id: string) => ({ id, status: 'queued', queueKey: 1 }) },
      } as never,
      queues: { take: () => ({ id: `lead-${++next}`, key: 1 }), nonEmpty: () => [{ campaignId: 'camp', livemode: true }] } as never,
      leads: { atDial: () => true } as never,
      calls: { start: (lead: { id: string }) => void started.push(lead.id) } as never,
      handleTimes: { forget: () => {} } as never,
      clock,
      scheduler,
    }, true)
    return { clock, scheduler, dialer, started }
  }

  test('after a throttle the freed line waits 5 s, then dials', async () => {
    const { clock, scheduler, dialer, started } = world()
    dialer.pump('camp', true)
    expect(started).toHaveLength(2)
    dialer.throttled('camp', true)
    dialer.lineFree('camp', true)
    expect(started).toHaveLength(2)
    await scheduler.advanceTo(clock.now() + 4_999)
    expect(started).toHaveLength(2)
    await scheduler.advanceTo(clock.now() + 1)
    expect(started).toHaveLength(3)
    expect(dialer.callsUp('camp', true)).toBe(2)
    // The hold is the live mode's: test keys' calls (the simulator) go on.
    dialer.throttled('camp', true)
    dialer.pump('camp', false)
    expect(dialer.callsUp('camp', false)).toBe(2)
  })

  test('repeated throttles double the hold up to 2 minutes; 5 minutes without one start again at 5 s', async () => {
    const { clock, scheduler, dialer, started } = world()
    const holdAfterThrottle = async (): Promise<number> => {
      dialer.pump('camp', true)
      dialer.throttled('camp', true)
      dialer.lineFree('camp', true)
      const before = started.length
      const from = clock.now()
      for (let ms = 1_000; ms <= 200_000; ms += 1_000) {
        await scheduler.advanceTo(from + ms)
        if (started.length > before) return ms
      }
      return Infinity
    }
    const holds: number[] = []
    for (let i = 0; i < 7; i++) holds.push(await holdAfterThrottle())
    expect(holds).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 120_000, 120_000])
    await scheduler.advanceTo(clock.now() + 5 * 60_000 + 1)
    expect(await holdAfterThrottle()).toBe(5_000)
  })
})
