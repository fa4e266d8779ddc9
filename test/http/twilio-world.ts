import { afterEach, expect } from 'bun:test'
import { createHarness, scratchDir, type Harness, type TestKey } from '../harness'
import { TwilioEmulator } from '../emulators/twilio/emulator'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'

/**
 * A service with one organization dialing live calls through the Twilio emulator, in process
 * (test/http/twilio-*.test.ts): the service's REST requests go to the emulator over loopback,
 * and the emulator's signed callbacks come back through the whole handler (gateway, pipeline,
 * routes). The emulator plays the simulator's scenario table by the last two digits of To
 * (docs/telephony.md "The emulator"), 200 times faster.
 */

export const SID = `AC${'a1'.repeat(16)}`
export const TOKEN = 'f'.repeat(32)
export const CALLER_NY = '+12125550100'
export const CALLER_SF = '+14155550100'
/** A New York number playing scenario `nn` (live keys refuse the 555-01XX block). */
export const ny = (nn: string, series = 20) => `+1212555${String(series).padStart(2, '0')}${nn}`

export interface World {
  h: Harness
  emulator: TwilioEmulator
  orgId: string
  campaignId: string
  live: TestKey
  test: TestKey
  cleanup: () => Promise<void>
}

let world: World | null = null
afterEach(async () => {
  await world?.cleanup()
  world = null
})

export async function setup(options: { sdrs?: { name: string; phone?: string }[]; closers?: { name: string; phone?: string }[]; record?: boolean; machineDetection?: boolean; voicemail?: unknown; maxConcurrentCalls?: number; replay?: boolean; dropCallback?: (url: string) => boolean; start?: number; callsPerSecond?: number } = {}): Promise<World> {
  const dir = scratchDir()
  const h = createHarness({ autoDial: true, start: options.start, env: { DIALER_DATA_DIR: dir.path } })
  const emulator = TwilioEmulator.start({
    accounts: [{ sid: SID, authToken: TOKEN, callerIds: [CALLER_NY, CALLER_SF], maxConcurrentCalls: options.maxConcurrentCalls, callsPerSecond: options.callsPerSecond }],
    speed: 200,
    replayCallbacks: options.replay ?? false,
    // Callbacks go through the whole handler, as a server would call it.
    fetch: (url, init) => (options.dropCallback?.(url) ? Promise.reject(new Error('lost')) : h.app.handle(new Request(url, init))),
  })
  const org = await h.admin('POST', '/orgs', {
    name: 'Acme Roofing',
    plan_requests_per_minute: 100000,
    recording_enabled: options.record ?? true,
    carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER_SF, CALLER_NY], api_base_url: emulator.url, machine_detection: options.machineDetection ?? true },
  })
  expect(org.status).toBe(201)
  const orgId = org.body.data.id
  const campaign = await h.admin('POST', `/orgs/${orgId}/campaigns`, {
    name: 'Spring roofs',
    status: 'draft',
    lines: 5,
    sdrs: options.sdrs ?? [{ name: 'Alex Rivera', phone: '+13125550150' }],
    closers: options.closers ?? [{ name: 'Sam Chen', phone: '+13125550151' }],
    voicemail: options.voicemail ?? { say: 'Hi, this is Acme Roofing returning your request. Call us back any time.' },
  })
  expect(campaign.status).toBe(201)
  expect((await h.admin('PATCH', `/campaigns/${campaign.body.data.id}`, { status: 'active' })).status).toBe(200)
  const key = (mode: string) => h.createKey(orgId, { name: mode, mode, requests_per_minute: 100000, burst: 100000 })
  const w: World = {
    h, emulator, orgId, campaignId: campaign.body.data.id, live: await key('live'), test: await key('test'),
    cleanup: async () => {
      await emulator.stop()
      h.close()
      dir.remove()
    },
  }
  world = w
  return w
}

export async function addLead(w: World, phone: string, key = w.live): Promise<string> {
  const r = await w.h.api('POST', '/leads', { key, body: { campaign_id: w.campaignId, phone, name: 'Jordan Lee' } })
  expect(r.status).toBe(201)
  return r.body.data.id
}

/** Waits (real time: the emulator plays calls on its own timers) until the lead's call is ended and reported. */
export async function callOf(w: World, leadId: string, until: (call: any) => boolean = (c) => c.status === 'ended' && c.outcome !== null, ms = 15_000): Promise<any> {
  const deadline = Date.now() + ms
  for (;;) {
    const r = await w.h.api('GET', `/calls?lead_id=${leadId}&limit=5`, { key: w.live })
    const call = r.body.data?.[0]
    if (call && until(call)) return call
    if (Date.now() > deadline) throw new Error(`call of ${leadId} not done: ${JSON.stringify(call)}`)
    await Bun.sleep(20)
  }
}

export function eventTypes(w: World, callId: string): string[] {
  return w.h.services.stores.events.forObject(callId).map((row) => JSON.parse(row.body).type as string)
}


/** A form POST to one of the service's Twilio routes (`path` under DIALER_PUBLIC_URL), signed with `token` (null: unsigned), through the whole handler. */
export function poster(w: World) {
  const publicUrl = w.h.services.config.publicUrl
  return async (path: string, params: Record<string, string>, token: string | null = TOKEN) => {
    const url = `${publicUrl}${path}`
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' }
    if (token) headers['x-twilio-signature'] = signTwilioRequest(token, url, params)
    const response = await w.h.app.handle(new Request(url, { method: 'POST', headers, body: new URLSearchParams(params).toString() }))
    return { status: response.status, text: await response.text() }
  }
}
