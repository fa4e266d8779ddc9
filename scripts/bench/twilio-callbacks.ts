/**
 * Part 1 of the Twilio benchmark (scripts/bench/twilio.ts): signed Twilio callbacks a second
 * against the service as a child process, next to GET /healthz on the same service.
 *
 * - The service (`bun run src/main.ts serve`, request log on as shipped) with the fake clock
 *   set to a New York morning (the calling rules let the leads be dialed whenever the bench
 *   runs); one organization whose carrier is the Twilio emulator (speed 0.001: after the
 *   `initiated` callback the emulator is silent, so every call stays up); a campaign with
 *   `calls` lines and one lead per line, all dialed through the emulator's REST API.
 * - For each call: a `ringing` and an `in-progress` status callback and `lines` final
 *   transcription lines, form-encoded and signed with the account's token exactly as Twilio
 *   signs them (src/telephony/twilio/signature.ts; the unit tests check it against the
 *   official package). wrk sends them in turn at `connections` connections: the first pass
 *   changes the calls (answered, transcript lines stored), later passes are the replays
 *   Twilio may send (idempotent: checked and answered without a change).
 * - A reply other than 200 counts as bad; the run fails if any is.
 */
import { join } from 'node:path'
import { signTwilioRequest } from '../../src/telephony/twilio/signature'
import { TwilioEmulator } from '../../test/emulators/twilio/emulator'
import { daytimeStart, setClock } from '../../test/process/daytime-clock'
import { ADMIN_TOKEN, basicAuth, lua, runWrk, startService, stop, wrkCommon, type Child, rotatingGets } from './lib'

export interface CallbackFigures {
  calls: number
  requests: number
  rounds: { callbacks: Rate; health: Rate }[]
}

export interface Rate {
  rps: number
  p50: number
  p99: number
  bad: number
  firstBad: string
}

const SID = `AC${'b7'.repeat(16)}`
const TOKEN = '5e'.repeat(16)
const CALLER = '+12125550100'

interface SignedPost {
  path: string
  body: string
  signature: string
}

/** A wrk script that POSTs `posts` in turn, each with its signature; anything but 200 is bad. */
function rotatingPosts(posts: SignedPost[]): string {
  const rows = posts.map((p) => `{${lua(p.path)},${lua(p.body)},${lua(p.signature)}}`).join(',\n')
  return `${wrkCommon}
local reqs = {${rows}}
local i = 0
function init(args) i = math.random(#reqs) end
function request()
  i = (i % #reqs) + 1
  local r = reqs[i]
  return wrk.format("POST", r[1], {["Content-Type"] = "application/x-www-form-urlencoded", ["X-Twilio-Signature"] = r[3]}, r[2])
end
function response(status, headers, body)
  if status ~= 200 then note_bad(status, body) end
end
`
}

async function json(base: string, method: string, path: string, auth: string, body?: unknown): Promise<any> {
  const r = await fetch(`${base}${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`)
  return ((await r.json()) as { data: any }).data
}

