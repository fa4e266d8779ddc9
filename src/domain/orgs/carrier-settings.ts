import type { OrgCarrierRow } from '../../db/stores/org-store'
import { ApiError, invalid } from '../../errors'
import type { SecretBox } from '../secrets/secret-box'

/**
 * An organization's carrier for live calls: the default kind (the simulator: no row, no
 * settings), or another kind with its settings and secrets. What a kind takes, how it is
 * checked and shown, and which changes strand calls that are up are its plug-in's rules
 * (src/telephony/<kind>/settings.ts), lent as a port (CarrierRules, wired in src/services.ts).
 * Kept here, the same for every kind: another kind's fields refused, secrets sealed bound to the
 * organization and never shown (`<name>_set`), a secret not sent kept, the stored row.
 */

/** The admin API's `carrier` field as sent (schema-checked: a known kind, types and lengths only). */
export type CarrierInput = { kind: string; [field: string]: unknown }

/** What admin replies show: the kind, its settings and `<name>_set` per secret; never a secret. */
export type CarrierView = { kind: string; [field: string]: unknown }

/** What a carrier uses: its kind and settings, secrets opened (each carrier reads its own kind's). */
export type OpenedCarrier = { readonly kind: string }

/** What a dial decides with, read without opening a secret. */
export interface DialSettings {
  kind: string
  callerIds: readonly string[]
  machineDetection: boolean
}

/** Checked settings of a kind: what to store, and the secrets sent (one not sent keeps the stored one). */
export interface CheckedSettings {
  settings: Record<string, unknown>
  secrets: Record<string, string>
}

export interface CheckedCarrier extends CheckedSettings {
  kind: string
}

/** The stored settings of the same kind, as its rules compare a change with them. */
export interface StoredSettings {
  settings: Record<string, unknown>
  /** A stored secret, opened; null when there is none or it does not open (the key changed). */
  secret(name: string): string | null
}

/** One kind's settings rules, declared by its carrier plug-in. */
export interface CarrierSettingsRules {
  /** The `carrier` fields this kind takes besides `kind`, in the order they are checked. */
  readonly fields: readonly string[]
  /** The write-only ones among them: sealed at rest for the organization, shown as `<name>_set`. */
  readonly secrets: readonly string[]
  /**
   * Checks the fields sent against the stored settings of the same kind (undefined: none, or
   * another kind's); throws 400 naming `<param>.<field>` at the first fault, never echoing a
   * secret. A secret not sent is kept: the rules refuse that where the stored one cannot go on.
   */
  check(input: Record<string, unknown>, stored: Record<string, unknown> | undefined, options: { param: string; allowPrivate: boolean }): CheckedSettings
  /** The reply's fields besides `kind` and the `<name>_set` markers. */
  view(settings: Record<string, unknown>): Record<string, unknown>
  /** What each dial reads: the numbers to call from and whether to detect machines. */
  dialing(settings: Record<string, unknown>): { callerIds: readonly string[]; machineDetection: boolean }
  open(settings: Record<string, unknown>, secrets: Record<string, string>): OpenedCarrier
  /** Whether a change within the kind strands calls that are up (what their callbacks and hang-ups rely on). */
  strandsCalls(stored: StoredSettings, next: CheckedSettings): boolean
  /** The 409's words: what waits for calls to end, and what may change now. */
  readonly inProgress: { later: string; now: string }
}

/** Every kind's rules (src/telephony/registry.ts `carrierRules`). */
export interface CarrierRules {
  /** Organizations that set no carrier dial this kind: it keeps no row and takes no fields. */
  readonly defaultKind: string
  /** Every kind, in the registry's order. */
  readonly kinds: readonly string[]
  /** A kind's rules; undefined for the default kind (and for a kind this build does not know). */
  rulesOf(kind: string): CarrierSettingsRules | undefined
}

/** What a sealed secret is bound to: it opens for this organization, kind and field only. */
export const secretContext = (orgId: string, kind: string, name: string) => `org:${orgId}:${kind}_${name}`

function rulesOf(rules: CarrierRules, kind: string): CarrierSettingsRules {
  const own = rules.rulesOf(kind)
  if (!own) throw new Error(`no settings rules for carrier "${kind}"`)
  return own
}

