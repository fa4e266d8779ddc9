import type { CallEngine } from '../twilio/emulator-calls'
import type { Script } from '../twilio/emulator-scenarios'
import { type EmulatedCall, rfc2822 } from '../twilio/emulator-types'
import { API, E164, error, flag, invalid, isHttpUrl, many, one, type Params, type TelnyxError } from './telnyx-http'

/**
 * TeXML Calls (developers.telnyx.com/api-reference/texml-rest-commands/…): initiate
 * (`POST /v2/texml/Accounts/{account_sid}/Calls`, JSON; the reply is `{from, status, to}`, no call
 * id: team-telnyx/telnyx-node CallCallsResponse), fetch (`GET …/Calls/{call_sid}`: the
 * CallResource, "eventually consistent"), update (`POST …/Calls/{call_sid}`, form-encoded:
 * `Status=completed` ends the call, `Url`+`Method` or `Texml` replace its TeXML) and a recording
 * started on the live call (`POST …/Calls/{call_sid}/Recordings.json`, form-encoded).
 */

export interface TelnyxAccount {
  /** The account's id (a UUID): the {account_sid} of every path. */
  accountSid: string
  apiKey: string
  /** The TeXML application calls are placed through (digits). */
  applicationSid: string
  /** When set, From must be one of these. */
  callerIds?: string[]
  /**
   * The TeXML application's request method (its voice_method): used where a create names none and
   * for Gather and Dial actions, which always use the application's (the <Gather> reference).
   * Telnyx's default is GET; the emulator's is POST unless a test says otherwise.
   */
  applicationMethod?: 'GET' | 'POST'
  /** Calls up at once before a create is refused 429 (10011). */
  maxConcurrentCalls?: number
  /** Creates a second (real time) before 429 (10011): the endpoint's rate limit. */
  callsPerSecond?: number
}

/** A script for one phone: Twilio's, plus the attestation Telnyx reports for calls to it. */
export type TelnyxScript = Script & { attestation?: 'A' | 'B' | 'C' | null }

export interface TelnyxRestContext {
  engine: CallEngine
  calls: Map<string, EmulatedCall>
  scripts: Map<string, TelnyxScript>
  failures: TelnyxError[]
  /** Per call: whether recording callbacks carry RecordingUrl, for the create's recording and a live one. */
  recordingUrls: Map<string, { create: boolean; live: boolean }>
  /** True when the account is over its creates a second (then 429). */
  overRate(account: TelnyxAccount): boolean
  /** Per call: the methods its create named for Url, StatusCallback, AsyncAmdStatusCallback, RecordingStatusCallback. */
  methods: Map<string, CallMethods>
  /** Emulated seconds after a create during which a fetch still answers 404 (eventual consistency). */
  fetchLag: number
  /** The emulator's speed (emulated seconds per real second). */
  speed: number
}

export type CallMethods = Partial<Record<'url' | 'status' | 'amd' | 'recording', 'GET' | 'POST'>>

const METHOD_FIELDS = { url: 'UrlMethod', status: 'StatusCallbackMethod', amd: 'AsyncAmdStatusCallbackMethod', recording: 'RecordingStatusCallbackMethod' } as const

/** The request methods a create names (each GET or POST); a Response when one is neither. */
export function methodsOf(params: Params): CallMethods | Response {
  const methods: CallMethods = {}
  for (const [key, field] of Object.entries(METHOD_FIELDS) as [keyof CallMethods, string][]) {
    const value = one(params, field)
    if (value === undefined) continue
    if (value !== 'GET' && value !== 'POST') return invalid(field, `${field} must be GET or POST.`)
    methods[key] = value
  }
  return methods
}

const STATUS_EVENTS = new Set(['initiated', 'ringing', 'answered', 'completed'])
export const statusEvents = (params: Params): Set<string> => new Set([...many(params, 'StatusCallbackEvent', ['completed'])].filter((e) => STATUS_EVENTS.has(e)))

export const throttled = (): Response => error({ status: 429, code: '10011', title: 'Too many requests', detail: 'You have exceeded the maximum number of allowed requests.' })

