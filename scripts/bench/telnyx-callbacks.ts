/**
 * The callback part of the Telnyx benchmark (scripts/bench/telnyx.ts): signed Telnyx callbacks a
 * second beside signed Twilio callbacks and GET /healthz, all against one service as a child
 * process, in interleaved rounds.
 *
 * - The service as twilio-callbacks.ts starts it (fake clock at a New York morning, frozen), with
 *   two organizations: one on the Twilio emulator, one on the Telnyx emulator (speed 0.001: after
 *   the `initiated` callback both are silent, so every call stays up), `calls` open calls each.
 * - Twilio: the posts twilio-callbacks.ts makes (HMAC-SHA1), sent in turn; passes after the first
 *   are the duplicates Twilio may send.
 * - Telnyx: per call a `ringing` and an `in-progress` callback and `lines` transcription lines,
 *   with Telnyx's fields, each signed with the emulator's Ed25519 key over `timestamp|body`, the
 *   timestamp within ±300 s of the service's clock. The service answers a signature it has seen
 *   from memory (a replay), cheaper than a callback checked and matched, so every post here is
 *   distinct: the first pass of each body, then the same bodies again under other timestamps
 *   (the resent callback Telnyx signs afresh: checked, matched, changing nothing). Each round gets
 *   its own `telnyxPosts`, split among wrk's threads; a thread that runs out starts its share
 *   again, and those repeats are counted and reported as replays.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TelnyxEmulator } from '../../test/emulators/telnyx/emulator'
import { TwilioEmulator } from '../../test/emulators/twilio/emulator'
import { stop, wrkCommon, type Child } from './lib'
import {
  CALLER, checkApplied, healthScript, measure, seedCallingOrg, startBenchService, twilioCallbackScript, twilioPosts,
  TWILIO_SID, TWILIO_TOKEN, type Rate,
} from './twilio-callbacks'

const ACCOUNT = '6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b'
const API_KEY = 'KEY01A2B3C4D5E6F7_bench'
const APP = '1773070540731319841'
const THREADS = 2
/** Timestamps stay this far inside the ±300 s window (the service's clock is frozen). */
const WINDOW = 290

export interface CarrierRound {
  telnyx: Rate
  twilio: Rate
  health: Rate
}

export interface TwoCarrierFigures {
  calls: number
  /** Distinct callback bodies per carrier (a call's statuses and transcript lines). */
  bodies: { telnyx: number; twilio: number }
  /** Distinct signed Telnyx posts prepared for each round. */
  telnyxPosts: number
  rounds: CarrierRound[]
}

interface TelnyxBody {
  path: string
  body: string
}

/** Each call's callbacks as Telnyx's TeXML sends them (test/emulators/telnyx/telnyx-wire.ts). */
function telnyxBodies(emulator: TelnyxEmulator, lines: number): TelnyxBody[] {
  const bodies: TelnyxBody[] = []
  for (const call of emulator.calls.values()) {
    if (!call.statusCallback) throw new Error(`Telnyx call ${call.sid} has no status callback`)
    const statusPath = new URL(call.statusCallback).pathname
    const base = {
      AccountSid: ACCOUNT, ApiVersion: '2010-04-01', CallSid: call.sid, CallSidLegacy: call.sid, ConnectionId: APP, From: call.from, To: call.to,
      CallbackSource: 'call-progress-events', CallInitiatedAt: new Date(call.startedAt).toISOString(),
    }
    const add = (path: string, params: Record<string, string>) => bodies.push({ path, body: new URLSearchParams(params).toString() })
    add(statusPath, { ...base, CallStatus: 'ringing', SequenceNumber: '1', Timestamp: new Date().toISOString(), CallDuration: '0' })
    add(statusPath, { ...base, CallStatus: 'in-progress', SequenceNumber: '2', Timestamp: new Date().toISOString(), CallDuration: '0', AnsweredTime: new Date().toISOString() })
    const transcriptionPath = statusPath.replace(/\/status$/, '/transcription')
    for (let n = 1; n <= lines; n++) {
      add(transcriptionPath, { AccountSid: ACCOUNT, CallSid: call.sid, CallSidLegacy: call.sid, Transcript: `Line ${n} of the conversation about the roof.`, IsFinal: 'true', Confidence: '0.93' })
    }
  }
  return bodies
}

/**
 * Posts `from` to `from + count - 1`: post k is body k % bodies at timestamp `first + floor(k /
 * bodies)`, so no two alike; as lines `path\ttimestamp\tsignature\tbody` (form bodies and base64
 * hold no tab or newline).
 */
function signTelnyxPosts(emulator: TelnyxEmulator, bodies: TelnyxBody[], first: number, from: number, count: number): string {
  const rows: string[] = []
  for (let k = from; k < from + count; k++) {
    const { path, body } = bodies[k % bodies.length]!
    const timestamp = first + Math.floor(k / bodies.length)
    rows.push(`${path}\t${timestamp}\t${emulator.signedHeaders(body, timestamp)['telnyx-signature-ed25519']}\t${body}`)
  }
  return `${rows.join('\n')}\n`
}

