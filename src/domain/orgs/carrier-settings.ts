import ipaddr from 'ipaddr.js'
import type { OrgCarrierRow } from '../../db/stores/org-store'
import { isIP } from 'node:net'
import { ApiError, invalid } from '../../errors'
import { classifyPhone } from '../phone/phone-number'
import type { SecretBox } from '../secrets/secret-box'
import type { CarrierKind } from '../../telephony/registry'
import type { TwilioSettings } from '../../telephony/twilio/settings'
import { isPrivateAddress, targetName } from '../webhooks/target-check'

/**
 * An organization's carrier for live calls (issue 18): the simulator (the default: no row), or
 * Twilio with its account, auth token (sealed at rest, never shown), caller IDs and endpoint.
 * The admin API's `carrier` object replaces the settings as a whole, except that a missing
 * auth_token keeps the stored one while account and endpoint stay the same.
 */

export const DEFAULT_TWILIO_API = 'https://api.twilio.com'

/** The admin API's `carrier` field as sent (schema-checked: types and lengths only). */
export interface CarrierInput {
  kind: CarrierKind
  account_sid?: string
  auth_token?: string
  caller_ids?: string[]
  api_base_url?: string
  machine_detection?: boolean
}

/** What admin replies show: never the token. */
export type CarrierView =
  | { kind: 'simulator' }
  | { kind: 'twilio'; account_sid: string; caller_ids: string[]; api_base_url: string; machine_detection: boolean; auth_token_set: true }

/** What a dial uses: the token opened. */
export type CarrierSettings = { kind: 'simulator' } | TwilioSettings

/** Checked input: `authToken` null means "keep the stored one". */
export type CheckedCarrier =
  | { kind: 'simulator' }
  | { kind: 'twilio'; accountSid: string; authToken: string | null; callerIds: string[]; apiBaseUrl: string; machineDetection: boolean }

// Twilio's formats: "AC" and 32 lowercase hex digits; auth tokens are 32 hex digits.
const ACCOUNT_SID = /^AC[0-9a-f]{32}$/
const AUTH_TOKEN = /^[0-9a-fA-F]{32}$/
const NANP_E164 = /^\+1[2-9]\d{9}$/
const TWILIO_FIELDS = ['account_sid', 'auth_token', 'caller_ids', 'api_base_url', 'machine_detection'] as const

/** What the sealed token is bound to: it opens for this organization only. */
export const tokenContext = (orgId: string) => `org:${orgId}:twilio_auth_token`

/**
 * A phone number a carrier dials or shows: E.164 as sent, +1 and a valid US or Canadian number
 * (the fictional 555-01xx block included, for tests). Throws 400 naming `param`.
 */
export function checkE164(value: string, param: string, what: string): string {
  const phone = NANP_E164.test(value) ? classifyPhone(value) : null
  if (!phone || (phone.kind !== 'domestic' && phone.kind !== 'fictional')) {
    throw invalid(`${param}: ${what} must be a US or Canadian number in E.164 form, such as +14155550123.`, param)
  }
  return value
}

/** Whether a URL host is a loopback address: localhost, 127.0.0.0/8, ::1 (an IPv4-mapped one too). */
export function isLoopbackHost(hostname: string): boolean {
  if (hostname === 'localhost') return true
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname
  if (!ipaddr.isValid(bare)) return false
  let address = ipaddr.parse(bare)
  if (address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()) address = (address as ipaddr.IPv6).toIPv4Address()
  return address.range() === 'loopback'
}

/**
 * https, or plain http to a loopback address (tests, a local emulator); no credentials, query or
 * fragment. Unless allowPrivate, an address literal must be public or loopback: the service
 * sends the account's credentials there. Names are not resolved (docs/decisions.md).
 */
export function checkApiBaseUrl(raw: string, param: string, allowPrivate = false): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw invalid(`${param} must be an absolute URL such as ${DEFAULT_TWILIO_API}.`, param)
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw invalid(`${param} must use https (plain http only to a loopback address: localhost, 127.0.0.0/8, ::1).`, param)
  }
  if (url.username !== '' || url.password !== '') throw invalid(`${param} must not hold a user name or password.`, param)
  if (url.search !== '' || url.hash !== '') throw invalid(`${param} must not have a query or fragment.`, param)
  const host = targetName(url)
  if (!allowPrivate && isIP(host) && isPrivateAddress(host) && !isLoopbackHost(host)) {
    throw invalid(
      `${param} points at a private, link-local, unique-local, shared, multicast or other special-purpose address; ` +
        'use the carrier\u2019s public endpoint (DIALER_CARRIER_ALLOW_PRIVATE=1 allows private ones).',
      param, 'private_address',
    )
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '')
}

/** A file the carrier fetches and plays (a voicemail): https, or http to loopback; a query is fine, credentials are not. */
export function checkMediaUrl(raw: string, param: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw invalid(`${param} must be an absolute URL such as https://example.com/voicemail.mp3.`, param)
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw invalid(`${param} must use https (plain http only to a loopback address).`, param)
  }
  if (url.username !== '' || url.password !== '') throw invalid(`${param} must not hold a user name or password.`, param)
  return url.href
}

