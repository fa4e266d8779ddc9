import { describeCache, registerPureMemo } from '../cache-registry'
import { BoundedMemo } from '../memo'

export interface BasicCredentials {
  readonly keyId: string
  readonly secret: string
}

// Clients send the same header on every request; decoding it (regex, base64, slices) costs
// more than the rest of authentication, so recent headers keep their decoded form. Bounded:
// made-up headers push out the oldest. The secret is still checked against the key each time.
const memo = new BoundedMemo<string, BasicCredentials | null>(10_000)
registerPureMemo(describeCache({
  name: 'basic-auth-headers',
  holds: 'decoded Authorization headers (key id and secret, or unreadable) by header text',
  bound: '10,000 to 20,000 headers (two generations)',
  clearedBy: 'nothing (pure); made-up headers push out the oldest generation',
  gain: '0.01 vs 1.2–1.4 µs a request',
  source: 'pure',
}), () => memo.clear())

/** Key ID and secret from an `Authorization: Basic ...` header, or null when there is none to read. */
export function readBasicCredentials(header: string | null): BasicCredentials | null {
  if (!header) return null
  const known = memo.get(header)
  if (known !== undefined) return known
  const credentials = decode(header)
  memo.set(header, credentials)
  return credentials
}

function decode(header: string): BasicCredentials | null {
  const match = /^basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header.trim())
  if (!match) return null
  let decoded: string
  try {
    decoded = Buffer.from(match[1]!, 'base64').toString('utf8')
  } catch {
    return null
  }
  const colon = decoded.indexOf(':')
  if (colon <= 0) return null
  const keyId = decoded.slice(0, colon)
  const secret = decoded.slice(colon + 1)
  if (secret === '' || keyId.length > 200 || secret.length > 500) return null
  return Object.freeze({ keyId, secret })
}
