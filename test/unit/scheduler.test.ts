import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { FakeClock, systemClock } from '../../src/jobs/clock'
import { FakeScheduler, RealScheduler } from '../../src/jobs/scheduler'

// Bun reads the default test timeout per file only (docs/decisions.md, "Tests").
setDefaultTimeout(60_000)

const START = Date.UTC(2026, 0, 5, 15, 0, 0)
const SECOND = 1000
const MINUTE = 60 * SECOND
const DAY = 24 * 60 * MINUTE
// Croner 11 refuses the '0/30' form (see the skipped test at the end); '*/30' is the same schedule.
const EVERY_30_S = '*/30 * * * * *'

function setup() {
  const clock = new FakeClock(START)
  return { clock, scheduler: new FakeScheduler(clock) }
}

describe('FakeScheduler: one-shot tasks', () => {
  test('run in time order, with the clock at each task time', async () => {
    const { clock, scheduler } = setup()
    const seen: [string, number][] = []
    scheduler.at(START + 30 * SECOND, () => void seen.push(['c', clock.now()]))
    scheduler.at(START + 10 * SECOND, () => void seen.push(['a', clock.now()]))
    scheduler.at(START + 20 * SECOND, () => void seen.push(['b', clock.now()]))
    // Same time: the order they were scheduled in.
    scheduler.at(START + 20 * SECOND, () => void seen.push(['b2', clock.now()]))

    await scheduler.advanceTo(START + MINUTE)
    expect(seen).toEqual([
      ['a', START + 10 * SECOND],
      ['b', START + 20 * SECOND],
      ['b2', START + 20 * SECOND],
      ['c', START + 30 * SECOND],
    ])
    expect(clock.now()).toBe(START + MINUTE)
  })

  test('only tasks due by the target run; the rest wait for the next move', async () => {
    const { clock, scheduler } = setup()
    const seen: string[] = []
    scheduler.at(START + 10 * SECOND, () => void seen.push('soon'))
    scheduler.at(START + 10 * MINUTE, () => void seen.push('later'))
    await scheduler.advanceTo(START + MINUTE)
    expect(seen).toEqual(['soon'])
    await scheduler.advanceTo(START + 10 * MINUTE)
    expect(seen).toEqual(['soon', 'later'])
    expect(clock.now()).toBe(START + 10 * MINUTE)
  })

  test('a cancelled task does not run', async () => {
    const { scheduler } = setup()
    const seen: string[] = []
    const cancel = scheduler.at(START + 10 * SECOND, () => void seen.push('cancelled'))
    scheduler.at(START + 20 * SECOND, () => void seen.push('kept'))
    cancel()
    await scheduler.advanceTo(START + MINUTE)
    expect(seen).toEqual(['kept'])
  })

  test('a task may cancel a later one', async () => {
    const { scheduler } = setup()
    const seen: string[] = []
    const cancelLater = scheduler.at(START + 20 * SECOND, () => void seen.push('later'))
    scheduler.at(START + 10 * SECOND, () => {
      seen.push('first')
      cancelLater()
    })
    await scheduler.advanceTo(START + MINUTE)
    expect(seen).toEqual(['first'])
  })

  test('tasks scheduled by a running task run in the same move when they fall inside it', async () => {
    const { clock, scheduler } = setup()
    const seen: [string, number][] = []
    scheduler.at(START + 10 * SECOND, () => {
      seen.push(['step1', clock.now()])
      scheduler.at(clock.now() + 5 * SECOND, () => {
        seen.push(['step2', clock.now()])
        scheduler.at(clock.now() + 5 * SECOND, () => void seen.push(['step3', clock.now()]))
        // Outside the move: runs on a later move.
        scheduler.at(clock.now() + 10 * MINUTE, () => void seen.push(['step4', clock.now()]))
      })
    })
    await scheduler.advanceTo(START + MINUTE)
    expect(seen).toEqual([
      ['step1', START + 10 * SECOND],
      ['step2', START + 15 * SECOND],
      ['step3', START + 20 * SECOND],
    ])
    await scheduler.advanceTo(START + 20 * MINUTE)
    expect(seen.at(-1)).toEqual(['step4', START + 15 * SECOND + 10 * MINUTE])
  })

  test('async tasks are awaited before the next one runs', async () => {
    const { scheduler } = setup()
    const seen: string[] = []
    scheduler.at(START + SECOND, async () => {
      await Promise.resolve()
      await new Promise((resolve) => setTimeout(resolve, 1))
      seen.push('slow')
    })
    scheduler.at(START + 2 * SECOND, () => void seen.push('next'))
    await scheduler.advanceTo(START + MINUTE)
    expect(seen).toEqual(['slow', 'next'])
  })

  test('a failing task does not stop the move', async () => {
    const { scheduler } = setup()
    const seen: string[] = []
    scheduler.at(START + SECOND, () => {
      throw new Error('boom')
    })
    scheduler.at(START + 2 * SECOND, () => void seen.push('after'))
    await scheduler.advanceTo(START + MINUTE)
    expect(seen).toEqual(['after'])
  })

  test('runDue runs a task scheduled for now', async () => {
    const { clock, scheduler } = setup()
    const seen: number[] = []
    scheduler.at(START, () => void seen.push(clock.now()))
    await scheduler.runDue()
    expect(seen).toEqual([START])
  })
})