/** Checks a `carrier` object against the stored settings; throws 400 with `param` on the first fault. */
export function checkCarrier(input: CarrierInput, stored: OrgCarrierRow | undefined, param = 'carrier', allowPrivate = false): CheckedCarrier {
  if (input.kind === 'simulator') {
    for (const field of TWILIO_FIELDS) {
      if (input[field] !== undefined) throw invalid(`${param}.${field} is taken only with kind "twilio".`, `${param}.${field}`)
    }
    return { kind: 'simulator' }
  }
  const sid = input.account_sid
  if (sid === undefined) throw invalid(`${param}.account_sid is required with kind "twilio".`, `${param}.account_sid`)
  if (!ACCOUNT_SID.test(sid)) {
    throw invalid(`${param}.account_sid must be "AC" and 32 lowercase hex digits, as in the Twilio console.`, `${param}.account_sid`)
  }
  // The value is never echoed: it is a secret.
  if (input.auth_token !== undefined && !AUTH_TOKEN.test(input.auth_token)) {
    throw invalid(`${param}.auth_token must be 32 hex digits, as in the Twilio console.`, `${param}.auth_token`)
  }
  const callerIds = input.caller_ids
  if (callerIds === undefined || callerIds.length === 0) {
    throw invalid(`${param}.caller_ids needs at least one number to call from.`, `${param}.caller_ids`)
  }
  const seen = new Set<string>()
  callerIds.forEach((id, i) => {
    checkE164(id, `${param}.caller_ids[${i}]`, 'a caller ID')
    if (seen.has(id)) throw invalid(`${param}.caller_ids[${i}] repeats ${id}.`, `${param}.caller_ids[${i}]`)
    seen.add(id)
  })
  const apiBaseUrl = checkApiBaseUrl(input.api_base_url ?? DEFAULT_TWILIO_API, `${param}.api_base_url`, allowPrivate)
  // A stored token is kept only where it already goes: the same account at the same endpoint.
  const keeps = stored !== undefined && stored.accountSid === sid && stored.apiBaseUrl === apiBaseUrl
  if (input.auth_token === undefined && !keeps) {
    throw invalid(
      `${param}.auth_token is required${stored ? ' when account_sid or api_base_url changes' : ''}.`,
      `${param}.auth_token`,
    )
  }
  return {
    kind: 'twilio',
    accountSid: sid,
    authToken: input.auth_token ?? null,
    callerIds: [...callerIds],
    apiBaseUrl,
    machineDetection: input.machine_detection ?? true,
  }
}

/**
 * Whether checked settings change what a call already placed relies on: the kind, the account,
 * its token (one that does not open counts as changed) or the endpoint. Its callbacks are checked
 * with that token and its hang-up and recording go to that endpoint; caller IDs and detection
 * are read only when a call is dialed.
 */
export function changesPlacedCalls(stored: OrgCarrierRow | undefined, checked: CheckedCarrier, box: SecretBox): boolean {
  if (!stored) return false
  if (checked.kind === 'simulator') return true
  if (checked.accountSid !== stored.accountSid || checked.apiBaseUrl !== stored.apiBaseUrl) return true
  if (checked.authToken === null) return false
  try {
    return box.open(stored.authTokenSealed, tokenContext(stored.orgId)) !== checked.authToken
  } catch {
    return true
  }
}

/** 409: the organization's carrier cannot change under calls that are up. */
export function callsInProgress(count: number): ApiError {
  return new ApiError(
    'calls_in_progress',
    `The organization has ${count} carrier call${count === 1 ? '' : 's'} in progress; its carrier, account, auth token and ` +
      'endpoint can change once they have ended (pause its campaigns, wait, and send it again). Caller IDs and machine detection can change now.',
    { param: 'carrier' },
  )
}

export function carrierView(row: OrgCarrierRow | undefined): CarrierView {
  if (!row) return { kind: 'simulator' }
  return {
    kind: 'twilio',
    account_sid: row.accountSid,
    caller_ids: row.callerIds,
    api_base_url: row.apiBaseUrl,
    machine_detection: row.machineDetection,
    auth_token_set: true,
  }
}

/** The settings a dial uses; throws SecretBoxError when the token does not open (the key changed). */
export function openCarrier(row: OrgCarrierRow | undefined, box: SecretBox): CarrierSettings {
  if (!row) return { kind: 'simulator' }
  return {
    kind: 'twilio',
    accountSid: row.accountSid,
    authToken: box.open(row.authTokenSealed, tokenContext(row.orgId)),
    callerIds: row.callerIds,
    apiBaseUrl: row.apiBaseUrl,
    machineDetection: row.machineDetection,
  }
}

/** The row to store for checked input (null: no row, the simulator). */
export function carrierRow(
  orgId: string, checked: CheckedCarrier, stored: OrgCarrierRow | undefined, box: SecretBox, now: number,
): OrgCarrierRow | null {
  if (checked.kind === 'simulator') return null
  return {
    orgId,
    kind: 'twilio',
    accountSid: checked.accountSid,
    authTokenSealed: checked.authToken === null ? stored!.authTokenSealed : box.seal(checked.authToken, tokenContext(orgId)),
    callerIds: checked.callerIds,
    apiBaseUrl: checked.apiBaseUrl,
    machineDetection: checked.machineDetection,
    created: stored?.created ?? now,
    updated: now,
  }
}
