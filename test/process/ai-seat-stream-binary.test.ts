import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { join } from 'node:path'
import { scratchDir } from '../harness'
import { serviceCommand, spawnService, type RunningService } from './spawn-service'

setDefaultTimeout(60_000)

/**
 * The AI seat's stream socket in the compiled binary, started from an empty folder: the upgrade
 * passes the gateway, a forged stream is closed and counted, a plain GET gets the error
 * envelope, and a stop does not wait on open stream sockets. (The seat's calls end to end, with
 * the emulator and the reference agent, are in the other ai-seat-*-binary tests.)
 */

const ADMIN = 'ai-seat-stream-admin-token-0123456789'
const work = scratchDir('dialer-seat-stream-')
let service: RunningService
let streams = ''

beforeAll(async () => {
  service = await spawnService({
    command: serviceCommand(work.path), dataDir: join(work.path, 'data'), cwd: work.path,
    env: { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN },
  })
  streams = `${service.base.replace('http:', 'ws:')}/twilio/streams`
})

afterAll(async () => {
  if (service.proc.exitCode === null) service.proc.kill('SIGKILL')
  await service.proc.exited
  work.remove()
})

function open(url: string) {
  const ws = new WebSocket(url)
  const side = { ws, closed: null as number | null, opened: new Promise<boolean>((resolve) => {
    ws.onopen = () => resolve(true)
    ws.onerror = () => resolve(false)
  }) }
  ws.onclose = (event) => void (side.closed = event.code)
  return side
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await Bun.sleep(10)
  }
}

const metrics = async () => (await fetch(`${service.base}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text()

describe('the stream socket in the binary', () => {
  test('a GET without an upgrade: 400 invalid_request in the envelope', async () => {
    const r = await fetch(`${service.base}/twilio/streams`)
    expect(r.status).toBe(400)
    const body = (await r.json()) as any
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' })
  })

  test('a stream with a forged token opens, is closed at its start and counted', async () => {
    const side = open(streams)
    expect(await side.opened).toBe(true)
    side.ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }))
    side.ws.send(JSON.stringify({
      event: 'start', streamSid: `MZ${'1'.repeat(32)}`,
      start: { callSid: `CA${'2'.repeat(32)}`, streamSid: `MZ${'1'.repeat(32)}`, tracks: ['inbound'], customParameters: { dialer_stream_token: 'call_x.org_y.99999999999999.forged' } },
    }))
    await until(() => side.closed !== null)
    const m = await metrics()
    expect(m).toContain('dialer_seat_frames_dropped_total{reason="refused_stream"} 1')
    expect(m).toContain('dialer_seats_open 0')
  })

  test('SIGTERM with stream sockets open: they close and the service stops at once', async () => {
    const sides = [open(streams), open(streams)]
    for (const side of sides) expect(await side.opened).toBe(true)
    const t0 = Date.now()
    service.proc.kill('SIGTERM')
    expect(await service.proc.exited).toBe(0)
    expect(Date.now() - t0).toBeLessThan(3_000)
    await until(() => sides.every((s) => s.closed !== null))
    expect(sides.map((s) => s.closed)).toEqual([1001, 1001])
  })
})
