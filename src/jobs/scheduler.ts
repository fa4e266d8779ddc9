import { Cron } from 'croner'
import { FakeClock, type Clock } from './clock'
import { logger } from '../log'

export type Task = () => void | Promise<void>

/** One finished run of a periodic job (metrics; it is also logged as `job_run`). */
export interface JobRun {
  name: string
  /** Service clock, unix ms, when the run ended. */
  endedAt: number
  durationMs: number
  ok: boolean
}

export interface PeriodicJob {
  /** Stable name, also the admin API's `POST /jobs/{name}/run`. */
  readonly name: string
  // Croner pattern with seconds, read in UTC; every 30 s is '*/30 * * * * *' (Croner 11 refuses '0/30').
  readonly pattern: string
  readonly run: Task
}

/**
 * Runs one-shot tasks at a time on the service clock and periodic jobs by Croner pattern.
 * The real one uses timers; the fake one runs whatever came due when the clock is moved.
 */
export interface Scheduler {
  readonly clock: Clock
  /** Runs `task` once at `when` (unix ms) or as soon as possible after it. Returns a cancel function. */
  at(when: number, task: Task): () => void
  every(job: PeriodicJob): void
  /**
   * A hint that periodic jobs should run at `when` (a tick of theirs): the fake clock splits a
   * long move there; real time needs nothing.
   */
  wakeAt(when: number): void
  /** Runs a registered periodic job now (admin `POST /jobs/{name}/run`); false when unknown. */
  runNow(name: string): Promise<boolean>
  jobNames(): string[]
  /** Called after every run of a periodic job (by its timer or by runNow). */
  onJobRun(listener: (run: JobRun) => void): void
  stop(): void
}

abstract class BaseScheduler implements Scheduler {
  protected readonly jobs = new Map<string, PeriodicJob>()
  /** A job never overlaps itself: a run still going makes a new trigger wait for it. */
  private readonly running = new Map<string, Promise<void>>()
  private readonly jobListeners: ((run: JobRun) => void)[] = []

  abstract readonly clock: Clock
  abstract at(when: number, task: Task): () => void
  abstract wakeAt(when: number): void
  abstract stop(): void

  every(job: PeriodicJob): void {
    if (this.jobs.has(job.name)) throw new Error(`job ${job.name} registered twice`)
    this.jobs.set(job.name, job)
  }

  jobNames(): string[] {
    return [...this.jobs.keys()].sort()
  }

  onJobRun(listener: (run: JobRun) => void): void {
    this.jobListeners.push(listener)
  }

  async runNow(name: string): Promise<boolean> {
    const job = this.jobs.get(name)
    if (!job) return false
    await this.runJob(job)
    return true
  }

  protected async runJob(job: PeriodicJob): Promise<void> {
    // Several triggers may be waiting: each waits until no run is going, then starts its own.
    for (let previous = this.running.get(job.name); previous; previous = this.running.get(job.name)) await previous
    const run = this.timed(job)
    this.running.set(job.name, run)
    try {
      await run
    } finally {
      if (this.running.get(job.name) === run) this.running.delete(job.name)
    }
  }

  /** One run: never throws; logged as `job_run` (name, duration, result) and told to the listeners. */
  private async timed(job: PeriodicJob): Promise<void> {
    const started = performance.now()
    let error: unknown = null
    try {
      await job.run()
    } catch (failure) {
      error = failure ?? new Error('job failed')
    }
    const durationMs = Math.round((performance.now() - started) * 100) / 100
    const ok = error === null
    if (ok) logger.info('job_run', { job: job.name, duration_ms: durationMs, result: 'ok' })
    else logger.error('job_run', { job: job.name, duration_ms: durationMs, result: 'failed', error: String(error instanceof Error ? error.stack : error) })
    const done: JobRun = { name: job.name, endedAt: this.clock.now(), durationMs, ok }
    for (const listener of this.jobListeners) {
      try {
        listener(done)
      } catch {
        // a listener (metrics) never fails a job
      }
    }
  }
}

async function runSafely(what: string, task: Task): Promise<void> {
  try {
    await task()
  } catch (error) {
    logger.error('task_failed', { task: what, error: String(error instanceof Error ? error.stack : error) })
  }
}

// setTimeout takes at most 2^31-1 ms; longer waits are re-armed in steps.
const MAX_TIMEOUT = 2_147_000_000
/** One-shot tasks run together at most this many at a time; the rest go on in the next turn. */
const MAX_BATCH = 100
/** ...and for at most this long, so requests waiting behind a batch are not held up further. */
const BATCH_BUDGET_MS = 20

interface RealTimer {
  when: number
  seq: number
  task: Task
  cancelled: boolean
}

