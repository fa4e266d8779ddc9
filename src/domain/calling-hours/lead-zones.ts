/**
 * A lead's time zones from its number: the longest NANP prefix in the generated table
 * (area code, sometimes area code + exchange). DESIGN.md: more than four zones (toll-free and
 * non-geographic numbers, which only match the bare '1' entry) means the organization's zone.
 */
import { describeCache, registerPureMemo } from '../../cache-registry'
import { NANP_ZONES, SPLIT_AREA_ZONES } from './area-zones.generated'

const MAX_ZONES = 4

/**
 * Prefix -> zones, split once at startup (about 2,000 entries) so intake does not re-split per
 * lead; null where the list is too broad to mean anything.
 */
const ZONES_BY_PREFIX = new Map<string, readonly string[] | null>(
  Object.entries(NANP_ZONES).map(([prefix, joined]) => {
    const zones = joined.split('&')
    return [prefix, zones.length > MAX_ZONES ? null : Object.freeze(zones)]
  }),
)
const LONGEST_PREFIX = Math.max(...Object.keys(NANP_ZONES).map((prefix) => prefix.length))
/** '1' and an area code: the key length of most entries. */
const AREA = 4
/** The few area codes split further by exchange; any other number's longest prefix is at most its area code. */
const SPLIT_AREAS = new Set(Object.keys(NANP_ZONES).filter((prefix) => prefix.length > AREA).map((prefix) => prefix.slice(0, AREA)))
/**
 * '1' + area code -> every zone its entries span, for the area codes split across zones: an
 * exchange the table does not list may be in any of them. Built once; the lists are shared.
 */
const UNLISTED_EXCHANGE_ZONES = new Map<string, readonly string[]>(
  Object.entries(SPLIT_AREA_ZONES).map(([area, joined]) => {
    // The area code's own zones first: callers that show one zone show the default, as before.
    const own = ZONES_BY_PREFIX.get(area) ?? []
    return [area, Object.freeze([...own, ...joined.split('&').filter((zone) => !own.includes(zone))])]
  }),
)
const UNION_LISTS = new Set<readonly string[]>(UNLISTED_EXCHANGE_ZONES.values())

/** Whether `zones` (from zonesForPhone) is a split area code's union, given for an unlisted exchange. */
export function isUnlistedExchangeZones(zones: readonly string[]): boolean {
  return UNION_LISTS.has(zones)
}

/**
 * A NANP number whose location the table cannot give: toll-free (800, 833-888), other
 * non-geographic codes (5XX, 600, ...), an area code with no entry or one too broad to mean
 * anything. zonesForPhone gives such a number the organization's zone.
 */
export function isNonGeographic(e164: string): boolean {
  if (e164.length !== 12 || !e164.startsWith('+1')) return false
  const area = e164.slice(1, 1 + AREA)
  return !SPLIT_AREAS.has(area) && !ZONES_BY_PREFIX.get(area)
}

/**
 * Where a non-geographic number's person may be: one zone per distinct US state clock (Eastern,
 * Central, Mountain, Arizona, Pacific, Alaska, Hawaii), so every window is read in the strictest.
 */
export const US_STATE_ZONES: readonly string[] = Object.freeze([
  'America/New_York', 'America/Chicago', 'America/Denver', 'America/Phoenix', 'America/Los_Angeles', 'America/Anchorage', 'Pacific/Honolulu',
])

/** The zones of the area code's own entry, when it has one (a split area code's default). */
export function areaDefaultZones(e164: string): readonly string[] {
  const digits = e164.startsWith('+') ? e164.slice(1) : e164
  return ZONES_BY_PREFIX.get(digits.slice(0, AREA)) ?? []
}

/**
 * The IANA zones a lead at `e164` (+1...) may be in; [orgTimezone] when the number does not say.
 * The list is shared and frozen (intake asks for every lead).
 */
export function zonesForPhone(e164: string, orgTimezone: string): readonly string[] {
  const digits = e164.startsWith('+') ? e164.slice(1) : e164
  // Keys are at most LONGEST_PREFIX digits (AREA unless the area code is split): longer candidates can never match.
  const area = digits.slice(0, AREA)
  if (!SPLIT_AREAS.has(area)) return areaOrBroader(digits, area, orgTimezone)
  for (let length = Math.min(digits.length, LONGEST_PREFIX); length > AREA; length--) {
    const zones = ZONES_BY_PREFIX.get(digits.slice(0, length))
    if (zones !== undefined) return zones ?? orgZone(orgTimezone)
  }
  // An exchange the table does not list: every zone of its area code, not just the default.
  return UNLISTED_EXCHANGE_ZONES.get(area) ?? areaOrBroader(digits, area, orgTimezone)
}

/** The area code's entry, else a shorter prefix (the bare '1' is too broad), else the organization's zone. */
function areaOrBroader(digits: string, area: string, orgTimezone: string): readonly string[] {
  const own = ZONES_BY_PREFIX.get(area)
  if (own !== undefined) return own ?? orgZone(orgTimezone)
  for (let length = Math.min(digits.length, AREA - 1); length >= 1; length--) {
    const zones = ZONES_BY_PREFIX.get(digits.slice(0, length))
    if (zones !== undefined) return zones ?? orgZone(orgTimezone)
  }
  return orgZone(orgTimezone)
}

// Kept for sharing, not speed (the gain is within noise): every lead of a zone gets the same frozen list.
const orgZones = new Map<string, readonly string[]>()
registerPureMemo(describeCache({
  name: 'org-zone-lists',
  holds: "the frozen one-zone list of an organization's zone, shared by its leads",
  bound: 'one per zone in use',
  clearedBy: 'nothing (pure)',
  gain: 'within noise (0.2 vs 0.3–0.9 µs); kept so the leads of a zone share one frozen list',
  source: 'pure',
}), () => orgZones.clear())
const orgZone = (zone: string): readonly string[] => {
  let list = orgZones.get(zone)
  if (list === undefined) {
    list = Object.freeze([zone])
    orgZones.set(zone, list)
  }
  return list
}
