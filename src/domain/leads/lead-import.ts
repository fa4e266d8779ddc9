import { parse } from 'csv-parse/sync'
import type { LeadRow, NewLead } from '../../db/stores/lead-store'
import { ApiError, invalid } from '../../errors'
import type { Principal } from '../access/permissions'
import { newId } from '../ids'
import { checkIntake, IMPORT_CHECKS } from './intake-checks'
import { emptyToNull, type LeadCore } from './lead-core'
import type { LeadInput } from './lead-input'

/**
 * CSV import of leads into a campaign (issue 19): the admin API, the CLI and the console's
 * Import page. Each row meets the lead intake rules (IMPORT_CHECKS); good rows are written,
 * bad ones listed with their line number and the intake error code. No events: the spec says
 * CSV imports do not send lead.created (nor, then, the lead.queued that follows it).
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
  rows: number
  imported: number
  failed: number
  /** The first MAX_LISTED_ERRORS rows that were refused. */
  errors: ImportRowError[]
  /** How many of each error code (all rows, not only those listed). */
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
/** Rows per transaction: a crash loses at most one chunk, and other requests get the database between chunks. */
const CHUNK = 2000

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
  return ALIASES[h.toLowerCase().replace(/[\s-]+/g, '_')] ?? null
}

/** The file's rows as strings; 400 naming the line for a CSV that cannot be read. */
export function parseCsv(text: string): string[][] {
  try {
    return parse(text, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true, max_record_size: 64 * 1024 }) as string[][]
  } catch (error) {
    const e = error as { lines?: number; message?: string }
    throw invalid(`The file is not CSV this service can read${e.lines ? ` (line ${e.lines})` : ''}: ${String(e.message ?? error).slice(0, 200)}`, 'body')
  }
}

/** Each header's target: the mapping given (header -> target, "" to leave a column out), else by its name. */
export function mapColumns(header: string[], mapping: Record<string, string> | undefined): ImportResult['columns'] {
  const columns = header.map((h) => {
    const given = mapping?.[h]
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
    if (column.target.startsWith('fields.')) (input.fields ??= {})[column.target.slice(7)] = value
    else (input as unknown as Record<string, string>)[column.target] = value
  })
  return input
}

export function leadImport(core: LeadCore) {
  const { stores, clock } = core.deps

  function write(principal: Principal, input: LeadInput, ctx: ReturnType<typeof checkIntake>): LeadRow {
    const now = clock.now()
    const fresh: NewLead = {
      id: newId(), orgId: principal.orgId, campaignId: ctx.campaign.id, livemode: principal.livemode,
      externalId: input.external_id ?? null, phone: ctx.e164, name: emptyToNull(input.name), email: emptyToNull(input.email),
      address: emptyToNull(input.address), fields: input.fields ?? {}, consent: null, leadSource: 'import', owner: null,
      addedByKeyId: principal.keyId, callRequestedBy: null, callNow: false, queuedAt: now, lastPostedAt: now, created: now, updated: now, status: 'new',
    }
    Object.assign(fresh, core.placementChanges(ctx.placement, { callNow: false, queuedAt: now }))
    const row = stores.leads.insert(fresh)
    core.follow(null, row)
    return row
  }

  return {
    /**
     * Checks every row and (unless a dry run) writes the good ones, CHUNK rows a transaction,
     * giving the event loop back between chunks: other requests are served while a large file
     * imports (about 20 ms a chunk on the development VM).
     */
    async run(principal: Principal, campaignId: string, text: string, options: { dryRun: boolean; mapping?: Record<string, string> }): Promise<ImportResult> {
      const records = parseCsv(text)
      if (records.length === 0) throw invalid('The file is empty: the first line names the columns, one lead a line after it.', 'body')
      const [header, ...rows] = records as [string[], ...string[][]]
      if (rows.length > MAX_IMPORT_ROWS) throw invalid(`The file has ${rows.length} rows; at most ${MAX_IMPORT_ROWS} at once.`, 'body')
      const columns = mapColumns(header, options.mapping)
      if (!columns.some((c) => c.target === 'phone')) {
        // The preview still shows the columns, so a person can map one to phone; a real import is refused.
        if (!options.dryRun) throw invalid(NO_PHONE, 'map')
        return { rows: rows.length, imported: 0, failed: rows.length, errors: [], error_counts: {}, columns, dry_run: true, problem: NO_PHONE }
      }
      const seen = new Map<string, string | null>()
      const errors: ImportRowError[] = []
      const counts: Record<string, number> = {}
      let imported = 0
      for (let start = 0; start < rows.length; start += CHUNK) {
        if (start > 0) await new Promise((resolve) => setImmediate(resolve))
        stores.transaction(() => {
          for (let i = start; i < Math.min(rows.length, start + CHUNK); i++) {
            const line = i + 2
            try {
              const input = inputOf(rows[i]!, columns, campaignId)
              const ctx = checkIntake(core, principal, input, '', seen, IMPORT_CHECKS)
              // Already a lead of the campaign (quiet long enough to re-queue through the API): imports only add.
              if (ctx.existing) throw new ApiError('duplicate_lead', 'This number or external_id is already a lead of the campaign.', { param: 'phone' })
              const id = options.dryRun ? null : write(principal, input, ctx).id
              seen.set(`p:${ctx.campaign.id}:${ctx.e164}`, id)
              if (input.external_id !== undefined) seen.set(`x:${ctx.campaign.id}:${input.external_id}`, id)
              imported++
            } catch (error) {
              if (!(error instanceof ApiError)) throw error
              // A campaign that cannot take leads refuses the whole file, not each row.
              if (error.param === 'campaign_id' || error.code === 'campaign_closed') throw error
              counts[error.code] = (counts[error.code] ?? 0) + 1
              if (errors.length < MAX_LISTED_ERRORS) errors.push({ row: line, code: error.code, message: error.message, param: error.param })
            }
          }
        })
      }
      return { rows: rows.length, imported, failed: rows.length - imported, errors, error_counts: counts, columns, dry_run: options.dryRun, problem: null }
    },
  }
}

export type LeadImport = ReturnType<typeof leadImport>
