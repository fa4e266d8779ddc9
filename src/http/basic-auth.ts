/** Key ID and secret from an `Authorization: Basic ...` header, or null when there is none to read. */
export function readBasicCredentials(header: string | null): { keyId: string; secret: string } | null {
  if (!header) return null
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
  return { keyId, secret }
}
