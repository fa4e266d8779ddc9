import type { RegistryStore } from '../../db/stores/registry-store'
import { ApiError, invalid } from '../../errors'
import type { Clock } from '../../jobs/clock'
import { RegistryIndex } from './registry-index'
import { RegistryParser } from './registry-parser'
import { registryListOf, STATE_DNC_LISTS, StateLists, type RegistryList } from './state-registries'

export { MAX_REJECTED_LINES, parseRegistry, RegistryParser } from './registry-parser'

/**
 * The port the rest of the service reads the national Do Not Call registry and the state lists
 * through (intake, POST /calls, the dialer at dial time). They bind every organization, live and test mode.
 */
export interface NationalRegistry {
  /** Whether the E.164 number is on the registry (only +1 numbers ever are). O(1), no I/O. */
  isListed(e164: string): boolean
  /**
   * The states among the lead's whose own list holds the number (sorted; empty when none).
   * `statesOf` gives the lead's states (contactability's `states`); it is called only when some
   * state list holds the number. A few O(1) probes, no I/O.
   */
  stateListing(e164: string, statesOf: () => readonly string[]): readonly string[]
  /** Distinct numbers loaded. */
  readonly total: number
}

/** What an import did (POST /admin/dnc_registry). */
export interface RegistryImportReport {
  /** The list replaced: "national" or a state's code. */
  list: RegistryList
  /** Distinct numbers read from the file: the registry's size now (an import replaces). */
  imported: number
  total: number
  lines: number
  /** The first MAX_REJECTED_LINES bad line numbers (1-based); `rejectedCount` counts them all. */
  rejected: number[]
  rejectedCount: number
  duplicates: number
  importedAt: number
}

export interface RegistrySummary {
  total: number
  /** When the list in use was imported; null before the first import. */
  importedAt: number | null
  /** Every state with a list of its own, loaded or not (total 0, importedAt null). */
  states: { state: string; total: number; importedAt: number | null }[]
}

/** Bytes parsed, and numbers sorted, between two pauses that let other requests run. */
const PAUSE_BYTES = 1024 * 1024
const PAUSE_NUMBERS = 1_000_000

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Lists smaller than this may shrink freely (a test list, a first small import). */
export const SHRINK_GUARD_MIN = 1000

const count = (n: number) => n.toLocaleString('en-US')

/**
 * Refuses (409 registry_shrink) to replace a list of SHRINK_GUARD_MIN numbers or more with one
 * under half its size, unless forced: a truncated or wrong download must not silently empty the
 * registry. `list` names the list being replaced, so each list is judged against its own size.
 */
export function checkShrink(list: string, current: number, next: number, force: boolean): void {
  if (force || current < SHRINK_GUARD_MIN || next * 2 >= current) return
  throw new ApiError(
    'registry_shrink',
    `The file holds ${count(next)} numbers where the ${list} list in use holds ${count(current)}: importing it would drop more than half of the list, ` +
      'so nothing was changed. Check the file; to replace the list anyway, send it again with force=true (dialer admin registry import --force).',
    { param: 'body' },
  )
}

/**
 * The registry service: the in-memory index (loaded from SQLite at boot), imports that
 * replace it, and the lookups. An import parses the file as it streams in, writes the new
 * list in one transaction, and only then swaps the index: a lookup sees the old list or the
 * new one, never half of either, and a failed import leaves the old one in place.
 */