describe('FakeScheduler: the clock never moves backwards', () => {
  test('advanceTo a past time leaves the clock where it is', async () => {
    const { clock, scheduler } = setup()
    await scheduler.advanceTo(START + MINUTE)
    await scheduler.advanceTo(START)
    expect(clock.now()).toBe(START + MINUTE)
  })

  test('a task scheduled in the past runs at the current time', async () => {
    const { clock, scheduler } = setup()
    await scheduler.advanceTo(START + MINUTE)
    const seen: number[] = []
    scheduler.at(START + 10 * SECOND, () => void seen.push(clock.now()))
    await scheduler.runDue()
    expect(seen).toEqual([START + MINUTE])
  })

  test('FakeClock.set ignores earlier times', () => {
    const clock = new FakeClock(START)
    clock.set(START - 1)
    expect(clock.now()).toBe(START)
    clock.set(START + 1)
    expect(clock.now()).toBe(START + 1)
  })

  test('concurrent moves are serialized and time only grows', async () => {
    const { clock, scheduler } = setup()
    const seen: number[] = []
    for (let i = 1; i <= 5; i++) scheduler.at(START + i * MINUTE, () => void seen.push(clock.now()))
    await Promise.all([scheduler.advanceTo(START + 3 * MINUTE), scheduler.advanceTo(START + 2 * MINUTE), scheduler.advanceTo(START + 5 * MINUTE)])
    expect(seen).toEqual([1, 2, 3, 4, 5].map((i) => START + i * MINUTE))
    expect(clock.now()).toBe(START + 5 * MINUTE)
  })
})

