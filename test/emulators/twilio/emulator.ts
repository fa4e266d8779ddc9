import { CallEngine } from './emulator-calls'
import { EmulatorObserver } from './emulator-observer'
import { API, error, notFound, type Params, type TwilioErrorBody } from './emulator-http'
import { callIn, type CallInOptions } from './emulator-inbound'
import { conferenceRoutes } from './emulator-rest-conferences'
import { callResource, createCall, type RestContext, startCallRecording, updateCall } from './emulator-rest-calls'
import type { Script } from './emulator-scenarios'
import type { EmulatedCall } from './emulator-types'
import { formParams } from '../../../src/telephony/twilio/signature'
import { toneWav } from '../../../src/telephony/tone-wav'

/**
 * A Twilio-compatible emulator for tests and local runs (docs/telephony.md "The emulator"): the
 * subset of the 2010-04-01 API the dialer uses, Twilio-style JSON errors, and calls played from
 * the simulator's scenario table by the last two digits of To, told through signed callbacks.
 * Every request it gets and every callback it sends is kept for assertions.
 *
 * API for tests (all times are emulated seconds since the call was created, as `answeredAt`):
 * - `TwilioEmulator.start({ accounts, speed, ... })`, `.url` (the carrier's api_base_url), `.stop()`.
 * - `.calls` (every call by CallSid: `to`, `from`, `direction`, `role`, `timeout` as created,
 *   `status`, `answeredAt`, `party`, `spoken`, `pressed`, `legs`, `heard`), `.received`, `.sent`,
 *   `.callbacksFor(callSid)`, `.settled(callSid)`, `.failNext(...)`, `.failNextDelete(...)`.
 * - `.script(phone, { answeredBy, recording, role, press, hangUpAfter })`: how that phone behaves.
 *   `role: 'person'` makes it one of the organization's people (answers in 2 s, stays until hung
 *   up; 02 no answer, 03 busy, 05 failed, 14 a voicemail box) and a call whose Url has /seats/ in
 *   its path is a person's by default; people press keys by their last two digits at any
 *   one-digit <Gather> (11 -> 1, 12 none, 13 -> 2, 14 none). A lead presses `press` (e.g. '9')
 *   at a <Gather> on its own leg, none by default.
 * - `.heardAt(callSid)` -> `{ answeredAt, party, personAnswered, firstHeard: { at, kind } | null,
 *   waited, timeout }`: when the lead first heard a person (bridged to a person's <Number> leg,
 *   or in a started conference with an unmuted person who is not coaching someone else) or a
 *   message (a <Say>/<Play> on its own leg, from when it starts); `waited` = firstHeard.at -
 *   answeredAt. Null for an unknown call. Each real millisecond the service takes to answer a
 *   TwiML request counts `speed` emulated ones: keep speed low (<= 10) for 2-second checks.
 * - `.timeouts()` -> the Timeout of every call the service created, by CallSid.
 * - `.conferences()` / `.conference(friendlyNameOrSid)`: rooms with `status`, `participants`
 *   (call, muted, coaching, callSidToCoach, status) and `log` (conference-start, participant-join,
 *   participant-leave, conference-end, ... with the CallSid).
 * - `.callIn({ from, to, url, statusCallback? })` -> the inbound call, once the TwiML the
 *   incoming-call webhook returned is running.
 * - `.stream(callSid)` -> the call's latest <Connect><Stream> (`.calls.get(sid).streams`: all):
 *   `url`, `streamSid`, `parameters` (the <Parameter>s), `sent` / `received` (every message as
 *   text, in order), `sentPayloads` / `receivedPayloads` (media payloads, in order), `digits`,
 *   `marks` (echoed), `clears`, `errors` (31924 refused messages, 31920/31901 not opened),
 *   `closedBy` ('server' | 'twilio' | 'unreachable'), `closeCode`, `startedAt`, `firstAudioAt`,
 *   `endedAt` (emulated s), `firstAudioMs` (real ms after `start`), `playedBytes`, `done`.
 *   The lead's side is 20 ms μ-law frames in emulated time (its plan's lines as speech bursts,
 *   else noise), `dtmf` keys from `script(phone, { streamDigits: [[2, '9']] })` (seconds after
 *   the stream's start; scenario 07 presses 9 at 2 s), `stop` and close when it hangs up. What
 *   the server sends plays in real time (8 bytes a ms); marks come back when played (at once on
 *   `clear`). The server closing the socket (or a socket that never opens) ends the stream: the
 *   <Connect action> is requested (else the next verb runs). See emulator-stream.ts.
 * REST: Calls (create, fetch, update, Recordings), Recordings (.wav, DELETE), Conferences (list
 * with FriendlyName/Status, fetch, Status=completed) and Participants (list, create, fetch,
 * update Muted/Hold/Coaching/CallSidToCoach, delete). TwiML: Say, Play, Pause,
 * Start/Transcription, Gather, Dial (Number with url, Conference), Connect/Stream, Redirect, Hangup.
 */

