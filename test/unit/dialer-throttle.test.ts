import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { Dialer, HOLD_MS } from '../../src/domain/calls/dialer'
import { FakeClock } from '../../src/jobs/clock'
import { FakeScheduler, type Task } from '../../src/jobs/scheduler'

setDefaultTimeout(60_000)

// Issue 18: after a carrier's 429 (Dialer.throttled) a campaign's mode holds new dials for 5 s,
// doubling while throttles keep coming (at most 2 minutes), back to 5 s after 5 minutes without
// one. Time is a FakeClock moved by the FakeScheduler; nothing waits on real time.

const START = Date.UTC(2026, 2, 2, 15)
const MINUTE = 60_000

/** Records how far ahead of now each task is scheduled (the dialer's wake-ups after a hold). */
class WatchedScheduler extends FakeScheduler {
  readonly waits: number[] = []
  override at(when: number, task: Task): () => void {
    this.waits.push(when - this.clock.now())
    return super.at(when, task)
  }
}

function world(lines = 1) {
  const clock = new FakeClock(START)
  const scheduler = new WatchedScheduler(clock)
  const campaigns = new Map(['camp-a', 'camp-b'].map((id) => [id, { id, status: 'active', lines, sdrs: [{ id: 'sdr-1', name: 'Alex' }] }]))
  let nextLead = 0
  // Every campaign and mode always has a lead waiting; each dial is recorded with its slot and time.
  const dials: { slot: string; at: number }[] = []
  const slotOf = new Map<string, string>()
  const dialer = new Dialer({
    stores: {
      campaigns: { get: (id: string) => campaigns.get(id) },
      leads: { get: (id: string) => ({ id, status: 'queued', queueKey: 1 }) },
    } as never,
    queues: {
      take: (campaignId: string, livemode: boolean) => {
        const id = `lead-${++nextLead}`
        slotOf.set(id, `${campaignId}:${livemode ? 'live' : 'test'}`)
        return { id, key: 1 }
      },
      nonEmpty: () => [...campaigns.keys()].flatMap((campaignId) => [{ campaignId, livemode: true }, { campaignId, livemode: false }]),
    } as never,
    leads: { atDial: () => true } as never,
    calls: { start: (lead: { id: string }) => void dials.push({ slot: slotOf.get(lead.id)!, at: clock.now() }) } as never,
    handleTimes: { forget: () => {} } as never,
    clock,
    scheduler,
  }, true)
  const dialsOf = (slot: string) => dials.filter((d) => d.slot === slot).length
  /** The call service on a 429: the campaign is throttled, then the call's line is freed. */
  const turnedAway = (campaignId = 'camp-a', livemode = true) => {
    dialer.throttled(campaignId, livemode)
    dialer.lineFree(campaignId, livemode)
  }
  return { clock, scheduler, dialer, dials, dialsOf, turnedAway }
}

