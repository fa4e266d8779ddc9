/**
 * The service's scheduler: one-shot tasks on the service clock and Croner periodic jobs.
 * The contract and shared job runner are in scheduler-base.ts; the timer-driven one in
 * real-scheduler.ts, the one for DIALER_FAKE_CLOCK=1 in fake-scheduler.ts.
 */
export type { JobRun, PeriodicJob, Scheduler, Task } from './scheduler-base'
export { RealScheduler } from './real-scheduler'
export { FakeScheduler } from './fake-scheduler'
