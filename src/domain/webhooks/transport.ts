import { isIP } from 'node:net'

/** What one try of a delivery came to. */
export interface SendResult {
  status: number | null
  /** The first 4 KB of the receiver's answer. */
  body: string | null
  durationMs: number
  /** Why it failed; null for a 2xx. */
  error: 'http_status' | 'redirect' | 'timeout' | 'connection' | 'private_address' | 'unresolvable_host' | null
}

/** Sends one webhook request. The HTTP one is the default; tests can drive their own. */
export interface WebhookTransport {
  /** `address`: the checked address of the URL's host, the only one it may connect to. */
  send(url: string, headers: Record<string, string>, body: string, address: string): Promise<SendResult>
}

export const RESPONSE_BODY_BYTES = 4096

/** Reads at most `limit` bytes of a body, then lets the connection go (a huge answer costs nothing). */
async function readCapped(response: Response, limit: number): Promise<string> {
  if (!response.body) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < limit) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
  let bytes = Buffer.concat(chunks).subarray(0, limit)
  // Cut at a character boundary, so the text kept is at most `limit` bytes too.
  if (bytes.length === limit) {
    let start = bytes.length - 1
    while (start > 0 && (bytes[start]! & 0xc0) === 0x80) start--
    const lead = bytes[start]!
    const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1
    if (bytes.length - start < needed) bytes = bytes.subarray(0, start)
  }
  return new TextDecoder().decode(bytes)
}

/**
 * The request that reaches `address` and nothing else: the URL's host swapped for the address
 * (no lookup left for DNS to answer differently), the original `Host` header, and for https
 * the original name as SNI and as the name the certificate must match (Bun's fetch checks
 * `tls.serverName`; the chain is verified as usual). An IP literal URL goes as it is.
 */
export function pinnedRequest(url: string, address: string, ca?: string): { url: string; host: string | null; tls: { serverName?: string; ca?: string } | null } {
  const parsed = new URL(url)
  const name = parsed.hostname.replace(/^\[|\]$/g, '')
  const https = parsed.protocol === 'https:'
  const extra = ca === undefined ? {} : { ca }
  if (isIP(name)) return { url, host: null, tls: https && ca !== undefined ? extra : null }
  const host = parsed.host
  parsed.hostname = isIP(address) === 6 ? `[${address}]` : address
  return { url: parsed.href, host, tls: https ? { serverName: name.replace(/\.$/, ''), ...extra } : null }
}

/**
 * POST over HTTP(S) to the given checked address: a 2xx within `timeoutMs` is success;
 * redirects are answers, never followed (their target was not checked). `ca` is for tests.
 */
export function httpTransport(timeoutMs = 10_000, options: { ca?: string } = {}): WebhookTransport {
  return {
    async send(url, headers, body, address) {
      const started = performance.now()
      const elapsed = () => Math.round(performance.now() - started)
      try {
        const pinned = pinnedRequest(url, address, options.ca)
        const response = await fetch(pinned.url, {
          method: 'POST',
          headers: pinned.host === null ? headers : { ...headers, host: pinned.host },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
          ...(pinned.tls ? { tls: pinned.tls } : {}),
        })
        const text = await readCapped(response, RESPONSE_BODY_BYTES).catch(() => '')
        const ok = response.status >= 200 && response.status < 300
        const redirect = response.status >= 300 && response.status < 400
        return { status: response.status, body: text, durationMs: elapsed(), error: ok ? null : redirect ? 'redirect' : 'http_status' }
      } catch (error) {
        const name = (error as { name?: string }).name
        return { status: null, body: null, durationMs: elapsed(), error: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'connection' }
      }
    },
  }
}
