import { Cron } from 'croner'
import type { FakeClock } from './clock'
import { BaseScheduler, runSafely, type PeriodicJob, type Task } from './scheduler-base'

interface FakeTimer {
  when: number
  seq: number
  task: Task
  cancelled: boolean
}

/**
 * Scheduler for DIALER_FAKE_CLOCK=1. `advanceTo` runs, in time order, every one-shot task
 * that came due, with the clock set to each task's time. A periodic job runs once per gap
 * between one-shot tasks (at its last tick in that gap), so a 31-day move costs a few
 * runs per job instead of one per tick; a feature that needs a job at an exact tick
 * schedules a one-shot task there (see `wakeAt`).
 */
export class FakeScheduler extends BaseScheduler {
  readonly clock: FakeClock
  private timers: FakeTimer[] = []
  private seq = 0
  private readonly lastTick = new Map<string, number>()
  private readonly crons = new Map<string, Cron>()
  private moving: Promise<void> = Promise.resolve()

  /**
   * `settle` runs before the clock moves and after each task or job, at its time: the service
   * commits there, so what waits for a commit happens at the time it would on the real clock.
   */
  constructor(clock: FakeClock, private readonly settle: () => void = () => {}) {
    super()
    this.clock = clock
  }

  at(when: number, task: Task): () => void {
    const timer: FakeTimer = { when, seq: this.seq++, task, cancelled: false }
    this.timers.push(timer)
    return () => {
      timer.cancelled = true
    }
  }

  /** Splits a long clock move at `when`, so periodic jobs also run at that moment. */
  wakeAt(when: number): void {
    this.at(when, () => {})
  }

  override every(job: PeriodicJob): void {
    super.every(job)
    this.crons.set(job.name, new Cron(job.pattern, { timezone: 'UTC', paused: true }))
    this.lastTick.set(job.name, this.clock.now())
  }

  /** Moves the clock to `target`, running everything due on the way; calls are serialized. */
  advanceTo(target: number): Promise<void> {
    const move = this.moving.then(() => this.move(target))
    this.moving = move.catch(() => {})
    return move
  }

  /** Runs tasks already due at the current time (e.g. one scheduled "now"). */
  runDue(): Promise<void> {
    return this.advanceTo(this.clock.now())
  }

  private async move(target: number): Promise<void> {
    this.settle()
    for (;;) {
      const next = this.nextTimer(target)
      const horizon = next ? next.when : target
      await this.runPeriodicUpTo(horizon)
      if (!next) break
      this.timers = this.timers.filter((t) => t !== next)
      this.clock.set(next.when)
      await runSafely('timer', next.task)
      this.settle()
    }
    this.clock.set(target)
  }

  private nextTimer(limit: number): FakeTimer | undefined {
    let best: FakeTimer | undefined
    this.timers = this.timers.filter((t) => !t.cancelled)
    for (const t of this.timers) {
      if (t.when > limit) continue
      if (!best || t.when < best.when || (t.when === best.when && t.seq < best.seq)) best = t
    }
    return best
  }

  private async runPeriodicUpTo(horizon: number): Promise<void> {
    const due: { job: PeriodicJob; tick: number }[] = []
    for (const job of this.jobs.values()) {
      const cron = this.crons.get(job.name)!
      const last = this.lastTick.get(job.name)!
      const next = cron.nextRun(new Date(last))
      if (!next || next.getTime() > horizon) continue
      const latest = cron.previousRuns(1, new Date(horizon + 1))[0]
      due.push({ job, tick: Math.max(next.getTime(), latest ? latest.getTime() : next.getTime()) })
    }
    due.sort((a, b) => a.tick - b.tick)
    for (const { job, tick } of due) {
      this.clock.set(tick)
      this.lastTick.set(job.name, tick)
      await this.runJob(job)
      this.settle()
    }
  }

  stop(): void {
    this.timers = []
  }
}
