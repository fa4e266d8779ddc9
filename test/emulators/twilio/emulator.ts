import type { Server } from 'bun'
import { CallEngine, type EmulatedCall, rfc2822, type SentCallback } from './emulator-calls'
import type { Script } from './emulator-scenarios'
import { formParams } from '../../../src/telephony/twilio/signature'
import { toneWav } from '../../../src/telephony/tone-wav'

/**
 * A Twilio-compatible emulator for tests and local runs (docs/telephony.md "The emulator"): the
 * subset of the 2010-04-01 API the dialer uses (create, fetch and update a Call; a Recording's
 * .wav and its DELETE), Twilio-style JSON errors, and calls played from the simulator's scenario table by the
 * last two digits of To, told through signed StatusCallback, AMD, TwiML, <Dial> action,
 * recording and transcription requests. Every request it gets and every callback it sends is
 * kept for assertions.
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

export interface ReceivedRequest {
  method: string
  path: string
  params: Record<string, string | string[]>
  accountSid: string | null
  status: number
}

interface TwilioErrorBody {
  code: number
  message: string
  status: number
}

const E164 = /^\+[1-9]\d{1,14}$/
const STATUS_EVENTS = new Set(['initiated', 'ringing', 'answered', 'completed'])
const API = '/2010-04-01/Accounts/'

export class TwilioEmulator {
  readonly received: ReceivedRequest[] = []
  readonly sent: SentCallback[] = []
  readonly calls = new Map<string, EmulatedCall>()
  /** Recordings deleted through DELETE .../Recordings/{Sid}.json. */
  readonly deletedRecordings = new Set<string>()
  private readonly scripts = new Map<string, Script>()
  private readonly deleteFailures: TwilioErrorBody[] = []
  private readonly accounts: Map<string, EmulatorAccount>
  /** Per account: when (real ms) the next call may leave the queue (callsPerSecond). */
  private readonly nextStart = new Map<string, number>()
  private readonly engine: CallEngine
  private readonly failures: TwilioErrorBody[] = []
  private server: Server<undefined> | null = null

  constructor(private readonly options: EmulatorOptions) {
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

  /** The base URL to configure as the carrier's api_base_url. */
  get url(): string {
    if (!this.server) throw new Error('The emulator is not running.')
    return `http://${this.server.hostname}:${this.server.port}`
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

  /** Resolves when the call has ended and every callback about it was answered. */
  settled(callSid: string): Promise<void> {
    return this.calls.get(callSid)?.done ?? Promise.resolve()
  }

  /** The callbacks sent about one call, in order. */
  callbacksFor(callSid: string): SentCallback[] {
    return this.sent.filter((c) => c.callSid === callSid)
  }

  async stop(): Promise<void> {
    for (const call of this.calls.values()) void this.engine.end(call, call.answeredAt === null ? 'canceled' : 'completed')
    await this.server?.stop(true)
    this.server = null
  }

  async handle(req: Request): Promise<Response> {
    const url = new URL(req.url)
    const params = req.method === 'POST' ? formParams(await req.text()) : {}
    const entry: ReceivedRequest = { method: req.method, path: url.pathname + url.search, params, accountSid: null, status: 0 }
    this.received.push(entry)
    const response = this.route(req, url.pathname, params, entry)
    entry.status = response.status
    return response
  }

  private route(req: Request, path: string, params: Record<string, string | string[]>, entry: ReceivedRequest): Response {
    if (!path.startsWith(API)) return notFound(path)
    const [accountSid, collection, file, ...more] = path.slice(API.length).split('/')
    const account = this.authenticate(req, accountSid ?? '')
    if (!account) return error({ status: 401, code: 20003, message: 'Authentication Error - invalid username or password' })
    entry.accountSid = account.sid
    const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v)
    const p = (name: string) => one(params[name])
    if (collection === 'Calls' && file === undefined) return notFound(path)
    if (collection === 'Calls.json' && file === undefined && req.method === 'POST') return this.create(account, params, p)
    if (collection === 'Calls' && file?.endsWith('.json') && more.length === 0) {
      const call = this.calls.get(file.slice(0, -5))
      if (!call || call.accountSid !== account.sid) return notFound(path)
      if (req.method === 'GET') return Response.json(this.resource(call))
      if (req.method === 'POST') return this.update(call, p)
    }
    if (collection === 'Calls' && file && more.length === 1 && more[0] === 'Recordings.json' && req.method === 'POST') {
      const call = this.calls.get(file)
      if (!call || call.accountSid !== account.sid) return notFound(path)
      return this.startRecording(call, params, p)
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
    return notFound(path)
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

  private create(account: EmulatorAccount, params: Record<string, string | string[]>, p: (name: string) => string | undefined): Response {
    const failure = this.failures.shift()
    if (failure) return error(failure)
    const to = p('To')
    const from = p('From')
    if (!to) return error({ status: 400, code: 21201, message: "No 'To' number is specified" })
    if (!E164.test(to)) return error({ status: 400, code: 21211, message: `Invalid 'To' Phone Number: ${to}` })
    if (!from) return error({ status: 400, code: 21213, message: "No 'From' number is specified" })
    if (!E164.test(from)) return error({ status: 400, code: 21212, message: `Invalid 'From' Phone Number: ${from}` })
    if (account.callerIds && !account.callerIds.includes(from)) {
      return error({ status: 400, code: 21210, message: `The source phone number provided, ${from}, is not yet verified for your account.` })
    }
    const url = p('Url')
    const twiml = p('Twiml')
    if (!url && !twiml) return error({ status: 400, code: 21205, message: "Either a 'Url', 'Twiml' or 'ApplicationSid' parameter must be specified" })
    if (url && !isHttpUrl(url)) return error({ status: 400, code: 21205, message: `Url is not a valid URL: ${url}` })
    for (const name of ['StatusCallback', 'AsyncAmdStatusCallback', 'RecordingStatusCallback']) {
      const value = p(name)
      if (value !== undefined && !isHttpUrl(value)) return error({ status: 400, code: 21609, message: `Invalid ${name} URL: ${value}` })
    }
    const timeout = p('Timeout') === undefined ? 60 : Number(p('Timeout'))
    if (!Number.isInteger(timeout) || timeout < 1 || timeout > 600) return error({ status: 400, code: 20001, message: 'Invalid parameter: Timeout' })
    const up = [...this.calls.values()].filter((c) => c.accountSid === account.sid && c.endedAt === null).length
    if (account.maxConcurrentCalls !== undefined && up >= account.maxConcurrentCalls) return error({ status: 429, code: 20429, message: 'Too Many Requests' })
    const events = params.StatusCallbackEvent
    const recordingEvents = params.RecordingStatusCallbackEvent
    const detection = p('MachineDetection')
    const call = this.engine.newCall({
      accountSid: account.sid,
      authToken: account.authToken,
      to,
      from,
      url: url ?? null,
      twiml: url ? null : (twiml ?? null),
      statusCallback: p('StatusCallback') ?? null,
      // Twilio sends only 'completed' when no event is named.
      events: new Set((Array.isArray(events) ? events : events ? events.split(/\s+/) : ['completed']).filter((e) => STATUS_EVENTS.has(e))),
      amd: detection === 'Enable' || detection === 'DetectMessageEnd' ? (p('AsyncAmd') === 'true' ? 'async' : 'sync') : null,
      amdCallback: p('AsyncAmdStatusCallback') ?? null,
      record: p('Record') === 'true',
      recordingCallback: p('RecordingStatusCallback') ?? null,
      // Repeated or space-separated; Twilio's default is completed only.
      recordingEvents: new Set(Array.isArray(recordingEvents) ? recordingEvents.flatMap((e) => e.split(/\s+/)) : recordingEvents ? recordingEvents.split(/\s+/) : ['completed']),
      script: this.scripts.get(to) ?? {},
      timeout,
    })
    call.queuedFor = this.queueTurn(account)
    this.calls.set(call.sid, call)
    return Response.json(this.resource(call), { status: 201 })
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

  private update(call: EmulatedCall, p: (name: string) => string | undefined): Response {
    const status = p('Status')
    const twiml = p('Twiml')
    const url = p('Url')
    if (status !== undefined) {
      if (status !== 'completed' && status !== 'canceled') return error({ status: 400, code: 20001, message: `Invalid parameter: Status ${status}` })
      // Twilio: canceled "will not affect calls already in progress"; completed ends them too.
      if (status === 'canceled' && call.answeredAt !== null) return Response.json(this.resource(call))
      this.engine.hangUp(call)
      return Response.json(this.resource(call))
    }
    if (twiml === undefined && url === undefined) return Response.json(this.resource(call))
    if (call.status !== 'in-progress' || call.endedAt !== null) return error({ status: 400, code: 21220, message: 'Call is not in-progress. Cannot redirect.' })
    if (url !== undefined && !isHttpUrl(url)) return error({ status: 400, code: 21205, message: `Url is not a valid URL: ${url}` })
    this.engine.redirect(call, twiml !== undefined ? { twiml } : { url: url! })
    return Response.json(this.resource(call))
  }

  /** CreateCallRecording: only a call in progress can be recorded (Twilio's 21220, invalid call state). */
  private startRecording(call: EmulatedCall, params: Record<string, string | string[]>, p: (name: string) => string | undefined): Response {
    if (call.status !== 'in-progress' || call.endedAt !== null) return error({ status: 400, code: 21220, message: 'Call is not in-progress. Cannot start a recording.' })
    const callback = p('RecordingStatusCallback') ?? null
    if (callback !== null && !isHttpUrl(callback)) return error({ status: 400, code: 21609, message: `Invalid RecordingStatusCallback URL: ${callback}` })
    const named = params.RecordingStatusCallbackEvent
    // One parameter, events separated by spaces (repeated parameters are read too); the default is completed.
    const events = new Set(Array.isArray(named) ? named.flatMap((e) => e.split(/\s+/)) : named ? named.split(/\s+/) : ['completed'])
    const recording = this.engine.startRecording(call, callback, events)
    const uri = `${API}${call.accountSid}/Calls/${call.sid}/Recordings/${recording.sid}.json`
    return Response.json({
      sid: recording.sid, account_sid: call.accountSid, call_sid: call.sid, api_version: '2010-04-01', status: 'in-progress', source: 'StartCallRecordingAPI',
      channels: 1, track: 'both', start_time: rfc2822(new Date(call.startedAt + recording.startedAt * 1000)), duration: '-1', uri,
      date_created: rfc2822(new Date()), date_updated: rfc2822(new Date()), price: null, price_unit: 'USD', error_code: null, conference_sid: null,
    }, { status: 201 })
  }

  /** The Call resource as Twilio serializes it (snake_case, RFC 2822 dates, duration as a string). */
  private resource(call: EmulatedCall): Record<string, unknown> {
    const at = (emulatedSeconds: number | null) => (emulatedSeconds === null ? null : rfc2822(new Date(call.startedAt + emulatedSeconds * 1000)))
    const uri = `${API}${call.accountSid}/Calls/${call.sid}.json`
    return {
      sid: call.sid, account_sid: call.accountSid, api_version: '2010-04-01', parent_call_sid: null,
      date_created: at(0), date_updated: rfc2822(new Date()), start_time: at(call.answeredAt), end_time: at(call.endedAt),
      duration: call.duration === null ? null : String(call.duration), status: call.status, direction: 'outbound-api',
      to: call.to, to_formatted: call.to, from: call.from, from_formatted: call.from, answered_by: call.answeredBy,
      price: null, price_unit: 'USD', uri, subresource_uris: { recordings: uri.replace('.json', '/Recordings.json') },
    }
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value)
    return u.protocol === 'https:' || u.protocol === 'http:'
  } catch {
    return false
  }
}

function error(body: TwilioErrorBody): Response {
  return Response.json({ ...body, more_info: `https://www.twilio.com/docs/errors/${body.code}` }, { status: body.status })
}

const notFound = (path: string) => error({ status: 404, code: 20404, message: `The requested resource ${path} was not found` })

