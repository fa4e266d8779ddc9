/**
 * Where a lead may be: the state or province of its number's area code, the
 * zones of its number (src/domain/calling-hours/lead-zones.ts), and, when its address ends in a
 * US ZIP code or a state, that state and its zone. Runs on every intake: the phone part is
 * memoized per zone list and area code, the merged reach per phone part and address key, and the
 * ZIP table is decoded once on first use.
 */
import { describeCache, registerPureMemo } from '../../cache-registry'
import { areaDefaultZones, isNonGeographic, isUnlistedExchangeZones, US_STATE_ZONES, zonesForPhone } from '../calling-hours/lead-zones'
import { AREA_STATES } from './area-states.generated'
import type { LeadReach } from './contract'
import { PROVINCES } from './state-rules'
import { PLACES, ZIP_BITS, ZIP_RUNS } from './zip-places.generated'

const CACHE_LIMIT = 50_000
const NO_NOTES: readonly string[] = Object.freeze([])

/** Area code -> its states/provinces (frozen, sorted). */
const AREA = new Map<string, readonly string[]>(
  AREA_STATES.split(',').map((pair) => {
    const [area, codes] = pair.split('=') as [string, string]
    return [area, Object.freeze(codes.split('&').sort())]
  }),
)

const STATE_NAMES: Record<string, string> = {
  ALABAMA: 'AL', ALASKA: 'AK', ARIZONA: 'AZ', ARKANSAS: 'AR', CALIFORNIA: 'CA', COLORADO: 'CO', CONNECTICUT: 'CT',
  DELAWARE: 'DE', 'DISTRICT OF COLUMBIA': 'DC', FLORIDA: 'FL', GEORGIA: 'GA', HAWAII: 'HI', IDAHO: 'ID', ILLINOIS: 'IL',
  INDIANA: 'IN', IOWA: 'IA', KANSAS: 'KS', KENTUCKY: 'KY', LOUISIANA: 'LA', MAINE: 'ME', MARYLAND: 'MD',
  MASSACHUSETTS: 'MA', MICHIGAN: 'MI', MINNESOTA: 'MN', MISSISSIPPI: 'MS', MISSOURI: 'MO', MONTANA: 'MT',
  NEBRASKA: 'NE', NEVADA: 'NV', 'NEW HAMPSHIRE': 'NH', 'NEW JERSEY': 'NJ', 'NEW MEXICO': 'NM', 'NEW YORK': 'NY',
  'NORTH CAROLINA': 'NC', 'NORTH DAKOTA': 'ND', OHIO: 'OH', OKLAHOMA: 'OK', OREGON: 'OR', PENNSYLVANIA: 'PA',
  'RHODE ISLAND': 'RI', 'SOUTH CAROLINA': 'SC', 'SOUTH DAKOTA': 'SD', TENNESSEE: 'TN', TEXAS: 'TX', UTAH: 'UT',
  VERMONT: 'VT', VIRGINIA: 'VA', WASHINGTON: 'WA', 'WEST VIRGINIA': 'WV', WISCONSIN: 'WI', WYOMING: 'WY',
  'PUERTO RICO': 'PR', GUAM: 'GU', 'AMERICAN SAMOA': 'AS', 'VIRGIN ISLANDS': 'VI', 'U.S. VIRGIN ISLANDS': 'VI',
  'NORTHERN MARIANA ISLANDS': 'MP',
  ALBERTA: 'AB', 'BRITISH COLUMBIA': 'BC', MANITOBA: 'MB', 'NEW BRUNSWICK': 'NB', 'NEWFOUNDLAND AND LABRADOR': 'NL',
  'NOVA SCOTIA': 'NS', 'NORTHWEST TERRITORIES': 'NT', NUNAVUT: 'NU', ONTARIO: 'ON', 'PRINCE EDWARD ISLAND': 'PE',
  QUEBEC: 'QC', SASKATCHEWAN: 'SK', YUKON: 'YT',
}
const CODES = new Set(Object.values(STATE_NAMES))

// Trailing country words, then an optional ZIP (+4), then the state (code or name) before it.
const COUNTRY = /[\s,.]*(?:U\.?S\.?A?\.?|UNITED STATES(?: OF AMERICA)?|CANADA)[\s.]*$/i
const ZIP = /(?:^|[\s,])(\d{5})(?:-\d{4})?[\s,.]*$/
const CODE = /(?:^|[\s,])([A-Za-z]{2})\.?[\s,]*$/
const NAME = new RegExp(`(?:^|[\\s,])(${Object.keys(STATE_NAMES).sort((a, b) => b.length - a.length).map((n) => n.replace(/\./g, '\\.')).join('|')})[\\s,.]*$`, 'i')