export function nationalRegistry(deps: { store: RegistryStore; clock: Clock }) {
  const { store, clock } = deps
  let index = RegistryIndex.empty
  let importedAt: number | null = null
  let importing = false
  let states = new StateLists()

  return {
    isListed: (e164: string): boolean => index.has(e164),
    stateListing: (e164: string, statesOf: () => readonly string[]): readonly string[] => states.listing(e164, statesOf),
    get total(): number {
      return index.total
    },

    /** Builds the indexes from the stored lists, national and state (boot). Returns how long it took, in ms. */
    load(): number {
      const started = performance.now()
      const areas: [number, Uint32Array][] = []
      for (const area of store.areas()) areas.push([area.areaCode, area.subscribers])
      index = new RegistryIndex(areas)
      importedAt = store.lastImport()?.importedAt ?? null
      const byState = new Map<string, RegistryIndex>()
      for (const area of store.stateAreas()) {
        let list = byState.get(area.state)
        if (!list) byState.set(area.state, (list = new RegistryIndex()))
        list.add(area.areaCode, area.subscribers)
      }
      const loaded = new StateLists()
      for (const row of store.lastImports()) {
        if (row.list !== 'national') loaded.set(row.list!, byState.get(row.list!) ?? RegistryIndex.empty, row.importedAt)
      }
      states = loaded
      return performance.now() - started
    },

    summary(): RegistrySummary {
      return {
        total: index.total,
        importedAt,
        states: STATE_DNC_LISTS.map(({ state }) => ({ state, total: states.total(state), importedAt: states.importedAt(state) })),
      }
    },

    /**
     * Imports a registry file given as chunks of bytes (an HTTP body, a file stream), replacing
     * one list: the national registry, or the state named by `list` (the others stay). One
     * import at a time (a second is 429: each holds the whole list in memory). A file with no
     * good number is refused and changes nothing.
     */
    async import(chunks: AsyncIterable<Uint8Array>, options: { force?: boolean; list?: string } = {}): Promise<RegistryImportReport> {
      const list = registryListOf(options.list)
      if (importing) {
        throw new ApiError('rate_limited', 'A registry import is already running; retry once it has finished.', {
          retryAfter: 30,
          extras: { reason: 'registry_import_running' },
        })
      }
      importing = true
      try {
        const parser = new RegistryParser()
        let sincePause = 0
        for await (const chunk of chunks) {
          for (let at = 0; at < chunk.length;) {
            const taken = parser.push(chunk.subarray(at))
            at += taken
            sincePause += taken
            // Stopped early (it made new buffers), or 1 MB parsed: other requests' turn.
            if (at < chunk.length || sincePause >= PAUSE_BYTES) {
              sincePause = 0
              await nextTurn()
            }
          }
        }
        parser.end()
        // Sorted and indexed an area code at a time, with pauses: the new index is not read by anyone yet.
        const next = new RegistryIndex()
        const areas: [number, Uint32Array][] = []
        let total = 0
        let duplicates = parser.compacted
        let sorted = 0
        for (const area of parser.areaCodes()) {
          const [numbers, repeats] = parser.takeArea(area)
          areas.push([area, numbers])
          next.add(area, numbers)
          total += numbers.length
          duplicates += repeats
          sorted += numbers.length
          if (sorted >= PAUSE_NUMBERS) {
            sorted = 0
            await nextTurn()
          }
        }
        const { lines, rejected, rejectedCount } = parser.counts()
        if (total === 0) {
          const why = lines === 0 ? 'The file is empty' : `None of its ${lines} lines holds a valid 10-digit US number`
          throw invalid(`${why}; the ${list === 'national' ? 'registry' : `${list} list`} was not changed (send one 10-digit number per line).`, 'body')
        }
        const national = list === 'national'
        checkShrink(list, national ? index.total : states.total(list), total, options.force === true)
        const at = clock.now()
        const rows = areas.map(([areaCode, subscribers]) => ({ areaCode, subscribers }))
        const record = { importedAt: at, total, lines, rejected: rejectedCount, duplicates }
        if (national) store.replace(rows, record)
        else store.replaceState(list, rows, record)
        // Committed: from now on every lookup sees the new list.
        if (national) {
          index = next
          importedAt = at
        } else states.set(list, next, at)
        return { list, imported: total, total, lines, rejected, rejectedCount, duplicates, importedAt: at }
      } finally {
        importing = false
      }
    },
  }
}

export type NationalRegistryService = ReturnType<typeof nationalRegistry>
