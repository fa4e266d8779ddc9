import type { Person } from '../../db/schema'
import type { BridgePerson, Carrier } from '../../telephony/carrier'

/** The carrier a call goes through, with what the organization set for it. */
export interface CarrierChoice {
  carrier: Carrier
  /** The organization's caller IDs (empty for the simulator). */
  callerIds: readonly string[]
  machineDetection: boolean
}

/** Picks the carrier of a dial, and finds the one that placed a call (by the name kept on it). */
export interface CarrierDirectory {
  forDial(orgId: string, livemode: boolean): CarrierChoice
  named(name: string): Carrier | undefined
}

/**
 * Test keys always dial the default carrier (the simulator); live keys dial the organization's
 * carrier (the default unless it set another).
 */
export function carrierDirectory(deps: {
  /** Every carrier, by kind (the name kept on each call). */
  carriers: Readonly<Record<string, Carrier>>
  /** Test keys, and organizations without carrier settings. */
  fallback: Carrier
  /** The organization's carrier settings (without secrets): null for the default. */
  settingsOf: (orgId: string) => { kind: string; callerIds: readonly string[]; machineDetection: boolean } | null
}): CarrierDirectory {
  const fallback: CarrierChoice = { carrier: deps.fallback, callerIds: [], machineDetection: true }
  const named = (name: string) => (Object.hasOwn(deps.carriers, name) ? deps.carriers[name] : undefined)
  return {
    forDial(orgId, livemode) {
      if (!livemode) return fallback
      const settings = deps.settingsOf(orgId)
      const carrier = settings ? named(settings.kind) : undefined
      return settings && carrier ? { carrier, callerIds: settings.callerIds, machineDetection: settings.machineDetection } : fallback
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
