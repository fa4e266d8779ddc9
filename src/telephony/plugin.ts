import type { TObject } from '@sinclair/typebox'
import type { AnyElysia } from 'elysia'
import type { CarrierSettingsRules } from '../domain/orgs/carrier-settings'
import type { Carrier } from './carrier'
import type { CallbackDoor, CarrierPorts } from './ports'

/** A flag of `dialer admin org carrier`, in the CLI's kinds (src/cli/admin-commands.ts FieldKind). */
export interface CarrierFlag {
  kind: 'switch' | 'string' | 'list' | 'bool'
  note: string
}

/**
 * One carrier as the service plugs it in (src/telephony/registry.ts lists them): what its
 * organization settings look like, how it is built, and the callback routes it answers.
 */
export interface CarrierPlugin<C extends Carrier = Carrier, S extends TObject = TObject> {
  /**
   * The admin API's `carrier` fields of this kind besides `kind` (each optional: the domain
   * checks which are required). The admin body schema is the union of every kind's fields.
   */
  settings: S
  /**
   * How an organization's settings of this kind are checked (messages and params), stored (which
   * fields are secret), shown, and which changes wait for calls that are up. Every kind but the
   * default has them (the default keeps no settings).
   */
  rules?: CarrierSettingsRules
  /** `dialer admin org carrier --<kind>`: the switch's help and the further flags it takes. */
  cli: {
    note: string
    flags: Record<string, CarrierFlag>
    /** The `carrier` object's fields for the flags given, `kind` added by the caller; throws Error for a combination that cannot work. */
    body(flags: Record<string, unknown>): Record<string, unknown>
  }
  create(ports: CarrierPorts): C
  /** The carrier's own HTTP routes (callbacks), mounted by the app outside the API's prefix. */
  routes?: (carrier: C, door: CallbackDoor) => AnyElysia
  /** Once a minute: look up calls the carrier has said nothing of for long (a lost callback). */
  watch?: (carrier: C) => void
}

/** Keeps a plugin's carrier type for the registry's map (and checks the plugin's shape). */
export const carrierPlugin = <C extends Carrier, S extends TObject>(plugin: CarrierPlugin<C, S>): CarrierPlugin<C, S> => plugin
