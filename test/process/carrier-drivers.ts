import type { Script } from '../emulators/twilio/emulator-scenarios'
import type { EmulatorObserver } from '../emulators/twilio/emulator-observer'
import { ACCOUNT, API_KEY, telnyxService } from './telnyx-service'
import { twilioService } from './twilio-service'

/**
 * One carrier behind the service as shipped, whichever it is: twilio-service.ts or
 * telnyx-service.ts (the binary from an empty folder, its carrier set with `dialer admin org
 * carrier` as an operator would, the secret from a file) seen through one shape, so a scenario
 * table can run unchanged against both emulators.
 */
export type CarrierKind = 'twilio' | 'telnyx'

type Reply = { status: number; text: string; body: any }

export interface CarrierDriver {
  kind: CarrierKind
  emulator: EmulatorObserver & { script(to: string, script: Script): void }
  /** The carrier as `dialer admin org carrier` printed it (secrets only as `*_set`). */
  expectedCarrier: Record<string, unknown>
  /** The secret the CLI was given: never printed. */
  secret: string
  start(): Promise<void>
  close(): Promise<void>
  seedOrg(campaign: Record<string, unknown>): Promise<{ orgId: string; carrierOutput: string }>
  addLead(phone: string): Promise<string>
  callOf(leadId: string, until: (call: any) => boolean, ms?: number): Promise<any>
  api(method: string, path: string, body?: unknown): Promise<Reply>
  /** The service's callback URL prefix for a lead's call (`/twilio/calls/{id}` or `/telnyx/calls/{id}`). */
  callbackPath(callId: string): string
  base(): string
}

export interface DriverOptions {
  prefix: string
  adminToken: string
  /** Emulated seconds per real second. */
  speed: number
  /** Callbacks held and sent in a seeded order, each `duplicate` of them twice (both emulators alike). */
  shuffle?: { seed: number; duplicate: number }
}

const TWILIO_SID = `AC${'c1'.repeat(16)}`
const TWILIO_TOKEN = 'c'.repeat(32)

export function carrierDriver(kind: CarrierKind, options: DriverOptions): CarrierDriver {
  const emulatorOptions = options.shuffle ? { shuffle: options.shuffle } : {}
  if (kind === 'twilio') {
    const service = twilioService({ prefix: options.prefix, adminToken: options.adminToken, sid: TWILIO_SID, token: TWILIO_TOKEN, speed: options.speed, emulator: emulatorOptions })
    return {
      kind, emulator: service.emulator, secret: TWILIO_TOKEN,
      expectedCarrier: { kind: 'twilio', account_sid: TWILIO_SID, auth_token_set: true },
      start: () => service.start(), close: () => service.close(),
      seedOrg: (campaign) => service.seedOrg(campaign),
      addLead: (phone) => service.addLead(phone),
      callOf: (leadId, until, ms) => service.callOf(leadId, until, ms),
      api: (method, path, body) => service.api(method, path, body),
      callbackPath: (callId) => `/twilio/calls/${callId}/`,
      base: () => service.base,
    }
  }
  const service = telnyxService({ prefix: options.prefix, adminToken: options.adminToken, speed: options.speed, emulator: emulatorOptions })
  return {
    kind, emulator: service.emulator, secret: API_KEY,
    expectedCarrier: { kind: 'telnyx', account_sid: ACCOUNT, public_key: service.emulator.publicKey, api_key_set: true },
    start: () => service.start(), close: () => service.close(),
    seedOrg: (campaign) => service.seedOrg(campaign),
    addLead: (phone) => service.addLead(phone),
    callOf: (leadId, until, ms) => service.callOf(leadId, until, ms),
    api: (method, path, body) => service.api(method, path, body),
    callbackPath: (callId) => `/telnyx/calls/${callId}/`,
    base: () => service.base,
  }
}

/** The events about a call and its lead (the events API filtered by object), oldest first. */
export async function eventsOf(driver: CarrierDriver, objectIds: string[]): Promise<any[]> {
  const events: any[] = []
  for (const id of objectIds) {
    const r = await driver.api('GET', `/events?object_id=${id}&limit=100`)
    if (r.status !== 200) throw new Error(`GET /events: ${r.status} ${r.text}`)
    events.push(...(r.body.data as any[]))
  }
  return events.sort((a, b) => a.created.localeCompare(b.created) || a.id.localeCompare(b.id))
}
