import { seededRandom } from '../../seeded-random'
import { CallEngine } from '../twilio/emulator-calls'
import { EmulatorObserver } from '../twilio/emulator-observer'
import { callIn, type CallInOptions } from '../twilio/emulator-inbound'
import type { EmulatedCall, SentCallback } from '../twilio/emulator-types'
import { toneWav } from '../../../src/telephony/tone-wav'
import { API, error, formParams, jsonParams, notFound, type Params, type TelnyxError, unauthorized } from './telnyx-http'
import { conferenceRoutes } from './telnyx-rest-conferences'
import { type CallMethods, callResource, createCall, startCallRecording, type TelnyxAccount, type TelnyxRestContext, type TelnyxScript, updateCall, visible } from './telnyx-rest-calls'
import { keyPairFromSeed, signedHeaders, type TestKeyPair } from './telnyx-signing'
import { telnyxWire } from './telnyx-wire'

export type { TelnyxAccount, TelnyxScript } from './telnyx-rest-calls'

/**
 * A Telnyx TeXML emulator for tests (docs/telephony.md "The emulators"), written from Telnyx's
 * published reference (URLs in telnyx-*.ts) and run by the Twilio emulator's call engine, since
 * TeXML copies TwiML: the same scenario table (last two digits of To), the same verbs, the same
 * test API wherever it applies, so one scenario table can drive both emulators.
 *
 * Differences from the Twilio emulator, all Telnyx's:
 * - REST under `/v2/texml/Accounts/{account_sid}/`, `Authorization: Bearer <apiKey>` (401 10009;
 *   another account's path 404 10005); the create is JSON and its reply `{from, status:"queued",
 *   to}` carries no call id: a test learns the CallSid (`v3:…`) from `.calls` or the first
 *   callback, as the service does. Errors are `{"errors":[{code,title,detail,source,meta}]}`:
 *   422 for a bad field (10002 for To/From), 429 10011 over the account's rate or concurrency,
 *   `.failNext(status, code, detail)` for anything else (e.g. 503).
 * - callbacks are form-encoded and signed with Ed25519 (`telnyx-timestamp`,
 *   `telnyx-signature-ed25519` over `timestamp|body`; `.publicKey` verifies them), with Telnyx's
 *   fields (CallSidLegacy, ConnectionId, ShakenStirAttestation, HangupCause…).
 * - `<Connect><Stream>` frames are Telnyx's (snake_case); without `bidirectionalMode="rtp"` the
 *   stream is mp3-mode and refuses μ-law sent back (recorded as an error, not played).
 *
 * Test API beyond the Twilio emulator's: `.publicKey`, `.clockSkew` (seconds added to
 * telnyx-timestamp: stale signatures), `.corruptNext(n)` (the next n callbacks signed by another
 * key), `.resend(callback)` (deliver a sent callback again, byte for byte: a replay),
 * `.signedHeaders(body, timestamp?)` (headers for a hand-made callback), `.recordingDownloads`.
 */

export interface TelnyxEmulatorOptions {
  accounts: TelnyxAccount[]
  port?: number
  hostname?: string
  /** Emulated seconds are divided by this (default 1). */
  speed?: number
  /** Send every notification (not TeXML fetches) twice. */
  replayCallbacks?: boolean
  /** Hold notifications briefly and send them in an order drawn from `seed`, each repeated with probability `duplicate`. */
  shuffle?: { seed: number; duplicate?: number }
  /** Repeated callbacks carry a fresh timestamp and signature (default: the same bytes again, as a network duplicate). */
  resignDuplicates?: boolean
  /** The signing key's 32-byte seed (default: a fixed test seed, so `.publicKey` is stable). */
  keySeed?: string
  /** Seconds added to every telnyx-timestamp (default 0). */
  clockSkew?: number
  /** Attestation on outbound calls' initiated/ringing/answered callbacks (default 'A'; null: none). Per phone: script(phone, { attestation }). */
  attestation?: 'A' | 'B' | 'C' | null
  /** Emulated seconds after a create during which GET …/Calls/{sid} answers 404 (eventual consistency; default 0). */
  fetchLag?: number
  /** Media frames on a stream leave shuffled within windows of this many frames (seeded by shuffle.seed; default: in order). */
  reorderMedia?: number
  fetch?: (url: string, init: RequestInit) => Promise<Response>
}

