/**
 * A small client for the part of Twilio's 2010-04-01 REST API the dialer uses: create, fetch
 * and update a Call, and download and delete a Recording. Field names follow Twilio's OpenAPI
 * document (twilio/twilio-oai spec/json/twilio_api_v2010.json). Every request carries Basic
 * auth (AccountSid:AuthToken), goes to a configurable base URL (real Twilio or the emulator)
 * and is bounded by a timeout. Failures come back as values, classified for the retry rules.
 */

export interface TwilioAccount {
  accountSid: string
  authToken: string
  /** "https://api.twilio.com", or any Twilio-compatible endpoint (the emulator in tests). */
  apiBaseUrl: string
}

/** rejected: 4xx but 429 (our request is wrong; retrying it as is will not help). throttled: 429. unavailable: 5xx, network, timeout. */
export type TwilioFailureKind = 'rejected' | 'throttled' | 'unavailable'

export interface TwilioFailure {
  kind: TwilioFailureKind
  /** HTTP status; null when no response came (network error, timeout). */
  status: number | null
  /** Twilio's error code from its JSON error body (21211 invalid To, 20003 auth...), when it sent one. */
  code: number | null
  message: string
}

export type TwilioResult<T> = { ok: true; value: T } | { ok: false; error: TwilioFailure }

export type CallStatus = 'queued' | 'initiated' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled'

/** The fields of a Call resource the dialer reads. */
export interface TwilioCall {
  sid: string
  status: CallStatus
  to: string
  from: string
  /** human, machine_start, ... when AMD ran; null otherwise. */
  answeredBy: string | null
  /** Seconds; null until the call has ended. */
  durationSeconds: number | null
  startTime: string | null
  endTime: string | null
}

export interface CreateCallParams {
  to: string
  from: string
  /** Where Twilio fetches the TwiML when the call is answered. */
  url: string
  statusCallback: string
  /** Run answering-machine detection (DetectMessageEnd, asynchronously). */
  machineDetection: boolean
  /** Required when machineDetection: where the AnsweredBy result goes. */
  asyncAmdStatusCallback?: string
  record: boolean
  recordingStatusCallback?: string
  /** Seconds to let the phone ring (Twilio's default is 60). */
  timeoutSeconds?: number
}

export type UpdateCallParams = { status: 'completed' | 'canceled' } | { twiml: string } | { url: string }

type FetchLike = (input: string, init: RequestInit) => Promise<Response>

export interface RestClientOptions {
  fetch?: FetchLike
  /** Per request, in ms (default 10 s). */
  timeoutMs?: number
}

export const STATUS_CALLBACK_EVENTS = ['initiated', 'ringing', 'answered', 'completed'] as const
/** Twilio's OpenAPI document: "Can be: `in-progress`, `completed` and `absent`. Defaults to `completed`." */
export const RECORDING_STATUS_EVENTS = ['completed', 'absent'] as const

const SID = { call: /^CA[0-9a-fA-F]{32}$/, recording: /^RE[0-9a-fA-F]{32}$/ }

export class TwilioRestClient {
  private readonly fetch: FetchLike
  private readonly timeoutMs: number

