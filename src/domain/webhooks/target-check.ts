import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { invalid } from '../../errors'

export const MAX_URL_LENGTH = 2048
/** How long one resolution may take before the target counts as unresolvable. */
export const DNS_TIMEOUT_MS = 3000

/** A name's addresses; throws (or returns none) when it does not resolve. */
export type Resolver = (name: string) => Promise<string[]>

/** getaddrinfo (hosts file, then DNS), every address it gives. */
export const systemResolver: Resolver = async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address)

/**
 * IPv6 blocks ipaddr.js 2.2.0 calls 'unicast' that the IANA registries make special:
 * IPv4-compatible (RFC 4291, deprecated), local-use NAT64 (RFC 8215), dummy prefix (RFC 9780),
 * documentation (RFC 9637), SRv6 SIDs (RFC 9602), site-local (RFC 3879).
 */
const UNLISTED_V6 = ['::/96', '64:ff9b:1::/48', '100:0:0:1::/64', '3fff::/20', '5f00::/16', 'fec0::/10'].map((cidr) => ipaddr.IPv6.parseCIDR(cidr))
/** The only block IANA allocates for global unicast (RFC 4291 2.4); anything outside it is not a public host. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')

/**
 * Whether an address is anything but a public unicast host: every range ipaddr.js names
 * (loopback, private, link-local, CGNAT, reserved and documentation, multicast, broadcast,
 * unspecified, 6to4, Teredo, NAT64, ORCHID, benchmarking, ...) plus UNLISTED_V6. An
 * IPv4-mapped address is judged by its IPv4 address; one that cannot be read is private.
 */
export function isPrivateAddress(ip: string): boolean {
  const text = ip.replace(/^\[|\]$/g, '')
  if (!isIP(text.replace(/%.*$/, ''))) return true
  let address: ipaddr.IPv4 | ipaddr.IPv6
  try {
    address = ipaddr.process(text)
  } catch {
    return true
  }
  if (address.range() !== 'unicast') return true
  if (address.kind() === 'ipv4') return false
  const v6 = address as ipaddr.IPv6
  return !v6.match(GLOBAL_UNICAST_V6) || UNLISTED_V6.some((cidr) => v6.match(cidr))
}

/** The URL's shape: http(s), a host, at most 2048 characters. */
export function checkUrlShape(raw: string, param = 'url'): URL {
  if (raw.length > MAX_URL_LENGTH) throw invalid(`url must be at most ${MAX_URL_LENGTH} characters.`, param)
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw invalid('url is not a valid URL.', param)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('url must be http or https.', param)
  if (!url.hostname) throw invalid('url needs a host.', param)
  if (url.username || url.password) throw invalid('url must not carry credentials; use the signature to authenticate.', param)
  return url
}

/**
 * The name to resolve and to verify TLS certificates against. The URL parser has already
 * lowercased it, mapped IDN and full-width forms, and turned every IPv4 spelling (2130706433,
 * 0177.0.0.1, 0x7f.1, 127.1, 127.0.0.1.) into dotted decimal; left: brackets, a trailing dot.
 */
export function targetName(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '')
}

export interface TargetOptions {
  allowPrivate: boolean
  resolve?: Resolver
  timeoutMs?: number
}

export type Target =
  | { ok: true; name: string; /** The checked address to connect to. */ address: string; addresses: string[] }
  | { ok: false; reason: 'unresolvable_host' | 'private_address'; detail: string }

/** Rejects after `ms`: a resolver that hangs must not hold a request or a send. */
function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/**
 * Resolves a URL's host once and checks every address it gives. The caller connects to
 * `address` (never looking the name up again, so DNS cannot answer differently in between).
 * Fails closed: no answer, an error or a timeout is `unresolvable_host`; one private address
 * among many refuses the target (unless allowPrivate).
 */
export async function resolveTarget(url: URL, options: TargetOptions): Promise<Target> {
  const name = targetName(url)
  let found: string[]
  if (isIP(name)) found = [name]
  // RFC 6761: these names are loopback whatever a resolver says.
  else if (name === 'localhost' || name.endsWith('.localhost')) found = ['127.0.0.1', '::1']
  else {
    try {
      found = await withTimeout((options.resolve ?? systemResolver)(name), options.timeoutMs ?? DNS_TIMEOUT_MS, `resolving ${name}`)
    } catch (error) {
      return { ok: false, reason: 'unresolvable_host', detail: error instanceof Error ? error.message : String(error) }
    }
  }
  if (found.length === 0) return { ok: false, reason: 'unresolvable_host', detail: `${name} has no address` }
  // Mapped addresses connect as plain IPv4 (::ffff:a.b.c.d is a.b.c.d on a dual-stack socket).
  const addresses = found.map((ip) => (ipaddr.isValid(ip) ? ipaddr.process(ip).toString() : ip))
  const blocked = addresses.find(isPrivateAddress)
  if (blocked !== undefined && !options.allowPrivate) return { ok: false, reason: 'private_address', detail: `${name} is ${blocked}` }
  if (addresses.some((ip) => !isIP(ip))) return { ok: false, reason: 'unresolvable_host', detail: `${name} gave an unreadable address` }
  // IPv4 first: hosts without an IPv6 route are common, and a retry resolves again anyway.
  const address = addresses.find((ip) => isIP(ip) === 4) ?? addresses[0]!
  return { ok: true, name, address, addresses }
}

/**
 * Refuses (400 invalid_request, param url) a URL of the wrong shape, one whose host does not
 * resolve (reason unresolvable_host) and, unless allowPrivate, one that is or resolves to a
 * private address (reason private_address).
 */
export async function checkTarget(raw: string, allowPrivate: boolean, param = 'url', options: Omit<TargetOptions, 'allowPrivate'> = {}): Promise<URL> {
  const url = checkUrlShape(raw, param)
  const target = await resolveTarget(url, { ...options, allowPrivate })
  if (target.ok) return url
  if (target.reason === 'private_address') {
    throw invalid('url points at a loopback, private, link-local, metadata or other special-purpose address.', param, 'private_address')
  }
  throw invalid(`url's host does not resolve (${target.detail}).`, param, 'unresolvable_host')
}
