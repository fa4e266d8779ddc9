import type { Person } from '../../db/schema'
import type { BridgePerson, Carrier } from '../../telephony/carrier'
import type { CarrierBreakers } from './carrier-breaker'

/** The carrier a call goes through, with what the organization set for it. */
export interface CarrierChoice {
  carrier: Carrier
  /** The caller IDs of the carrier's entry (empty for the simulator). */
  callerIds: readonly string[]
  machineDetection: boolean
}

/** A dial's carrier, and the pool's other kinds in its order: where a call the carrier refuses for an outage goes next. */
export interface DialChoice extends CarrierChoice {
  fallbacks: readonly string[]
}

/** One carrier of an organization as dials read it (orgs.dialPool): a single carrier weighs 1. */
export interface PoolEntry {
  kind: string
  callerIds: readonly string[]
  machineDetection: boolean
  weight: number
}

/** Picks the carrier of a dial, and finds the one that placed a call (by the name kept on it). */
export interface CarrierDirectory {
  /**
   * Seated dials (power/predictive: the seat's conference is at one carrier) and seats take the
   * pool's first entry; other dials one by weight among those whose breaker lets calls through.
   */
  forDial(orgId: string, livemode: boolean, options?: { seated?: boolean }): DialChoice
  /** The next pool entry in order, not yet tried, whose breaker lets calls through; null: none left. */
  next(orgId: string, tried: readonly string[]): CarrierChoice | null
  /** The entry whose caller IDs include `number` (a call to one of the organization's numbers); null: none. */
  forNumber(orgId: string, number: string): CarrierChoice | null
  named(name: string): Carrier | undefined
}

/** The entry `random` (0 <= random < 1) falls on, each taking its weight's share of [0, 1). */
export function pickWeighted<T extends { weight: number }>(entries: readonly T[], random: number): T {
  const total = entries.reduce((sum, entry) => sum + entry.weight, 0)
  let point = random * total
  for (const entry of entries) {
    if (point < entry.weight) return entry
    point -= entry.weight
  }
  return entries[entries.length - 1]!
}

/**
 * Test keys always dial the default carrier (the simulator); live keys dial the organization's
 * carrier (the default unless it set another), or one of its pool by weight.
 */
export function carrierDirectory(deps: {
  /** Every carrier, by kind (the name kept on each call). */
  carriers: Readonly<Record<string, Carrier>>
  /** Test keys, and organizations without carrier settings. */
  fallback: Carrier
  /** The organization's carriers (without secrets) in the pool's order: [] for the default. */
  poolOf: (orgId: string) => readonly PoolEntry[]
  /** Skips carriers in an outage (absent: none is skipped). */
  breakers?: Pick<CarrierBreakers, 'allows'>
  /** 0 <= n < 1 (tests pass a seeded one). */
  random?: () => number
}): CarrierDirectory {
  const fallback: DialChoice = { carrier: deps.fallback, callerIds: [], machineDetection: true, fallbacks: [] }
  const random = deps.random ?? Math.random
  const named = (name: string) => (Object.hasOwn(deps.carriers, name) ? deps.carriers[name] : undefined)
  const choiceOf = (entry: PoolEntry): CarrierChoice => ({ carrier: named(entry.kind)!, callerIds: entry.callerIds, machineDetection: entry.machineDetection })
  const entriesOf = (orgId: string) => deps.poolOf(orgId).filter((entry) => named(entry.kind) !== undefined)
  const allows = (orgId: string, entry: PoolEntry) => deps.breakers?.allows(orgId, entry.kind) ?? true
  return {
    forDial(orgId, livemode, options) {
      if (!livemode) return fallback
      const entries = entriesOf(orgId)
      if (entries.length === 0) return fallback
      if (options?.seated || entries.length === 1) return { ...choiceOf(entries[0]!), fallbacks: [] }
      // Every breaker open: dial by weight anyway (the call fails fast, and its lead is tried again).
      const open = entries.filter((entry) => allows(orgId, entry))
      const chosen = pickWeighted(open.length > 0 ? open : entries, random())
      return { ...choiceOf(chosen), fallbacks: entries.filter((entry) => entry !== chosen).map((entry) => entry.kind) }
    },
    next(orgId, tried) {
      const entry = entriesOf(orgId).find((e) => !tried.includes(e.kind) && allows(orgId, e))
      return entry ? choiceOf(entry) : null
    },
    forNumber(orgId, number) {
      const entry = entriesOf(orgId).find((e) => e.callerIds.includes(number))
      return entry ? choiceOf(entry) : null
    },
    named,
  }
}

/** The caller ID sharing the lead's area code (+1 NPA), else the first; null when there is none. */
export function chooseCallerId(callerIds: readonly string[], leadPhone: string): string | null {
  const area = leadPhone.slice(0, 5)
  return callerIds.find((id) => id.slice(0, 5) === area) ?? callerIds[0] ?? null
}

/** Who a person who answers is bridged to: the SDRs with a phone, then the closers with one. */
export function bridgeOf(campaign: { sdrs: Person[]; closers: Person[] }): BridgePerson[] {
  const withPhone = (people: Person[], role: 'sdr' | 'closer') =>
    people.filter((p) => p.phone).map((p) => ({ id: role === 'closer' ? null : p.id, name: p.name, role, phone: p.phone! }))
  return [...withPhone(campaign.sdrs, 'sdr'), ...withPhone(campaign.closers, 'closer')]
}