interface ZipTable {
  bits: Uint8Array
  /** Set bits before each byte. */
  rank: Uint32Array
  /** Rank at which each run ends (exclusive), and its place. */
  runEnds: Uint32Array
  runPlaces: Uint16Array
  places: { state: string; zone: string }[]
}
let zipTable: ZipTable | undefined
const POPCOUNT = Uint8Array.from({ length: 256 }, (_, n) => {
  let count = 0
  for (let v = n; v; v >>= 1) count += v & 1
  return count
})

function zips(): ZipTable {
  if (zipTable) return zipTable
  const binary = atob(ZIP_BITS)
  const bits = new Uint8Array(binary.length)
  const rank = new Uint32Array(binary.length + 1)
  for (let i = 0; i < binary.length; i++) {
    bits[i] = binary.charCodeAt(i)
    rank[i + 1] = rank[i]! + POPCOUNT[bits[i]!]!
  }
  const runs = ZIP_RUNS.split(',')
  const runEnds = new Uint32Array(runs.length)
  const runPlaces = new Uint16Array(runs.length)
  let end = 0
  runs.forEach((run, i) => {
    const [place, length] = run.split(':') as [string, string]
    end += parseInt(length, 36)
    runEnds[i] = end
    runPlaces[i] = parseInt(place, 36)
  })
  const places = PLACES.split(',').map((place) => {
    const [state, zone] = place.split('|') as [string, string]
    return { state, zone }
  })
  zipTable = { bits, rank, runEnds, runPlaces, places }
  return zipTable
}

/** The state and zone of a 5-digit ZIP, or null when no such ZIP exists. */
export function zipPlace(zip: string): { state: string; zone: string } | null {
  const n = Number(zip)
  const table = zips()
  const byte = n >> 3
  const bit = 1 << (n & 7)
  if (!(table.bits[byte]! & bit)) return null
  const index = table.rank[byte]! + POPCOUNT[table.bits[byte]! & (bit - 1)]!
  let lo = 0
  let hi = table.runEnds.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (table.runEnds[mid]! > index) hi = mid
    else lo = mid + 1
  }
  return table.places[table.runPlaces[lo]!]!
}

let zonesByState: Map<string, readonly string[]> | undefined
/** A US state's zones (from the ZIP table), for an address that names the state without a ZIP. */
export function stateZones(state: string): readonly string[] {
  if (!zonesByState) {
    const map = new Map<string, string[]>()
    for (const { state: s, zone } of zips().places) {
      const list = map.get(s) ?? []
      if (!list.includes(zone)) list.push(zone)
      map.set(s, list)
    }
    zonesByState = new Map([...map].map(([s, list]) => [s, Object.freeze(list.sort())]))
  }
  return zonesByState.get(state) ?? NO_NOTES
}

/** What an address says: a ZIP (known or not) and states named at its end. Exported for tests. */
export function parseAddress(address: string): { zip: string | null; states: string[] } {
  let text = address.trim().replace(COUNTRY, '')
  let zip: string | null = null
  const zipMatch = ZIP.exec(text)
  if (zipMatch) {
    zip = zipMatch[1]!
    text = text.slice(0, zipMatch.index)
  }
  text = text.replace(/[\s,.]+$/, '')
  const states: string[] = []
  const name = NAME.exec(text)
  if (name) states.push(STATE_NAMES[name[1]!.toUpperCase()]!)
  else {
    const code = CODE.exec(text)?.[1]?.toUpperCase()
    if (code && CODES.has(code)) states.push(code)
  }
  return { zip, states }
}

/** Zone list (shared frozen lists from lead-zones) -> area code -> reach. */
const phoneMemo = new Map<readonly string[], Map<string, LeadReach>>()
/** Phone reach -> "ZIP|states" -> merged reach. */
let addressMemo = new WeakMap<LeadReach, Map<string, LeadReach>>()
const pure = (name: string, holds: string, bound: string, gain: string) =>
  describeCache({ name, holds, bound, clearedBy: 'nothing (pure)', gain, source: 'pure' })
