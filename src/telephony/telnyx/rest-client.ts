import type { CallStatus, CreateCallParams, RestClientOptions, TwilioFailure, TwilioFailureKind, UpdateCallParams } from '../twilio/rest-client'
import type { ParticipantParams } from '../twilio/conference-client'
import type { CallRest, WireCall, WireResult } from '../twilio/wire'

/**
 * A small client for the TeXML REST API the dialer uses (developers.telnyx.com/api-reference/
 * texml-rest-commands; team-telnyx/telnyx-node src/resources/texml/accounts/): calls are created
 * with a JSON body, every other request is form-encoded; all carry `Authorization: Bearer <key>`,
 * go to a configurable base URL (real Telnyx or the emulator) and are bounded by a timeout.
 * Failures come back as values, classified as Twilio's are (the engine's retry and failover
 * rules read them): 429 throttled, 5xx/network/timeout unavailable, any other 4xx rejected.
 */

export interface TelnyxAccount {
  /** The account's id (a UUID): TeXML's REST paths name it. */
  accountSid: string
  apiKey: string
  /** The TeXML application the calls run under. */
  applicationSid: string
  /** Base64 of the raw 32-byte Ed25519 key that signs the account's callbacks. */
  publicKey: string
  apiBaseUrl: string
}

type FetchLike = (input: string, init: RequestInit) => Promise<Response>
type Body = { json: Record<string, unknown> } | { form: URLSearchParams }

/** TeXML's StatusCallbackEvent is one space-separated value (InitiateTexmlCall). */
export const STATUS_CALLBACK_EVENTS = 'initiated ringing answered completed'
/** absent too: a call that leaves no recording ends its wait for one at once. */
export const RECORDING_STATUS_EVENTS = 'completed absent'

const CALL_STATUSES = new Set<string>(['queued', 'initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled'])
/** The Call resource says human, machine or not_sure; the engine reads the callbacks' AnsweredBy words. */
const ANSWERED_BY: Record<string, string> = { human: 'human', machine: 'machine_start', not_sure: 'unknown' }

export class TelnyxRestClient implements CallRest {
  private readonly fetch: FetchLike
  private readonly timeoutMs: number

