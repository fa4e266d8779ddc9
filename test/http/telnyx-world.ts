import { afterEach, expect } from 'bun:test'
import { createHarness, scratchDir, START, type Harness, type TestKey } from '../harness'
import { TelnyxEmulator, type TelnyxEmulatorOptions } from '../emulators/telnyx/emulator'

/**
 * A service with one organization dialing live calls through the Telnyx emulator, in process
 * (test/http/telnyx-*.test.ts), as twilio-world.ts does for Twilio: the service's REST requests go
 * to the emulator over loopback, its Ed25519-signed callbacks come back through the whole handler.
 * The service's fake clock stands in calling hours; the emulator's telnyx-timestamp is skewed to it
 * (Telnyx's timestamps are checked against the service's clock).
 */

export const ACCOUNT = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'
export const API_KEY = 'KEY0123456789ABCDEF_test'
export const APP = '1773070540731319841'
export const CALLER_NY = '+12125550100'
export const CALLER_SF = '+14155550100'
export const ny = (nn: string, series = 20) => `+1212555${String(series).padStart(2, '0')}${nn}`

export interface TelnyxWorld {
  h: Harness
  emulator: TelnyxEmulator
  orgId: string
  campaignId: string
  live: TestKey
  cleanup: () => Promise<void>
}

let world: TelnyxWorld | null = null
afterEach(async () => {
  await world?.cleanup()
  world = null
})

export async function setupTelnyx(options: {
  record?: boolean; machineDetection?: boolean; sdrs?: { name: string; phone?: string }[]; closers?: { name: string; phone?: string }[]
  emulator?: Partial<TelnyxEmulatorOptions>
} = {}): Promise<TelnyxWorld> {
  const dir = scratchDir()
  const h = createHarness({ autoDial: true, env: { DIALER_DATA_DIR: dir.path } })
  const emulator = TelnyxEmulator.start({
    accounts: [{ accountSid: ACCOUNT, apiKey: API_KEY, applicationSid: APP, callerIds: [CALLER_NY, CALLER_SF] }],
    speed: 200,
    clockSkew: Math.round((START - Date.now()) / 1000),
    ...options.emulator,
    fetch: (url, init) => h.app.handle(new Request(url, init)),
  })
  const org = await h.admin('POST', '/orgs', {
    name: 'Acme Roofing',
    plan_requests_per_minute: 100000,
    recording_enabled: options.record ?? true,
    carrier: {
      kind: 'telnyx', account_sid: ACCOUNT, api_key: API_KEY, application_sid: APP, public_key: emulator.publicKey,
      caller_ids: [CALLER_SF, CALLER_NY], api_base_url: emulator.url, machine_detection: options.machineDetection ?? true,
    },
  })
  expect(org.status).toBe(201)
  const orgId = org.body.data.id
  const campaign = await h.admin('POST', `/orgs/${orgId}/campaigns`, {
    name: 'Spring roofs', status: 'draft', lines: 5,
    sdrs: options.sdrs ?? [{ name: 'Alex Rivera', phone: '+13125550150' }],
    closers: options.closers ?? [{ name: 'Sam Chen', phone: '+13125550151' }],
    voicemail: { say: 'Hi, this is Acme Roofing returning your request. Call us back any time.' },
  })
  expect(campaign.status).toBe(201)
  expect((await h.admin('PATCH', `/campaigns/${campaign.body.data.id}`, { status: 'active' })).status).toBe(200)
  const live = await h.createKey(orgId, { name: 'live', mode: 'live', requests_per_minute: 100000, burst: 100000 })
  const w: TelnyxWorld = {
    h, emulator, orgId, campaignId: campaign.body.data.id, live,
    cleanup: async () => {
      await emulator.stop()
      h.close()
      dir.remove()
    },
  }
  world = w
  return w
}

export async function addLead(w: TelnyxWorld, phone: string): Promise<string> {
  const r = await w.h.api('POST', '/leads', { key: w.live, body: { campaign_id: w.campaignId, phone, name: 'Jordan Lee' } })
  expect(r.status).toBe(201)
  return r.body.data.id
}

/** Waits (real time) until the lead's call passes `until`. */
export async function callOf(w: TelnyxWorld, leadId: string, until: (call: any) => boolean = (c) => c.status === 'ended' && c.outcome !== null, ms = 15_000): Promise<any> {
  const deadline = Date.now() + ms
  for (;;) {
    const r = await w.h.api('GET', `/calls?lead_id=${leadId}&limit=5`, { key: w.live })
    const call = r.body.data?.[0]
    if (call && until(call)) return call
    if (Date.now() > deadline) throw new Error(`call of ${leadId} not done: ${JSON.stringify(call)}`)
    await Bun.sleep(20)
  }
}

export const eventTypes = (w: TelnyxWorld, callId: string): string[] =>
  w.h.services.stores.events.forObject(callId).map((row) => JSON.parse(row.body).type as string)