/** A wrk script: each thread reads its share of `file` (line n % threads) and POSTs it in turn; `used` counts what it sends a second time. */
function telnyxScript(file: string): string {
  return `${wrkCommon}
local posts = {}
local i = 0
function init(args)
  local n = 0
  for line in io.lines(${JSON.stringify(file)}) do
    if n % ${THREADS} == tid then
      local path, ts, sig, body = string.match(line, "^([^\\t]*)\\t([^\\t]*)\\t([^\\t]*)\\t(.*)$")
      posts[#posts + 1] = wrk.format("POST", path, {["Content-Type"] = "application/x-www-form-urlencoded", ["telnyx-timestamp"] = ts, ["telnyx-signature-ed25519"] = sig}, body)
    end
    n = n + 1
  end
end
function request()
  i = i + 1
  if i > #posts then used = used + 1 end
  return posts[((i - 1) % #posts) + 1]
end
function response(status, headers, body)
  if status ~= 200 then note_bad(status, body) end
end
`
}

export async function twoCarrierBench(options: { work: string; calls: number; lines: number; seconds: number; rounds: number; connections: number; telnyxPosts: number; procs: Child[] }): Promise<TwoCarrierFigures> {
  const twilio = TwilioEmulator.start({ accounts: [{ sid: TWILIO_SID, authToken: TWILIO_TOKEN, callerIds: [CALLER] }], speed: 0.001 })
  const telnyx = TelnyxEmulator.start({ accounts: [{ accountSid: ACCOUNT, apiKey: API_KEY, applicationSid: APP, callerIds: [CALLER] }], speed: 0.001 })
  const service = await startBenchService(options.work, 'carriers', options.procs)
  try {
    const { base, clock } = service
    // Telnyx signs with its clock; the service checks against its fake one (frozen at `clock`).
    telnyx.clockSkew = Math.round((clock - Date.now()) / 1000)
    const tw = await seedCallingOrg(base, {
      name: 'Twilio bench', calls: options.calls, series: 2, emulator: twilio,
      carrier: { kind: 'twilio', account_sid: TWILIO_SID, auth_token: TWILIO_TOKEN, caller_ids: [CALLER], api_base_url: twilio.url, machine_detection: false },
    })
    const tx = await seedCallingOrg(base, {
      name: 'Telnyx bench', calls: options.calls, series: 3, emulator: telnyx,
      carrier: { kind: 'telnyx', account_sid: ACCOUNT, api_key: API_KEY, application_sid: APP, public_key: telnyx.publicKey, caller_ids: [CALLER], api_base_url: telnyx.url, machine_detection: false },
    })
    // The service learns a Telnyx call's id from its first callback (`initiated`): wait until each was answered.
    const deadline = performance.now() + 30_000
    const initiated = () => telnyx.sent.filter((c) => c.params.CallStatus === 'initiated' && c.status === 200).length
    while (initiated() < options.calls) {
      if (performance.now() > deadline) throw new Error(`only ${initiated()} of ${options.calls} Telnyx initiated callbacks accepted`)
      await Bun.sleep(50)
    }
    const twPosts = twilioPosts(twilio, options.lines)
    const bodies = telnyxBodies(telnyx, options.lines)
    const perRound = Math.max(options.telnyxPosts, bodies.length)
    const stamps = Math.ceil((perRound * options.rounds) / bodies.length)
    if (stamps > 2 * WINDOW) throw new Error(`${perRound} posts a round need ${stamps} timestamps per body; the window holds ${2 * WINDOW}`)
    const first = Math.floor(clock / 1000) - WINDOW
    const files: string[] = []
    const signing = performance.now()
    for (let round = 0; round < options.rounds; round++) {
      const file = join(options.work, `telnyx-posts-${round}.tsv`)
      writeFileSync(file, signTelnyxPosts(telnyx, bodies, first, perRound * round, perRound))
      files.push(file)
    }
    console.log(`signed ${perRound * options.rounds} distinct Telnyx posts in ${((performance.now() - signing) / 1000).toFixed(1)} s`)
    const run = { work: options.work, base, seconds: options.seconds, connections: options.connections }
    const rounds: CarrierRound[] = []
    for (let round = 0; round < options.rounds; round++) {
      const telnyxRate = measure({ ...run, name: 'telnyx', script: telnyxScript(files[round]!) })
      const twilioRate = measure({ ...run, name: 'twilio', script: twilioCallbackScript(twPosts) })
      const health = measure({ ...run, name: 'health', script: healthScript() })
      rounds.push({ telnyx: telnyxRate, twilio: twilioRate, health })
    }
    await checkApplied(base, tw.auth, tw.campaignId, options.lines)
    await checkApplied(base, tx.auth, tx.campaignId, options.lines)
    return { calls: options.calls, bodies: { telnyx: bodies.length, twilio: twPosts.length }, telnyxPosts: perRound, rounds }
  } finally {
    await stop(service.proc)
    await twilio.stop()
    await telnyx.stop()
  }
}
