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
import type { EmulatedCall } from '../../test/emulators/twilio/emulator-types'
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
  /** Requests a wrk thread sent again after its share ran out (the script's `used`; 0 when it keeps none). */
  repeats: number
}

export const TWILIO_SID = `AC${'b7'.repeat(16)}`
export const TWILIO_TOKEN = '5e'.repeat(16)
export const CALLER = '+12125550100'

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

export async function json(base: string, method: string, path: string, auth: string, body?: unknown): Promise<any> {
  const r = await fetch(`${base}${path}`, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`)
  return ((await r.json()) as { data: any }).data
}

/** The service as a child process with its fake clock set to a New York morning (returned, unix ms). */
export async function startBenchService(work: string, name: string, procs: Child[]): Promise<{ proc: Child; base: string; clock: number }> {
  process.env.DIALER_FAKE_CLOCK = '1'
  const service = await startService({ dataDir: join(work, name), logFile: join(work, `${name}.log`) })
  delete process.env.DIALER_FAKE_CLOCK
  procs.push(service.proc)
  const clock = daytimeStart(Date.now(), ['America/New_York'])
  await setClock(service.base, ADMIN_TOKEN, clock)
  return { proc: service.proc, base: service.base, clock }
}

/**
 * An organization on `carrier`, an active campaign with `calls` lines and one lead per line
 * (phones +1212555<series><nnn>), all dialed; resolves once `emulator` holds every call.
 */
export async function seedCallingOrg(base: string, options: { name: string; carrier: Record<string, unknown>; calls: number; series: number; emulator: { calls: Map<string, EmulatedCall> } }): Promise<{ campaignId: string; auth: string }> {
  if (options.calls > 1000) throw new Error('at most 1,000 calls per organization (the leads\u2019 phones are +1212555<series><nnn>)')
  const admin = `Bearer ${ADMIN_TOKEN}`
  const before = options.emulator.calls.size
  const org = await json(base, 'POST', '/api/v1/admin/orgs', admin, { name: options.name, plan_requests_per_minute: 100_000, carrier: options.carrier })
  const campaign = await json(base, 'POST', `/api/v1/admin/orgs/${org.id}/campaigns`, admin, {
    name: options.name, status: 'active', lines: options.calls, sdrs: [{ name: 'Alex Rivera', phone: '+13125550150' }],
  })
  const key = await json(base, 'POST', `/api/v1/admin/orgs/${org.id}/keys`, admin, { name: 'bench', mode: 'live', requests_per_minute: 100_000, burst: 100_000, leads_per_minute: 100_000 })
  const auth = basicAuth(key.id, key.secret)
  for (let i = 0; i < options.calls; i += 50) {
    const leads = Array.from({ length: Math.min(50, options.calls - i) }, (_, j) => ({ campaign_id: campaign.id, phone: `+1212555${options.series}${String(i + j).padStart(3, '0')}`, call_now: true }))
    await json(base, 'POST', '/api/v1/external/leads/batch', auth, { leads })
  }
  // Every call placed at the emulator: the create request names our call id in its callback URLs.
  const deadline = performance.now() + 30_000
  while (options.emulator.calls.size < before + options.calls) {
    if (performance.now() > deadline) throw new Error(`only ${options.emulator.calls.size - before} of ${options.calls} calls reached the ${options.name} emulator`)
    await Bun.sleep(50)
  }
  return { campaignId: campaign.id, auth }
}

/** For each call: a `ringing` and an `in-progress` status callback and `lines` final transcription lines, signed as Twilio signs them. */
export function twilioPosts(emulator: TwilioEmulator, lines: number): SignedPost[] {
  const posts: SignedPost[] = []
  const sign = (url: string, params: Record<string, string>) => {
    posts.push({ path: new URL(url).pathname, body: new URLSearchParams(params).toString(), signature: signTwilioRequest(TWILIO_TOKEN, url, params) })
  }
  for (const request of emulator.received.filter((r) => r.method === 'POST' && r.path.endsWith('/Calls.json') && r.status === 201)) {
    const statusUrl = String(request.params.StatusCallback)
    const callSid = [...emulator.calls.values()].find((c) => c.statusCallback === statusUrl)?.sid
    if (!callSid) throw new Error(`no emulated call for ${statusUrl}`)
    const base = { AccountSid: TWILIO_SID, CallSid: callSid, From: CALLER, To: String(request.params.To), Direction: 'outbound-api', ApiVersion: '2010-04-01' }
    sign(statusUrl, { ...base, CallStatus: 'ringing', SequenceNumber: '1' })
    sign(statusUrl, { ...base, CallStatus: 'in-progress', SequenceNumber: '2' })
    const transcriptionUrl = statusUrl.replace(/\/status$/, '/transcription')
    for (let n = 1; n <= lines; n++) {
      sign(transcriptionUrl, {
        AccountSid: TWILIO_SID, CallSid: callSid, TranscriptionSid: `GT${callSid.slice(2)}`, Timestamp: new Date().toISOString(), SequenceId: String(n),
        TranscriptionEvent: 'transcription-content', LanguageCode: 'en-US', Track: n % 2 ? 'inbound_track' : 'outbound_track',
        TranscriptionData: JSON.stringify({ transcript: `Line ${n} of the conversation about the roof.`, confidence: 0.93 }), Final: 'true',
      })
    }
  }
  return posts
}

export const twilioCallbackScript = rotatingPosts
export const healthScript = () => rotatingGets([{ path: '/healthz', auth: '' }], 'status ~= 200')

/** One wrk run of `script` against `base`; times in ms. */
export function measure(options: { work: string; base: string; name: string; script: string; seconds: number; connections: number }): Rate {
  const r = runWrk({ url: options.base, script: options.script, scriptFile: join(options.work, `${options.name}.lua`), seconds: options.seconds, connections: options.connections })
  return { rps: r.requests / r.seconds, p50: r.p50 / 1000, p99: r.p99 / 1000, bad: r.bad + r.socket_errors, firstBad: r.first_status ? `${r.first_status} ${r.first_body}` : '', repeats: r.used }
}

/** The callbacks did what they say: sampled calls answered, each with its `lines` transcript lines. */
export async function checkApplied(base: string, auth: string, campaignId: string, lines: number): Promise<void> {
  const sample = await json(base, 'GET', `/api/v1/external/calls?campaign_id=${campaignId}&limit=5`, auth)
  for (const call of sample) {
    if (call.status !== 'in_progress') throw new Error(`call ${call.id} is ${call.status} after its in-progress callback`)
    const transcript = await json(base, 'GET', `/api/v1/external/calls/${call.id}/transcript`, auth)
    const got = transcript.lines ?? transcript
    if (!Array.isArray(got) || got.length !== lines) throw new Error(`call ${call.id} has ${Array.isArray(got) ? got.length : '?'} transcript lines, expected ${lines}`)
  }
}

export async function callbackBench(options: { work: string; calls: number; lines: number; seconds: number; rounds: number; connections: number; procs: Child[] }): Promise<CallbackFigures> {
  const emulator = TwilioEmulator.start({ accounts: [{ sid: TWILIO_SID, authToken: TWILIO_TOKEN, callerIds: [CALLER] }], speed: 0.001 })
  const service = await startBenchService(options.work, 'callbacks', options.procs)
  try {
    const { base } = service
    const { campaignId, auth } = await seedCallingOrg(base, {
      name: 'Twilio bench', calls: options.calls, series: 2, emulator,
      carrier: { kind: 'twilio', account_sid: TWILIO_SID, auth_token: TWILIO_TOKEN, caller_ids: [CALLER], api_base_url: emulator.url, machine_detection: false },
    })
    const posts = twilioPosts(emulator, options.lines)
    const rounds: CallbackFigures['rounds'] = []
    const run = { work: options.work, base, seconds: options.seconds, connections: options.connections }
    for (let round = 0; round < options.rounds; round++) {
      const callbacks = measure({ ...run, name: 'callbacks', script: rotatingPosts(posts) })
      const health = measure({ ...run, name: 'health', script: healthScript() })
      rounds.push({ callbacks, health })
    }
    await checkApplied(base, auth, campaignId, options.lines)
    return { calls: options.calls, requests: posts.length, rounds }
  } finally {
    await stop(service.proc)
    await emulator.stop()
  }
}
