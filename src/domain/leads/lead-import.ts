import { ApiError, invalid, notFound } from '../../errors'
import type { Principal } from '../access/permissions'
import type { ImportService } from '../imports/import-service'
import { csvBatches, holdFile, nextTurn } from './csv-stream'
import { checkIntake, IMPORT_CHECKS } from './intake-checks'
import type { LeadCore } from './lead-core'
import type { LeadInput } from './lead-input'
import { IMPORTED_LEADS, type LeadWriter } from './lead-writer'

/**
 * CSV import of leads into a campaign: the admin API, the CLI and the console's
 * Import page. Each row meets the lead intake rules (IMPORT_CHECKS); good rows are written,
 * bad ones listed with their line number and the intake error code. No events: the spec says
 * CSV imports do not send lead.created (nor, then, the lead.queued that follows it).
 *
 * The file is streamed (csv-stream.ts); one import at a time per organization. A real import
 * keeps a record (lead_imports) whose counters commit with each chunk's leads, so a stop leaves
 * an interrupted record, and the same file sent again resumes it after the rows already done.
 */

/** Where a column goes: a lead field, or a custom field (`fields.<key>`). */
export type ImportTarget = 'phone' | 'name' | 'email' | 'address' | 'external_id' | `fields.${string}`

export interface ImportRowError {
  /** The line of the file (the header is line 1). */
  row: number
  code: string
  message: string
  param: string | null
}

export interface ImportResult {
  /** The import's record (GET /admin/imports/{id}); null for a dry run, which keeps none. */
  import_id: string | null
  /** Data rows skipped because an interrupted import of the same file had done them (0 unless resumed). */
  resumed_rows: number
  /** Data rows of the file; `imported` and `failed` count the whole import, across a resume. */
  rows: number
  imported: number
  failed: number
  /** The first MAX_LISTED_ERRORS rows this request refused. */
  errors: ImportRowError[]
  /** How many of each error code (this request's rows, not only those listed). */
  error_counts: Record<string, number>
  /** Header -> where it went; columns mapped nowhere are left out of the leads. */
  columns: { header: string; target: ImportTarget | null }[]
  dry_run: boolean
  /** A dry run of a file no row of which can pass as mapped (no phone column): why, so the mapping can be fixed. */
  problem: string | null
}

const NO_PHONE = 'No column holds the phone number: name one "phone", or map a column to phone.'

export const MAX_IMPORT_ROWS = 200_000
export const MAX_LISTED_ERRORS = 1000
/** Rows per transaction: a crash loses at most one chunk, and other requests get the event loop and the database between chunks. */
export const IMPORT_CHUNK_ROWS = 1000
/** Records per turn of the event loop while a file is only counted. */
const COUNT_BATCH = 2000

// Counts with thousands separators: a run of 7 digits would be masked as a phone number in the error envelope.
const tooManyRows = () =>
  invalid(`The file has more than ${MAX_IMPORT_ROWS.toLocaleString('en-US')} rows; at most ${MAX_IMPORT_ROWS.toLocaleString('en-US')} at once: split it.`, 'body')
const EMPTY = 'The file is empty: the first line names the columns, one lead a line after it.'

const ALIASES: Record<string, ImportTarget> = {
  phone: 'phone', phone_number: 'phone', mobile: 'phone', telephone: 'phone',
  name: 'name', full_name: 'name',
  email: 'email', email_address: 'email',
  address: 'address',
  external_id: 'external_id', externalid: 'external_id', crm_id: 'external_id',
}
const TARGET = /^(phone|name|email|address|external_id|fields\.[A-Za-z0-9_.-]{1,100})$/

function defaultTarget(header: string): ImportTarget | null {
  const h = header.trim()
  if (/^fields\.[A-Za-z0-9_.-]{1,100}$/.test(h)) return h as ImportTarget
  const name = h.toLowerCase().replace(/[\s-]+/g, '_')
  // Own keys only: a column named "constructor" or "__proto__" is a column like any other.
  return Object.hasOwn(ALIASES, name) ? ALIASES[name]! : null
}

/** Each header's target: the mapping given (header -> target, "" to leave a column out), else by its name. */
export function mapColumns(header: string[], mapping: Record<string, string> | undefined): ImportResult['columns'] {
  const columns = header.map((h) => {
    const given = mapping !== undefined && Object.hasOwn(mapping, h) ? mapping[h] : undefined
    if (given !== undefined && given !== '' && !TARGET.test(given)) throw invalid(`"${given}" is not a lead field: use phone, name, email, address, external_id or fields.<key>.`, `map.${h}`)
    return { header: h, target: given !== undefined ? ((given || null) as ImportTarget | null) : defaultTarget(h) }
  })
  const targets = columns.map((c) => c.target).filter((t) => t !== null)
  const twice = targets.find((t, i) => targets.indexOf(t) !== i)
  if (twice) throw invalid(`Two columns go to ${twice}; map one of them elsewhere.`, 'map')
  return columns
}

