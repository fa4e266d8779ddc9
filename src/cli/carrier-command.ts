/**
 * `dialer admin org carrier ORG_ID`: the organization's carrier from the shell. The flags are
 * not the body's fields one for one (a switch picks the kind; the token comes from a file or
 * stdin, so it never sits in ps output or shell history), so this builds the `carrier` object.
 */
import type { FieldKind } from './field-kind'
import { CliError, EXIT } from './cli-error'
import { readSecret } from './secret-input'
import type { CarrierFlag } from '../telephony/plugin'
import { CARRIER_KINDS, CARRIERS, carrierRules, DEFAULT_CARRIER, type CarrierKind } from '../telephony/registry'

// The switches: the other carriers first, the default (switching back to it) last.
const KINDS: CarrierKind[] = [...CARRIER_KINDS.filter((kind) => kind !== DEFAULT_CARRIER), DEFAULT_CARRIER]
const flagsOf = (kind: CarrierKind): Record<string, CarrierFlag> => CARRIERS[kind].cli.flags

/** A `--<kind>` switch per carrier of the registry, then each carrier's own flags. */
export const CARRIER_FLAGS: Record<string, FieldKind> = Object.fromEntries([
  ...KINDS.map((kind) => [kind, 'switch']),
  ...KINDS.flatMap((kind) => Object.entries(flagsOf(kind)).map(([flag, { kind: type }]) => [flag, type])),
])

export const CARRIER_NOTES: Record<string, string> = Object.fromEntries([
  ...KINDS.map((kind) => [kind, CARRIERS[kind].cli.note]),
  ...KINDS.flatMap((kind) => Object.entries(flagsOf(kind)).map(([flag, { note }]) => [flag, note])),
])

const usage = 'Run `dialer admin org carrier --help` for its flags.'

// A kind's secret fields (its settings rules') come from --<name>-file or --<name>-stdin, never a flag's value.
const SECRETS = [...new Set(KINDS.flatMap((kind) => carrierRules.rulesOf(kind)?.secrets ?? []))]

/** The body with the secrets (the auth token) read in, at send time (parsing reads no file and no stdin). */
export function withCarrierToken(fields: Record<string, unknown>, body: Record<string, unknown>): Record<string, unknown> {
  let carrier = body.carrier as Record<string, unknown>
  for (const name of SECRETS) {
    const file = fields[`${name}_file`] as string | undefined
    const stdin = fields[`${name}_stdin`] === true
    if (file === undefined && !stdin) continue
    carrier = { ...carrier, [name]: readSecret({ file, stdin }, name.replace(/_/g, ' ')) }
  }
  return carrier === body.carrier ? body : { ...body, carrier }
}

/** The PATCH body for the flags given, the token left out (withCarrierToken adds it); throws CliError (exit 2) for a combination that cannot work. */
export function carrierBody(fields: Record<string, unknown>): Record<string, unknown> {
  const chosen = KINDS.filter((kind) => fields[kind] === true)
  if (chosen.length !== 1) throw new CliError(`give ${KINDS.map((kind) => `--${kind}`).join(' or ')} (one of them)`, EXIT.usage, usage)
  const kind = chosen[0]!
  const extra = Object.keys(fields).find((flag) => flag !== kind && !(flag in flagsOf(kind)))
  if (extra) {
    const owner = KINDS.find((other) => extra in flagsOf(other))
    throw new CliError(`--${extra.replace(/_/g, '-')} goes only with --${owner}`, EXIT.usage, usage)
  }
  let settings: Record<string, unknown>
  try {
    settings = CARRIERS[kind].cli.body(fields)
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error), EXIT.usage, usage)
  }
  return { carrier: { kind, ...settings } }
}