/** Checks a `carrier` object against the stored settings; throws 400 with `param` on the first fault. */
export function checkCarrier(
  rules: CarrierRules, input: CarrierInput, stored: OrgCarrierRow | undefined, param = 'carrier', allowPrivate = false,
): CheckedCarrier {
  const own = rules.rulesOf(input.kind)?.fields ?? []
  for (const kind of rules.kinds) {
    for (const field of rules.rulesOf(kind)?.fields ?? []) {
      if (input[field] === undefined || own.includes(field)) continue
      const takers = rules.kinds.filter((taker) => rules.rulesOf(taker)?.fields.includes(field)).map((taker) => `"${taker}"`)
      throw invalid(`${param}.${field} is taken only with kind ${takers.join(' or ')}.`, `${param}.${field}`)
    }
  }
  if (input.kind === rules.defaultKind) return { kind: input.kind, settings: {}, secrets: {} }
  const { kind, ...fields } = input
  const sameKind = stored?.kind === kind ? stored.settings : undefined
  return { kind, ...rulesOf(rules, kind).check(fields, sameKind, { param, allowPrivate }) }
}

/**
 * Whether checked settings change what a call already placed relies on: the kind, or what its
 * rules say (for Twilio: the account, its token, one that does not open counting as changed, or
 * the endpoint). Caller IDs and detection are read only when a call is dialed.
 */
export function changesPlacedCalls(rules: CarrierRules, stored: OrgCarrierRow | undefined, checked: CheckedCarrier, box: SecretBox): boolean {
  if (!stored) return false
  if (checked.kind !== stored.kind) return true
  const secret = (name: string) => {
    const sealed = stored.secretsSealed[name]
    if (sealed === undefined) return null
    try {
      return box.open(sealed, secretContext(stored.orgId, stored.kind, name))
    } catch {
      return null
    }
  }
  return rulesOf(rules, stored.kind).strandsCalls({ settings: stored.settings, secret }, checked)
}

/** 409: the organization's carrier cannot change under calls that are up (worded by the stored kind's rules, when known). */
export function callsInProgress(count: number, words?: CarrierSettingsRules['inProgress'], param = 'carrier'): ApiError {
  return new ApiError(
    'calls_in_progress',
    `The organization has ${count} carrier call${count === 1 ? '' : 's'} in progress; its carrier${words ? `, ${words.later}` : ''} can change once they have ended ` +
      `(pause its campaigns, wait, and send it again).${words ? ` ${words.now} can change now.` : ''}`,
    { param },
  )
}

export function carrierView(rules: CarrierRules, row: OrgCarrierRow | undefined): CarrierView {
  if (!row) return { kind: rules.defaultKind }
  const own = rules.rulesOf(row.kind)
  const view: CarrierView = { kind: row.kind, ...own?.view(row.settings) }
  for (const name of own?.secrets ?? Object.keys(row.secretsSealed)) view[`${name}_set`] = Object.hasOwn(row.secretsSealed, name)
  return view
}

/** What a dial reads (no secret opened); null for the default kind and a kind this build does not know. */
export function dialSettings(rules: CarrierRules, row: OrgCarrierRow | undefined): DialSettings | null {
  const own = row && rules.rulesOf(row.kind)
  return own ? { kind: row.kind, ...own.dialing(row.settings) } : null
}

/** The settings the carrier uses; throws SecretBoxError when a secret does not open (the key changed). */
export function openCarrier(rules: CarrierRules, row: OrgCarrierRow | undefined, box: SecretBox): OpenedCarrier {
  if (!row) return { kind: rules.defaultKind }
  const secrets = Object.fromEntries(
    Object.entries(row.secretsSealed).map(([name, sealed]) => [name, box.open(sealed, secretContext(row.orgId, row.kind, name))]),
  )
  return rulesOf(rules, row.kind).open(row.settings, secrets)
}

/** The row to store for checked input (null: no row, the default kind); secrets not sent keep their sealed value. */
export function carrierRow(
  rules: CarrierRules, orgId: string, checked: CheckedCarrier, stored: OrgCarrierRow | undefined, box: SecretBox, now: number,
): OrgCarrierRow | null {
  if (checked.kind === rules.defaultKind) return null
  const secretsSealed = { ...(stored?.kind === checked.kind ? stored.secretsSealed : {}) }
  for (const [name, value] of Object.entries(checked.secrets)) secretsSealed[name] = box.seal(value, secretContext(orgId, checked.kind, name))
  return { orgId, kind: checked.kind, weight: null, position: 0, settings: checked.settings, secretsSealed, created: stored?.created ?? now, updated: now }
}
