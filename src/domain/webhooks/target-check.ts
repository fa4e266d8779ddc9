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

/** Whether an address is loopback, private, link-local, metadata or otherwise not public. */
export function isPrivateAddress(ip: string): boolean {
  if (isIP(ip) === 4) {
    const n = v4ToInt(ip)
    return BLOCKED_V4.some(([base, bits]) => (n >>> (32 - bits)) === (base >>> (32 - bits)))
  }
  const v6 = ip.toLowerCase().replace(/^\[|\]$/g, '')
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(v6)
  if (mapped) return isPrivateAddress(mapped[1]!)
  if (v6 === '::' || v6 === '::1') return true
  // fc00::/7 unique local (incl. fd00:ec2::254 metadata), fe80::/10 link-local, ff00::/8 multicast.
  return /^f[cd]/.test(v6) || /^fe[89ab]/.test(v6) || v6.startsWith('ff')
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
