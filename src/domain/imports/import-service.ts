import type { ImportCounters, ImportStore, LeadImportRow } from '../../db/stores/import-store'
import { ApiError, notFound } from '../../errors'
import type { Clock } from '../../jobs/clock'
import { newId } from '../ids'

/**
 * The record every lead CSV import keeps (table lead_imports): running while it goes, done at
 * the end, interrupted when a stop or an error cuts it short. The same file imported again into
 * the same campaign with the same mapping resumes an interrupted one (docs/console.md). Also
 * the one-import-at-a-time rule per organization (a process-local claim: one process serves
 * the database).
 */
export function importService(deps: { imports: ImportStore; clock: Clock }) {
  const { imports, clock } = deps
  const busy = new Set<string>()

  return {
    get(id: string): LeadImportRow {
      const row = imports.get(id)
      if (!row) throw notFound('No such import')
      return row
    },
    list(orgId: string, limit: number, startingAfter?: string): LeadImportRow[] {
      return imports.listForOrg(orgId, limit, startingAfter)
    },

    /** Claims the organization's one import slot; the returned function gives it back. 409 while another runs. */
    claim(orgId: string): () => void {
      if (busy.has(orgId)) {
        throw new ApiError('import_in_progress', 'Another CSV import of this organization is running; wait for it to finish.', { retryAfter: 5 })
      }
      busy.add(orgId)
      return () => busy.delete(orgId)
    },

    /**
     * The record this import writes to: the newest interrupted one of the same file, campaign and
     * mapping (running again, its counters kept), else a new one.
     */
    begin(file: { orgId: string; campaignId: string; fileSha256: string; mapping: string; rowsTotal: number }): LeadImportRow {
      const now = clock.now()
      const interrupted = imports.findInterrupted(file.orgId, file.campaignId, file.fileSha256, file.mapping)
      if (interrupted) {
        imports.setState(interrupted.id, 'running', now)
        return { ...interrupted, state: 'running', updated: now }
      }
      return imports.insert({ id: newId(), ...file, state: 'running', created: now, updated: now })
    },
    /** A chunk's counters: called inside the chunk's transaction, so they commit with its leads. */
    progress(id: string, counters: ImportCounters): void {
      imports.progress(id, counters, clock.now())
    },
    end(id: string, state: 'done' | 'interrupted'): void {
      imports.setState(id, state, clock.now())
    },
    /** Boot: an import still running when the process stopped will never finish; it can be resumed. */
    interruptRunning(): number {
      return imports.interruptRunning(clock.now())
    },
  }
}

export type ImportService = ReturnType<typeof importService>