export interface TelnyxReceivedRequest {
  method: string
  path: string
  params: Params
  contentType: string
  accountSid: string | null
  status: number
}

/** Recording URLs expire this long after the call ends (developers.telnyx.com/docs/voice/programmable-voice/texml-verbs/record). */
const RECORDING_URL_TTL_S = 600

export class TelnyxEmulator extends EmulatorObserver {
  readonly received: TelnyxReceivedRequest[] = []
  readonly deletedRecordings = new Set<string>()
  /** Recording media downloads: the recording and whether it came with a Bearer key. */
  readonly recordingDownloads: { recordingSid: string; bearer: boolean; status: number }[] = []
  /** The public key (base64, raw 32 bytes) that verifies every callback: the organization's carrier.public_key. */
  readonly publicKey: string
  /** Seconds added to telnyx-timestamp from now on. */
  clockSkew: number
  private readonly keys: TestKeyPair
  private readonly other = keyPairFromSeed('another-key-that-telnyx-never-us')
  private corrupt = 0
  private readonly scripts = new Map<string, TelnyxScript>()
  private readonly failures: TelnyxError[] = []
  private readonly deleteFailures: TelnyxError[] = []
  private readonly accounts: TelnyxAccount[]
  private readonly creates = new Map<string, number[]>()
  private readonly recordingUrls = new Map<string, { create: boolean; live: boolean }>()
  private readonly methods = new Map<string, CallMethods>()
  protected readonly engine: CallEngine

  constructor(private readonly options: TelnyxEmulatorOptions) {
    super()
    this.accounts = options.accounts
    this.keys = keyPairFromSeed(options.keySeed)
    this.publicKey = this.keys.publicKey
    this.clockSkew = options.clockSkew ?? 0
    const byAccount = (call: EmulatedCall) => this.accounts.find((a) => a.accountSid === call.accountSid)
    const wire = telnyxWire({
      method: (call, kind) => {
        const app = byAccount(call)?.applicationMethod ?? 'POST'
        const named = this.methods.get(call.sid) ?? {}
        if (kind === 'twiml') return named.url ?? app
        if (kind === 'status') return named.status ?? app
        if (kind === 'amd') return named.amd ?? app
        if (kind === 'recording') return named.recording ?? 'POST'
        return kind === 'gather' || kind === 'action' || kind === 'screen' || kind === 'incoming' ? app : 'POST'
      },
      applicationSid: (call) => byAccount(call)?.applicationSid ?? '',
      attestation: (call) => {
        const scripted = (call.script as TelnyxScript).attestation
        return scripted !== undefined ? scripted : (options.attestation === undefined ? 'A' : options.attestation)
      },
      sendsRecordingUrl: (call, source) => {
        const urls = this.recordingUrls.get(call.sid)
        return source === 'StartCallRecordingAPI' ? (urls?.live ?? false) : (urls?.create ?? false)
      },
      privateKey: () => this.keys.privateKey,
      clockSkew: () => this.clockSkew,
      corruptOne: () => this.corrupt > 0 && this.corrupt-- > 0,
      otherKey: () => this.other.privateKey,
      resign: options.resignDuplicates ?? false,
      reorderWindow: options.reorderMedia ?? 0,
      random: seededRandom((options.shuffle?.seed ?? 1) + 7),
    })
    this.engine = new CallEngine({
      speed: options.speed ?? 1,
      apiBaseUrl: () => this.url,
      fetch: options.fetch ?? ((url, init) => fetch(url, init)),
      sent: this.sent,
      replay: options.replayCallbacks ?? false,
      shuffle: options.shuffle ? { seed: options.shuffle.seed, duplicate: options.shuffle.duplicate ?? 0 } : undefined,
      wire,
    })
  }

