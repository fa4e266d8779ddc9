/**
 * Part 2 of the Twilio benchmark (scripts/bench/twilio.ts): the dialer's scheduling delay with
 * `lines` live calls up at once on one campaign, dialing through Twilio, next to the same
 * campaign dialing through the simulator in the same run.
 *
 * - The service in this process (createServices + the HTTP handler on Bun.serve: Twilio's
 *   callbacks come in over loopback, as served), real timers, the clock shifted to a New York
 *   morning (dialer-dial.ts). The Twilio emulator runs as its own process
 *   (scripts/twilio-emulator.ts), as Twilio is not in the service's process, at `speed` (a
 *   45-second call lasts 45/speed s), playing the simulator's mix of scenarios by the last two
 *   digits of the number; the simulator reference runs at the same speed.
 * - Two organizations, one campaign each with `lines` lines, one SDR (with a phone for the
 *   bridge), `leads` leads each through POST /leads/batch while the dialer is off; then the
 *   dialer on, one campaign after the other, until every lead has been called once.
 * - Figures: the dialer's delays (a lead next with a free line -> dialed, `measureDelays()`:
 *   what the target is about), the most calls up at once (sampled every 10 ms: it must reach
 *   `lines`), calls a second.
 */
import { join } from 'node:path'
import { loadConfig } from '../../src/config'
import { createHandler } from '../../src/app'
import { createServices, type Services } from '../../src/services'
import { shiftToNewYorkMorning } from './clock-shift'
import { ADMIN_TOKEN, basicAuth, freePort, ROOT, sortedCopy, waitFor, type Child } from './lib'

export interface DialFigures {
  name: string
  leads: number
  calls: number
  /** Calls placed through Twilio (carrier_calls rows): all of them on the Twilio run, none on the reference. */
  viaTwilio: number
  peakUp: number
  seconds: number
  delays: Float64Array
}

const SID = `AC${'d4'.repeat(16)}`
const TOKEN = '9a'.repeat(16)
const CALLER = '+12125550100'

export async function dialDelayBench(options: { work: string; lines: number; leads: number; speed: number; procs: Child[] }): Promise<DialFigures[]> {
  const restoreClock = shiftToNewYorkMorning()
  const emulatorPort = freePort()
  const emulator = Bun.spawn([process.execPath, 'run', join(ROOT, 'scripts/twilio-emulator.ts'), '--port', String(emulatorPort), '--speed', String(options.speed), '--account', `${SID}:${TOKEN}`], { stdout: 'ignore', stderr: 'inherit' })
  options.procs.push(emulator)
  const emulatorUrl = `http://127.0.0.1:${emulatorPort}`
  const port = freePort()
  const services: Services = createServices(loadConfig({
    DIALER_DATA_DIR: join(options.work, 'dial'),
    DIALER_ADMIN_TOKEN: ADMIN_TOKEN,
    DIALER_SIM_SPEED: String(options.speed),
    DIALER_PUBLIC_URL: `http://127.0.0.1:${port}`,
    DIALER_LOG_REQUESTS: '0',
  }), { autoDial: false })
  const server = Bun.serve({ port, hostname: '127.0.0.1', fetch: createHandler(services).handle })
  try {
    await waitFor(`${emulatorUrl}/2010-04-01/Accounts/${SID}/Calls/CA${'0'.repeat(32)}.json`, { child: emulator }).catch(() => {})
    const base = `http://127.0.0.1:${port}`
    const post = async (path: string, auth: string, body: unknown) => {
      const r = await fetch(`${base}${path}`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      if (!r.ok) throw new Error(`POST ${path}: ${r.status} ${await r.text()}`)
      return ((await r.json()) as { data: any }).data
    }
    const admin = `Bearer ${ADMIN_TOKEN}`
    const setups = [
      { name: 'simulator (reference)', carrier: { kind: 'simulator' } },
      { name: 'Twilio (emulator)', carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER], api_base_url: emulatorUrl } },
    ]
    const campaigns: { name: string; id: string }[] = []
    for (const [index, setup] of setups.entries()) {
      const org = await post('/api/v1/admin/orgs', admin, { name: setup.name, plan_requests_per_minute: 100_000, carrier: setup.carrier })
      const campaign = await post(`/api/v1/admin/orgs/${org.id}/campaigns`, admin, {
        // Paused while the leads come in (they are held), activated for its own run.
        name: setup.name, status: 'paused', lines: options.lines, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }],
        calling_hours: { start: '08:00', end: '21:00' }, retry_minutes: 600,
      })
      const key = await post(`/api/v1/admin/orgs/${org.id}/keys`, admin, { name: 'bench', mode: 'live', requests_per_minute: 100_000, burst: 100_000, leads_per_minute: 100_000 })
      const auth = basicAuth(key.id, key.secret)
      for (let i = 0; i < options.leads; i += 50) {
        // Last two digits 16-99: the simulator's (and the emulator's) realistic mix of scenarios.
        const leads = Array.from({ length: Math.min(50, options.leads - i) }, (_, j) => {
          const n = i + j
          return { phone: `+1212${300 + index * 100}${String(Math.floor(n / 84)).padStart(2, '0')}${16 + (n % 84)}` }
        })
        const reply = await post('/api/v1/external/leads/batch', auth, { campaign_id: campaign.id, leads })
        const refused = JSON.stringify(reply).match(/"code":"\w+"/)
        if (refused) throw new Error(`${setup.name}: a lead was refused: ${refused[0]}`)
      }
      campaigns.push({ name: setup.name, id: campaign.id })
    }

    const patch = async (id: string, status: string) => {
      const r = await fetch(`${base}/api/v1/admin/campaigns/${id}`, { method: 'PATCH', headers: { authorization: admin, 'content-type': 'application/json' }, body: JSON.stringify({ status }) })
      if (!r.ok) throw new Error(`PATCH campaign ${id}: ${r.status} ${await r.text()}`)
    }
    services.dialer.setEnabled(true)
    const figures: DialFigures[] = []
    for (const campaign of campaigns) {
      const before = services.dialer.measureDelays().length
      const start = performance.now()
      let peakUp = 0
      await patch(campaign.id, 'active')
      const deadline = start + 180_000
      for (;;) {
        await Bun.sleep(10)
        const up = services.dialer.callsUp(campaign.id, true)
        peakUp = Math.max(peakUp, up)
        if (services.queues.size(campaign.id, true) === 0 && up === 0) break
        if (performance.now() > deadline) throw new Error(`${campaign.name}: not done in 180 s (${services.queues.size(campaign.id, true)} queued, ${up} up)`)
      }
      await patch(campaign.id, 'paused')
      const seconds = (performance.now() - start) / 1000
      const delays = sortedCopy(services.dialer.measureDelays().slice(before))
      const count = (sql: string) => (services.database.sqlite.query(sql).get(campaign.id) as { n: number }).n
      const calls = count('SELECT count(*) AS n FROM calls WHERE campaign_id = ?')
      // Which carrier placed them: Twilio's calls each have a carrier_calls row.
      const viaTwilio = count('SELECT count(*) AS n FROM carrier_calls WHERE call_id IN (SELECT id FROM calls WHERE campaign_id = ?)')
      figures.push({ name: campaign.name, leads: options.leads, calls, viaTwilio, peakUp, seconds, delays })
    }
    return figures
  } finally {
    server.stop(true)
    services.close()
    emulator.kill('SIGTERM')
    await emulator.exited
    restoreClock()
  }
}
