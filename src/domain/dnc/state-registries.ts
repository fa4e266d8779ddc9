import { ApiError, invalid } from '../../errors'
import { RegistryIndex } from './registry-index'

/**
 * State Do Not Call lists (docs/dnc-registry.md, "State lists"): the states that keep a list of
 * their own beside the national registry, each loaded from its own file and checked for the
 * leads in that state (by area code or address), with the national registry's consent exception.
 */

export interface StateDncList {
  state: string
  /** The list's name as its keeper publishes it. */
  name: string
  /** The statute that makes callers scrub against it. */
  source: string
}

/** Every state known to keep its own list; docs/dnc-registry.md cites each. */
export const STATE_DNC_LISTS: readonly StateDncList[] = [
  { state: 'CO', name: 'Colorado No-Call List', source: 'C.R.S. 6-1-901 to 6-1-908 (Colorado No-Call List Act)' },
  { state: 'FL', name: 'Florida Do Not Call list', source: 'Fla. Stat. 501.059(3)' },
  { state: 'IN', name: 'Indiana Do Not Call list', source: 'Ind. Code 24-4.7 (Telephone Privacy)' },
  { state: 'LA', name: 'Louisiana Do Not Call program', source: 'La. R.S. 45:844.11 to 45:844.15 (Telephone Solicitation Relief Act)' },
  { state: 'MA', name: 'Massachusetts Do Not Call registry', source: 'M.G.L. c. 159C, s. 3' },
  { state: 'MS', name: 'Mississippi No Call list', source: 'Miss. Code Ann. 77-3-707 (Mississippi Telephone Solicitation Act, 77-3-701 et seq.)' },
  { state: 'MO', name: 'Missouri No-Call list', source: 'Mo. Rev. Stat. 407.1095 to 407.1110' },
  { state: 'OK', name: 'Oklahoma Do Not Call registry', source: 'Okla. Stat. tit. 15, 775B.1 et seq. (Telemarketer Restriction Act)' },
  { state: 'PA', name: 'Pennsylvania Do Not Call list', source: '73 P.S. 2245.2 (Telemarketer Registration Act)' },
  { state: 'TN', name: 'Tennessee Do Not Call register', source: 'Tenn. Code Ann. 65-4-401 to 65-4-408' },
  { state: 'TX', name: 'Texas No-Call list', source: 'Tex. Bus. & Com. Code ch. 304, subch. B (304.051 et seq.), as amended by SB 140 (2025), effective 2025-09-01' },
  { state: 'WY', name: 'Wyoming No-Call list', source: 'Wyo. Stat. 40-12-301 to 40-12-305' },
]

const STATES: ReadonlySet<string> = new Set(STATE_DNC_LISTS.map((l) => l.state))

/** `national`, or the two-letter code of a state with a list. */
export type RegistryList = string

/** The `list` of an import: absent or `national` is the national registry; else a state with a list, any case. */
export function registryListOf(value: string | undefined): RegistryList {
  if (value === undefined || value === '' || value.toLowerCase() === 'national') return 'national'
  const state = value.toUpperCase()
  if (STATES.has(state)) return state
  throw invalid(
    `list must be "national" or a state with its own Do Not Call list: ${[...STATES].join(', ')} (got "${value.slice(0, 40)}").`,
    'list',
  )
}

/** The decision and blocked_by rule id of a number on a state's list, e.g. "TX-dnc". */
export const stateDncRule = (state: string) => `${state}-dnc`

/** 422 on_dnc_list for a number on the list of a state the lead is in (intake, POST /calls). */
export const stateRegistryRefusal = (state: string, param: string | null) =>
  new ApiError('on_dnc_list', `This number is on the ${state} state Do Not Call list and the lead is in ${state}; send the lead with its consent (prior express written consent) to call it.`, {
    param,
    extras: { reason: 'state_registry' },
  })

const NONE: readonly string[] = Object.freeze([])

/**
 * The state lists in memory: one RegistryIndex per loaded state (about 5 bytes a number, as the
 * national one). A lookup first asks each loaded list about the number (a few O(1) probes, no
 * allocation); only a number found on one needs the lead's states.
 */
export class StateLists {
  readonly #lists = new Map<string, { index: RegistryIndex; importedAt: number | null }>()

  /** Replaces one state's list (boot, or after its import committed): one assignment, no mix. */
  set(state: string, index: RegistryIndex, importedAt: number | null): void {
    this.#lists.set(state, { index, importedAt })
  }

  total(state: string): number {
    return this.#lists.get(state)?.index.total ?? 0
  }

  importedAt(state: string): number | null {
    return this.#lists.get(state)?.importedAt ?? null
  }

  /**
   * The states, among the lead's (`statesOf`, called only when some list holds the number), whose
   * list holds the number; empty when none.
   */
  listing(e164: string, statesOf: () => readonly string[]): readonly string[] {
    let found: string[] | null = null
    for (const [state, list] of this.#lists) {
      if (list.index.has(e164)) (found ??= []).push(state)
    }
    if (found === null) return NONE
    const states = statesOf()
    const hits = found.filter((state) => states.includes(state)).sort()
    return hits.length === 0 ? NONE : hits
  }
}