describe('FakeScheduler: periodic jobs', () => {
  test('a 30 s job runs during a move, at its last tick before the target', async () => {
    const { clock, scheduler } = setup()
    const runs: number[] = []
    scheduler.every({ name: 'late_sweep', pattern: EVERY_30_S, run: () => void runs.push(clock.now()) })
    await scheduler.advanceTo(START + 10 * SECOND)
    expect(runs).toEqual([])
    await scheduler.advanceTo(START + 75 * SECOND)
    expect(runs).toEqual([START + 60 * SECOND])
    expect(clock.now()).toBe(START + 75 * SECOND)
  })

  test('one-shot tasks split a move: the job runs in each gap', async () => {
    const { clock, scheduler } = setup()
    const events: [string, number][] = []
    scheduler.every({ name: 'job', pattern: EVERY_30_S, run: () => void events.push(['job', clock.now()]) })
    scheduler.at(START + 45 * SECOND, () => void events.push(['task', clock.now()]))
    await scheduler.advanceTo(START + 2 * MINUTE)
    expect(events).toEqual([
      ['job', START + 30 * SECOND],
      ['task', START + 45 * SECOND],
      ['job', START + 2 * MINUTE],
    ])
  })

  test('jobs due in the same gap run in tick order', async () => {
    const { clock, scheduler } = setup()
    const runs: [string, number][] = []
    scheduler.every({ name: 'hourly', pattern: '0 0 * * * *', run: () => void runs.push(['hourly', clock.now()]) })
    scheduler.every({ name: 'half', pattern: EVERY_30_S, run: () => void runs.push(['half', clock.now()]) })
    await scheduler.advanceTo(START + 90 * MINUTE + 10 * SECOND)
    expect(runs).toEqual([
      ['hourly', START + 60 * MINUTE],
      ['half', START + 90 * MINUTE],
    ])
  })

  test('a 31-day move with 30 s jobs completes and runs each job a few times, not once per tick', async () => {
    const { clock, scheduler } = setup()
    let a = 0
    let b = 0
    scheduler.every({ name: 'a', pattern: EVERY_30_S, run: () => void a++ })
    scheduler.every({ name: 'b', pattern: '15-59/30 * * * * *', run: () => void b++ })
    await scheduler.advanceTo(START + 31 * DAY)
    expect(clock.now()).toBe(START + 31 * DAY)
    // One tick every 30 s would be 89,280 runs.
    expect(a).toBeGreaterThanOrEqual(1)
    expect(a).toBeLessThanOrEqual(3)
    expect(b).toBeGreaterThanOrEqual(1)
    expect(b).toBeLessThanOrEqual(3)
  })

  test('wakeAt makes a periodic job run at that moment', async () => {
    const { clock, scheduler } = setup()
    const runs: number[] = []
    scheduler.every({ name: 'job', pattern: EVERY_30_S, run: () => void runs.push(clock.now()) })
    scheduler.wakeAt(START + 15 * MINUTE)
    await scheduler.advanceTo(START + DAY)
    expect(runs).toEqual([START + 15 * MINUTE, START + DAY])
  })

  test('runNow runs a registered job now and returns false for unknown names', async () => {
    const { clock, scheduler } = setup()
    const runs: number[] = []
    scheduler.every({ name: 'usage_count', pattern: '0 */5 * * * *', run: () => void runs.push(clock.now()) })
    expect(await scheduler.runNow('usage_count')).toBe(true)
    expect(runs).toEqual([START])
    expect(await scheduler.runNow('no_such_job')).toBe(false)
    expect(runs).toHaveLength(1)
  })

  test('jobNames is sorted; registering a name twice throws', () => {
    const { scheduler } = setup()
    scheduler.every({ name: 'webhook_retry', pattern: EVERY_30_S, run: () => {} })
    scheduler.every({ name: 'late_sweep', pattern: EVERY_30_S, run: () => {} })
    expect(scheduler.jobNames()).toEqual(['late_sweep', 'webhook_retry'])
    expect(() => scheduler.every({ name: 'late_sweep', pattern: EVERY_30_S, run: () => {} })).toThrow()
  })

  function slowJob(scheduler: FakeScheduler) {
    const stats = { runs: 0, active: 0, maxActive: 0 }
    scheduler.every({
      name: 'slow',
      pattern: EVERY_30_S,
      run: async () => {
        stats.runs++
        stats.active++
        stats.maxActive = Math.max(stats.maxActive, stats.active)
        await new Promise((resolve) => setTimeout(resolve, 2))
        stats.active--
      },
    })
    return stats
  }

  test('a second trigger while a job runs waits for it (no overlap)', async () => {
    const { scheduler } = setup()
    const stats = slowJob(scheduler)
    await Promise.all([scheduler.runNow('slow'), scheduler.runNow('slow')])
    expect(stats.runs).toBe(2)
    expect(stats.maxActive).toBe(1)
  })

  // Regression test (found while writing the suite; fixed in src).
  test('three triggers while a job runs still never overlap', async () => {
    const { scheduler } = setup()
    const stats = slowJob(scheduler)
    await Promise.all([scheduler.runNow('slow'), scheduler.runNow('slow'), scheduler.runNow('slow')])
    expect(stats.runs).toBe(3)
    expect(stats.maxActive).toBe(1)
  })
})

describe('PeriodicJob pattern documentation', () => {
  // The doc comment's example for "every 30 s" registers and runs (Croner 11 refuses '0/30').
  test("the documented example '*/30 * * * * *' registers and runs every 30 s", async () => {
    const { clock, scheduler } = setup()
    const runs: number[] = []
    scheduler.every({ name: 'documented', pattern: '*/30 * * * * *', run: () => void runs.push(clock.now()) })
    await scheduler.advanceTo(START + 45 * SECOND)
    expect(runs).toEqual([START + 30 * SECOND])
  })

  test("'*/30 * * * * *' is accepted (the working spelling of every 30 s)", () => {
    const { scheduler } = setup()
    expect(() => scheduler.every({ name: 'x', pattern: EVERY_30_S, run: () => {} })).not.toThrow()
  })
})

