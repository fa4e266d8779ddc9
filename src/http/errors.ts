import { ApiError, errorBody, invalid, notFound } from '../errors'
import { logger } from '../log'

/** One TypeBox error as Elysia hands it over. */
export interface ValueError {
  path: string
  message: string
  type?: number
  schema?: Record<string, unknown>
  value?: unknown
  /** A union's: each member's errors, in the order of its anyOf. */
  errors?: { First(): ValueError | undefined }[]
}

// TypeBox ValueErrorType numbers that need their own wording.
const ADDITIONAL_PROPERTIES = 42
const REQUIRED_PROPERTY = 45
const UNION = 62

/** `/leads/3/phone` -> `leads[3].phone` (the `param` form of DESIGN.md). */
export function paramFromPointer(pointer: string): string | null {
  if (pointer === '' || pointer === '/') return null
  let out = ''
  for (const raw of pointer.split('/').slice(1)) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`
  }
  return out
}

/**
 * Elysia's ValidationError. Only the first error, found when it was made, is read: its
 * `message` and `all` print or re-walk the whole value, and `all` maps each error with a
 * template string that throws on an object with a `toString` member.
 */
function fromValidation(error: { type?: string; valueError?: ValueError }): ApiError {
  const where = error.type
  const first = error.valueError
  // A bad id in a path names no object: not found, not a 400 (DESIGN.md).
  if (where === 'params') return notFound()
  if (!first) return invalid('The request is not valid.')
  return where === 'body' ? bodyError(first) : fromValueError(first, '', first.message)
}

/** The first schema error of a request body as the envelope's invalid_request. */
export const bodyError = (first: ValueError): ApiError =>
  fromValueError(first, '', 'The request body must be a JSON object of the documented fields.')

/**
 * One schema error as the envelope's invalid_request, `param` named from its path (with
 * `prefix` for items of a batch, e.g. `leads[3].`).
 */
export function fromValueError(first: ValueError, prefix: string, whole = 'must be a JSON object of the documented fields'): ApiError {
  const inner = objectMemberError(first)
  if (inner) return fromValueError(inner, prefix, whole)
  const path = paramFromPointer(first.path) ?? (first.schema?.['x-param'] as string | undefined) ?? null
  const param = path === null ? (prefix ? prefix.replace(/\.$/, '') : null) : prefix + path
  if (first.type === ADDITIONAL_PROPERTIES) return invalid(`Unknown field: ${param ?? 'the request'}.`, param)
  if (first.type === REQUIRED_PROPERTY) return invalid(`${param} is required.`, param)
  if (path === null) return invalid(prefix ? `${param} ${whole}.` : whole, param)
  const message = first.message === 'Expected union value' ? 'has an invalid value' : first.message.replace(/^Expected/, 'expected')
  return invalid(`${param}: ${message}.`, param)
}

/**
 * An object sent where a union has exactly one object member (a nullable object such as
 * `ai_agent`), or several told apart by a `kind` literal: that member's own first error, so
 * `param` names the field inside it.
 */
function objectMemberError(error: ValueError): ValueError | undefined {
  if (error.type !== UNION || !error.errors || typeof error.value !== 'object' || error.value === null || Array.isArray(error.value)) return undefined
  const members = (error.schema?.anyOf as Member[] | undefined) ?? []
  const objects = members.flatMap((member, i) => (member.type === 'object' ? [i] : []))
  const chosen = objects.length === 1 ? objects[0] : objects.find((i) => kindMatches(members[i]!, (error.value as { kind?: unknown }).kind))
  return chosen === undefined ? undefined : error.errors[chosen]?.First()
}

type Member = { type?: unknown; properties?: Record<string, { const?: unknown }>; required?: string[] }

/** The member whose `kind` literal is the value's, or whose optional `kind` the value left out. */
function kindMatches(member: Member, kind: unknown): boolean {
  const literal = member.properties?.kind
  if (!literal) return false
  return kind === undefined ? !(member.required ?? []).includes('kind') : literal.const === kind
}

/** Turns anything thrown while serving a request into an ApiError for the envelope. */
export function toApiError(code: string | number, error: unknown): ApiError {
  if (error instanceof ApiError) return error
  // Elysia wraps what a parse hook throws in its ParseError.
  const cause = (error as { cause?: unknown } | null)?.cause
  if (cause instanceof ApiError) return cause
  switch (code) {
    case 'VALIDATION': {
      const e = error as { type?: string }
      if (e.type === 'response') {
        logger.error('response_validation_failed', { error: String((error as Error).message).slice(0, 2000) })
        return new ApiError('internal_error', 'The service failed to answer; the failure was logged.')
      }
      return fromValidation(error as Parameters<typeof fromValidation>[0])
    }
    case 'PARSE':
      return invalid('The request body is not valid JSON.')
    case 'NOT_FOUND':
      return notFound('No such endpoint.')
    case 'INVALID_COOKIE_SIGNATURE':
    case 'INVALID_FILE_TYPE':
      return invalid('The request is not valid.')
  }
  const sqliteCode = (error as { code?: string })?.code
  if (typeof sqliteCode === 'string' && (sqliteCode.startsWith('SQLITE_BUSY') || sqliteCode.startsWith('SQLITE_FULL') || sqliteCode === 'SQLITE_IOERR')) {
    logger.error('database_unavailable', { code: sqliteCode })
    return new ApiError('service_unavailable', 'The database is busy or unavailable; retry shortly.', { retryAfter: 1 })
  }
  logger.error('unhandled_error', { error: error instanceof Error ? (error.stack ?? error.message) : String(error) })
  return new ApiError('internal_error', 'The service failed to answer; the failure was logged.')
}

/** The envelope as a Response, for errors raised before the request reaches a route. */
export function errorResponse(error: ApiError, requestId: string | null, extraHeaders: Record<string, string> = {}): Response {
  const headers: Record<string, string> = { ...extraHeaders, 'content-type': 'application/json;charset=utf-8' }
  if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter)
  return new Response(JSON.stringify({ error: errorBody(error, requestId) }), { status: error.status, headers })
}
