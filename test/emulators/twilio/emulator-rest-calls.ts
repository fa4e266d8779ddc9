import type { CallEngine } from './emulator-calls'
import { API, checkEnds, error, isHttpUrl, many, one, type Params, type TwilioErrorBody } from './emulator-http'
import type { Script } from './emulator-scenarios'
import { type EmulatedCall, rfc2822 } from './emulator-types'

/**
 * The Call resource (twilio.com/docs/voice/api/call-resource): create (POST Calls.json), fetch
 * and update (Calls/{Sid}.json: Status, Twiml, Url), and a recording started on a live call
 * (POST Calls/{Sid}/Recordings.json, twilio.com/docs/voice/api/recording).
 */

export interface CallAccount {
  sid: string
  authToken: string
  callerIds?: string[]
  maxConcurrentCalls?: number
}

export interface RestContext {
  engine: CallEngine
  calls: Map<string, EmulatedCall>
  scripts: Map<string, Script>
  /** Errors the next creates answer instead (failNext). */
  failures: TwilioErrorBody[]
  /** Emulated seconds a call created now waits in `queued` (the account's calls per second). */
  queueTurn(account: CallAccount): number
}

const STATUS_EVENTS = new Set(['initiated', 'ringing', 'answered', 'completed'])

/** Twilio sends only 'completed' when no event is named (the Call resource's StatusCallbackEvent). */
export const statusEvents = (params: Params): Set<string> => new Set([...many(params, 'StatusCallbackEvent', ['completed'])].filter((e) => STATUS_EVENTS.has(e)))

/** Timeout: 1-600 seconds, 60 when not given. */
export const timeoutOf = (params: Params): number | null => {
  const timeout = one(params, 'Timeout') === undefined ? 60 : Number(one(params, 'Timeout'))
  return Number.isInteger(timeout) && timeout >= 1 && timeout <= 600 ? timeout : null
}

export function createCall(ctx: RestContext, account: CallAccount, params: Params): Response {
  const p = (name: string) => one(params, name)
  const failure = ctx.failures.shift()
  if (failure) return error(failure)
  const to = p('To')
  const from = p('From')
  const bad = checkEnds(to, from, account.callerIds)
  if (bad) return bad
  const url = p('Url')
  const twiml = p('Twiml')
  if (!url && !twiml) return error({ status: 400, code: 21205, message: "Either a 'Url', 'Twiml' or 'ApplicationSid' parameter must be specified" })
  if (url && !isHttpUrl(url)) return error({ status: 400, code: 21205, message: `Url is not a valid URL: ${url}` })
  for (const name of ['StatusCallback', 'AsyncAmdStatusCallback', 'RecordingStatusCallback']) {
    const value = p(name)
    if (value !== undefined && !isHttpUrl(value)) return error({ status: 400, code: 21609, message: `Invalid ${name} URL: ${value}` })
  }
  const timeout = timeoutOf(params)
  if (timeout === null) return error({ status: 400, code: 20001, message: 'Invalid parameter: Timeout' })
  const up = [...ctx.calls.values()].filter((c) => c.accountSid === account.sid && c.endedAt === null).length
  if (account.maxConcurrentCalls !== undefined && up >= account.maxConcurrentCalls) return error({ status: 429, code: 20429, message: 'Too Many Requests' })
  const detection = p('MachineDetection')
  const call = ctx.engine.newCall({
    accountSid: account.sid,
    authToken: account.authToken,
    to: to!,
    from: from!,
    url: url ?? null,
    twiml: url ? null : (twiml ?? null),
    statusCallback: p('StatusCallback') ?? null,
    events: statusEvents(params),
    amd: detection === 'Enable' || detection === 'DetectMessageEnd' ? (p('AsyncAmd') === 'true' ? 'async' : 'sync') : null,
    amdCallback: p('AsyncAmdStatusCallback') ?? null,
    record: p('Record') === 'true',
    recordingCallback: p('RecordingStatusCallback') ?? null,
    // Repeated or space-separated; Twilio's default is completed only.
    recordingEvents: many(params, 'RecordingStatusCallbackEvent', ['completed']),
    script: ctx.scripts.get(to!) ?? {},
    timeout,
  })
  call.queuedFor = ctx.queueTurn(account)
  ctx.calls.set(call.sid, call)
  return Response.json(callResource(call), { status: 201 })
}

