import { afterAll, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { scratchDir } from '../harness'
import { spawnService, type RunningService } from '../process/spawn-service'

setDefaultTimeout(60_000)

// Issue 15: with DIALER_PORT=0 and no DIALER_PUBLIC_URL, the served document's `servers` (and
// the signed links, which share the public URL) named port 0.
const work = scratchDir('dialer-openapi-servers-')
let service: RunningService | undefined

afterAll(() => {
  service?.proc.kill('SIGKILL')
  work.remove()
})

test('the served document names the port actually bound', async () => {
  service = await spawnService({
    command: [process.execPath, 'run', join(import.meta.dir, '../../src/main.ts')],
    dataDir: join(work.path, 'data'),
    cwd: work.path,
    env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: 'openapi-servers-test-token', DIALER_LOG_REQUESTS: '0' },
  })
  expect(service.base).not.toEndWith(':0')
  const served = (await (await fetch(`${service.base}/api/v1/external/openapi.json`)).json()) as { servers: { url: string }[] }
  expect(served.servers).toEqual([{ url: service.base }])
})
