/** The console's calls to its JSON API (/console/api): the CSRF token on every change, errors as the API words them. */

export type { Capabilities, Me } from '../model'

export class ApiFailure extends Error {
  constructor(readonly status: number, readonly code: string, message: string, readonly param: string | null) {
    super(message)
  }
}

let csrf = ''
export const setCsrf = (token: string) => {
  csrf = token
}

/** Called when the session is gone (401): the app goes back to sign-in with the API's message. */
let onSignedOut: (message: string) => void = () => {}
export const whenSignedOut = (handler: (message: string) => void) => {
  onSignedOut = handler
}

/** A file sent as it is (a CSV upload), instead of a JSON body. */
export class RawBody {
  constructor(readonly text: string, readonly contentType: string) {}
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = body instanceof RawBody ? body.contentType : 'application/json'
  if (method !== 'GET') headers['x-csrf-token'] = csrf
  const payload = body === undefined ? undefined : body instanceof RawBody ? body.text : JSON.stringify(body)
  let response: Response
  try {
    response = await fetch(`/console/api${path}`, { method, headers, body: payload, credentials: 'same-origin' })
  } catch {
    throw new ApiFailure(0, 'network', 'The service cannot be reached; check your connection and try again.', null)
  }
  const text = await response.text()
  let json: unknown = null
  try {
    json = text ? JSON.parse(text) : null
  } catch {
    // not JSON: worded below
  }
  if (!response.ok) {
    const error = (json as { error?: Partial<ErrorBody> } | null)?.error ?? {}
    const failure = new ApiFailure(response.status, error.code ?? `http_${response.status}`, error.message ?? `The service answered ${response.status}.`, error.param ?? null)
    if (response.status === 401 && path !== '/session') onSignedOut(failure.message)
    throw failure
  }
  // The reply's shape is the route's declared response schema (src/console/model.ts), checked in tests.
  return json as T
}

/** The error envelope's fields the console shows. */
interface ErrorBody { code: string; message: string; param: string | null }

/** The text shown for a failure: the API's own message, else the fallback (or what went wrong in the page). */
export function errorText(error: unknown, fallback?: string): string {
  if (error instanceof ApiFailure) return error.message
  return fallback ?? (error instanceof Error ? error.message : String(error))
}