/** From and To: present and E.164 (10002), From one of the account's numbers when it lists them. */
export function checkEnds(params: Params, callerIds: string[] | undefined): Response | null {
  const to = one(params, 'To')
  const from = one(params, 'From')
  if (!to) return invalid('To', 'To is required.')
  if (!E164.test(to)) return invalid('To', `The phone number is invalid: ${to}`, '10002')
  if (!from) return invalid('From', 'From is required.')
  if (!E164.test(from)) return invalid('From', `The phone number is invalid: ${from}`, '10002')
  if (callerIds && !callerIds.includes(from)) return invalid('From', `${from} is not a number of this account.`, '10002')
  return null
}

/** Timeout: 5-120 seconds, 30 when not given (the initiate-call reference). */
export function timeoutOf(params: Params): number | null {
  const timeout = one(params, 'Timeout') === undefined ? 30 : Number(one(params, 'Timeout'))
  return Number.isInteger(timeout) && timeout >= 5 && timeout <= 120 ? timeout : null
}

export function createCall(ctx: TelnyxRestContext, account: TelnyxAccount, params: Params): Response {
  const p = (name: string) => one(params, name)
  const failure = ctx.failures.shift()
  if (failure) return error(failure)
  if (ctx.overRate(account)) return throttled()
  if (!p('ApplicationSid')) return invalid('ApplicationSid', 'ApplicationSid is required.')
  if (p('ApplicationSid') !== account.applicationSid) return invalid('ApplicationSid', 'ApplicationSid is not a TeXML application of this account.')
  const bad = checkEnds(params, account.callerIds)
  if (bad) return bad
  const url = p('Url')
  const texml = p('Texml')
  if (url && texml) return invalid('Url', 'Url and Texml are mutually exclusive.')
  if (!url && !texml) return invalid('Url', 'Url or Texml is required.')
  if (url && !isHttpUrl(url)) return invalid('Url', `Url is not a valid URL: ${url}`)
  for (const name of ['StatusCallback', 'AsyncAmdStatusCallback', 'RecordingStatusCallback']) {
    const value = p(name)
    if (value !== undefined && !isHttpUrl(value)) return invalid(name, `${name} is not a valid URL: ${value}`)
  }
  const timeout = timeoutOf(params)
  if (timeout === null) return invalid('Timeout', 'Timeout must be an integer from 5 to 120.')
  const detection = p('MachineDetection')
  if (detection !== undefined && !['Enable', 'Disable', 'DetectMessageEnd'].includes(detection)) return invalid('MachineDetection', `MachineDetection must be Enable, Disable or DetectMessageEnd.`)
  const methods = methodsOf(params)
  if (methods instanceof Response) return methods
  const up = [...ctx.calls.values()].filter((c) => c.accountSid === account.accountSid && c.endedAt === null).length
  if (account.maxConcurrentCalls !== undefined && up >= account.maxConcurrentCalls) return throttled()
  const to = p('To')!
  const call = ctx.engine.newCall({
    accountSid: account.accountSid,
    authToken: '',
    to,
    from: p('From')!,
    url: url ?? null,
    twiml: url ? null : (texml ?? null),
    statusCallback: p('StatusCallback') ?? null,
    events: statusEvents(params),
    amd: detection === 'Enable' || detection === 'DetectMessageEnd' ? (flag(params, 'AsyncAmd', false) ? 'async' : 'sync') : null,
    amdCallback: p('AsyncAmdStatusCallback') ?? null,
    record: flag(params, 'Record', false),
    recordingCallback: p('RecordingStatusCallback') ?? null,
    recordingEvents: many(params, 'RecordingStatusCallbackEvent', ['completed']),
    script: ctx.scripts.get(to) ?? {},
    timeout,
  })
  ctx.calls.set(call.sid, call)
  ctx.methods.set(call.sid, methods)
  ctx.recordingUrls.set(call.sid, { create: flag(params, 'SendRecordingUrl', false), live: false })
  return Response.json({ from: call.from, status: 'queued', to: call.to })
}

/** A call the fetch may show: known, this account's, and past the eventual-consistency lag. */
export function visible(ctx: TelnyxRestContext, call: EmulatedCall | undefined, account: TelnyxAccount): call is EmulatedCall {
  return call !== undefined && call.accountSid === account.accountSid && ((Date.now() - call.startedAt) * ctx.speed) / 1000 >= ctx.fetchLag
}

