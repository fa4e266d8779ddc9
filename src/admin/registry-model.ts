import { iso } from '../jobs/clock'
import type { RegistryImportReport, RegistrySummary } from '../domain/dnc/national-registry'

/** POST /admin/dnc_registry's `data` (docs/dnc-registry.md). */
export const presentRegistryImport = (r: RegistryImportReport) => ({
  list: r.list,
  imported: r.imported,
  total: r.total,
  lines: r.lines,
  rejected: r.rejected,
  rejected_count: r.rejectedCount,
  duplicates: r.duplicates,
  imported_at: iso(r.importedAt),
})

/** GET /admin/dnc_registry's `data`: the national list's fields, then each state list's. */
export const presentRegistry = (r: RegistrySummary) => ({
  total: r.total,
  imported_at: r.importedAt === null ? null : iso(r.importedAt),
  states: r.states.map((s) => ({ state: s.state, total: s.total, imported_at: s.importedAt === null ? null : iso(s.importedAt) })),
})