  constructor(
    private readonly account: TelnyxAccount,
    options: RestClientOptions = {},
  ) {
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init))
    this.timeoutMs = options.timeoutMs ?? 10_000
  }

  /**
   * POST …/Calls (JSON). The published reply is `{from, status, to}`, no call id: the engine
   * learns the CallSid from the call's first callback, which carries the attempt in its URL.
   */
  async createCall(params: CreateCallParams): Promise<WireResult<{ sid: string | null }>> {
    const body: Record<string, unknown> = {
      ApplicationSid: this.account.applicationSid, To: params.to, From: params.from,
      Url: params.url, UrlMethod: 'POST', StatusCallback: params.statusCallback, StatusCallbackMethod: 'POST', StatusCallbackEvent: STATUS_CALLBACK_EVENTS,
    }
    if (params.timeoutSeconds !== undefined) body.Timeout = params.timeoutSeconds
    if (params.machineDetection) {
      Object.assign(body, { MachineDetection: 'DetectMessageEnd', AsyncAmd: true })
      if (params.asyncAmdStatusCallback) Object.assign(body, { AsyncAmdStatusCallback: params.asyncAmdStatusCallback, AsyncAmdStatusCallbackMethod: 'POST' })
    }
    body.Record = params.record
    if (params.record && params.recordingStatusCallback) {
      // RecordingUrl is sent only when asked for; the download still goes through the REST API (downloadRecording).
      Object.assign(body, { RecordingStatusCallback: params.recordingStatusCallback, RecordingStatusCallbackMethod: 'POST', RecordingStatusCallbackEvent: RECORDING_STATUS_EVENTS })
    }
    const result = await this.request('POST', 'Calls', { json: body })
    return result.ok ? { ok: true, value: { sid: null } } : result
  }

  /** GET …/Calls/{call_sid}: eventually consistent (a call just placed may be 404 for a while). */
  async fetchCall(callSid: string): Promise<WireResult<WireCall>> {
    const result = await this.request('GET', `Calls/${encodeURIComponent(callSid)}`)
    if (!result.ok) return result
    const b = (result.value ?? {}) as Record<string, unknown>
    const status = typeof b.status === 'string' ? b.status : ''
    if (!CALL_STATUSES.has(status)) return unavailable('Telnyx sent a Call without a known status.')
    const duration = typeof b.duration === 'number' ? String(b.duration) : typeof b.duration === 'string' ? b.duration : ''
    const answeredBy = typeof b.answered_by === 'string' ? (ANSWERED_BY[b.answered_by] ?? null) : null
    return { ok: true, value: { status: status as CallStatus, answeredBy, durationSeconds: /^\d+$/.test(duration) ? Number(duration) : null } }
  }

  /**
   * POST …/Calls/{call_sid} (form): Status=completed ends it ("Setting the status to completed
   * ends the call"; canceled is not documented, so a ringing call is ended the same way), or
   * new TeXML (Texml) or a redirect (Url, Method).
   */
  async updateCall(callSid: string, update: UpdateCallParams): Promise<WireResult<unknown>> {
    const form = new URLSearchParams()
    if ('status' in update) form.append('Status', 'completed')
    else if ('twiml' in update) form.append('Texml', update.twiml)
    else {
      form.append('Url', update.url)
      form.append('Method', 'POST')
    }
    return this.request('POST', `Calls/${encodeURIComponent(callSid)}`, { form })
  }

  /** POST …/Calls/{call_sid}/Recordings.json (form): record from now on. */
  async startRecording(callSid: string, statusCallback: string): Promise<WireResult<unknown>> {
    const form = new URLSearchParams({
      RecordingStatusCallback: statusCallback, RecordingStatusCallbackMethod: 'POST', RecordingStatusCallbackEvent: RECORDING_STATUS_EVENTS, PlayBeep: 'false',
    })
    return this.request('POST', `Calls/${encodeURIComponent(callSid)}/Recordings.json`, { form })
  }

  /**
   * The audio: GET …/Recordings/{recording_sid}.json gives `media_url`, then its bytes. The key
   * goes only to the configured endpoint: a media URL elsewhere (a pre-signed store) is fetched
   * without it. Never from a RecordingUrl in a callback.
   */
  async downloadRecording(recordingSid: string): Promise<WireResult<Uint8Array>> {
    const meta = await this.request('GET', `Recordings/${encodeURIComponent(recordingSid)}.json`)
    if (!meta.ok) return meta
    const mediaUrl = (meta.value as { media_url?: unknown } | null)?.media_url
    let target: URL
    try {
      target = new URL(typeof mediaUrl === 'string' ? mediaUrl : '')
    } catch {
      return unavailable('Telnyx sent a Recording without a media_url.')
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:') return unavailable('Telnyx sent a Recording whose media_url is not http(s).')
    const ours = target.origin === new URL(this.account.apiBaseUrl).origin
    const response = await this.send('GET', target.toString(), undefined, ours)
    if (!response.ok) return response
    try {
      return { ok: true, value: new Uint8Array(await response.value.arrayBuffer()) }
    } catch (error) {
      return unavailable(describe(error))
    }
  }

  /** DELETE …/Recordings/{recording_sid}.json; one Telnyx no longer has (404) counts as deleted. */
  async deleteRecording(recordingSid: string): Promise<WireResult<null>> {
    const response = await this.send('DELETE', this.url(`Recordings/${encodeURIComponent(recordingSid)}.json`))
    if (!response.ok && response.error.status !== 404) return response
    return { ok: true, value: null }
  }

  /** GET …/Conferences?FriendlyName=&Status=in-progress: the running room of that name. */
  async findConference(friendlyName: string): Promise<WireResult<string | null>> {
    const query = new URLSearchParams({ FriendlyName: friendlyName, Status: 'in-progress' })
    const result = await this.request('GET', `Conferences?${query.toString()}`)
    if (!result.ok) return result
    const list = (result.value as { conferences?: unknown } | null)?.conferences
    const sid = Array.isArray(list) ? (list as { sid?: unknown; friendly_name?: unknown }[]).find((c) => typeof c.sid === 'string' && c.sid !== '')?.sid : undefined
    return { ok: true, value: (sid as string | undefined) ?? null }
  }

  /** POST …/Conferences/{conference_sid}/Participants (form): Telnyx calls `to` into the room. */
  async addParticipant(conferenceSid: string, params: ParticipantParams): Promise<WireResult<{ callSid: string | null }>> {
    if (params.mode === 'whisper' && !params.coach) return { ok: false, error: { kind: 'rejected', status: null, code: null, message: 'A whisper needs the seat\u2019s call to coach.' } }
    const form = new URLSearchParams({ ApplicationSid: this.account.applicationSid, From: params.from, To: params.to, Beep: 'false', StartConferenceOnEnter: 'false', EndConferenceOnExit: 'false' })
    if (params.mode === 'listen') form.append('Muted', 'true')
    if (params.mode === 'whisper') {
      form.append('Coaching', 'true')
      form.append('CallSidToCoach', params.coach!)
    }
    const result = await this.request('POST', `Conferences/${encodeURIComponent(conferenceSid)}/Participants`, { form })
    if (!result.ok) return result
    const callSid = (result.value as { call_sid?: unknown } | null)?.call_sid
    return { ok: true, value: { callSid: typeof callSid === 'string' ? callSid : null } }
  }

  private url(rest: string): string {
    return `${this.account.apiBaseUrl.replace(/\/+$/, '')}/v2/texml/Accounts/${encodeURIComponent(this.account.accountSid)}/${rest}`
  }

  private async request(method: 'GET' | 'POST', rest: string, body?: Body): Promise<WireResult<unknown>> {
    const response = await this.send(method, this.url(rest), body)
    if (!response.ok) return response
    const text = await response.value.text().catch(() => '')
    if (text.trim() === '') return { ok: true, value: null }
    try {
      return { ok: true, value: JSON.parse(text) }
    } catch (error) {
      return unavailable(`Telnyx sent a reply that is not JSON: ${describe(error)}`, response.value.status)
    }
  }

  /** One HTTP exchange; a non-2xx answer is classified and its error body read. */
  private async send(method: 'GET' | 'POST' | 'DELETE', url: string, body?: Body, auth = true): Promise<WireResult<Response>> {
    const headers: Record<string, string> = { Accept: 'application/json' }
    if (auth) headers.Authorization = `Bearer ${this.account.apiKey}`
    if (body && 'json' in body) headers['Content-Type'] = 'application/json'
    if (body && 'form' in body) headers['Content-Type'] = 'application/x-www-form-urlencoded'
    let response: Response
    try {
      response = await this.fetch(url, {
        method, headers, body: body ? ('json' in body ? JSON.stringify(body.json) : body.form.toString()) : undefined,
        signal: AbortSignal.timeout(this.timeoutMs), redirect: 'error',
      })
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
      return unavailable(timedOut ? `Telnyx did not answer within ${this.timeoutMs} ms.` : `Telnyx could not be reached: ${describe(error)}`)
    }
    if (response.ok) return { ok: true, value: response }
    return { ok: false, error: await failureOf(response) }
  }
}

/** Telnyx's error body: {"errors": [{"code": "10011", "title": "...", "detail": "..."}]}. */
export async function failureOf(response: Response): Promise<TwilioFailure> {
  const kind: TwilioFailureKind = response.status === 429 ? 'throttled' : response.status >= 500 ? 'unavailable' : 'rejected'
  let code: number | null = null
  let message = `Telnyx answered HTTP ${response.status}.`
  try {
    const first = ((await response.json()) as { errors?: { code?: unknown; detail?: unknown; title?: unknown }[] }).errors?.[0]
    const raw = first?.code
    if (typeof raw === 'number' || (typeof raw === 'string' && /^\d{1,9}$/.test(raw))) code = Number(raw)
    const words = typeof first?.detail === 'string' && first.detail ? first.detail : typeof first?.title === 'string' ? first.title : ''
    if (words) message = words.slice(0, 300)
  } catch {
    // Not JSON (a proxy's HTML page, say): the status alone classifies it.
  }
  return { kind, status: response.status, code, message }
}

function unavailable<T>(message: string, status: number | null = null): WireResult<T> {
  return { ok: false, error: { kind: 'unavailable', status, code: null, message } }
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))