export function updateCall(ctx: TelnyxRestContext, call: EmulatedCall, params: Params): Response {
  const status = one(params, 'Status')
  const texml = one(params, 'Texml')
  const url = one(params, 'Url')
  if (status !== undefined) {
    // Only completed is documented ("Setting the status to completed ends the call").
    if (status !== 'completed') return invalid('Status', `Status must be completed, not ${status}.`)
    ctx.engine.hangUp(call)
    return Response.json(callResource(call))
  }
  if (texml === undefined && url === undefined) return Response.json(callResource(call))
  if (call.endedAt !== null) return error({ status: 422, code: '90018', title: 'Call has already ended', detail: 'This call is no longer active and can\'t receive commands.' })
  if (call.status !== 'in-progress') return invalid('Url', 'The call is not in progress.')
  if (url !== undefined && !isHttpUrl(url)) return invalid('Url', `Url is not a valid URL: ${url}`)
  ctx.engine.redirect(call, texml !== undefined ? { twiml: texml } : { url: url! })
  return Response.json(callResource(call))
}

/** Recordings.json on a live call: only a call in progress can be recorded. */
export function startCallRecording(ctx: TelnyxRestContext, call: EmulatedCall, params: Params): Response {
  if (call.status !== 'in-progress' || call.endedAt !== null) return invalid('CallSid', 'The call is not in progress.')
  const callback = one(params, 'RecordingStatusCallback') ?? null
  if (callback !== null && !isHttpUrl(callback)) return invalid('RecordingStatusCallback', `RecordingStatusCallback is not a valid URL: ${callback}`)
  const channels = one(params, 'RecordingChannels')
  if (channels !== undefined && channels !== 'single' && channels !== 'dual') return invalid('RecordingChannels', 'RecordingChannels must be single or dual.')
  const urls = ctx.recordingUrls.get(call.sid) ?? { create: false, live: false }
  ctx.recordingUrls.set(call.sid, { ...urls, live: flag(params, 'SendRecordingUrl', false) })
  const recording = ctx.engine.startRecording(call, callback, many(params, 'RecordingStatusCallbackEvent', ['completed']))
  return Response.json({
    account_sid: call.accountSid, call_sid: call.sid, conference_sid: null, channels: channels === 'dual' ? 2 : 1,
    date_created: rfc2822(new Date()), date_updated: rfc2822(new Date()), start_time: rfc2822(new Date(call.startedAt + recording.startedAt * 1000)),
    price: null, price_unit: null, duration: null, sid: recording.sid, source: 'StartCallRecordingAPI', error_code: null, track: 'both',
    uri: `${API}${call.accountSid}/Calls/${encodeURIComponent(call.sid)}/Recordings/${recording.sid}.json`,
  })
}

/** answered_by in the Call resource's words: human, machine or not_sure (not the callback's AMD words). */
export function answeredByResource(answeredBy: string | null): string | null {
  if (answeredBy === null) return null
  if (answeredBy === 'human') return 'human'
  return answeredBy === 'unknown' ? 'not_sure' : 'machine'
}

/** The Call resource's status enum has no queued or initiated: a call not yet ringing shows ringing. */
const resourceStatus = (status: string) => (status === 'queued' || status === 'initiated' ? 'ringing' : status)

/** The CallResource (the fetch-a-call reference's example). */
export function callResource(call: EmulatedCall): Record<string, unknown> {
  const at = (emulatedSeconds: number | null) => (emulatedSeconds === null ? null : rfc2822(new Date(call.startedAt + emulatedSeconds * 1000)))
  return {
    account_sid: call.accountSid, answered_by: answeredByResource(call.answeredBy), caller_name: call.from,
    date_created: at(0), date_updated: rfc2822(new Date()), direction: call.direction === 'inbound' ? 'inbound' : 'outbound',
    duration: call.duration === null ? null : String(call.duration), end_time: at(call.endedAt), from: call.from, from_formatted: call.from,
    price: null, price_unit: 'USD', sid: call.sid, start_time: at(call.answeredAt), status: resourceStatus(call.status), to: call.to, to_formatted: call.to,
    uri: `${API}${call.accountSid}/Calls/${call.sid}.json`,
  }
}