describe('Dialer.throttled', () => {
  test('after a 429 the freed line dials nothing for 5 s, then once the hold ends', async () => {
    const { clock, scheduler, dialer, dialsOf, turnedAway } = world()
    dialer.pump('camp-a', true)
    expect(dialsOf('camp-a:live')).toBe(1)
    turnedAway()
    // Nothing during the hold, whatever asks the dialer to pump (a lead joining, pumpAll).
    dialer.pump('camp-a', true)
    dialer.pumpAll()
    await scheduler.advanceTo(START + HOLD_MS - 1)
    expect(dialsOf('camp-a:live')).toBe(1)
    expect(dialer.callsUp('camp-a', true)).toBe(0)
    await scheduler.advanceTo(START + HOLD_MS)
    expect(dialsOf('camp-a:live')).toBe(2)
    expect(dialer.callsUp('camp-a', true)).toBe(1)
  })

  test('one wake-up per throttle: the held mode is never polled', async () => {
    const { scheduler, dialer, turnedAway } = world()
    dialer.pump('camp-a', true)
    turnedAway()
    dialer.pump('camp-a', true)
    dialer.lineFree('camp-a', true)
    expect(scheduler.waits).toEqual([HOLD_MS])
    await scheduler.advanceTo(START + HOLD_MS - 1)
    expect(scheduler.waits).toEqual([HOLD_MS])
  })

  test('throttles within 5 minutes of the last double the hold, up to 120 s', async () => {
    const { clock, scheduler, dialer, dialsOf, turnedAway } = world()
    dialer.pump('camp-a', true)
    const held: number[] = []
    for (let i = 0; i < 8; i++) {
      const from = clock.now()
      const before = dialsOf('camp-a:live')
      turnedAway()
      // Measured by the dials: the freed line is dialed again exactly when the hold ends.
      await scheduler.advanceTo(from + scheduler.waits.at(-1)! - 1)
      expect(dialsOf('camp-a:live')).toBe(before)
      await scheduler.advanceTo(from + scheduler.waits.at(-1)!)
      expect(dialsOf('camp-a:live')).toBe(before + 1)
      // The next 429 comes right after the hold, well inside 5 minutes.
      held.push(clock.now() - from)
    }
    expect(held).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 120_000, 120_000, 120_000])
  })

  test('a throttle during a hold extends it: the first hold’s wake-up dials nothing', async () => {
    const { scheduler, dialer, dialsOf, turnedAway } = world()
    dialer.pump('camp-a', true)
    turnedAway()
    await scheduler.advanceTo(START + 1_000)
    // A second call of the campaign's (already in flight) is turned away too: 10 s from now.
    dialer.throttled('camp-a', true)
    await scheduler.advanceTo(START + HOLD_MS)
    expect(dialsOf('camp-a:live')).toBe(1)
    await scheduler.advanceTo(START + 1_000 + 2 * HOLD_MS - 1)
    expect(dialsOf('camp-a:live')).toBe(1)
    await scheduler.advanceTo(START + 1_000 + 2 * HOLD_MS)
    expect(dialsOf('camp-a:live')).toBe(2)
  })

  test.each([
    ['4:59.999 after the last throttle: doubled', 5 * MINUTE - 1, 2 * HOLD_MS],
    ['5 minutes after the last throttle: back to 5 s', 5 * MINUTE, HOLD_MS],
    ['an hour after: 5 s', 60 * MINUTE, HOLD_MS],
  ])('%s', async (_, gap, hold) => {
    const { clock, scheduler, dialer, turnedAway } = world()
    dialer.pump('camp-a', true)
    turnedAway()
    await scheduler.advanceTo(clock.now() + gap)
    turnedAway()
    expect(scheduler.waits.at(-1)).toBe(hold)
  })

  test('the reset counts from the last throttle, not the first: a long run of them keeps doubling', async () => {
    const { clock, scheduler, dialer, turnedAway } = world()
    dialer.pump('camp-a', true)
    // A throttle every 4 minutes for 20 minutes: never 5 minutes without one.
    for (let i = 0; i < 6; i++) {
      turnedAway()
      await scheduler.advanceTo(clock.now() + 4 * MINUTE)
    }
    expect(scheduler.waits).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 120_000])
  })

  test('the hold and its back-off are the campaign’s and the mode’s own', async () => {
    const { scheduler, dialer, dialsOf, turnedAway } = world()
    dialer.pumpAll()
    expect([dialsOf('camp-a:live'), dialsOf('camp-a:test'), dialsOf('camp-b:live')]).toEqual([1, 1, 1])
    turnedAway('camp-a', true)
    turnedAway('camp-a', true)
    // Test-mode calls of the same campaign, and the other campaign, dial on.
    dialer.lineFree('camp-a', false)
    dialer.lineFree('camp-b', true)
    expect([dialsOf('camp-a:live'), dialsOf('camp-a:test'), dialsOf('camp-b:live')]).toEqual([1, 2, 2])
    // Their first throttle starts at 5 s, not at camp-a live's doubled hold.
    turnedAway('camp-b', true)
    turnedAway('camp-a', false)
    expect(scheduler.waits).toEqual([HOLD_MS, 2 * HOLD_MS, HOLD_MS, HOLD_MS])
    await scheduler.advanceTo(START + HOLD_MS)
    expect([dialsOf('camp-a:live'), dialsOf('camp-a:test'), dialsOf('camp-b:live')]).toEqual([1, 3, 3])
    await scheduler.advanceTo(START + 2 * HOLD_MS)
    expect(dialsOf('camp-a:live')).toBe(2)
  })
})
