import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * The token a seat's TwiML carries to its stream in a `<Parameter>` (Twilio drops a stream URL's
 * query string): the call, its organization and an expiry, signed with a key derived from the
 * service's secret key. The host also checks the call is live and its stream not started yet,
 * so a token replayed after the call ended, or twice, opens nothing.
 */

/** How long a minted token may start a stream (the disclosure plays in between). */
export const STREAM_TOKEN_TTL_MS = 10 * 60_000
const PARAMETER = 'dialer_stream_token'
export const STREAM_TOKEN_PARAMETER = PARAMETER

/** The stream tokens' own key (HMAC-SHA256 of a label under the secret key): never the sealing key itself. */
export function streamTokenKey(secretKey: Uint8Array): Buffer {
  return createHmac('sha256', secretKey).update('dialer stream token v1').digest()
}

const sign = (key: Uint8Array, body: string): string => createHmac('sha256', key).update(body).digest('base64url')

export function mintStreamToken(key: Uint8Array, claim: { callId: string; orgId: string; expiresAt: number }): string {
  const body = `${claim.callId}.${claim.orgId}.${claim.expiresAt}`
  return `${body}.${sign(key, body)}`
}

/** The claim of a well-formed, correctly signed, unexpired token; null otherwise (constant-time compare). */
export function readStreamToken(key: Uint8Array, token: string, now: number): { callId: string; orgId: string } | null {
  if (typeof token !== 'string' || token.length > 300) return null
  const parts = token.split('.')
  if (parts.length !== 4) return null
  const [callId, orgId, expires, mac] = parts as [string, string, string, string]
  if (!/^\d{1,15}$/.test(expires) || !/^[\w-]{1,80}$/.test(callId) || !/^[\w-]{1,80}$/.test(orgId)) return null
  const expected = Buffer.from(sign(key, `${callId}.${orgId}.${expires}`))
  const given = Buffer.from(mac)
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null
  if (Number(expires) < now) return null
  return { callId, orgId }
}