export interface EmulatorAccount {
  sid: string
  authToken: string
  /** When set, From must be one of these (Twilio: verified caller IDs or owned numbers). */
  callerIds?: string[]
  /** Calls up at once before 429 (code 20429). */
  maxConcurrentCalls?: number
  /**
   * The account's calls per second (Twilio's CPS, 1 by default there; unlimited here when unset):
   * calls created faster wait in `queued` and start, in turn, as the rate allows. Emulated seconds.
   */
  callsPerSecond?: number
}

export interface EmulatorOptions {
  accounts: EmulatorAccount[]
  /** 0 (default) picks a free port. */
  port?: number
  hostname?: string
  /** Emulated seconds are divided by this (default 1: real time). */
  speed?: number
  /** Send every status, AMD, leg, recording and transcription callback twice (idempotency tests). */
  replayCallbacks?: boolean
  /** Hold notifications briefly and send them shuffled (seeded), some twice: see EngineDeps.shuffle. */
  shuffle?: { seed: number; duplicate?: number }
  /** Transcription lines carry the track labels of <Transcription> in Track (as Twilio does when they are given). */
  trackLabels?: boolean
  /** For callbacks (default: global fetch). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>
}

export type { HeardRecord } from './emulator-observer'

export interface ReceivedRequest {
  method: string
  path: string
  params: Record<string, string | string[]>
  accountSid: string | null
  status: number
}


export class TwilioEmulator extends EmulatorObserver {
  readonly received: ReceivedRequest[] = []
  /** Recordings deleted through DELETE .../Recordings/{Sid}.json. */
  readonly deletedRecordings = new Set<string>()
  private readonly scripts = new Map<string, Script>()
  private readonly deleteFailures: TwilioErrorBody[] = []
  private readonly accounts: Map<string, EmulatorAccount>
  /** Per account: when (real ms) the next call may leave the queue (callsPerSecond). */
  private readonly nextStart = new Map<string, number>()
  protected readonly engine: CallEngine
  private readonly failures: TwilioErrorBody[] = []

  constructor(private readonly options: EmulatorOptions) {
    super()
    this.accounts = new Map(options.accounts.map((a) => [a.sid, a]))
    this.engine = new CallEngine({
      speed: options.speed ?? 1,
      apiBaseUrl: () => this.url,
      fetch: options.fetch ?? ((url, init) => fetch(url, init)),
      sent: this.sent,
      replay: options.replayCallbacks ?? false,
      shuffle: options.shuffle ? { seed: options.shuffle.seed, duplicate: options.shuffle.duplicate ?? 0 } : undefined,
      trackLabels: options.trackLabels ?? false,
    })
  }

  static start(options: EmulatorOptions): TwilioEmulator {
    const emulator = new TwilioEmulator(options)
    emulator.server = Bun.serve({ port: options.port ?? 0, hostname: options.hostname ?? '127.0.0.1', fetch: (req) => emulator.handle(req) })
    return emulator
  }

  /** The next DELETE of a recording answers this error instead, once per call to failNextDelete. */
  failNextDelete(status: number, code: number, message: string): void {
    this.deleteFailures.push({ status, code, message })
  }

  /** Calls placed to `to` from now on play `script` (its AnsweredBy, its recording's fate). */
  script(to: string, script: Script): void {
    this.scripts.set(to, script)
  }

  /** The next create answers this error instead (e.g. 429 20429, 503 20500), once per call to failNext. */
  failNext(status: number, code: number, message: string): void {
    this.failures.push({ status, code, message })
  }

