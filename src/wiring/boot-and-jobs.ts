import type { Config } from '../config'
import type { DatabaseHandle } from '../db/client'
import type { Stores } from '../db/stores'
import type { SessionService } from '../domain/console/sessions'
import type { CallService } from '../domain/calls/call-service'
import type { CallerIdHealth } from '../domain/caller-ids/caller-id-health'
import type { Dialer } from '../domain/calls/dialer'
import type { RecordingFiles } from '../domain/calls/recording-files'
import { purgeRecordings } from '../domain/calls/recording-retention'
import type { ExportService } from '../domain/exports/export-service'
import type { ImportService } from '../domain/imports/import-service'
import type { LeadService } from '../domain/leads/lead-service'
import type { UsageService } from '../domain/usage/usage-service'
import type { DeliveryWorker } from '../domain/webhooks/delivery-worker'
import type { IdempotencyGuard } from '../http/idempotency'
import type { Clock } from '../jobs/clock'
import type { Scheduler } from '../jobs/scheduler'
import { logger } from '../log'
import { watchCarriers, type CarrierSet } from '../telephony/registry'

export interface BootDeps {
  config: Readonly<Config>
  database: DatabaseHandle
  stores: Stores
  clock: Clock
  scheduler: Scheduler
  calls: CallService
  usage: UsageService
  leads: LeadService
  dialer: Dialer
  exports: ExportService
  imports: ImportService
  idempotency: IdempotencyGuard
  sessions: SessionService
  deliveries: DeliveryWorker
  recordings: RecordingFiles
  carrierSet: CarrierSet
  callerIds: CallerIdHealth
}

/**
 * What a start recovers (exports, imports and calls cut by a stop; the queues; dialing) and the
 * periodic jobs, in the order they are listed in GET /admin/jobs and /metrics.
 */
export function bootAndSchedule(d: BootDeps): void {
  const { database, stores, clock, scheduler, calls, usage, leads, dialer, exports, imports, idempotency, sessions, deliveries, recordings, carrierSet } = d
  scheduler.every({
    name: 'webhook_retry',
    // Each retry has its own timer; this sweep also sends anything due those timers missed.
    pattern: '0 * * * * *',
    run: () => stores.afterDurable(() => deliveries.restore(stores.webhooks.dueRetries(clock.now(), 10_000))),
  })

  scheduler.every({
    name: 'usage_count',
    // Spec: usage is counted every 5 minutes.
    pattern: '0 */5 * * * *',
    run: async () => {
      await usage.count()
    },
  })

  exports.recover()
  // An import cut short by a stop is interrupted: the same file sent again resumes it.
  const interruptedImports = stores.transaction(() => imports.interruptRunning())
  if (interruptedImports > 0) logger.info('imports_interrupted', { imports: interruptedImports })
  scheduler.every({
    name: 'export_cleanup',
    // Hourly: export files are removed once their 24-hour link has expired.
    pattern: '0 0 * * * *',
    run: () => {
      exports.removeExpired()
    },
  })

  // Boot: calls cut by a stop are closed, the queues rebuilt, and dialing starts.
  calls.recover()
  usage.evaluateCaps()
  leads.restore()
  dialer.pumpAll()

  scheduler.every({
    name: 'carrier_watchdog',
    // Each minute: a carrier call quiet for long is looked up (a lost final callback), so none stays up forever.
    pattern: '0 * * * * *',
    run: () => {
      watchCarriers(carrierSet)
    },
  })

  scheduler.every({
    name: 'caller_id_health',
    // Hourly: numbers far below their campaigns' other numbers are rested (docs/caller-ids.md).
    pattern: '0 20 * * * *',
    run: () => {
      const checked = d.callerIds.checkAll()
      if (checked.rested > 0) logger.info('caller_id_health', { orgs: checked.orgs, rested: checked.rested })
    },
  })

  scheduler.every({
    name: 'late_sweep',
    // Spec: every 30 s.
    pattern: '*/30 * * * * *',
    run: () => {
      leads.markLate()
    },
  })

  scheduler.every({
    name: 'retention_purge',
    // Daily at 03:15 UTC: a quiet hour for most US and Canadian organizations.
    pattern: '0 15 3 * * *',
    run: () => {
      const idempotencyRecords = idempotency.purgeExpired()
      const consoleSessions = sessions.purgeIdle()
      // Spec "Limits": events are kept 30 days.
      const cutoff = clock.now() - 30 * 24 * 60 * 60 * 1000
      const deliveryRows = stores.webhooks.purgeBefore(cutoff)
      const eventRows = stores.events.purgeBefore(cutoff)
      // Recordings: each organization's recording_retention_days (default 90).
      // Standalone batches: each has committed when it returns, so its files are gone too.
      const recordingsPurged = purgeRecordings({ stores, files: recordings, clock, transaction: (work) => database.standalone(work) })
      logger.info('retention_purge', { idempotency_records: idempotencyRecords, events: eventRows, deliveries: deliveryRows, recordings: recordingsPurged.calls, recording_files: recordingsPurged.files, console_sessions: consoleSessions })
    },
  })
}