  constructor(
    private readonly account: TwilioAccount,
    options: RestClientOptions = {},
  ) {
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init))
    this.timeoutMs = options.timeoutMs ?? 10_000
  }

  /** POST .../Calls.json: place one outbound call. */
  async createCall(params: CreateCallParams): Promise<TwilioResult<TwilioCall>> {
    const form = new URLSearchParams()
    form.append('To', params.to)
    form.append('From', params.from)
    form.append('Url', params.url)
    form.append('Method', 'POST')
    form.append('StatusCallback', params.statusCallback)
    form.append('StatusCallbackMethod', 'POST')
    // A repeated parameter, one event each (the OpenAPI document: "specify each one in a separate parameter").
    for (const event of STATUS_CALLBACK_EVENTS) form.append('StatusCallbackEvent', event)
    if (params.timeoutSeconds !== undefined) form.append('Timeout', String(params.timeoutSeconds))
    if (params.machineDetection) {
      form.append('MachineDetection', 'DetectMessageEnd')
      form.append('AsyncAmd', 'true')
      if (params.asyncAmdStatusCallback) {
        form.append('AsyncAmdStatusCallback', params.asyncAmdStatusCallback)
        form.append('AsyncAmdStatusCallbackMethod', 'POST')
      }
    }
    form.append('Record', params.record ? 'true' : 'false')
    if (params.record && params.recordingStatusCallback) {
      form.append('RecordingStatusCallback', params.recordingStatusCallback)
      form.append('RecordingStatusCallbackMethod', 'POST')
      // absent too: a call that leaves no recording ends its wait for one at once.
      for (const event of RECORDING_STATUS_EVENTS) form.append('RecordingStatusCallbackEvent', event)
    }
    const result = await this.request('POST', this.accountPath('Calls.json'), form)
    return result.ok ? parseCall(result.value) : result
  }

  /** GET .../Calls/{Sid}.json: the call's current state (used to reconcile after a restart). */
  async fetchCall(callSid: string): Promise<TwilioResult<TwilioCall>> {
    if (!SID.call.test(callSid)) return badSid('call', callSid)
    const result = await this.request('GET', this.accountPath(`Calls/${callSid}.json`))
    return result.ok ? parseCall(result.value) : result
  }

  /** POST .../Calls/{Sid}.json: hang up (Status=completed, or canceled while it rings) or redirect to new TwiML. */
  async updateCall(callSid: string, update: UpdateCallParams): Promise<TwilioResult<TwilioCall>> {
    if (!SID.call.test(callSid)) return badSid('call', callSid)
    const form = new URLSearchParams()
    if ('status' in update) form.append('Status', update.status)
    else if ('twiml' in update) form.append('Twiml', update.twiml)
    else {
      form.append('Url', update.url)
      form.append('Method', 'POST')
    }
    const result = await this.request('POST', this.accountPath(`Calls/${callSid}.json`), form)
    return result.ok ? parseCall(result.value) : result
  }

  /**
   * POST .../Calls/{Sid}/Recordings.json (CreateCallRecording): start recording a call that is in
   * progress, from this moment on. RecordingStatusCallbackEvent is one parameter, its events
   * separated by spaces (the OpenAPI document: "Separate multiple event values with a space").
   */
  async startRecording(callSid: string, params: { statusCallback: string; events: readonly string[] }): Promise<TwilioResult<{ sid: string }>> {
    if (!SID.call.test(callSid)) return badSid('call', callSid)
    const form = new URLSearchParams()
    form.append('RecordingStatusCallback', params.statusCallback)
    form.append('RecordingStatusCallbackMethod', 'POST')
    form.append('RecordingStatusCallbackEvent', params.events.join(' '))
    const result = await this.request('POST', this.accountPath(`Calls/${callSid}/Recordings.json`), form)
    if (!result.ok) return result
    const sid = (result.value as { sid?: unknown } | null)?.sid
    if (typeof sid !== 'string' || !SID.recording.test(sid)) {
      return { ok: false, error: { kind: 'unavailable', status: null, code: null, message: 'Twilio sent a Recording without a sid.' } }
    }
    return { ok: true, value: { sid } }
  }

  /**
   * GET .../Recordings/{Sid}.wav: the audio. Built from the SID against our own base URL, never
   * from a RecordingUrl in a callback, so the credentials only ever go to the configured host.
   */
  async downloadRecording(recordingSid: string): Promise<TwilioResult<Uint8Array>> {
    if (!SID.recording.test(recordingSid)) return badSid('recording', recordingSid)
    const response = await this.send('GET', this.accountPath(`Recordings/${recordingSid}.wav`))
    if (!response.ok) return response
    try {
      return { ok: true, value: new Uint8Array(await response.value.arrayBuffer()) }
    } catch (error) {
      return { ok: false, error: { kind: 'unavailable', status: response.value.status, code: null, message: describe(error) } }
    }
  }

  /**
   * DELETE .../Recordings/{Sid}.json: the copy kept at Twilio, once ours is stored. A recording
   * Twilio no longer has (404) counts as deleted.
   */
  async deleteRecording(recordingSid: string): Promise<TwilioResult<null>> {
    if (!SID.recording.test(recordingSid)) return badSid('recording', recordingSid)
    const response = await this.send('DELETE', this.accountPath(`Recordings/${recordingSid}.json`))
    if (!response.ok && response.error.status !== 404) return response
    return { ok: true, value: null }
  }

  /** Any JSON request under the account (conference-client.ts builds the Conferences and Participants ones). */
  accountRequest(method: 'GET' | 'POST', rest: string, form?: URLSearchParams): Promise<TwilioResult<unknown>> {
    return this.request(method, this.accountPath(rest), form)
  }

  private accountPath(rest: string): string {
    return `/2010-04-01/Accounts/${encodeURIComponent(this.account.accountSid)}/${rest}`
  }

  private async request(method: 'GET' | 'POST', path: string, form?: URLSearchParams): Promise<TwilioResult<unknown>> {
    const response = await this.send(method, path, form)
    if (!response.ok) return response
    try {
      return { ok: true, value: await response.value.json() }
    } catch (error) {
      return { ok: false, error: { kind: 'unavailable', status: response.value.status, code: null, message: `Twilio sent a reply that is not JSON: ${describe(error)}` } }
    }
  }

  /** One HTTP exchange; a non-2xx answer is classified and its JSON error body read. */
  private async send(method: 'GET' | 'POST' | 'DELETE', path: string, form?: URLSearchParams): Promise<TwilioResult<Response>> {
    const headers: Record<string, string> = {
      Authorization: `Basic ${Buffer.from(`${this.account.accountSid}:${this.account.authToken}`).toString('base64')}`,
      Accept: 'application/json',
    }
    if (form) headers['Content-Type'] = 'application/x-www-form-urlencoded'
    let response: Response
    try {
      response = await this.fetch(this.account.apiBaseUrl.replace(/\/+$/, '') + path, {
        method,
        headers,
        body: form?.toString(),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      })
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
      const message = timedOut ? `Twilio did not answer within ${this.timeoutMs} ms.` : `Twilio could not be reached: ${describe(error)}`
      return { ok: false, error: { kind: 'unavailable', status: null, code: null, message } }
    }
    if (response.ok) return { ok: true, value: response }
    return { ok: false, error: await failureOf(response) }
  }
}

