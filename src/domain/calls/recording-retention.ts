import type { CallStore } from '../../db/stores/call-store'
import type { OrgStore } from '../../db/stores/org-store'
import type { Clock } from '../../jobs/clock'
import { logger } from '../../log'
import type { RecordingFiles } from './recording-files'

const DAY_MS = 86_400_000
const BATCH = 500
const ORG_PAGE = 100

export interface PurgeRecordingsDeps {
  stores: {
    orgs: Pick<OrgStore, 'list'>
    calls: Pick<CallStore, 'recordedEndedBefore' | 'clearRecordings'>
    afterDurable: (effect: () => void) => void
  }
  files: Pick<RecordingFiles, 'remove'>
  clock: Clock
  /**
   * Each batch's unit of work. Pass one that has committed when it returns
   * (`database.standalone`, a background batch): then `files` in the result is complete.
   */
  transaction: <T>(work: () => T) => T
}

export interface PurgeRecordingsResult {
  /** Calls whose recording_available went from true to false. */
  calls: number
  /** Files removed by the time this returned (simulator calls have none). */
  files: number
}

/**
 * The daily recording purge: each organization's recordings whose call ended more than its
 * recording_retention_days ago are deleted, and the calls say recording_available false
 * (GET .../recording: 404 recording_not_available). A call ended exactly at the cutoff is kept.
 * In batches of 500, each clearing its flags in one transaction; the files go once that is
 * durable, so a rolled-back or lost batch keeps both flag and file (never a flag without its
 * file). A file already gone is fine.
 */
export function purgeRecordings(deps: PurgeRecordingsDeps): PurgeRecordingsResult {
  const { stores, files } = deps
  // One instant for the whole run: every organization's cutoff is measured from it.
  const now = deps.clock.now()
  const result: PurgeRecordingsResult = { calls: 0, files: 0 }
  const removeAll = (ids: readonly string[]) => {
    for (const id of ids) {
      try {
        if (files.remove(id)) result.files++
      } catch (error) {
        // This file stays on disk (its flag is cleared): the others still go.
        logger.error('recording_remove_failed', { call_id: id, error: String(error instanceof Error ? error.message : error) })
      }
    }
  }
  for (let after: string | undefined, orgs = stores.orgs.list(ORG_PAGE); orgs.length > 0; orgs = stores.orgs.list(ORG_PAGE, after)) {
    after = orgs[orgs.length - 1]!.id
    for (const org of orgs) {
      const cutoff = now - org.recordingRetentionDays * DAY_MS
      for (;;) {
        const { ids, cleared } = deps.transaction(() => {
          const ids = stores.calls.recordedEndedBefore(org.id, cutoff, BATCH)
          const cleared = stores.calls.clearRecordings(ids)
          if (ids.length > 0) stores.afterDurable(() => removeAll(ids))
          return { ids, cleared }
        })
        result.calls += cleared
        // A short batch was the last; a batch that cleared nothing would only repeat itself.
        if (ids.length < BATCH || cleared === 0) break
      }
    }
  }
  return result
}
