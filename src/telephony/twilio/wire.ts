import type { CallStatus, CreateCallParams, TwilioFailure, TwilioResult, UpdateCallParams } from './rest-client'
import type { ParticipantParams } from './conference-client'
import type { StreamDialect } from '../media-stream/dialect'

/**
 * The call engine's wire port: what differs between carriers that speak TwiML (Twilio) or its
 * copy TeXML (Telnyx). The engine (call-plan, callback-steps, lifecycle, conference and seat
 * steps, consent, recordings, reconcile, inbound, the AI seat's host) runs over it; each
 * carrier folder implements it: its REST client, how its callbacks are verified, its call-id
 * pattern, its URL prefix and the markup it is answered with.
 */

export type WireFailure = TwilioFailure
export type WireResult<T> = TwilioResult<T>

/** A call as the carrier's REST API describes it, in Twilio's vocabulary (status, AnsweredBy). */
export interface WireCall {
  status: CallStatus
  answeredBy: string | null
  durationSeconds: number | null
}

/** The REST requests the engine makes, for one organization's account. */
export interface CallRest {
  /** Places a call; `sid` is null where the carrier names it only in its first callback (Telnyx). */
  createCall(params: CreateCallParams): Promise<WireResult<{ sid: string | null }>>
  fetchCall(callSid: string): Promise<WireResult<WireCall>>
  updateCall(callSid: string, update: UpdateCallParams): Promise<WireResult<unknown>>
  /** Records a live call from now on (after the consent notice); the recording's callbacks go to `statusCallback`. */
  startRecording(callSid: string, statusCallback: string): Promise<WireResult<unknown>>
  downloadRecording(recordingSid: string): Promise<WireResult<Uint8Array>>
  /** The carrier's copy, once ours is stored; one it no longer has counts as deleted. */
  deleteRecording(recordingSid: string): Promise<WireResult<null>>
  /** The running conference of that name (null: none runs). */
  findConference(friendlyName: string): Promise<WireResult<string | null>>
  addParticipant(conferenceSid: string, params: ParticipantParams): Promise<WireResult<{ callSid: string | null }>>
}

/** A callback as its route read it: the URL the carrier requested (DIALER_PUBLIC_URL, path and query), the raw body, the signing headers. */
export interface WireCallback {
  url: string
  body: string
  signature: string | null
  /** Telnyx's `telnyx-timestamp` (unix seconds); Twilio signs no time. */
  timestamp?: string | null
}

export type Refusal = 'unknown_call' | 'signature' | 'account' | 'stale' | 'replay'

export interface CarrierWire {
  /** The carrier's kind (the name kept on each call and in log lines). */
  readonly kind: string
  /** In notes and log words: "Twilio", "Telnyx". */
  readonly label: string
  /** The path root of its routes: '/twilio', '/telnyx'. */
  readonly root: string
  /** The header its signature comes in (and the 403's words). */
  readonly signatureHeader: string
  /** The header of the signed time, where the carrier signs one (Telnyx). */
  readonly timestampHeader?: string
  /** Its call ids (a callback naming anything else changes nothing). */
  readonly callSid: RegExp
  readonly recordingSid: RegExp
  readonly conferenceSid: RegExp
  /** The organization's REST client; null when it has no account of this kind or its secret does not open. */
  rest(orgId: string): CallRest | null
  /**
   * The callback's form fields (first of each name) once its signature checks out with the
   * organization's key. `key` names a signed request where the carrier can send it again
   * (Telnyx): a replay (`refused: 'replay'`) is answered as the first was and changes nothing.
   */
  verify(orgId: string, input: WireCallback): { params: Record<string, string>; key?: string } | { refused: Refusal; key?: string }
  /**
   * The engine's markup (TwiML, with URLs under /twilio/) as this carrier takes it: the same for
   * Twilio; TeXML under /telnyx/ for Telnyx.
   */
  markup(twiml: string): string
  /** A URL the engine built (under /twilio/) as this carrier's (the REST requests' callback URLs). */
  url(url: string): string
  /** Its media streams' protocol (absent: Twilio's, frames passed as sent). */
  readonly streamDialect?: StreamDialect
}