  /** A call comes in from `from` to the account's number `to`: the incoming-call webhook goes to `url` and its TwiML runs. */
  async callIn(options: CallInOptions): Promise<EmulatedCall> {
    const account = options.accountSid ? this.accounts.get(options.accountSid) : this.options.accounts[0]
    if (!account) throw new Error(`No emulator account ${options.accountSid ?? ''}`)
    return callIn(this.engine, account, this.scripts.get(options.from) ?? {}, options, (call) => this.calls.set(call.sid, call))
  }

  async handle(req: Request): Promise<Response> {
    const url = new URL(req.url)
    const params = req.method === 'POST' ? formParams(await req.text()) : {}
    const entry: ReceivedRequest = { method: req.method, path: url.pathname + url.search, params, accountSid: null, status: 0 }
    this.received.push(entry)
    const response = this.route(req, url, params, entry)
    entry.status = response.status
    return response
  }

  private route(req: Request, url: URL, params: Params, entry: ReceivedRequest): Response {
    const path = url.pathname
    if (!path.startsWith(API)) return notFound(path)
    const [accountSid, ...parts] = path.slice(API.length).split('/')
    const [collection, file, ...more] = parts
    const account = this.authenticate(req, accountSid ?? '')
    if (!account) return error({ status: 401, code: 20003, message: 'Authentication Error - invalid username or password' })
    entry.accountSid = account.sid
    const ctx = this.rest()
    if (collection === 'Calls.json' && file === undefined && req.method === 'POST') return createCall(ctx, account, params)
    if (collection === 'Calls' && file?.endsWith('.json') && more.length === 0) {
      const call = this.calls.get(file.slice(0, -5))
      if (!call || call.accountSid !== account.sid) return notFound(path)
      if (req.method === 'GET') return Response.json(callResource(call))
      if (req.method === 'POST') return updateCall(ctx, call, params)
    }
    if (collection === 'Calls' && file && more.length === 1 && more[0] === 'Recordings.json' && req.method === 'POST') {
      const call = this.calls.get(file)
      if (!call || call.accountSid !== account.sid) return notFound(path)
      return startCallRecording(ctx, call, params)
    }
    if (collection === 'Recordings' && file?.endsWith('.wav') && more.length === 0 && req.method === 'GET') {
      const sid = file.slice(0, -4)
      const call = [...this.calls.values()].find((c) => c.recordingSid === sid && c.accountSid === account.sid)
      if (!call || this.deletedRecordings.has(sid)) return notFound(path)
      return new Response(toneWav(), { headers: { 'Content-Type': 'audio/x-wav' } })
    }
    if (collection === 'Recordings' && file?.endsWith('.json') && more.length === 0 && req.method === 'DELETE') {
      const sid = file.slice(0, -5)
      const call = [...this.calls.values()].find((c) => c.recordingSid === sid && c.accountSid === account.sid)
      if (!call || this.deletedRecordings.has(sid)) return notFound(path)
      const failure = this.deleteFailures.shift()
      if (failure) return error(failure)
      this.deletedRecordings.add(sid)
      return new Response(null, { status: 204 })
    }
    return conferenceRoutes(ctx, account, req.method, path, parts, url.searchParams, params) ?? notFound(path)
  }

  private rest(): RestContext {
    return { engine: this.engine, calls: this.calls, scripts: this.scripts, failures: this.failures, queueTurn: (account) => this.queueTurn(account) }
  }

  private authenticate(req: Request, pathSid: string): EmulatorAccount | null {
    const header = req.headers.get('authorization') ?? ''
    if (!header.startsWith('Basic ')) return null
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    const account = this.accounts.get(decoded.slice(0, colon))
    if (colon < 0 || !account || account.authToken !== decoded.slice(colon + 1) || account.sid !== pathSid) return null
    return account
  }

  /** Emulated seconds a call created now waits in `queued` for its turn under the account's calls per second. */
  private queueTurn(account: EmulatorAccount): number {
    if (!account.callsPerSecond) return 0
    const speed = this.options.speed ?? 1
    const now = Date.now()
    const start = Math.max(now, this.nextStart.get(account.sid) ?? 0)
    this.nextStart.set(account.sid, start + 1000 / (account.callsPerSecond * speed))
    return ((start - now) * speed) / 1000
  }
}
