/** HTTP helpers of the emulator's REST API: Twilio-style JSON errors (twilio.com/docs/errors) and parameter checks. */

export interface TwilioErrorBody {
  code: number
  message: string
  status: number
}

export const API = '/2010-04-01/Accounts/'
export const E164 = /^\+[1-9]\d{1,14}$/

export type Params = Record<string, string | string[]>

/** The first value of a form parameter (repeated parameters arrive as arrays). */
export const one = (params: Params, name: string): string | undefined => {
  const v = params[name]
  return Array.isArray(v) ? v[0] : v
}

/** A repeated or space-separated parameter (StatusCallbackEvent and the like), or the default. */
export const many = (params: Params, name: string, fallback: string[]): Set<string> => {
  const v = params[name]
  return new Set(Array.isArray(v) ? v.flatMap((e) => e.split(/\s+/)) : v ? v.split(/\s+/) : fallback)
}

export function isHttpUrl(value: string): boolean {
  try {
    const u = new URL(value)
    return u.protocol === 'https:' || u.protocol === 'http:'
  } catch {
    return false
  }
}

export function error(body: TwilioErrorBody): Response {
  return Response.json({ ...body, more_info: `https://www.twilio.com/docs/errors/${body.code}` }, { status: body.status })
}

export const notFound = (path: string): Response => error({ status: 404, code: 20404, message: `The requested resource ${path} was not found` })

/** A Twilio list page (the 2010-04-01 API's paging fields) of one resource kind. */
export function page(uri: string, key: string, items: unknown[]): Record<string, unknown> {
  return { [key]: items, first_page_uri: uri, next_page_uri: null, previous_page_uri: null, page: 0, page_size: 50, start: 0, end: Math.max(0, items.length - 1), uri }
}

/**
 * From and To of a new call (Calls.json, Participants.json): present and E.164, From one of
 * the account's caller ids when it has a list (21201/21211 To, 21213/21212 From, 21210).
 */
export function checkEnds(to: string | undefined, from: string | undefined, callerIds: string[] | undefined): Response | null {
  if (!to) return error({ status: 400, code: 21201, message: "No 'To' number is specified" })
  if (!E164.test(to)) return error({ status: 400, code: 21211, message: `Invalid 'To' Phone Number: ${to}` })
  if (!from) return error({ status: 400, code: 21213, message: "No 'From' number is specified" })
  if (!E164.test(from)) return error({ status: 400, code: 21212, message: `Invalid 'From' Phone Number: ${from}` })
  if (callerIds && !callerIds.includes(from)) {
    return error({ status: 400, code: 21210, message: `The source phone number provided, ${from}, is not yet verified for your account.` })
  }
  return null
}
