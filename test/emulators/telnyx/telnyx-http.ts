/**
 * HTTP helpers of the Telnyx emulator's REST API: Telnyx's error body, `{"errors":[{code, title,
 * detail, source?, meta?}]}` (developers.telnyx.com/development/api-fundamentals/api-errors and
 * …/reliability/rate-limiting: 429 with code 10011), and the two body encodings TeXML uses: the
 * create is JSON, every other write form-encoded (team-telnyx/telnyx-node
 * src/resources/texml/accounts/calls/calls.ts, developers.telnyx.com/api-reference/texml-rest-commands/update-call).
 */

export const API = '/v2/texml/Accounts/'
export const E164 = /^\+[1-9]\d{1,14}$/

export interface TelnyxError {
  status: number
  code: string
  title: string
  detail: string
  /** The request field at fault (JSON pointer), as Telnyx's validation errors give it. */
  pointer?: string
}

export type Params = Record<string, string | string[]>

export function error(e: TelnyxError): Response {
  const body = { code: e.code, title: e.title, detail: e.detail, ...(e.pointer ? { source: { pointer: e.pointer } } : {}), meta: { url: `https://developers.telnyx.com/docs/overview/errors/${e.code}` } }
  const headers: Record<string, string> = e.status === 429 ? { 'x-ratelimit-limit': '1', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '1' } : {}
  return Response.json({ errors: [body] }, { status: e.status, headers })
}

export const unauthorized = (): Response => error({ status: 401, code: '10009', title: 'Authentication failed', detail: 'The required authentication headers were either invalid or not included in the request.' })
export const notFound = (): Response => error({ status: 404, code: '10005', title: 'Resource not found', detail: 'The requested resource or URL could not be found.' })
/** A field the request got wrong (422; the code is the emulator's choice where Telnyx's catalogue has none for it). */
export const invalid = (field: string, detail: string, code = '10015'): Response =>
  error({ status: 422, code, title: code === '10002' ? 'Invalid phone number' : 'Invalid parameter', detail, pointer: `/${field}` })

export const one = (params: Params, name: string): string | undefined => {
  const v = params[name]
  return Array.isArray(v) ? v[0] : v
}

/** A space-separated parameter (StatusCallbackEvent, RecordingStatusCallbackEvent), or the default. */
export const many = (params: Params, name: string, fallback: string[]): Set<string> => {
  const v = params[name]
  return new Set(Array.isArray(v) ? v.flatMap((e) => e.split(/\s+/)) : v ? v.split(/\s+/).filter(Boolean) : fallback)
}

/** A boolean field: JSON true/false or the strings "true"/"false" (form bodies). */
export const flag = (params: Params, name: string, fallback: boolean): boolean => {
  const v = one(params, name)
  return v === undefined ? fallback : v === 'true'
}

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value)
    return u.protocol === 'https:' || u.protocol === 'http:'
  } catch {
    return false
  }
}

/** A form body as Params (repeated names as arrays). */
export function formParams(text: string): Params {
  const params: Params = {}
  for (const [k, v] of new URLSearchParams(text)) {
    const prev = params[k]
    params[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]
  }
  return params
}

/** A JSON object body as Params (scalars as strings); null when it is not a JSON object. */
export function jsonParams(text: string): Params | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return null
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return null
  const params: Params = {}
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
    if (v === null || v === undefined) continue
    params[k] = Array.isArray(v) ? v.map(String) : typeof v === 'object' ? JSON.stringify(v) : String(v)
  }
  return params
}

/** A page of a TeXML list (the fields of CallRetrieveCallsResponse in the SDK). */
export function page(uri: string, key: string, items: unknown[]): Record<string, unknown> {
  return { [key]: items, end: Math.max(0, items.length - 1), first_page_uri: `${uri}?Page=0&PageSize=50`, next_page_uri: null, page: 0, page_size: 50, start: 0, uri }
}
