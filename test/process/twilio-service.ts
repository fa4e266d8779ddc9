import { expect } from 'bun:test'
import { join } from 'node:path'
import { basic, scratchDir } from '../harness'
import { TwilioEmulator, type EmulatorOptions } from '../emulators/twilio/emulator'
import { setClock, startClock, type RunningClock } from './daytime-clock'
import { serviceCommand, spawnService, type ServiceProcess } from './spawn-service'

/**
 * The service as shipped (DIALER_TEST_BINARY copied into an empty folder, on its fake clock
 * moved at real speed: see daytime-clock.ts) beside a Twilio emulator account over loopback,
 * for the black-box Twilio tests: the admin CLI, the external API as one key, stop and start
 * again on the same data, and a lead's latest call polled until it reads as wanted.
 */
/** The number the service calls from (the emulator account's caller id). */
export const CALLER = '+12125550100'
/** A New York number playing the simulator's scenario `nn` (the emulator reads the last two digits). */
export const ny = (nn: string, series: number) => `+1212555${series}${nn}`

export interface TwilioServiceOptions {
  prefix: string
  adminToken: string
  sid: string
  token: string
  /** How much faster than real time the emulator plays calls. */
  speed: number
  /** How long `callOf` polls by default. */
  callTimeoutMs?: number
  /** More emulator options (shuffled callbacks, track labels). */
  emulator?: Omit<EmulatorOptions, 'accounts' | 'speed'>
  /** The emulator account's calls per second (unset: no queue). */
  callsPerSecond?: number
}

export type TwilioService = ReturnType<typeof twilioService>

export function twilioService(options: TwilioServiceOptions) {
  const work = scratchDir(options.prefix)
  const command = serviceCommand(work.path)
  const emulator = TwilioEmulator.start({ ...options.emulator, accounts: [{ sid: options.sid, authToken: options.token, callerIds: [CALLER], callsPerSecond: options.callsPerSecond }], speed: options.speed })
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: options.adminToken, DIALER_FAKE_CLOCK: '1', DIALER_LOG_REQUESTS: '0' }
  let server: ServiceProcess | null = null
  let output = () => ''
  let clock: RunningClock | null = null

  const service = {
    work,
    dataDir: join(work.path, 'data'),
    command,
    emulator,
    env,
    base: '',
    /** The external API's Authorization header (set once a key is made). */
    auth: '',
    /** Where `addLead` puts leads. */
    campaignId: '',
    /** What the running service has written to stdout (its JSON log). */
    output: () => output(),

    /** `dialer admin …` against `url` (this service by default), the token on stdin when given. */
    cli(args: string[], run: { url?: string; stdin?: string } = {}) {
      const r = Bun.spawnSync([...command, 'admin', ...args], {
        cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_URL: run.url ?? service.base, DIALER_ADMIN_TOKEN: options.adminToken },
        stdin: run.stdin === undefined ? 'ignore' : new TextEncoder().encode(run.stdin),
      })
      return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
    },
    /** The `data` of a CLI command that must succeed. */
    json(args: string[], url?: string) {
      const r = service.cli(args, { url })
      if (r.code !== 0) throw new Error(`dialer admin ${args.join(' ')}: exit ${r.code} ${r.out} ${r.err}`)
      return JSON.parse(r.out).data
    },
    async request(method: string, path: string, headers: Record<string, string>, body?: unknown) {
      const r = await fetch(`${service.base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
      const text = await r.text()
      return { status: r.status, text, body: text.startsWith('{') ? JSON.parse(text) : null }
    },
    api: (method: string, path: string, body?: unknown) => service.request(method, `/api/v1/external${path}`, { authorization: service.auth }, body),
    admin: (method: string, path: string, body?: unknown) => service.request(method, `/api/v1/admin${path}`, { authorization: `Bearer ${options.adminToken}` }, body),

    async start(): Promise<void> {
      const started = await spawnService({ command, dataDir: service.dataDir, cwd: work.path, env })
      server = started.proc
      output = started.output
      service.base = started.base
      clock = await startClock(service.base, options.adminToken)
    },
    /** Sets the fake clock to `ms` (forward only); `moving`: on from there at real speed, else it stands still. */
    async clockAt(ms: number, moving = true): Promise<void> {
      await clock?.stop()
      clock = null
      if (moving) clock = await startClock(service.base, options.adminToken, ms)
      else await setClock(service.base, options.adminToken, ms)
    },
    async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
      await clock?.stop()
      clock = null
      server?.kill(signal)
      await server?.exited
      server = null
    },
    /** Stops the service and the emulator and removes the folder (afterAll). */
    async close(): Promise<void> {
      await service.stop('SIGTERM')
      await emulator.stop()
      work.remove()
    },

    /** The lead's latest call once `until` holds (polled). */
    async callOf(leadId: string, until: (call: any) => boolean, ms = options.callTimeoutMs ?? 20_000): Promise<any> {
      const deadline = Date.now() + ms
      for (;;) {
        const call = (await service.api('GET', `/calls?lead_id=${leadId}&limit=1`)).body?.data?.[0]
        if (call && until(call)) return call
        if (Date.now() > deadline) throw new Error(`call of ${leadId} not done: ${JSON.stringify(call)}`)
        await Bun.sleep(50)
      }
    },
    /**
     * An organization on the emulator account (its token from a file through the CLI, never on
     * the command line), an active campaign with `campaign`'s fields and a live key: sets
     * `campaignId` and `auth`. Returns the organization and the carrier command's output.
     */
    async seedOrg(campaign: Record<string, unknown>): Promise<{ orgId: string; carrierOutput: string }> {
      // Limits high enough for the polling the tests do.
      const orgId = service.json(['org', 'create', '--name', 'Acme Roofing', '--plan-requests-per-minute', '100000']).id
      const tokenFile = join(work.path, 'twilio-token')
      await Bun.write(tokenFile, `${options.token}\n`)
      const set = service.cli(['org', 'carrier', orgId, '--twilio', '--account-sid', options.sid, '--auth-token-file', tokenFile, '--caller-id', CALLER, '--api-base-url', emulator.url])
      if (set.code !== 0) throw new Error(`dialer admin org carrier: exit ${set.code} ${set.err}`)
      const created = await service.admin('POST', `/orgs/${orgId}/campaigns`, { status: 'active', ...campaign })
      if (created.status !== 201) throw new Error(`campaign create: ${created.status} ${created.text}`)
      service.campaignId = created.body.data.id
      const key = service.json(['key', 'create', '--org', orgId, '--name', 'live', '--mode', 'live', '--requests-per-minute', '100000', '--burst', '100000'])
      service.auth = basic(key.id, key.secret)
      return { orgId, carrierOutput: set.out }
    },
    async addLead(phone: string): Promise<string> {
      const r = await service.api('POST', '/leads', { campaign_id: service.campaignId, phone, name: 'Jordan Lee' })
      expect(r.status).toBe(201)
      return r.body.data.id
    },
  }
  return service
}
