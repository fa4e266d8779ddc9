import { ApiError } from '../errors'
import type { Services } from '../services'
import type { RequestState } from './request-state'

/** The console's JSON API (src/console/routes.ts): behind a session cookie, not an API key. */
export const CONSOLE_API_PREFIX = '/console/api'
export const SESSION_COOKIE = 'dialer_session'
/**
 * On https: a browser keeps a __Host- cookie only if this host set it Secure, with Path=/ and
 * no Domain, so a sibling subdomain cannot plant one (cookie tossing).
 */
export const SECURE_SESSION_COOKIE = '__Host-dialer_session'
/** Signing in is the one console request without a session. */
const SIGN_IN = `${CONSOLE_API_PREFIX}/session`

export const isHttps = (publicUrl: string): boolean => publicUrl.startsWith('https:')

/** The session cookie's name for this service's public URL. */
export const sessionCookieName = (publicUrl: string): string => (isHttps(publicUrl) ? SECURE_SESSION_COOKIE : SESSION_COOKIE)

/** How many session cookies (either name) a Cookie header carries. */
export function sessionCookieCount(header: string | null): number {
  if (!header) return 0
  let count = 0
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    const name = eq > 0 ? part.slice(0, eq).trim() : ''
    if (name === SESSION_COOKIE || name === SECURE_SESSION_COOKIE) count++
  }
  return count
}

/** The value of one cookie of a Cookie header, or null. */
export function cookieOf(header: string | null, name: string): string | null {
  if (!header) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}

/**
 * The console door: a live session from the cookie, and on every change the session's CSRF
 * token in X-CSRF-Token (a page of another site can make the browser send the cookie, never
 * read the token). A cookie that names no live session answers 401 and the page goes back to
 * sign-in; a change without the token is 403 and changes nothing.
 */
export function admitConsole(s: Services, request: Request, pathname: string, state: RequestState): void {
  const method = request.method
  const change = method !== 'GET' && method !== 'HEAD'
  if (pathname === SIGN_IN && method === 'POST') {
    // No session yet: a JSON body only, which a form on another site cannot send without CORS.
    if (!(request.headers.get('content-type') ?? '').toLowerCase().startsWith('application/json')) {
      throw new ApiError('invalid_request', 'Sign in with a JSON body (Content-Type: application/json).')
    }
    return
  }
  const header = request.headers.get('cookie')
  // Two session cookies: one was planted by someone else (another subdomain, a path above
  // ours), and which one the browser sent first is theirs to choose.
  if (sessionCookieCount(header) > 1) {
    throw new ApiError('authentication_failed', 'This request carried more than one session cookie; clear this site\u2019s cookies and sign in again.', {
      extras: { reason: 'ambiguous_cookie' },
    })
  }
  const token = cookieOf(header, sessionCookieName(s.config.publicUrl))
  const session = token ? s.sessions.resolve(token) : null
  if (!session) {
    throw new ApiError('authentication_failed', token ? 'Your session has ended; sign in again.' : 'Sign in to use the console.', {
      extras: { reason: token ? 'session_expired' : 'missing' },
    })
  }
  if (change && !s.sessions.csrfMatches(session, request.headers.get('x-csrf-token'))) {
    throw new ApiError('permission_denied', 'This change did not carry the page\u2019s CSRF token; reload the page and try again.', {
      extras: { reason: 'csrf' },
    })
  }
  state.console = session
}
