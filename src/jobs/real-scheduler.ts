import { Cron } from 'croner'
import type { Clock } from './clock'
import { logger } from '../log'
import { BaseScheduler, runSafely, type PeriodicJob, type Task } from './scheduler-base'
import { TimerHeap, type RealTimer } from './timer-heap'

// setTimeout takes at most 2^31-1 ms; longer waits are re-armed in steps.
const MAX_TIMEOUT = 2_147_000_000
/** One-shot tasks run together at most this many at a time; the rest go on in the next turn. */
const MAX_BATCH = 100
/** ...and for at most this long, so requests waiting behind a batch are not held up further. */
const BATCH_BUDGET_MS = 20

/**
 * One-shot tasks wait in a heap behind a single timer. Whatever is due when it fires runs as
 * one batch (at most MAX_BATCH tasks or BATCH_BUDGET_MS; the rest in the next turn) inside
 * `unitOfWork` (the service passes its SQLite transaction): at a thousand calls up, many
 * carrier events come due in the same millisecond, and each one committing on its own cost
 * more than the work itself. A task's own transaction becomes a savepoint of the batch,
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
