import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { invalid } from '../../errors'

export const MAX_URL_LENGTH = 2048

/** IPv4 ranges a webhook must not reach: loopback, private, link-local (incl. cloud metadata), CGNAT, reserved. */
const BLOCKED_V4: [number, number][] = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4],
].map(([base, bits]) => [v4ToInt(base as string), bits as number])

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0
}

/** The eight 16-bit groups of an IPv6 address (with `::` expanded and a dotted IPv4 tail read). */
function v6Groups(ip: string): number[] | null {
  let text = ip.toLowerCase()
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted) {
    const n = v4ToInt(dotted[1]!)
    text = text.slice(0, dotted.index) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`
  }
  const halves = text.split('::')
  if (halves.length > 2) return null
  const head = halves[0] ? halves[0].split(':') : []
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null
  const groups = [...head, ...Array(halves.length === 2 ? missing : 0).fill('0'), ...tail].map((g) => Number.parseInt(g, 16))
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null
}

/** Whether an address is loopback, private, link-local, metadata or otherwise not public. */
export function isPrivateAddress(ip: string): boolean {
  const address = ip.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  if (isIP(address) === 4) {
    const n = v4ToInt(address)
    return BLOCKED_V4.some(([base, bits]) => (n >>> (32 - bits)) === (base >>> (32 - bits)))
  }
  const g = v6Groups(address)
  if (!g) return true // not an address we can read: refuse rather than guess
  const embeddedV4 = () => `${g[6]! >>> 8}.${g[6]! & 0xff}.${g[7]! >>> 8}.${g[7]! & 0xff}`
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0)
  // ::, ::1, IPv4-compatible ::a.b.c.d and IPv4-mapped ::ffff:a.b.c.d (in any spelling).
  if (zeroUpTo(6)) return g[6] === 0 && g[7]! <= 1 ? true : isPrivateAddress(embeddedV4())
  if (zeroUpTo(5) && g[5] === 0xffff) return isPrivateAddress(embeddedV4())
  // NAT64 64:ff9b::/96 reaches the embedded IPv4 address.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return isPrivateAddress(embeddedV4())
  // fc00::/7 unique local (incl. fd00:ec2::254 metadata), fe80::/10 link-local, ff00::/8 multicast.
  return (g[0]! & 0xfe00) === 0xfc00 || (g[0]! & 0xffc0) === 0xfe80 || (g[0]! & 0xff00) === 0xff00
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
 * The addresses a URL's host reaches; null when the name does not resolve now (the check is
 * made again before every send).
 */
export async function resolveHost(url: URL): Promise<string[] | null> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  if (isIP(host)) return [host]
  try {
    return (await lookup(host, { all: true })).map((a) => a.address)
  } catch {
    return null
  }
}

/** Refuses (400, reason private_address) a URL whose host is or resolves to a private address. */
export async function checkTarget(raw: string, allowPrivate: boolean, param = 'url'): Promise<URL> {
  const url = checkUrlShape(raw, param)
  if (allowPrivate) return url
  const addresses = await resolveHost(url)
  if (addresses?.some(isPrivateAddress)) {
    throw invalid('url points at a loopback, private, link-local or metadata address.', param, 'private_address')
  }
  return url
}