export function updateCall(ctx: RestContext, call: EmulatedCall, params: Params): Response {
  const status = one(params, 'Status')
  const twiml = one(params, 'Twiml')
  const url = one(params, 'Url')
  if (status !== undefined) {
    if (status !== 'completed' && status !== 'canceled') return error({ status: 400, code: 20001, message: `Invalid parameter: Status ${status}` })
    // Twilio: canceled "will not affect calls already in progress"; completed ends them too.
    if (status === 'canceled' && call.answeredAt !== null) return Response.json(callResource(call))
    ctx.engine.hangUp(call)
    return Response.json(callResource(call))
  }
  if (twiml === undefined && url === undefined) return Response.json(callResource(call))
  if (call.status !== 'in-progress' || call.endedAt !== null) return error({ status: 400, code: 21220, message: 'Call is not in-progress. Cannot redirect.' })
  if (url !== undefined && !isHttpUrl(url)) return error({ status: 400, code: 21205, message: `Url is not a valid URL: ${url}` })
  ctx.engine.redirect(call, twiml !== undefined ? { twiml } : { url: url! })
  return Response.json(callResource(call))
}

/** CreateCallRecording: only a call in progress can be recorded (Twilio's 21220, invalid call state). */
export function startCallRecording(ctx: RestContext, call: EmulatedCall, params: Params): Response {
  if (call.status !== 'in-progress' || call.endedAt !== null) return error({ status: 400, code: 21220, message: 'Call is not in-progress. Cannot start a recording.' })
  const callback = one(params, 'RecordingStatusCallback') ?? null
  if (callback !== null && !isHttpUrl(callback)) return error({ status: 400, code: 21609, message: `Invalid RecordingStatusCallback URL: ${callback}` })
  // One parameter, events separated by spaces (repeated parameters are read too); the default is completed.
  const recording = ctx.engine.startRecording(call, callback, many(params, 'RecordingStatusCallbackEvent', ['completed']))
  const uri = `${API}${call.accountSid}/Calls/${call.sid}/Recordings/${recording.sid}.json`
  return Response.json({
    sid: recording.sid, account_sid: call.accountSid, call_sid: call.sid, api_version: '2010-04-01', status: 'in-progress', source: 'StartCallRecordingAPI',
    channels: 1, track: 'both', start_time: rfc2822(new Date(call.startedAt + recording.startedAt * 1000)), duration: '-1', uri,
    date_created: rfc2822(new Date()), date_updated: rfc2822(new Date()), price: null, price_unit: 'USD', error_code: null, conference_sid: null,
  }, { status: 201 })
}

/** The Call resource as Twilio serializes it (snake_case, RFC 2822 dates, duration as a string). */
export function callResource(call: EmulatedCall): Record<string, unknown> {
  const at = (emulatedSeconds: number | null) => (emulatedSeconds === null ? null : rfc2822(new Date(call.startedAt + emulatedSeconds * 1000)))
  const uri = `${API}${call.accountSid}/Calls/${call.sid}.json`
  return {
    sid: call.sid, account_sid: call.accountSid, api_version: '2010-04-01', parent_call_sid: null,
    date_created: at(0), date_updated: rfc2822(new Date()), start_time: at(call.answeredAt), end_time: at(call.endedAt),
    duration: call.duration === null ? null : String(call.duration), status: call.status, direction: call.direction,
    to: call.to, to_formatted: call.to, from: call.from, from_formatted: call.from, answered_by: call.answeredBy,
    price: null, price_unit: 'USD', uri, subresource_uris: { recordings: uri.replace('.json', '/Recordings.json') },
  }
}
