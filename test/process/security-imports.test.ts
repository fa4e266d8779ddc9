import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { scratchDir } from '../harness'
import { serviceCommand, spawnService, type RunningService } from './spawn-service'

setDefaultTimeout(120_000)

/**
 * Lead CSV imports under attack, against the service as shipped (the compiled binary in CI,
 * started from an empty folder):
 * (a) 20 MB of one-character lines from an owner: refused at the 200,000-row limit, quickly,
 *     while /healthz keeps answering and the process's peak memory hardly moves;
 * (b) a body over 20 MB: 413, declared or sent chunked;
 * (c) kill -9 in the middle of a 150,000-row import: after the restart the import reads
 *     interrupted, and the same file sent again resumes it to done without counting its first
 *     rows as duplicates.
 */
const ADMIN = 'dat_security_imports_0123456789abcdef'
const work = scratchDir('dialer-security-imports-')
const dataDir = join(work.path, 'data')
const command = serviceCommand(work.path)
const env = { PATH: process.env.PATH ?? '', HOME: work.path, DIALER_ADMIN_TOKEN: ADMIN, DIALER_LOG_REQUESTS: '0' }

let service: RunningService
let orgId = ''
let campaignId = ''

const start = async () => {
  service = await spawnService({ command, dataDir, cwd: work.path, env })
}
const admin = async (method: string, path: string, body?: unknown) => {
  const r = await fetch(`${service.base}/api/v1/admin${path}`, {
    method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: r.status, body: (await r.json()) as any }
}
const importUrl = () => `${service.base}/api/v1/admin/orgs/${orgId}/leads/import?campaign_id=${campaignId}`
const sendCsv = async (body: string | Uint8Array | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) => {
  const r = await fetch(importUrl(), { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'text/csv', ...headers }, body })
  return { status: r.status, body: (await r.json().catch(() => null)) as any }
}
/** GET /healthz in a loop until stopped: the longest wait, and how many answered. */
function probeHealth(): { stop: () => Promise<{ worst: number; probes: number }> } {
  let running = true
  let worst = 0
  let probes = 0
  const loop = (async () => {
    while (running) {
      const t = performance.now()
      const r = await fetch(`${service.base}/healthz`)
      await r.arrayBuffer()
      worst = Math.max(worst, performance.now() - t)
      probes++
      await Bun.sleep(5)
    }
  })()
  return {
    stop: async () => {
      running = false
      await loop
      return { worst, probes }
    },
  }
}
/** Peak resident memory of the service so far (kB), from /proc. */
const peakKb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${service.proc.pid}/status`, 'utf8'))![1])

beforeAll(async () => {
  await start()
  orgId = (await admin('POST', '/orgs', { name: 'Owner under attack', plan_requests_per_minute: 100_000 })).body.data.id
  campaignId = (await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Imports', status: 'paused', sdrs: [{ name: 'Alex' }] })).body.data.id
})

afterAll(() => {
  service?.proc.kill('SIGKILL')
  work.remove()
})

describe('lead CSV imports against the binary', () => {
  test('(a) 20 MB of one-character lines: 400 at the 200,000-row limit, quickly; /healthz never stalls; memory stays bounded', async () => {
    const csv = `phone\n${'1\n'.repeat(10_400_000)}`
    expect(csv.length).toBeLessThanOrEqual(20 * 1024 * 1024)
    // Warm up the paths (the first request of a kind compiles it).
    await sendCsv('phone\n2125550000\n', {})
    const before = peakKb()
    const probe = probeHealth()
    const started = performance.now()
    const r = await sendCsv(csv)
    const seconds = (performance.now() - started) / 1000
    const { worst, probes } = await probe.stop()
    const after = peakKb()
    console.log(`20 MB of one-character lines: ${r.status} in ${seconds.toFixed(2)} s; /healthz worst ${worst.toFixed(1)} ms over ${probes} probes; VmHWM ${Math.round(before / 1024)} -> ${Math.round(after / 1024)} MB`)
    expect(r.status).toBe(400)
    expect(r.body.error).toMatchObject({ code: 'invalid_request', param: 'body' })
    expect(r.body.error.message).toContain('200,000 rows')
    expect(seconds).toBeLessThan(5)
    expect(probes).toBeGreaterThan(3)
    // Tens of ms on a quiet machine, a few hundred on a 2-core box loaded several times over; the unfixed service stalls for seconds.
    expect(worst).toBeLessThan(400)
    expect((after - before) / 1024).toBeLessThan(300)
  })

  test('(b) a body over 20 MB: 413 payload_too_large, declared or sent chunked', async () => {
    const big = new Uint8Array(21 * 1024 * 1024).fill(0x31)
    const declared = await sendCsv(big)
    expect(declared.status).toBe(413)
    expect(declared.body?.error.code).toBe('payload_too_large')
    let sent = 0
    const piece = new Uint8Array(1024 * 1024).fill(0x31)
    const chunked = await sendCsv(new ReadableStream({
      pull(controller) {
        if (sent++ >= 25) controller.close()
        else controller.enqueue(piece)
      },
    }))
    expect(chunked.status).toBe(413)
    expect(chunked.body?.error.code).toBe('payload_too_large')
  })

  test('(c) kill -9 mid-import: interrupted after the restart; the same file resumes it to done, same import_id, no duplicates', async () => {
    const rows = 150_000
    const lines = ['phone,name']
    for (let i = 0; i < rows; i++) lines.push(`+1212${200 + Math.floor(i / 10_000)}${String(i % 10_000).padStart(4, '0')},Lead ${i}`)
    const csv = `${lines.join('\n')}\n`
    // A campaign of its own: the leads counted at the end are this file's.
    campaignId = (await admin('POST', `/orgs/${orgId}/campaigns`, { name: 'Resumed', status: 'paused', sdrs: [{ name: 'Alex' }] })).body.data.id
    const first = sendCsv(csv).catch(() => null)
    // Killed once some chunks have committed, well before the end.
    let record: any = null
    const deadline = Date.now() + 60_000
    while (Date.now() < deadline) {
      const list = await admin('GET', `/orgs/${orgId}/imports?limit=1`)
      if (list.status !== 200) break
      record = list.body.data?.find((i: any) => i.rows_total === rows)
      if (record && record.rows_done > 0) break
      await Bun.sleep(20)
    }
    expect(record?.rows_done).toBeGreaterThan(0)
    service.proc.kill('SIGKILL')
    await service.proc.exited
    await first
    await start()
    const after = (await admin('GET', `/imports/${record.id}`)).body.data
    console.log(`killed at rows_done ${record.rows_done}; after the restart: ${after.state}, rows_done ${after.rows_done} of ${after.rows_total}`)
    expect(after).toMatchObject({ state: 'interrupted', rows_total: rows, rows_failed: 0 })
    expect(after.rows_done).toBeGreaterThan(0)
    expect(after.rows_done).toBeLessThan(rows)
    expect(after.rows_imported).toBe(after.rows_done)

    const probe = probeHealth()
    const started = performance.now()
    const again = await sendCsv(csv)
    const health = await probe.stop()
    console.log(`resumed import of ${rows - after.rows_done} rows: ${((performance.now() - started) / 1000).toFixed(1)} s; /healthz worst ${health.worst.toFixed(1)} ms over ${health.probes} probes`)
    expect(again.status).toBe(200)
    expect(again.body.data).toMatchObject({ import_id: record.id, resumed_rows: after.rows_done, rows, imported: rows, failed: 0 })
    expect((await admin('GET', `/imports/${record.id}`)).body.data).toMatchObject({ state: 'done', rows_done: rows, rows_imported: rows, rows_failed: 0 })
    const db = new Database(join(dataDir, 'dialer.db'), { readonly: true })
    try {
      expect((db.query('SELECT count(*) AS n FROM leads WHERE campaign_id = ?').get(campaignId) as { n: number }).n).toBe(rows)
    } finally {
      db.close()
    }
  })
})
