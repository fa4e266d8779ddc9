/**
 * The error catalogue: every code the API answers, with its HTTP status and type.
 * Codes are part of the contract (spec "Errors"); messages are for people and may change.
 */
export const errorCatalogue = {
  invalid_request: { status: 400, type: 'invalid_request_error' },
  invalid_phone: { status: 400, type: 'invalid_request_error' },
  on_dnc_list: { status: 422, type: 'invalid_request_error' },
  outside_calling_hours: { status: 422, type: 'invalid_request_error' },
  duplicate_lead: { status: 409, type: 'invalid_request_error' },
  number_retired: { status: 422, type: 'invalid_request_error' },
  consent_required: { status: 422, type: 'invalid_request_error' },
  campaign_closed: { status: 409, type: 'invalid_request_error' },
  queue_full: { status: 429, type: 'rate_limit_error' },
  test_flows_busy: { status: 429, type: 'rate_limit_error' },
  phone_cannot_change: { status: 422, type: 'invalid_request_error' },
  ambiguous_external_id: { status: 409, type: 'invalid_request_error' },
  duplicate_dnc_entry: { status: 409, type: 'invalid_request_error' },
  not_found: { status: 404, type: 'invalid_request_error' },
  authentication_failed: { status: 401, type: 'authentication_error' },
  permission_denied: { status: 403, type: 'permission_error' },
  rate_limited: { status: 429, type: 'rate_limit_error' },
  too_many_concurrent_requests: { status: 429, type: 'rate_limit_error' },
  lead_rate_limited: { status: 429, type: 'rate_limit_error' },
  idempotency_mismatch: { status: 409, type: 'idempotency_error' },
  idempotency_in_progress: { status: 409, type: 'idempotency_error' },
  limit_reached: { status: 403, type: 'invalid_request_error' },
  endpoint_paused: { status: 409, type: 'invalid_request_error' },
  service_unavailable: { status: 503, type: 'api_error' },
  internal_error: { status: 500, type: 'api_error' },
  lead_busy: { status: 409, type: 'invalid_request_error' },
  lead_taken_out_of_queue: { status: 409, type: 'invalid_request_error' },
  call_limit_reached: { status: 429, type: 'rate_limit_error' },
  number_not_allowed: { status: 422, type: 'invalid_request_error' },
  recording_not_available: { status: 404, type: 'invalid_request_error' },
  // DESIGN.md: activating a campaign that has no SDR.
  campaign_not_ready: { status: 409, type: 'invalid_request_error' },
  // Admin API: a registry import that would shrink a large list by more than half (force=true overrides).
  registry_shrink: { status: 409, type: 'invalid_request_error' },
  // Admin API: an organization's carrier account cannot change while its carrier calls are up.
  calls_in_progress: { status: 409, type: 'invalid_request_error' },
  // Twilio's callbacks (a form over their 64 KB cap) and lead CSV imports over 20 MB (the API's bodies over 1 MB stay 400).
  payload_too_large: { status: 413, type: 'invalid_request_error' },
  // Admin API and console: a lead CSV import while another of the organization's runs.
  import_in_progress: { status: 409, type: 'invalid_request_error' },
} as const satisfies Record<string, { status: number; type: string }>

export type ErrorCode = keyof typeof errorCatalogue

/** Extra envelope fields some codes carry (spec "Errors": reason, lead_id, missing_permission, ...). */
export interface ErrorExtras {
  reason?: string
  lead_id?: string | null
  missing_permission?: string
  campaign_id?: string | null
  candidates?: { id: string; campaign_id: string }[]
}

export interface ApiErrorOptions {
  param?: string | null
  /** Seconds, sent as Retry-After (429s, 503, idempotency_in_progress). */
  retryAfter?: number
  extras?: ErrorExtras
}

/** The one error type the service throws for anything a client should see. */
export class ApiError extends Error {
  readonly code: ErrorCode
  readonly param: string | null
  readonly retryAfter: number | undefined
  readonly extras: ErrorExtras

  constructor(code: ErrorCode, message: string, options: ApiErrorOptions = {}) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.param = options.param ?? null
    this.retryAfter = options.retryAfter
    this.extras = options.extras ?? {}
  }

  get status(): number {
    return errorCatalogue[this.code].status
  }

  get type(): string {
    return errorCatalogue[this.code].type
  }
}

/**
 * The `error` object of the envelope, with phone numbers and emails masked in the message and
 * in `param` (a custom field's name can be either).
 */
export function errorBody(error: ApiError, requestId: string | null) {
  return {
    type: error.type,
    code: error.code,
    message: maskSensitive(error.message),
    param: error.param === null ? null : maskSensitive(error.param),
    request_id: requestId,
    ...error.extras,
  }
}

/** A failed batch item's `error` (spec "Errors": `{ code, message, param, lead_id }`), masked like the envelope. */
export function itemErrorBody(error: ApiError) {
  const { code, message, param } = errorBody(error, null)
  return { code, message, param, lead_id: error.extras.lead_id ?? null }
}

export const notFound = (what = 'No such object', param: string | null = null) =>
  new ApiError('not_found', what, { param })

export const invalid = (message: string, param: string | null = null, reason?: string) =>
  new ApiError('invalid_request', message, { param, extras: reason ? { reason } : {} })

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g
// A run of 7 or more digits, possibly broken up by the usual separators, standing on its
// own (so the digits inside a uuid are left alone).
const PHONE = /(?<![\w-])\+?\(?\d(?:[\s().-]*\d){6,}(?![\w-])/g

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi

/** Masks emails (a***@example.com) and phone numbers (all but the last two digits); uuids stay. */
export function maskSensitive(text: string): string {
  // A uuid of decimal digits only would read as a phone number: mask the text between uuids.
  let out = ''
  let last = 0
  for (const match of text.matchAll(UUID)) {
    out += maskPart(text.slice(last, match.index)) + match[0]
    last = match.index + match[0].length
  }
  return out + maskPart(text.slice(last))
}

function maskPart(text: string): string {
  return text
    .replace(EMAIL, (m) => {
      const at = m.indexOf('@')
      return m[0] + '***' + m.slice(at)
    })
    .replace(PHONE, (m) => {
      const total = m.replace(/\D/g, '').length
      let seen = 0
      return m.replace(/\d/g, (d) => (++seen > total - 2 ? d : '*'))
    })
}
