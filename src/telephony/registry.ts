import { t } from 'elysia'
import type { CarrierRules } from '../domain/orgs/carrier-settings'
import type { Carrier } from './carrier'
import type { CarrierPlugin } from './plugin'
import type { CallbackDoor, CarrierPorts } from './ports'
import { simulatorPlugin } from './simulator/plugin'
import { twilioPlugin } from './twilio/plugin'
import { telnyxPlugin } from './telnyx/plugin'

/**
 * Every carrier, by kind (the admin API's `carrier.kind`, the CLI's `--<kind>` switch and the
 * name kept on each call). A carrier is one folder under src/telephony/ and one line here.
 */
export const CARRIERS = {
  simulator: simulatorPlugin,
  twilio: twilioPlugin,
  telnyx: telnyxPlugin,
}

export type CarrierKind = keyof typeof CARRIERS

/** Test keys, and live keys of organizations that set no carrier. */
export const DEFAULT_CARRIER: CarrierKind = 'simulator'

export const CARRIER_KINDS = Object.keys(CARRIERS) as CarrierKind[]

/** The carriers as built, by kind, each with its own type. */
export type CarrierSet = { [K in CarrierKind]: ReturnType<(typeof CARRIERS)[K]['create']> }

// Each plugin is called with its own carrier only (kind by kind), which the map's types cannot say.
const pluginOf = (kind: CarrierKind) => CARRIERS[kind] as unknown as CarrierPlugin<Carrier>

for (const kind of CARRIER_KINDS) {
  if (kind !== DEFAULT_CARRIER && !pluginOf(kind).rules) throw new Error(`carrier "${kind}" declares no settings rules`)
}

/** Each kind's settings rules, for the organization service (src/domain/orgs/carrier-settings.ts). */
export const carrierRules: CarrierRules = {
  defaultKind: DEFAULT_CARRIER,
  kinds: CARRIER_KINDS,
  rulesOf: (kind) => (Object.hasOwn(CARRIERS, kind) && kind !== DEFAULT_CARRIER ? pluginOf(kind as CarrierKind).rules : undefined),
}

/** Builds every carrier from the service's ports. */
export function createCarriers(ports: CarrierPorts): CarrierSet {
  const set: Partial<Record<CarrierKind, Carrier>> = {}
  for (const kind of CARRIER_KINDS) set[kind] = pluginOf(kind).create(ports)
  return set as CarrierSet
}

/** The carriers as a list (whatever each one's own type). */
export const carrierList = (carriers: CarrierSet): Carrier[] => CARRIER_KINDS.map((kind) => carriers[kind])

/** Each carrier's callback routes (none for a carrier without callbacks), for the app to mount. */
export function carrierRoutes(carriers: CarrierSet, door: CallbackDoor) {
  return CARRIER_KINDS.flatMap((kind) => pluginOf(kind).routes?.(carriers[kind], door) ?? [])
}

/** The watchdog's minute: each carrier looks up calls it has heard nothing of for long. */
export function watchCarriers(carriers: CarrierSet): void {
  for (const kind of CARRIER_KINDS) pluginOf(kind).watch?.(carriers[kind])
}

/**
 * The admin API's `carrier` object: a kind, and the fields of every kind (each optional; the
 * domain refuses another kind's fields and requires a kind's own).
 */
export const carrierInputSchema = (options: { additionalProperties: false }) =>
  t.Object(
    {
      kind: t.Union(CARRIER_KINDS.map((kind) => t.Literal(kind))),
      ...(Object.assign({}, ...CARRIER_KINDS.map((kind) => CARRIERS[kind].settings.properties)) as SettingsFields),
    },
    options,
  )

type Intersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never
type SettingsFields = Intersection<{ [K in CarrierKind]: (typeof CARRIERS)[K]['settings']['properties'] }[CarrierKind]>
