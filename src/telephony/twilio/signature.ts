import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import { parse as parseQuery, stringify as stringifyQuery } from 'node:querystring'

/**
 * Twilio's request signature (X-Twilio-Signature), as Twilio documents it
 * (twilio.com/docs/usage/webhooks/webhooks-security): base64 of HMAC-SHA1, keyed by the auth
 * token, of the full URL Twilio requested followed by every POST parameter sorted by name,
 * each written as name then value with no separators. A repeated parameter contributes each
 * of its (distinct) values in sorted order. JSON bodies are signed over the URL only, and the
 * URL carries `bodySHA256`, the hex SHA-256 of the raw body.
 *
 * Checked against the official `twilio` package's validateRequest by a property test
 * (test/unit/twilio-signature.test.ts), including which URL spellings are accepted.
 */

/** Form parameters: a repeated name (StatusCallbackEvent) has an array of values. */
export type TwilioParams = Record<string, string | readonly string[]>

export const SIGNATURE_HEADER = 'X-Twilio-Signature'

/** Base64 of a 20-byte HMAC-SHA1. */
const SIGNATURE_LENGTH = 28

/** The signature Twilio sends for a request to exactly `url` with `params`. */
export function signTwilioRequest(authToken: string, url: string, params: TwilioParams = {}): string {
  return sign(authToken, url, signedParams(params))
}

/** What follows the URL in the signed text: each parameter sorted by name, name then value. */
function signedParams(params: TwilioParams): SignedParams {
  let data = ''
  for (const name of Object.keys(params).sort()) {
    const value = params[name]!
    if (typeof value === 'string') data += name + value
    else for (const v of [...new Set(value)].sort()) data += name + v
  }
  return { text: data, bytes: Buffer.from(data, 'utf8') }
}

interface SignedParams {
  text: string
  bytes: Buffer
}

/** HMAC-SHA1 of the URL then the parameters: the parameters are encoded once for every URL tried. */
function sign(authToken: string, url: string, params: SignedParams): string {
  // A URL ending in half a surrogate pair may pair up with the parameters' first character.
  if (/[\uD800-\uDBFF]$/.test(url)) return createHmac('sha1', authToken).update(Buffer.from(url + params.text, 'utf8')).digest('base64')
  return createHmac('sha1', authToken).update(Buffer.from(url, 'utf8')).update(params.bytes).digest('base64')
}

/**
 * Whether `signature` is Twilio's for a request to `url` with `params`. Twilio may or may not
 * have included the port (":443" for https, ":80" for http) when it signed, so both spellings
 * are tried; then the URL as WHATWG normalizes it, and with the query re-encoded the way the
 * legacy querystring module does, as the official helper does.
 */
export function validateTwilioRequest(authToken: string, signature: string | null | undefined, url: string, params: TwilioParams = {}): boolean {
  const header = signature ?? ''
  // A SHA-1 signature is always 28 base64 characters: anything else cannot match, so no hashing.
  if (header.length !== SIGNATURE_LENGTH) return false
  // The sorted parameters are the same for every spelling of the URL: built once.
  const data = signedParams(params)
  const tried = new Set<string>()
  const matches = (candidate: string): boolean => {
    if (tried.has(candidate)) return false
    tried.add(candidate)
    return safeEqual(header, sign(authToken, candidate, data))
  }
  if (matches(withoutPort(url)) || matches(withPort(url))) return true
  let normalized: string
  try {
    normalized = new URL(url).toString()
  } catch {
    return false
  }
  const bare = withoutPort(normalized)
  const ported = withPort(normalized)
  return matches(bare) || matches(ported) || matches(withLegacyQuery(bare)) || matches(withLegacyQuery(ported))
}

/** The JSON-body variant: the URL (with its bodySHA256) is signed, and the body must hash to bodySHA256. */
export function validateTwilioRequestWithBody(authToken: string, signature: string | null | undefined, url: string, rawBody: string): boolean {
  let bodyHash: string
  try {
    bodyHash = new URL(url).searchParams.get('bodySHA256') ?? ''
  } catch {
    return false
  }
  const signed = validateTwilioRequest(authToken, signature, url, {})
  return safeEqual(bodyHash, createHash('sha256').update(Buffer.from(rawBody, 'utf8')).digest('hex')) && signed
}

/** A form body as TwilioParams: repeated names become arrays, as Twilio signs them. */
export function formParams(body: URLSearchParams | string): Record<string, string | string[]> {
  const search = typeof body === 'string' ? new URLSearchParams(body) : body
  // No prototype: a field named __proto__ or constructor is a field like any other.
  const out: Record<string, string | string[]> = Object.create(null)
  for (const [name, value] of search) {
    const seen = out[name]
    if (seen === undefined) out[name] = value
    else if (typeof seen === 'string') out[name] = [seen, value]
    else seen.push(value)
  }
  return out
}

/** Constant time for equal lengths; a length mismatch says nothing secret (SHA-1 is always 28 base64 chars). */
function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

interface UrlParts {
  scheme: string
  userInfo: string
  host: string
  port: string
  rest: string
}

/** Splits scheme://userinfo@host:port without normalizing anything, so the signed characters stay as they came. */
function splitUrl(url: string): UrlParts | null {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)/i.exec(url)
  if (!match) return null
  const [prefix, scheme, authority] = match as unknown as [string, string, string]
  const at = authority.lastIndexOf('@')
  const hostPort = authority.slice(at + 1)
  // In an IPv6 literal the port's colon comes after the closing bracket.
  const colon = hostPort.indexOf(':', hostPort.lastIndexOf(']') + 1)
  return {
    scheme,
    userInfo: authority.slice(0, at + 1),
    host: colon === -1 ? hostPort : hostPort.slice(0, colon),
    port: colon === -1 ? '' : hostPort.slice(colon),
    rest: url.slice(prefix.length),
  }
}

function withPort(url: string): string {
  const parts = splitUrl(url)
  if (!parts || parts.port) return url
  const port = parts.scheme.toLowerCase() === 'https://' ? ':443' : ':80'
  return parts.scheme + parts.userInfo + parts.host + port + parts.rest
}

function withoutPort(url: string): string {
  const parts = splitUrl(url)
  return parts ? parts.scheme + parts.userInfo + parts.host + parts.rest : url
}

function withLegacyQuery(url: string): string {
  const q = url.indexOf('?')
  if (q === -1 || q === url.length - 1) return url
  return `${url.slice(0, q)}?${stringifyQuery(parseQuery(url.slice(q + 1)))}`
}
