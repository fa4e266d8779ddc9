import ipaddr from 'ipaddr.js'
import { isIP } from 'node:net'
import { invalid } from '../../errors'
import { classifyPhone } from '../phone/phone-number'
import { isPrivateAddress, targetName } from '../webhooks/target-check'

/**
 * Format checks the carriers' settings (src/telephony/<kind>/settings.ts) and a campaign's
 * carrier fields share: phone numbers a carrier dials or shows, endpoints it is sent to, files
 * it plays. Each throws 400 naming `param`.
 */

const NANP_E164 = /^\+1[2-9]\d{9}$/

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
 * A carrier's API endpoint: https, or plain http to a loopback address (tests, a local
 * emulator); no credentials, query or fragment. Unless allowPrivate, an address literal must be
 * public or loopback: the service sends the account's credentials there. Names are not
 * resolved (docs/decisions.md). `example` is the carrier's own endpoint, named in the message.
 */
export function checkApiBaseUrl(raw: string, param: string, example: string, allowPrivate = false): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw invalid(`${param} must be an absolute URL such as ${example}.`, param)
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