/** The `map` query parameter: a JSON object of header -> target, as the console and the CLI send it. */
export function parseMapping(raw: string | undefined): Record<string, string> | undefined {
  if (raw === undefined || raw === '') return undefined
  let value: unknown
  try {
    value = JSON.parse(raw)
  } catch {
    throw invalid('map must be a JSON object of column header -> lead field, such as {"Mobile":"phone"}.', 'map')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.values(value).some((v) => typeof v !== 'string')) {
    throw invalid('map must be a JSON object of column header -> lead field, such as {"Mobile":"phone"}.', 'map')
  }
  return value as Record<string, string>
}

function inputOf(cells: string[], columns: ImportResult['columns'], campaignId: string): LeadInput {
  const input: LeadInput = { campaign_id: campaignId, phone: '', call_now: false }
  columns.forEach((column, i) => {
    const value = cells[i] ?? ''
    if (column.target === null || value === '') return
    // Defined, not assigned: a field named __proto__ is a field, never the object's prototype.
    if (column.target.startsWith('fields.')) Object.defineProperty((input.fields ??= {}), column.target.slice(7), { value, enumerable: true, writable: true, configurable: true })
    else (input as unknown as Record<string, string>)[column.target] = value
  })
  return input
}

/** What the rows of one request came to. */
interface Tally {
  seen: Map<string, string | null>
  errors: ImportRowError[]
  counts: Record<string, number>
  imported: number
  failed: number
}

const newTally = (): Tally => ({ seen: new Map(), errors: [], counts: {}, imported: 0, failed: 0 })

