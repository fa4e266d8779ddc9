import { ApiError, invalid } from '../errors'
import type { BodyRule } from './body-reader'

/**
 * Twilio's callbacks (src/telephony/twilio/callback-routes.ts) need no key, so anyone can post to them, and
 * checking a signature costs time in the size of the form. Twilio's own forms are small (a
 * status callback is about 1 KB and 40 fields, a transcript line a few KB), so a form over
 * 64 KB or 200 fields is refused before any signature work: the route declares
 * `reads: TWILIO_FORM`, so the gateway refuses a declared size over the cap before reading and
 * the route stops reading a chunked one once it passes it.
 */
export const CALLBACK_MAX_BYTES = 64 * 1024
export const CALLBACK_MAX_FIELDS = 200

export const TWILIO_FORM: BodyRule = {
  limit: CALLBACK_MAX_BYTES,
  tooLarge: () => new ApiError('payload_too_large', `A carrier callback body is at most ${CALLBACK_MAX_BYTES / 1024} KB.`),
  parse: 'text',
}

/** 400 for a form of more than CALLBACK_MAX_FIELDS fields (counted as URLSearchParams reads them, empty pairs skipped). */
export function checkCallbackFields(form: string): void {
  if (formFieldCount(form, CALLBACK_MAX_FIELDS) > CALLBACK_MAX_FIELDS) {
    throw invalid(`A carrier callback has at most ${CALLBACK_MAX_FIELDS} form fields.`)
  }
}

/** The number of `&`-separated non-empty pairs (a leading `?` skipped), counting stopped once past `stopAfter`. */
export function formFieldCount(form: string, stopAfter = Number.POSITIVE_INFINITY): number {
  let count = 0
  let start = form.startsWith('?') ? 1 : 0
  for (;;) {
    const end = form.indexOf('&', start)
    const stop = end === -1 ? form.length : end
    if (stop > start && ++count > stopAfter) return count
    if (end === -1) return count
    start = end + 1
  }
}
