/**
 * Speed-to-lead benchmark: a lead posted with `call_now` while a line is free, to the carrier
 * receiving its `POST .../Calls.json`, beside a bare HTTP round trip measured in the same run.
 *
 *   bun run scripts/bench/speed-to-lead.ts [--leads 400] [--rounds 3] [--speed 50]
 *
 * - The service in this process (createServices + the HTTP handler on Bun.serve, as
 *   twilio-dial.ts), its clock shifted to a New York morning (clock-shift.ts) so the leads are
 *   inside their calling hours; the Twilio emulator as its own process (scripts/twilio-emulator.ts).
 * - Between them, in this process, a pass-through that notes the instant each Calls.json
 *   arrives (performance.now(), the same clock the client reads) and forwards it to the emulator.
 * - One live organization on Twilio, one campaign with more lines than leads; each lead is
 *   posted alone (POST /api/v1/external/leads, call_now true) and the next waits for the
 *   previous one's Calls.json, so a line is always free and nothing queues.
 * - Reference: the same client POSTing the same body to a bare Bun.serve (lib.ts startBare),
 *   send to reply; rounds interleaved, the median round by p99 reported.
 *
 * Target: p99 < 50 ms from the POST to Calls.json.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from '../../src/config'
import { createHandler } from '../../src/app'
import { createServices } from '../../src/services'
import { shiftToNewYorkMorning } from './clock-shift'
import { ADMIN_TOKEN, basicAuth, fmt, freePort, log, medianBy, percentile, printTable, ROOT, sortedCopy, startBare, stop, verdict, waitFor, type Child } from './lib'

const { values } = parseArgs({
  options: {
    leads: { type: 'string', default: '400' },
    rounds: { type: 'string', default: '3' },
    speed: { type: 'string', default: '50' },
  },
})
const LEADS = Number(values.leads)
const ROUNDS = Number(values.rounds)
const SID = `AC${'e5'.repeat(16)}`
const TOKEN = '7b'.repeat(16)

interface Round { p50: number; p99: number; max: number }
const summary = (list: number[]): Round => {
  const sorted = sortedCopy(list)
  return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), max: percentile(sorted, 1) }
}

const work = mkdtempSync(join(tmpdir(), 'dialer-bench-stl-'))
const procs: Child[] = []
const restoreClock = shiftToNewYorkMorning()
let exitCode = 0
try {
  log(`Speed-to-lead benchmark, Bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs; ${LEADS} leads x ${ROUNDS} rounds`)
  const emulatorPort = freePort()
  const emulator = Bun.spawn([process.execPath, 'run', join(ROOT, 'scripts/twilio-emulator.ts'), '--port', String(emulatorPort), '--speed', values.speed!, '--account', `${SID}:${TOKEN}`], { stdout: 'ignore', stderr: 'inherit' })
  procs.push(emulator)
  const emulatorUrl = `http://127.0.0.1:${emulatorPort}`
  await waitFor(`${emulatorUrl}/2010-04-01/Accounts/${SID}/Calls/CA${'0'.repeat(32)}.json`, { child: emulator }).catch(() => {})

  // The pass-through in front of the emulator: when each Calls.json create arrives.
  let arrived: ((at: number) => void) | null = null
  const proxy = Bun.serve({
    port: freePort(), hostname: '127.0.0.1',
    async fetch(request) {
      const at = performance.now()
      const url = new URL(request.url)
      if (request.method === 'POST' && url.pathname.endsWith('/Calls.json')) arrived?.(at)
      const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer()
      const headers = new Headers(request.headers)
      headers.delete('host')
      return fetch(`${emulatorUrl}${url.pathname}${url.search}`, { method: request.method, headers, body })
    },
  })

  const port = freePort()
  const services = createServices(loadConfig({
    DIALER_DATA_DIR: join(work, 'data'), DIALER_ADMIN_TOKEN: ADMIN_TOKEN, DIALER_PUBLIC_URL: `http://127.0.0.1:${port}`, DIALER_LOG_REQUESTS: '0',
  }))
  const server = Bun.serve({ port, hostname: '127.0.0.1', fetch: createHandler(services).handle })
  const bare = await startBare()
  procs.push(bare.proc)
  try {
    const base = `http://127.0.0.1:${port}`
    const post = async (path: string, auth: string, body: unknown) => {
      const r = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      if (!r.ok) throw new Error(`POST ${path}: ${r.status} ${await r.text()}`)
      return ((await r.json()) as { data: any }).data
    }
    const admin = `Bearer ${ADMIN_TOKEN}`
    const org = await post('/api/v1/admin/orgs', admin, {
      name: 'Speed to lead', plan_requests_per_minute: 100_000,
      carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: ['+12125550100'], api_base_url: `http://127.0.0.1:${proxy.port}` },
    })
    const campaign = await post(`/api/v1/admin/orgs/${org.id}/campaigns`, admin, {
      name: 'Speed to lead', status: 'active', lines: 1000, sdrs: [{ name: 'Alex Rivera', phone: '+13125550111' }],
      calling_hours: { start: '08:00', end: '21:00' }, duplicate_window_hours: 0,
    })
    const key = await post(`/api/v1/admin/orgs/${org.id}/keys`, admin, { name: 'bench', mode: 'live', requests_per_minute: 100_000, burst: 100_000, leads_per_minute: 100_000 })
    const auth = basicAuth(key.id, key.secret)

    const service: Round[] = []
    const reference: Round[] = []
    let serial = 0
    for (let round = 0; round < ROUNDS; round++) {
      // The reference first in odd rounds, second in even ones.
      const order = round % 2 === 0 ? ['service', 'bare'] : ['bare', 'service']
      for (const which of order) {
        const times: number[] = []
        for (let i = 0; i < LEADS; i++) {
          const n = serial++
          // Last two digits 16-99: the emulator's ordinary mix; one number per lead, never a duplicate.
          const body = { campaign_id: campaign.id, call_now: true, phone: `+1212${400 + Math.floor(n / 8400)}${String(Math.floor(n / 84) % 100).padStart(2, '0')}${16 + (n % 84)}`, name: 'Pat Lee' }
          if (which === 'bare') {
            const start = performance.now()
            const r = await fetch(bare.url, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) })
            await r.arrayBuffer()
            times.push(performance.now() - start)
            continue
          }
          const dialed = new Promise<number>((resolve) => (arrived = resolve))
          const start = performance.now()
          const lead = await post('/api/v1/external/leads', auth, body)
          if (lead.status !== 'dialing') throw new Error(`lead ${n}: status ${lead.status}`)
          const at = await Promise.race([dialed, Bun.sleep(5_000).then(() => -1)])
          if (at < 0) throw new Error(`lead ${n}: no Calls.json within 5 s (status ${lead.status})`)
          times.push(at - start)
        }
        ;(which === 'service' ? service : reference).push(summary(times))
      }
    }
    const s = medianBy(service, (r) => r.p99)
    const b = medianBy(reference, (r) => r.p99)
    log('')
    printTable([
      ['measure', 'figure', 'target', ''],
      [`POST /leads call_now -> Calls.json at the carrier (${LEADS} leads, median of ${ROUNDS} rounds)`, `p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms, max ${s.max.toFixed(2)} ms`, 'p99 < 50 ms', verdict(s.p99 < 50)],
      ['bare Bun.serve POST round trip, same client (reference)', `p50 ${b.p50.toFixed(2)} ms, p99 ${b.p99.toFixed(2)} ms, max ${b.max.toFixed(2)} ms`, '(reference)', ''],
      ['rounds (service p99 / reference p99)', service.map((r, i) => `${fmt(r.p99, 2)}/${fmt(reference[i]!.p99, 2)}`).join(', '), '', ''],
    ])
    if (s.p99 >= 50) exitCode = 1
  } finally {
    server.stop(true)
    proxy.stop(true)
    services.close()
  }
} catch (error) {
  console.error(error)
  exitCode = 1
} finally {
  restoreClock()
  for (const proc of procs) await stop(proc)
  rmSync(work, { recursive: true, force: true })
}
process.exit(exitCode)
