import type { Clock } from './clock'
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

/** What both schedulers share: the periodic jobs, never overlapping themselves, timed and logged. */
export abstract class BaseScheduler implements Scheduler {
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

/** Runs a task, logging (not throwing) its failure. */
export async function runSafely(what: string, task: Task): Promise<void> {
  try {
    await task()
  } catch (error) {
    logger.error('task_failed', { task: what, error: String(error instanceof Error ? error.stack : error) })
  }
}