describe('RealScheduler', () => {
  test('at() runs a task after a short real delay, never before its time', async () => {
    const scheduler = new RealScheduler(systemClock)
    try {
      const when = systemClock.now() + 20
      const ranAt = await new Promise<number>((resolve) => {
        scheduler.at(when, () => resolve(systemClock.now()))
      })
      expect(ranAt).toBeGreaterThanOrEqual(when)
    } finally {
      scheduler.stop()
    }
  })

  test('a cancelled timer does not run', async () => {
    const scheduler = new RealScheduler(systemClock)
    try {
      let ran = false
      const cancel = scheduler.at(systemClock.now() + 10, () => {
        ran = true
      })
      cancel()
      const done = new Promise<void>((resolve) => scheduler.at(systemClock.now() + 30, () => resolve()))
      await done
      expect(ran).toBe(false)
    } finally {
      scheduler.stop()
    }
  })

  test('tasks due together run in time order, then scheduling order, as one unit of work', async () => {
    const units: string[][] = []
    let current: string[] | null = null
    const scheduler = new RealScheduler(systemClock, (work) => {
      current = []
      work()
      units.push(current)
      current = null
    })
    try {
      const base = systemClock.now() + 30
      const done = new Promise<void>((resolve) => {
        scheduler.at(base + 1, () => void current?.push('c'))
        scheduler.at(base, () => void current?.push('a'))
        scheduler.at(base, () => void current?.push('b'))
        scheduler.at(base + 1, () => {
          current?.push('d')
          resolve()
        })
      })
      // Still pending when their time comes: a busy loop past it, so all four are due at once.
      while (systemClock.now() < base + 5) {}
      await done
      expect(units).toEqual([['a', 'b', 'c', 'd']])
    } finally {
      scheduler.stop()
    }
  })

  test('a batch stops after about 20 ms; the rest run in the next turn, still in order', async () => {
    const units: string[][] = []
    let current: string[] = []
    const scheduler = new RealScheduler(systemClock, (work) => {
      current = []
      work()
      units.push(current)
    })
    try {
      const when = systemClock.now() + 20
      const busy = (name: string) => () => {
        current.push(name)
        const until = performance.now() + 8
        while (performance.now() < until) {}
      }
      const done = new Promise<void>((resolve) => {
        for (const name of ['a', 'b', 'c', 'd']) scheduler.at(when, busy(name))
        scheduler.at(when, () => {
          current.push('e')
          resolve()
        })
      })
      while (systemClock.now() < when + 2) {}
      await done
      expect(units.flat()).toEqual(['a', 'b', 'c', 'd', 'e'])
      expect(units.length).toBeGreaterThan(1)
      expect(Math.max(...units.map((u) => u.length))).toBeLessThanOrEqual(3)
    } finally {
      scheduler.stop()
    }
  })

  test('a failing task does not stop the others of its batch', async () => {
    const scheduler = new RealScheduler(systemClock, (work) => work())
    try {
      const ran: string[] = []
      const when = systemClock.now() + 10
      const done = new Promise<void>((resolve) => {
        scheduler.at(when, () => {
          throw new Error('task failed on purpose')
        })
        scheduler.at(when, () => {
          ran.push('after')
          resolve()
        })
      })
      await done
      expect(ran).toEqual(['after'])
    } finally {
      scheduler.stop()
    }
  })

  test('when the unit of work itself fails, the tasks still run one by one', async () => {
    const scheduler = new RealScheduler(systemClock, () => {
      throw new Error('BEGIN failed')
    })
    try {
      const ran: number[] = []
      const when = systemClock.now() + 10
      await new Promise<void>((resolve) => {
        scheduler.at(when, () => void ran.push(1))
        scheduler.at(when, () => {
          ran.push(2)
          resolve()
        })
      })
      expect(ran).toEqual([1, 2])
    } finally {
      scheduler.stop()
    }
  })

  test('an earlier task scheduled later still runs first; far-off tasks wait', async () => {
    const scheduler = new RealScheduler(systemClock)
    try {
      const order: string[] = []
      let ranFar = false
      scheduler.at(systemClock.now() + 60_000, () => {
        ranFar = true
      })
      await new Promise<void>((resolve) => {
        scheduler.at(systemClock.now() + 40, () => {
          order.push('late')
          resolve()
        })
        scheduler.at(systemClock.now() + 5, () => void order.push('early'))
      })
      expect(order).toEqual(['early', 'late'])
      expect(ranFar).toBe(false)
    } finally {
      scheduler.stop()
    }
  })

  test('runNow works on the real scheduler too', async () => {
    const scheduler = new RealScheduler(systemClock)
    try {
      let runs = 0
      // Yearly pattern: Croner will not fire it during the test.
      scheduler.every({ name: 'job', pattern: '0 0 0 1 1 *', run: () => void runs++ })
      expect(await scheduler.runNow('job')).toBe(true)
      expect(await scheduler.runNow('nope')).toBe(false)
      expect(runs).toBe(1)
    } finally {
      scheduler.stop()
    }
  })
})