/** A binary min-heap of timers by time, then by order of scheduling. */
class TimerHeap {
  private readonly items: RealTimer[] = []

  get size(): number {
    return this.items.length
  }

  push(timer: RealTimer): void {
    const items = this.items
    items.push(timer)
    let i = items.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!before(items[i]!, items[parent]!)) break
      ;[items[i], items[parent]] = [items[parent]!, items[i]!]
      i = parent
    }
  }

  /** The earliest timer not cancelled (cancelled ones at the top are dropped on the way). */
  peek(): RealTimer | undefined {
    while (this.items.length > 0 && this.items[0]!.cancelled) this.pop()
    return this.items[0]
  }

  pop(): RealTimer | undefined {
    const items = this.items
    const top = items[0]
    const last = items.pop()
    if (items.length > 0 && last) {
      items[0] = last
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        const right = left + 1
        let least = i
        if (left < items.length && before(items[left]!, items[least]!)) least = left
        if (right < items.length && before(items[right]!, items[least]!)) least = right
        if (least === i) break
        ;[items[i], items[least]] = [items[least]!, items[i]!]
        i = least
      }
    }
    return top
  }

  clear(): void {
    this.items.length = 0
  }
}

const before = (a: RealTimer, b: RealTimer) => a.when < b.when || (a.when === b.when && a.seq < b.seq)

/**
 * One-shot tasks wait in a heap behind a single timer. Whatever is due when it fires runs as
 * one batch (at most 100 tasks, about 20 ms; the rest in the next turn) inside `unitOfWork`
 * (the service passes its SQLite transaction): at a thousand calls
 * up, many carrier events come due in the same millisecond, and each one committing on its own
 * cost more than the work itself. A task's own transaction becomes a savepoint of the batch,
 * so a task that fails rolls back alone; a batch whose commit fails is logged (its tasks'
 * writes are lost with it, as a lone task's would be).
 */
export class RealScheduler extends BaseScheduler {
  readonly clock: Clock
  private readonly crons: Cron[] = []
  private readonly heap = new TimerHeap()
  private seq = 0
  private armed: { at: number; timer: ReturnType<typeof setTimeout> } | null = null
  private stopped = false

  constructor(clock: Clock, private readonly unitOfWork: (work: () => void) => void = (work) => work()) {
    super()
    this.clock = clock
  }

  at(when: number, task: Task): () => void {
    const timer: RealTimer = { when, seq: this.seq++, task, cancelled: false }
    this.heap.push(timer)
    this.arm()
    return () => {
      timer.cancelled = true
    }
  }

  /** Keeps one timer set for the earliest task. */
  private arm(): void {
    if (this.stopped) return
    const next = this.heap.peek()
    if (!next) return
    if (this.armed && this.armed.at <= next.when) return
    if (this.armed) clearTimeout(this.armed.timer)
    const wait = Math.min(Math.max(0, next.when - this.clock.now()), MAX_TIMEOUT)
    this.armed = { at: next.when, timer: setTimeout(() => this.fire(), wait) }
  }

  private fire(): void {
    this.armed = null
    if (this.stopped) return
    const now = this.clock.now()
    const batch: RealTimer[] = []
    for (let next = this.heap.peek(); next && next.when <= now && batch.length < MAX_BATCH; next = this.heap.peek()) {
      batch.push(this.heap.pop()!)
    }
    let started = 0
    const began = performance.now()
    try {
      if (batch.length > 0) {
        this.unitOfWork(() => {
          for (; started < batch.length; started++) {
            // At least one task runs; past the budget the rest wait for the next turn.
            if (started > 0 && performance.now() - began > BATCH_BUDGET_MS) break
            if (!batch[started]!.cancelled) void runSafely('timer', batch[started]!.task)
          }
        })
      }
    } catch (error) {
      logger.error('task_batch_failed', { tasks: batch.length, error: String(error instanceof Error ? error.stack : error) })
      // Tasks the failed batch never reached still run, each on its own.
      for (const timer of batch.slice(started)) if (!timer.cancelled) void runSafely('timer', timer.task)
      started = batch.length
    }
    // Over budget: back in the heap, in their order (time, then scheduling).
    for (const timer of batch.slice(started)) this.heap.push(timer)
    this.arm()
  }

  override every(job: PeriodicJob): void {
    super.every(job)
    this.crons.push(new Cron(job.pattern, { timezone: 'UTC', name: job.name }, () => this.runJob(job)))
  }

  wakeAt(): void {}

  stop(): void {
    this.stopped = true
    for (const cron of this.crons) cron.stop()
    if (this.armed) clearTimeout(this.armed.timer)
    this.armed = null
    this.heap.clear()
  }
}

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
