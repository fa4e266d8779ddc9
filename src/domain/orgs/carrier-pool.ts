import type { OrgCarrierRow } from '../../db/stores/org-store'
import { invalid } from '../../errors'
import type { SecretBox } from '../secrets/secret-box'
import {
  carrierRow, carrierView, changesPlacedCalls, checkCarrier, dialSettings,
  type CarrierInput, type CarrierRules, type CarrierView, type CheckedCarrier, type DialSettings,
} from './carrier-settings'

/**
 * An organization's carriers as one list: none (the default kind), one `carrier` (weight null),
 * or a `carriers` pool of 1-4 entries of distinct kinds, each with a weight (its share of dials)
 * and its place in the list (the order failover tries the others in). Each entry is checked by
 * its kind's rules, its secrets kept by kind when not sent.
 */

/** One `carriers` entry as sent: a carrier's settings and its weight. */
export type PoolEntryInput = CarrierInput & { weight: number }

/** At most this many entries (one per kind). */
export const POOL_MAX = 4

/** What the organization asks for: a single carrier, or a pool ([] back to the default). */
export type CarrierRequest = { carrier: CarrierInput } | { carriers: readonly PoolEntryInput[] }

/** The checked list: each entry's settings and weight (null: a single carrier), in order. */
export type CheckedPool = (CheckedCarrier & { weight: number | null })[]

/** A pool entry as reads show it. */
export type PoolView = CarrierView & { weight: number | null }

/** Checks what was sent against the stored rows; throws 400 naming the first fault's `param`. */
export function checkCarriers(rules: CarrierRules, request: CarrierRequest, stored: readonly OrgCarrierRow[], allowPrivate: boolean): CheckedPool {
  const storedOf = (kind: string) => stored.find((row) => row.kind === kind)
  if ('carrier' in request) {
    const checked = checkCarrier(rules, request.carrier, storedOf(request.carrier.kind), 'carrier', allowPrivate)
    return checked.kind === rules.defaultKind ? [] : [{ ...checked, weight: null }]
  }
  const entries = request.carriers
  if (entries.length > POOL_MAX) throw invalid(`carriers takes at most ${POOL_MAX} entries (one per kind).`, 'carriers')
  const seen = new Set<string>()
  return entries.map((entry, i) => {
    const param = `carriers[${i}]`
    const { weight, ...input } = entry
    if (input.kind === rules.defaultKind) {
      throw invalid(`${param}.kind: the ${rules.defaultKind} is the default carrier, not a pool entry; send carriers: [] to go back to it.`, `${param}.kind`)
    }
    if (seen.has(input.kind)) throw invalid(`${param}.kind: "${input.kind}" is in the pool already; each kind at most once.`, `${param}.kind`)
    seen.add(input.kind)
    if (!Number.isInteger(weight) || weight < 1 || weight > 100) throw invalid(`${param}.weight must be a whole number from 1 to 100.`, `${param}.weight`)
    return { ...checkCarrier(rules, input, storedOf(input.kind), param, allowPrivate), weight }
  })
}

/** The rows to store for a checked list (secrets not sent keep their sealed value, by kind). */
export function poolRows(
  rules: CarrierRules, orgId: string, checked: CheckedPool, stored: readonly OrgCarrierRow[], box: SecretBox, now: number,
): OrgCarrierRow[] {
  return checked.flatMap((entry, position) => {
    const row = carrierRow(rules, orgId, entry, stored.find((s) => s.kind === entry.kind), box, now)
    return row ? [{ ...row, weight: entry.weight, position }] : []
  })
}

/**
 * The kinds whose calls that are up the change would strand: a kind left out of the new list,
 * or one whose own rules say the change does (for Twilio: the account, its token, the endpoint).
 */
export function strandedKinds(rules: CarrierRules, stored: readonly OrgCarrierRow[], checked: CheckedPool, box: SecretBox): string[] {
  return stored.filter((row) => {
    const next = checked.find((entry) => entry.kind === row.kind)
    return !next || changesPlacedCalls(rules, row, next, box)
  }).map((row) => row.kind)
}

/** Every entry as reads show it, in order: [] for the default kind. */
export function poolView(rules: CarrierRules, rows: readonly OrgCarrierRow[]): PoolView[] {
  return rows.map((row) => ({ ...carrierView(rules, row), weight: row.weight }))
}

/** An entry as a dial reads it (no secret opened). */
export type DialEntry = DialSettings & { weight: number }

/** What dials choose from: each entry of a kind this build knows, in order (a single carrier weighs 1). */
export function dialPool(rules: CarrierRules, rows: readonly OrgCarrierRow[]): DialEntry[] {
  return rows.flatMap((row) => {
    const settings = dialSettings(rules, row)
    return settings ? [{ ...settings, weight: row.weight ?? 1 }] : []
  })
}