  static start(options: TelnyxEmulatorOptions): TelnyxEmulator {
    const emulator = new TelnyxEmulator(options)
    emulator.server = Bun.serve({ port: options.port ?? 0, hostname: options.hostname ?? '127.0.0.1', fetch: (req) => emulator.handle(req) })
    return emulator
  }

  script(to: string, script: TelnyxScript): void {
    this.scripts.set(to, script)
  }

  /** The next create answers this error instead (e.g. 503 '10007', 429 '10011'), once per call. */
  failNext(status: number, code: string | number, detail: string, title = 'Emulated failure'): void {
    this.failures.push({ status, code: String(code), title, detail })
  }

  /** The next recording DELETE answers this error instead. */
  failNextDelete(status: number, code: string | number, detail: string): void {
    this.deleteFailures.push({ status, code: String(code), title: 'Emulated failure', detail })
  }

  /** The next `count` callbacks are signed with a key that is not `.publicKey`'s. */
  corruptNext(count = 1): void {
    this.corrupt += count
  }

  /** Headers Telnyx would send with `body` at `timestamp` (unix seconds; default now + clockSkew). */
  signedHeaders(body: string, timestamp = Math.floor(Date.now() / 1000) + this.clockSkew): Record<string, string> {
    return signedHeaders(this.keys.privateKey, timestamp, body)
  }

