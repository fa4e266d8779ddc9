import { expect } from 'bun:test'
import { join } from 'node:path'
import { basic, scratchDir } from '../harness'
import { TelnyxEmulator, type TelnyxEmulatorOptions } from '../emulators/telnyx/emulator'
import { startClock, type RunningClock } from './daytime-clock'
import { serviceCommand, spawnService, type ServiceProcess } from './spawn-service'

/**
 * The service as shipped (DIALER_TEST_BINARY copied into an empty folder, its fake clock moved at
 * real speed: daytime-clock.ts) beside a Telnyx emulator account over loopback, as
 * twilio-service.ts does for Twilio. The emulator's telnyx-timestamp is skewed to the service's
 * fake clock (Telnyx's signatures are checked against the service's clock).
 */
export const CALLER = '+12125550100'
export const ACCOUNT = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'
export const API_KEY = 'KEY01A2B3C4D5E6F7_binary'
export const APP = '1773070540731319841'
export const ny = (nn: string, series: number) => `+1212555${series}${nn}`

export function telnyxService(options: { prefix: string; adminToken: string; speed: number; env?: Record<string, string>; emulator?: Partial<TelnyxEmulatorOptions> }) {
  const work = scratchDir(options.prefix)
  const command = serviceCommand(work.path)
  const emulator = TelnyxEmulator.start({ ...options.emulator, accounts: [{ accountSid: ACCOUNT, apiKey: API_KEY, applicationSid: APP, callerIds: [CALLER] }], speed: options.speed })
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: options.adminToken, DIALER_FAKE_CLOCK: '1', DIALER_LOG_REQUESTS: '0', ...options.env }
  let server: ServiceProcess | null = null
  let clock: RunningClock | null = null
  let output = () => ''

  const state = { base: '', auth: '', campaignId: '' }
  type Reply = { status: number; text: string; body: any }
  const cli = (args: string[]): { code: number | null; out: string; err: string } => {
    const r = Bun.spawnSync([...command, 'admin', ...args], {
      cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_URL: state.base, DIALER_ADMIN_TOKEN: options.adminToken }, stdin: 'ignore',
    })
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
  }
  const json = (args: string[]): any => {
    const r = cli(args)
    if (r.code !== 0) throw new Error(`dialer admin ${args.join(' ')}: exit ${r.code} ${r.out} ${r.err}`)
    return JSON.parse(r.out).data
  }
  const request = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Reply> => {
    const r = await fetch(`${state.base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
    const text = await r.text()
    return { status: r.status, text, body: text.startsWith('{') ? JSON.parse(text) : null }
  }
  const api = (method: string, path: string, body?: unknown): Promise<Reply> => request(method, `/api/v1/external${path}`, { authorization: state.auth }, body)
  const admin = (method: string, path: string, body?: unknown): Promise<Reply> => request(method, `/api/v1/admin${path}`, { authorization: `Bearer ${options.adminToken}` }, body)

  const service = {
    work, emulator, cli, json, request, api, admin,
    get base(): string {
      return state.base
    },
    /** The campaign `seedOrg` made (where `addLead` puts leads by default). */
    get campaignId(): string {
      return state.campaignId
    },
    output: () => output(),
    /** The service's fake clock now (unix ms). */
    clockNow: (): number => clock?.now() ?? Date.now(),
    async start(): Promise<void> {
      const started = await spawnService({ command, dataDir: join(work.path, 'data'), cwd: work.path, env })
      server = started.proc
      output = started.output
      state.base = started.base
      clock = await startClock(state.base, options.adminToken)
      emulator.clockSkew = Math.round((clock.now() - Date.now()) / 1000)
    },
    /** Stops the service only (the emulator and the data stay), as a crash (SIGKILL) or a stop would. */
    async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
      await clock?.stop()
      clock = null
      server?.kill(signal)
      await server?.exited
      server = null
    },
    async close(): Promise<void> {
      await clock?.stop()
      server?.kill('SIGTERM')
      await server?.exited
      await emulator.stop()
      work.remove()
    },
    async callOf(leadId: string, until: (call: any) => boolean = (c) => c.status === 'ended' && c.outcome !== null, ms = 20_000): Promise<any> {
      const deadline = Date.now() + ms
      for (;;) {
        const call = (await api('GET', `/calls?lead_id=${leadId}&limit=1`)).body?.data?.[0]
        if (call && until(call)) return call
        if (Date.now() > deadline) throw new Error(`call of ${leadId} not done: ${JSON.stringify(call)}`)
        await Bun.sleep(50)
      }
    },
    /** An organization on the emulator account, set with `dialer admin org carrier --telnyx` (the key from a file), an active campaign and a live key. */
    async seedOrg(campaign: Record<string, unknown>): Promise<{ orgId: string; carrierOutput: string }> {
      const orgId = json(['org', 'create', '--name', 'Acme Roofing', '--plan-requests-per-minute', '100000']).id
      const keyFile = join(work.path, 'telnyx-key')
      await Bun.write(keyFile, `${API_KEY}\n`)
      const set = cli([
        'org', 'carrier', orgId, '--telnyx', '--account-sid', ACCOUNT, '--application-sid', APP, '--public-key', emulator.publicKey,
        '--api-key-file', keyFile, '--caller-id', CALLER, '--api-base-url', emulator.url,
      ])
      if (set.code !== 0) throw new Error(`dialer admin org carrier: exit ${set.code} ${set.out} ${set.err}`)
      const created = await admin('POST', `/orgs/${orgId}/campaigns`, { status: 'active', ...campaign })
      if (created.status !== 201) throw new Error(`campaign create: ${created.status} ${created.text}`)
      state.campaignId = created.body.data.id
      const key = json(['key', 'create', '--org', orgId, '--name', 'live', '--mode', 'live', '--requests-per-minute', '100000', '--burst', '100000'])
      state.auth = basic(key.id, key.secret)
      return { orgId, carrierOutput: set.out }
    },
    async addLead(phone: string, campaignId?: string, consent?: unknown): Promise<string> {
      const r = await api('POST', '/leads', { campaign_id: campaignId ?? state.campaignId, phone, name: 'Jordan Lee', ...(consent ? { consent } : {}) })
      expect(r.status).toBe(201)
      return r.body.data.id
    },
  }
  return service
}
