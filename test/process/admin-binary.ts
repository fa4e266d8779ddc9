import { join } from 'node:path'
import { scratchDir } from '../harness'
import { daytimeStart, startClock, type RunningClock } from './daytime-clock'
import { placeBinary, spawnService, type ServiceProcess } from './spawn-service'

/**
 * The compiled binary started from an empty folder and driven as an operator drives it: the
 * admin API (JSON) and the CLI (`dialer admin ...`). For the settings tests (dial modes, the AI
 * agent): start() in beforeAll, stop() in afterAll. Its fake clock runs at real speed from the
 * next New York daytime hour, so a live lead is called whatever the time of the run.
 */
export function adminBinary(prefix: string, adminToken: string) {
  const work = scratchDir(prefix)
  const binary = join(work.path, 'dialer')
  let server: ServiceProcess | null = null
  let clock: RunningClock | null = null
  const self = {
    base: '',
    async start(): Promise<void> {
      placeBinary(binary)
      const started = await spawnService({
        command: [binary], dataDir: join(work.path, 'data'), cwd: work.path,
        env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: adminToken, DIALER_LOG_REQUESTS: '0', DIALER_FAKE_CLOCK: '1' },
      })
      server = started.proc
      self.base = started.base
      clock = await startClock(self.base, adminToken, daytimeStart(Date.now(), ['America/New_York']))
    },
    stop(): void {
      void clock?.stop()
      server?.kill('SIGKILL')
      work.remove()
    },
    async admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
      const reply = await fetch(`${self.base}/api/v1/admin${path}`, {
        method, headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
      })
      return { status: reply.status, body: await reply.json() }
    },
    cli(args: string[]): { code: number | null; out: string; err: string } {
      const r = Bun.spawnSync([binary, 'admin', ...args], { cwd: work.path, env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_URL: self.base, DIALER_ADMIN_TOKEN: adminToken } })
      return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
    },
  }
  return self
}