  /** Delivers a callback it sent again, with the same headers and body (a replay); the reply's status. */
  async resend(callback: SentCallback): Promise<number> {
    const response = await (this.options.fetch ?? fetch)(callback.url, {
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...(callback.headers ?? {}) }, body: new URLSearchParams(callback.params).toString(),
    })
    await response.text()
    return response.status
  }

  /** A call comes in to one of the account's numbers: the TeXML application's voice URL (`url`) is fetched and its TeXML runs. */
  async callIn(options: CallInOptions): Promise<EmulatedCall> {
    const account = options.accountSid ? this.accounts.find((a) => a.accountSid === options.accountSid) : this.accounts[0]
    if (!account) throw new Error(`No emulator account ${options.accountSid ?? ''}`)
    return callIn(this.engine, { sid: account.accountSid, authToken: '' }, this.scripts.get(options.from) ?? {}, options, (call) => this.calls.set(call.sid, call))
  }

  async handle(req: Request): Promise<Response> {
    const url = new URL(req.url)
    const contentType = req.headers.get('content-type') ?? ''
    const text = req.method === 'POST' ? await req.text() : ''
    const params = contentType.includes('application/json') ? jsonParams(text) : formParams(text)
    const entry: TelnyxReceivedRequest = { method: req.method, path: url.pathname + url.search, params: params ?? {}, contentType, accountSid: null, status: 0 }
    this.received.push(entry)
    const response = this.route(req, url, params, entry)
    entry.status = response.status
    return response
  }

  private route(req: Request, url: URL, params: Params | null, entry: TelnyxReceivedRequest): Response {
    const path = url.pathname
    if (path.startsWith('/media/recordings/') && req.method === 'GET') return this.recordingMedia(req, path.slice('/media/recordings/'.length))
    if (!path.startsWith(API)) return notFound()
    const account = this.authenticate(req)
    if (!account) return unauthorized()
    const [accountSid, ...raw] = path.slice(API.length).split('/')
    if (accountSid !== account.accountSid) return notFound()
    entry.accountSid = account.accountSid
    let parts: string[]
    try {
      parts = raw.map((p) => decodeURIComponent(p))
    } catch {
      return notFound()
    }
    if (params === null) return error({ status: 400, code: '10015', title: 'Bad Request', detail: 'The request body is not a JSON object.' })
    const ctx = this.rest()
    const [collection, id, sub, ...more] = parts
    if (collection === 'Calls' && id === undefined && req.method === 'POST') {
      if (!entry.contentType.includes('application/json')) return error({ status: 415, code: '10015', title: 'Bad Request', detail: 'The initiate-call body is JSON.' })
      return createCall(ctx, account, params)
    }
    if (collection === 'Calls' && id !== undefined) {
      const call = this.calls.get(id.replace(/\.json$/, ''))
      if (!visible(ctx, call, account)) return notFound()
      if (sub === undefined && req.method === 'GET') return Response.json(callResource(call))
      if (sub === undefined && req.method === 'POST') return updateCall(ctx, call, params)
      if (sub === 'Recordings.json' && more.length === 0 && req.method === 'POST') return startCallRecording(ctx, call, params)
      return notFound()
    }
    if (collection === 'Recordings' && id?.endsWith('.json') && sub === undefined) return this.recording(req.method, id.slice(0, -5), account)
    return conferenceRoutes(ctx, account, req.method, parts, url.searchParams, params) ?? notFound()
  }

  /** GET or DELETE …/Recordings/{recording_sid}.json (the SDK's TexmlGetCallRecordingResponseBody; media_url to download). */
  private recording(method: string, sid: string, account: TelnyxAccount): Response {
    const call = [...this.calls.values()].find((c) => c.recordingSid === sid && c.accountSid === account.accountSid)
    if (!call || this.deletedRecordings.has(sid)) return notFound()
    if (method === 'DELETE') {
      const failure = this.deleteFailures.shift()
      if (failure) return error(failure)
      this.deletedRecordings.add(sid)
      return new Response(null, { status: 204 })
    }
    if (method !== 'GET') return notFound()
    return Response.json({
      account_sid: call.accountSid, call_sid: call.sid, conference_sid: null, channels: 1, duration: call.duration ?? 0, sid, status: 'completed',
      source: call.liveRecording?.sid === sid ? 'StartCallRecordingAPI' : 'OutboundAPI', media_url: `${this.url}/media/recordings/${sid}.wav`,
      uri: `${API}${call.accountSid}/Recordings/${sid}.json`,
    })
  }

  /** The recording's media: no key needed (a time-limited URL), 404 once deleted, 403 once expired. */
  private recordingMedia(req: Request, file: string): Response {
    const sid = file.replace(/\.wav$/, '')
    const call = [...this.calls.values()].find((c) => c.recordingSid === sid)
    const bearer = (req.headers.get('authorization') ?? '').startsWith('Bearer ')
    const expired = call?.endedAt !== null && call !== undefined && this.engine.now(call) - call.endedAt! > RECORDING_URL_TTL_S
    const status = !call || this.deletedRecordings.has(sid) ? 404 : expired ? 403 : 200
    this.recordingDownloads.push({ recordingSid: sid, bearer, status })
    if (status !== 200) return new Response(status === 403 ? 'Request has expired' : 'Not Found', { status })
    return new Response(toneWav(), { headers: { 'Content-Type': 'audio/x-wav' } })
  }

  private rest(): TelnyxRestContext {
    return {
      engine: this.engine, calls: this.calls, scripts: this.scripts, failures: this.failures, recordingUrls: this.recordingUrls, methods: this.methods,
      overRate: (account) => this.overRate(account), fetchLag: this.options.fetchLag ?? 0, speed: this.options.speed ?? 1,
    }
  }

  private authenticate(req: Request): TelnyxAccount | null {
    const header = req.headers.get('authorization') ?? ''
    if (!header.startsWith('Bearer ')) return null
    const key = header.slice(7)
    return this.accounts.find((a) => a.apiKey === key) ?? null
  }

  /** More creates in the last real second than the account's callsPerSecond. */
  private overRate(account: TelnyxAccount): boolean {
    if (!account.callsPerSecond) return false
    const now = Date.now()
    const recent = (this.creates.get(account.accountSid) ?? []).filter((t) => now - t < 1000)
    if (recent.length >= account.callsPerSecond) return true
    recent.push(now)
    this.creates.set(account.accountSid, recent)
    return false
  }
}