registerPureMemo(pure(
  'rule-reach-phones', "a lead's reach from its number, per zone list and area code", '50,000 area codes a zone list; full, that list is emptied',
  '0.6–1.1 vs 0.9–1.4 µs a reachOf; kept also so the leads of an area code share one frozen reach (the memos after it key on it)',
), () => phoneMemo.clear())
registerPureMemo(pure(
  'rule-reach-addresses', "a lead's reach with its address, per phone reach and address ZIP and state", '50,000 addresses a phone reach; full, they are emptied',
  '1.4 vs 3.6–4.3 µs a reachOf with an address',
), () => {
  addressMemo = new WeakMap()
})

function phoneReach(e164: string, orgTimezone: string): LeadReach {
  // Toll-free and other non-geographic numbers could ring anywhere: every US state clock applies.
  const nonGeographic = isNonGeographic(e164)
  const zones = nonGeographic ? US_STATE_ZONES : zonesForPhone(e164, orgTimezone)
  const nanp = e164.startsWith('+1') && e164.length === 12
  const area = nanp ? e164.slice(2, 5) : ''
  let byArea = phoneMemo.get(zones)
  if (!byArea) {
    byArea = new Map()
    phoneMemo.set(zones, byArea)
  }
  let reach = byArea.get(area)
  if (!reach) {
    const states = AREA.get(area) ?? NO_NOTES
    // No state for a NANP number: toll-free or non-geographic (US), else a Caribbean or other NANP
    // country (null). Non-NANP: null.
    const country = states.length > 0 ? (PROVINCES.has(states[0]!) ? 'CA' : 'US') : nonGeographic ? 'US' : null
    reach = Object.freeze({ country, states, zones, notes: NO_NOTES, ...guessed(e164, zones) })
    if (byArea.size >= CACHE_LIMIT) byArea.clear()
    byArea.set(area, reach)
  }
  return reach
}

/** An unlisted exchange of a split area code: the zones beyond its area code's default. */
function guessed(e164: string, zones: readonly string[]): { guessedZones?: readonly string[] } {
  if (!isUnlistedExchangeZones(zones)) return {}
  const known = areaDefaultZones(e164)
  const extra = zones.filter((zone) => !known.includes(zone))
  return extra.length > 0 ? { guessedZones: Object.freeze(extra) } : {}
}

/** The lead's reach; shared frozen objects (do not mutate). */
export function reachOf(e164: string, address: string | null, orgTimezone: string): LeadReach {
  const base = phoneReach(e164, orgTimezone)
  if (address === null || address.trim() === '') return base
  const { zip, states } = parseAddress(address)
  if (zip === null && states.length === 0) return base
  const key = `${zip ?? ''}|${states.join(',')}`
  let byAddress = addressMemo.get(base)
  if (!byAddress) {
    byAddress = new Map()
    addressMemo.set(base, byAddress)
  }
  let reach = byAddress.get(key)
  if (!reach) {
    reach = merge(base, zip, states)
    if (byAddress.size >= CACHE_LIMIT) byAddress.clear()
    byAddress.set(key, reach)
  }
  return reach
}

function merge(base: LeadReach, zip: string | null, named: string[]): LeadReach {
  const states = new Set(base.states)
  const zones = new Set(base.zones)
  // Zones the address gives are known, even when the number's exchange is not.
  const fromAddress = new Set<string>()
  const notes: string[] = []
  if (zip !== null) {
    const place = zipPlace(zip)
    if (place) {
      states.add(place.state)
      zones.add(place.zone)
      fromAddress.add(place.zone)
    } else notes.push(`zip_unknown:${zip}`)
  }
  for (const state of named) {
    if (states.has(state)) continue
    states.add(state)
    // The ZIP's zone is enough when it names the same state; a state alone adds all its zones.
    for (const zone of stateZones(state)) {
      zones.add(zone)
      fromAddress.add(zone)
    }
  }
  const guessedZones = base.guessedZones?.filter((zone) => !fromAddress.has(zone))
  const country = base.country ?? ([...states].some((s) => !PROVINCES.has(s)) ? 'US' : states.size > 0 ? 'CA' : null)
  return Object.freeze({
    country,
    states: Object.freeze([...states].sort()),
    zones: Object.freeze([...zones]),
    notes: notes.length > 0 ? Object.freeze(notes) : NO_NOTES,
    ...(guessedZones && guessedZones.length > 0 ? { guessedZones: Object.freeze(guessedZones) } : {}),
  })
}