/** Twilio's error body: {"code": 21211, "message": "...", "more_info": "...", "status": 400}. */
async function failureOf(response: Response): Promise<TwilioFailure> {
  const kind: TwilioFailureKind = response.status === 429 ? 'throttled' : response.status < 500 ? 'rejected' : 'unavailable'
  let code: number | null = null
  let message = `Twilio answered HTTP ${response.status}.`
  try {
    const body = (await response.json()) as { code?: unknown; message?: unknown }
    if (typeof body.code === 'number') code = body.code
    if (typeof body.message === 'string' && body.message) message = body.message
  } catch {
    // Not JSON (a proxy's HTML page, say): the status alone classifies it.
  }
  return { kind, status: response.status, code, message }
}

const CALL_STATUSES = new Set<string>(['queued', 'initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled'])

function parseCall(body: unknown): TwilioResult<TwilioCall> {
  const b = (body ?? {}) as Record<string, unknown>
  const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null)
  const sid = str(b.sid)
  const status = str(b.status)
  if (!sid || !status || !CALL_STATUSES.has(status)) {
    return { ok: false, error: { kind: 'unavailable', status: null, code: null, message: 'Twilio sent a Call without a sid or a known status.' } }
  }
  const duration = str(b.duration) ?? (typeof b.duration === 'number' ? String(b.duration) : null)
  return {
    ok: true,
    value: {
      sid,
      status: status as CallStatus,
      to: str(b.to) ?? '',
      from: str(b.from) ?? '',
      answeredBy: str(b.answered_by),
      durationSeconds: duration !== null && /^\d+$/.test(duration) ? Number(duration) : null,
      startTime: str(b.start_time),
      endTime: str(b.end_time),
    },
  }
}

function badSid<T>(what: string, sid: string): TwilioResult<T> {
  return { ok: false, error: { kind: 'rejected', status: null, code: null, message: `Not a Twilio ${what} SID: ${JSON.stringify(sid.slice(0, 40))}.` } }
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))