export function leadImport(core: LeadCore, records: ImportService, writer: LeadWriter) {
  const { stores } = core.deps

  /** The whole file is refused before anything is read for a campaign that cannot take leads (as the first row would be). */
  function checkCampaign(principal: Principal, campaignId: string): void {
    const campaign = stores.campaigns.get(campaignId)
    if (!campaign || campaign.orgId !== principal.orgId) throw notFound('No such campaign', 'campaign_id')
    if (campaign.status === 'completed') throw new ApiError('campaign_closed', 'The campaign is completed and takes no new leads.', { param: 'campaign_id' })
  }

  /** Checks (and unless a dry run writes) rows, `firstLine` being the file line of the first; call inside a transaction. */
  function checkRows(principal: Principal, campaignId: string, columns: ImportResult['columns'], rows: string[][], firstLine: number, dryRun: boolean, tally: Tally): void {
    for (let i = 0; i < rows.length; i++) {
      try {
        const input = inputOf(rows[i]!, columns, campaignId)
        const ctx = checkIntake(core, principal, input, '', tally.seen, IMPORT_CHECKS)
        // Already a lead of the campaign (quiet long enough to re-queue through the API): imports only add.
        if (ctx.existing) throw new ApiError('duplicate_lead', 'This number or external_id is already a lead of the campaign.', { param: 'phone' })
        const id = dryRun ? null : writer.write(principal, input, ctx, IMPORTED_LEADS).id
        tally.seen.set(`p:${ctx.campaign.id}:${ctx.e164}`, id)
        if (input.external_id !== undefined) tally.seen.set(`x:${ctx.campaign.id}:${input.external_id}`, id)
        tally.imported++
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        // A campaign that cannot take leads refuses the whole file, not each row.
        if (error.param === 'campaign_id' || error.code === 'campaign_closed') throw error
        tally.failed++
        tally.counts[error.code] = (tally.counts[error.code] ?? 0) + 1
        if (tally.errors.length < MAX_LISTED_ERRORS) tally.errors.push({ row: firstLine + i, code: error.code, message: error.message, param: error.param })
      }
    }
  }

  /** A dry run: one pass over the body as it arrives, every row checked, nothing written, no record. */
  async function dryRun(principal: Principal, campaignId: string, source: AsyncIterable<Uint8Array>, mapping: Record<string, string> | undefined): Promise<ImportResult> {
    // As a real import: another organization's campaign is not found, even for a file of no rows.
    checkCampaign(principal, campaignId)
    let columns: ImportResult['columns'] | null = null
    let rows = 0
    const tally = newTally()
    for await (const batch of csvBatches(source, IMPORT_CHUNK_ROWS)) {
      let data = batch
      if (columns === null) {
        columns = mapColumns(batch[0]!, mapping)
        data = batch.slice(1)
      }
      if (rows + data.length > MAX_IMPORT_ROWS) throw tooManyRows()
      const cols = columns
      if (cols.some((c) => c.target === 'phone')) stores.transaction(() => checkRows(principal, campaignId, cols, data, rows + 2, true, tally))
      rows += data.length
      await nextTurn()
    }
    if (columns === null) throw invalid(EMPTY, 'body')
    // The preview still shows the columns, so a person can map one to phone.
    const problem = columns.some((c) => c.target === 'phone') ? null : NO_PHONE
    const result = { import_id: null, resumed_rows: 0, rows, errors: tally.errors, error_counts: tally.counts, columns, dry_run: true, problem }
    return problem ? { ...result, imported: 0, failed: rows, errors: [], error_counts: {} } : { ...result, imported: tally.imported, failed: tally.failed }
  }

  /**
   * A real import: the file is held (≤ 20 MB of bytes, hashed on the way), counted and checked
   * as CSV first so a file refused whole writes nothing; then its rows go in IMPORT_CHUNK_ROWS a
   * transaction, each with the record's counters.
   */
  async function importFile(principal: Principal, campaignId: string, source: AsyncIterable<Uint8Array>, mapping: Record<string, string> | undefined): Promise<ImportResult> {
    checkCampaign(principal, campaignId)
    const file = await holdFile(source)
    let header: string[] | null = null
    let total = 0
    for await (const batch of csvBatches(file.chunks, COUNT_BATCH)) {
      header ??= batch[0]!
      total += batch.length
      if (total - 1 > MAX_IMPORT_ROWS) throw tooManyRows()
      await nextTurn()
    }
    if (header === null) throw invalid(EMPTY, 'body')
    const columns = mapColumns(header, mapping)
    if (!columns.some((c) => c.target === 'phone')) throw invalid(NO_PHONE, 'map')

    const record = stores.transaction(() => records.begin({
      orgId: principal.orgId, campaignId, fileSha256: file.sha256, mapping: JSON.stringify(columns.map((c) => [c.header, c.target])), rowsTotal: total - 1,
    }))
    const skip = record.rowsDone
    const counters = { rowsDone: record.rowsDone, rowsImported: record.rowsImported, rowsFailed: record.rowsFailed }
    const tally = newTally()
    try {
      let line = 1
      for await (const batch of csvBatches(file.chunks, IMPORT_CHUNK_ROWS)) {
        const from = line
        line += batch.length
        // The header, then the rows an interrupted run already did: not checked again, not counted.
        const rows = batch.slice(Math.max(0, Math.min(batch.length, skip + 2 - from)))
        if (rows.length === 0) {
          await nextTurn()
          continue
        }
        const { imported, failed } = tally
        stores.transaction(() => {
          checkRows(principal, campaignId, columns, rows, line - rows.length, false, tally)
          records.progress(record.id, {
            rowsDone: counters.rowsDone + rows.length,
            rowsImported: counters.rowsImported + tally.imported - imported,
            rowsFailed: counters.rowsFailed + tally.failed - failed,
          })
        })
        counters.rowsDone += rows.length
        counters.rowsImported += tally.imported - imported
        counters.rowsFailed += tally.failed - failed
        await nextTurn()
      }
      stores.transaction(() => records.end(record.id, 'done'))
    } catch (error) {
      stores.transaction(() => records.end(record.id, 'interrupted'))
      throw error
    }
    return {
      import_id: record.id, resumed_rows: skip, rows: total - 1, imported: counters.rowsImported, failed: counters.rowsFailed,
      errors: tally.errors, error_counts: tally.counts, columns, dry_run: false, problem: null,
    }
  }

  return {
    /**
     * Checks every row and (unless a dry run) writes the good ones. One import (or dry run) at a
     * time per organization: the slot is taken before the body is read.
     */
    async run(principal: Principal, campaignId: string, source: AsyncIterable<Uint8Array>, options: { dryRun: boolean; mapping?: Record<string, string> }): Promise<ImportResult> {
      const release = records.claim(principal.orgId)
      try {
        return options.dryRun ? await dryRun(principal, campaignId, source, options.mapping) : await importFile(principal, campaignId, source, options.mapping)
      } finally {
        release()
      }
    },
  }
}

export type LeadImport = ReturnType<typeof leadImport>