export async function callbackBench(options: { work: string; calls: number; lines: number; seconds: number; rounds: number; connections: number; procs: Child[] }): Promise<CallbackFigures> {
  const emulator = TwilioEmulator.start({ accounts: [{ sid: SID, authToken: TOKEN, callerIds: [CALLER] }], speed: 0.001 })
  process.env.DIALER_FAKE_CLOCK = '1'
  const service = await startService({ dataDir: join(options.work, 'callbacks'), logFile: join(options.work, 'callbacks.log') })
  delete process.env.DIALER_FAKE_CLOCK
  options.procs.push(service.proc)
  try {
    const { base } = service
    const admin = `Bearer ${ADMIN_TOKEN}`
    await setClock(base, ADMIN_TOKEN, daytimeStart(Date.now(), ['America/New_York']))
    const org = await json(base, 'POST', '/api/v1/admin/orgs', admin, {
      name: 'Twilio bench', plan_requests_per_minute: 100_000,
      carrier: { kind: 'twilio', account_sid: SID, auth_token: TOKEN, caller_ids: [CALLER], api_base_url: emulator.url, machine_detection: false },
    })
    const campaign = await json(base, 'POST', `/api/v1/admin/orgs/${org.id}/campaigns`, admin, {
      name: 'Twilio bench', status: 'active', lines: options.calls, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }],
    })
    const key = await json(base, 'POST', `/api/v1/admin/orgs/${org.id}/keys`, admin, { name: 'bench', mode: 'live', requests_per_minute: 100_000, burst: 100_000, leads_per_minute: 100_000 })
    const auth = basicAuth(key.id, key.secret)
    for (let i = 0; i < options.calls; i += 50) {
      const leads = Array.from({ length: Math.min(50, options.calls - i) }, (_, j) => ({ campaign_id: campaign.id, phone: `+1212555${String(2000 + i + j).padStart(4, '0')}`, call_now: true }))
      await json(base, 'POST', '/api/v1/external/leads/batch', auth, { leads })
    }
    // Every call placed at the emulator: the create request names our call id in its callback URLs.
    const deadline = performance.now() + 30_000
    while (emulator.calls.size < options.calls) {
      if (performance.now() > deadline) throw new Error(`only ${emulator.calls.size} of ${options.calls} calls reached the emulator`)
      await Bun.sleep(50)
    }
    const posts: SignedPost[] = []
    const sign = (url: string, params: Record<string, string>) => {
      posts.push({ path: new URL(url).pathname, body: new URLSearchParams(params).toString(), signature: signTwilioRequest(TOKEN, url, params) })
    }
    for (const request of emulator.received.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls.json') && r.status === 201)) {
      const statusUrl = String(request.params.StatusCallback)
      const callSid = [...emulator.calls.values()].find((c) => c.statusCallback === statusUrl)?.sid
      if (!callSid) throw new Error(`no emulated call for ${statusUrl}`)
      const base = { AccountSid: SID, CallSid: callSid, From: CALLER, To: String(request.params.To), Direction: 'outbound-api', ApiVersion: '2010-04-01' }
      sign(statusUrl, { ...base, CallStatus: 'ringing', SequenceNumber: '1' })
      sign(statusUrl, { ...base, CallStatus: 'in-progress', SequenceNumber: '2' })
      const transcriptionUrl = statusUrl.replace(/\/status$/, '/transcription')
      for (let n = 1; n <= options.lines; n++) {
        sign(transcriptionUrl, {
          AccountSid: SID, CallSid: callSid, TranscriptionSid: `GT${callSid.slice(2)}`, Timestamp: new Date().toISOString(), SequenceId: String(n),
          TranscriptionEvent: 'transcription-content', LanguageCode: 'en-US', Track: n % 2 ? 'inbound_track' : 'outbound_track',
          TranscriptionData: JSON.stringify({ transcript: `Line ${n} of the conversation about the roof.`, confidence: 0.93 }), Final: 'true',
        })
      }
    }
    const rounds: CallbackFigures['rounds'] = []
    for (let round = 0; round < options.rounds; round++) {
      const measure = (name: string, script: string): Rate => {
        const r = runWrk({ url: base, script, scriptFile: join(options.work, `${name}.lua`), seconds: options.seconds, connections: options.connections })
        return { rps: r.requests / r.seconds, p50: r.p50 / 1000, p99: r.p99 / 1000, bad: r.bad + r.socket_errors, firstBad: r.first_status ? `${r.first_status} ${r.first_body}` : '' }
      }
      const callbacks = measure('callbacks', rotatingPosts(posts))
      const health = measure('health', rotatingGets([{ path: '/healthz', auth: '' }], 'status ~= 200'))
      rounds.push({ callbacks, health })
    }
    // The callbacks did what they say: every call answered, with its transcript lines.
    const sample = await json(base, 'GET', `/api/v1/external/calls?campaign_id=${campaign.id}&limit=5`, auth)
    for (const call of sample) {
      if (call.status !== 'in_progress') throw new Error(`call ${call.id} is ${call.status} after its in-progress callback`)
      const transcript = await json(base, 'GET', `/api/v1/external/calls/${call.id}/transcript`, auth)
      const lines = transcript.lines ?? transcript
      if (!Array.isArray(lines) || lines.length !== options.lines) throw new Error(`call ${call.id} has ${Array.isArray(lines) ? lines.length : '?'} transcript lines, expected ${options.lines}`)
    }
    return { calls: options.calls, requests: posts.length, rounds }
  } finally {
    await stop(service.proc)
    await emulator.stop()
  }
}
