import { stringify } from 'csv-stringify'
import { chmodSync, closeSync, mkdirSync, openSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import type { Stores } from '../../db/stores'
import type { ExportRow } from '../../db/stores/export-store'
import { invalid, notFound } from '../../errors'
import { iso, type Clock } from '../../jobs/clock'
import { logger } from '../../log'
import { requireAllCampaigns, requirePermission, type Principal } from '../access/permissions'
import { newId } from '../ids'
import { parseCalendarDate, type CalendarDate } from '../calendar-date'
import { zonedTime } from '../calling-hours/calling-window'
import type { SignedLinks } from '../links/signed-links'
import { safeRow } from './csv-cell'

export type ExportType = 'leads' | 'call_history' | 'analytics'
export interface ExportFilters {
  campaignId?: string
  startDate?: string
  endDate?: string
}

/** DESIGN.md: a download link (and the file) lasts 24 hours. */
export const EXPORT_LIFE_MS = 24 * 60 * 60 * 1000
// How long POST /exports waits for a file before answering pending.
const WAIT_FOR_READY_MS = 5_000
// Rows read from SQLite at a time.
const PAGE = 2_000

const COLUMNS: Record<ExportType, string[]> = {
  leads: ['id', 'external_id', 'campaign_id', 'name', 'phone', 'email', 'address', 'status', 'call_now', 'attempts', 'last_outcome', 'last_outcome_label', 'lead_source', 'created', 'updated'],
  call_history: ['id', 'lead_id', 'external_id', 'campaign_id', 'direction', 'status', 'outcome', 'outcome_label', 'duration_seconds', 'started', 'answered', 'ended', 'handled_by', 'note'],
  analytics: ['day', 'campaign_id', 'campaign_name', 'leads_added', 'calls', 'calls_connected', 'minutes'],
}

/** A ready file past its expiry shows expired even before the hourly cleanup removes it. */
export const exportView = (row: ExportRow, now: number) => ({
  id: row.id,
  exportType: row.exportType,
  status: row.status === 'ready' && row.expiresAt <= now ? 'expired' : row.status,
  rowCount: row.rowCount,
  createdAt: iso(row.created),
  expiresAt: iso(row.expiresAt),
  livemode: row.livemode,
})

/**
 * CSV exports. The file is written under the data directory by streaming rows from SQLite
 * through csv-stringify (a million rows never sit in memory), and served through a signed link
 * until it expires; an hourly job removes expired files.
 */
export function exportService(deps: { stores: Stores; clock: Clock; links: SignedLinks; dataDir: string }) {
  const { stores, clock } = deps
  const dir = join(deps.dataDir, 'exports')

  function checkFilters(principal: Principal, filters: ExportFilters): void {
    for (const field of ['startDate', 'endDate'] as const) {
      const value = filters[field]
      if (value !== undefined && !parseCalendarDate(value)) {
        throw invalid(`filters.${field} must be a date, YYYY-MM-DD.`, `filters.${field}`)
      }
    }
    if (filters.startDate && filters.endDate && filters.endDate < filters.startDate) {
      throw invalid('filters.endDate must not be before filters.startDate.', 'filters.endDate')
    }
    if (filters.campaignId) {
      const campaign = stores.campaigns.get(filters.campaignId)
      if (!campaign || campaign.orgId !== principal.orgId) throw notFound('No such campaign.', 'filters.campaignId')
    }
  }

  /** [from, to) unix ms for the date filters: whole days in the organization's zone. */
  function range(orgId: string, filters: ExportFilters): { from: number; to: number } {
    const zone = stores.orgs.get(orgId)?.timezone ?? 'UTC'
    // Checked by checkFilters before the export is recorded.
    const day = (value: string): CalendarDate => parseCalendarDate(value)!
    return {
      from: filters.startDate ? zonedTime(zone, day(filters.startDate), '00:00') : 0,
      to: filters.endDate ? zonedTime(zone, { ...day(filters.endDate), d: day(filters.endDate).d + 1 }, '00:00') : Number.MAX_SAFE_INTEGER,
    }
  }

  /** Pages of `PAGE` rows by id, until one comes back short. */
  function* paged<T extends { id: string }>(page: (afterId: string) => T[]): Generator<T> {
    let after = ''
    for (;;) {
      const rows = page(after)
      yield* rows
      if (rows.length < PAGE) return
      after = rows[rows.length - 1]!.id
    }
  }

  function* rowsOf(row: ExportRow): Generator<unknown[]> {
    const { from, to } = range(row.orgId, row.filters)
    const campaign = row.filters.campaignId ?? null
    if (row.exportType === 'leads') {
      for (const lead of paged((after) => stores.exports.leadsPage(row.orgId, row.livemode, campaign, from, to, after, PAGE))) {
        yield [lead.id, lead.externalId, lead.campaignId, lead.name, lead.phone, lead.email, lead.address, lead.status, lead.callNow ? 'true' : 'false',
          lead.attempts, lead.lastOutcome, lead.lastOutcomeLabel, lead.leadSource, iso(lead.created), iso(lead.updated)]
      }
    } else if (row.exportType === 'call_history') {
      for (const call of paged((after) => stores.exports.callsPage(row.orgId, row.livemode, campaign, from, to, after, PAGE))) {
        const handledBy = JSON.parse(call.handledBy) as { name: string; role: string }
        yield [call.id, call.leadId, call.externalId, call.campaignId, call.direction, call.status, call.outcome, call.outcomeLabel,
          call.durationSeconds, iso(call.started), call.answered ? iso(call.answered) : null, call.ended ? iso(call.ended) : null,
          `${handledBy.name} (${handledBy.role})`, call.note]
      }
    } else {
      const names = new Map<string, string>()
      for (const r of stores.exports.analytics(row.orgId, row.livemode, campaign, row.filters.startDate ?? '0000-00-00', row.filters.endDate ?? '9999-99-99')) {
        if (!names.has(r.campaignId)) names.set(r.campaignId, stores.campaigns.get(r.campaignId)?.name ?? '')
        yield [r.day, r.campaignId, names.get(r.campaignId), r.leadsAdded, r.calls, r.callsConnected, r.minutes]
      }
    }
  }

  /** A test key gets a small made-up file of the same columns. */
  function* sampleRows(type: ExportType): Generator<unknown[]> {
    const at = iso(clock.now())
    for (let i = 1; i <= 3; i++) {
      if (type === 'leads') yield [`sample-${i}`, `crm-${i}`, 'sample-campaign', `Sample Lead ${i}`, `+1415555010${i}`, null, null, 'queued', 'false', 0, null, null, 'api', at, at]
      else if (type === 'call_history') yield [`sample-call-${i}`, `sample-${i}`, `crm-${i}`, 'sample-campaign', 'outbound', 'ended', 'no_answer', 'No answer', 0, at, null, at, 'AI assistant (ai)', null]
      else yield [at.slice(0, 10), 'sample-campaign', 'Sample campaign', i, i * 2, i, i * 3]
    }
  }

  /** Streams the rows into the file; the export becomes ready (or failed). */
  async function write(row: ExportRow, rows: Iterable<unknown[]>): Promise<void> {
    const path = join(dir, `${row.id}.csv`)
    // Lead data: the owner's only (0700 folder, 0600 file), whatever the umask.
    if (mkdirSync(dir, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(dir, 0o700)
    closeSync(openSync(path, 'w', 0o600))
    chmodSync(path, 0o600)
    const sink = Bun.file(path).writer({ highWaterMark: 1 << 20 })
    const csv = stringify({ header: true, columns: COLUMNS[row.exportType] })
    // Every text cell a spreadsheet could run as a formula gets a leading ' (csv-cell.ts).
    const safe = safeRow(COLUMNS[row.exportType])
    let count = 0
    try {
      const done = (async () => {
        for await (const chunk of csv) sink.write(chunk as Buffer)
      })()
      for (const values of rows) {
        // Back-pressure: let the writer drain every few thousand rows so memory stays flat.
        if (!csv.write(safe(values))) await new Promise((resolve) => csv.once('drain', resolve))
        count++
      }
      csv.end()
      await done
      await sink.end()
      stores.exports.update(row.id, { status: 'ready', rowCount: count, filePath: `exports/${row.id}.csv` })
    } catch (error) {
      logger.error('export_failed', { export_id: row.id, error: String(error) })
      await Promise.resolve(sink.end()).catch(() => {})
      rmSync(path, { force: true })
      stores.exports.update(row.id, { status: 'failed', error: String(error).slice(0, 500) })
    }
  }

  return {
    /**
     * POST /exports: leads:read and calls:read on a key for every campaign. Answers once the file
     * is ready, or pending when it takes longer (GET /exports shows it ready later).
     */
    async create(principal: Principal, type: ExportType, filters: ExportFilters) {
      requirePermission(principal, 'leads:read')
      requirePermission(principal, 'calls:read')
      requireAllCampaigns(principal, 'leads:read')
      checkFilters(principal, filters)
      const now = clock.now()
      const row = stores.exports.insert({
        id: newId(), orgId: principal.orgId, livemode: principal.livemode, keyId: principal.keyId, exportType: type, filters,
        status: 'pending', rowCount: 0, created: now, expiresAt: now + EXPORT_LIFE_MS,
      })
      const writing = write(row, principal.livemode ? rowsOf(row) : sampleRows(type))
      await Promise.race([writing, Bun.sleep(WAIT_FOR_READY_MS)])
      const current = stores.exports.get(row.id)!
      return { export: exportView(current, clock.now()), downloadUrl: deps.links.url(`/exports/${row.id}/download`, row.expiresAt), livemode: principal.livemode }
    },

    /** GET /exports: the organization's exports (a test key has none). */
    list(principal: Principal) {
      requirePermission(principal, 'leads:read')
      requirePermission(principal, 'calls:read')
      requireAllCampaigns(principal, 'leads:read')
      if (!principal.livemode) return []
      return stores.exports.list(principal.orgId, true).map((row) => exportView(row, clock.now()))
    },

    /** The file behind a signed link: 403 when the link is bad or expired, 404 when the file is gone. */
    file(id: string, expires: string | undefined, signature: string | undefined): { path: string; name: string } {
      deps.links.verify(`/exports/${id}/download`, expires, signature, clock.now())
      const row = stores.exports.get(id)
      if (!row || row.status !== 'ready' || !row.filePath || row.expiresAt <= clock.now()) throw notFound('This export is not available.')
      return { path: join(deps.dataDir, row.filePath), name: `${row.exportType}-${row.id}.csv` }
    },

    /** Boot: a file whose writing a stop cut short is failed and removed (ask for a new export). */
    recover(): void {
      for (const row of stores.exports.pending()) {
        rmSync(join(dir, `${row.id}.csv`), { force: true })
        stores.exports.update(row.id, { status: 'failed', error: 'The service stopped while the file was written.' })
      }
    },

    /** The cleanup job: expired exports lose their file. */
    removeExpired(): number {
      let removed = 0
      for (const row of stores.exports.expired(clock.now())) {
        if (row.filePath) rmSync(join(deps.dataDir, row.filePath), { force: true })
        stores.exports.update(row.id, { status: 'expired', filePath: null })
        removed++
      }
      return removed
    },
  }
}

export type ExportService = ReturnType<typeof exportService>
