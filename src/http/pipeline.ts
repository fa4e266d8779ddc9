import { Elysia } from 'elysia'
import { requirePermission, type Permission, type Principal } from '../domain/access/permissions'
import { ApiError, errorBody } from '../errors'
import type { Services } from '../services'
import { toApiError } from './errors'
import { MAX_BODY_BYTES, tooLarge } from './gateway'
import { fingerprintOf, readIdempotencyKey } from './idempotency'
import { stateOf } from './request-state'

export { ADMIN_PREFIX, EXTERNAL_PREFIX, OPENAPI_PATH } from './gateway'

const utf8 = new TextDecoder()

/**
 * The body as text, at most MAX_BODY_BYTES. A body with a Content-Length (the gateway refused
 * one over the cap) is read whole, which is far cheaper than a stream reader; a chunked body is
 * read chunk by chunk and given up once it runs over.
 */
async function readCappedText(request: Request): Promise<string> {
  if (!request.body) return ''
  if (request.headers.has('content-length')) {
    const text = await request.text()
    // HTTP framing holds a body to its declared length; an in-process Request need not.
    if (text.length > MAX_BODY_BYTES) throw tooLarge()
    return text
  }
  return utf8.decode(await readCappedStream(request.body))
}

async function readCappedStream(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

/**
 * The `permission` route option. Before the body is validated, the key must hold the
 * permission (403 otherwise); the handler gets the typed `principal`. POST and PATCH routes
 * also honour Idempotency-Key (spec: every write endpoint): a stored reply is replayed, a new
 * one stored once the handler answers (errors are stored by the error handler).
 */
/** Routes outside apiContext (admin, health, signed links) name their pattern for the log and metrics. */
export const markRoute = ({ request, route }: { request: Request; route: string }): void => {
  const state = stateOf(request)
  if (state) state.route = route
}

export function apiContext(s: Services) {
  return new Elysia().macro({
    permission(permission: Permission) {
      return {
        transform({ request }) {
          const principal = stateOf(request)?.principal
          if (principal) requirePermission(principal, permission)
        },
        resolve({ request, route }) {
          const state = stateOf(request)!
          state.route = route
          return { principal: state.principal as Principal }
        },
        beforeHandle({ request, body, set }) {
          if (request.method !== 'POST' && request.method !== 'PATCH') return
          const state = stateOf(request)
          const key = readIdempotencyKey(request.headers.get('idempotency-key'))
          if (!state?.principal || key === null) return
          const url = request.url
          const fingerprint = fingerprintOf(request.method, url.slice(url.indexOf('/', url.indexOf('//') + 2)), body)
          const begun = s.idempotency.begin(state.principal.keyId, key, fingerprint)
          if (begun.kind === 'replay') {
            set.headers['idempotent-replayed'] = 'true'
            return new Response(begun.body, { status: begun.status, headers: { 'content-type': 'application/json;charset=utf-8' } })
          }
          state.idempotency = { keyId: state.principal.keyId, key, fingerprint }
        },
        afterHandle({ request, response, set }) {
          const state = stateOf(request)
          const pending = state?.idempotency
          if (!state || !pending || response instanceof Response) return
          s.idempotency.finish(pending.keyId, pending.key, pending.fingerprint, Number(set.status ?? 200), JSON.stringify(response))
          state.idempotency = null
        },
      }
    },
  })
}

/** The gateway's reply headers, body parsing and the error envelope, for everything Elysia serves. */
export function requestPipeline(s: Services) {
  return new Elysia({ name: 'request-pipeline' })
    .onRequest(({ request, set }) => {
      const state = stateOf(request)
      if (state) Object.assign(set.headers, state.replyHeaders)
    })
    .onParse({ as: 'global' }, async ({ request, contentType }) => {
      const text = await readCappedText(request)
      if (contentType?.startsWith('text/csv')) return text
      if (text.trim() === '') return {}
      try {
        return JSON.parse(text)
      } catch {
        throw new ApiError('invalid_request', 'The request body is not valid JSON.')
      }
    })
    .onError({ as: 'global' }, ({ request, code, error, set }) => {
      const apiError = toApiError(code, error)
      const state = stateOf(request)
      set.status = apiError.status
      if (apiError.retryAfter !== undefined) set.headers['retry-after'] = String(apiError.retryAfter)
      const body = { error: errorBody(apiError, state?.id ?? null) }
      const pending = state?.idempotency
      if (pending) {
        s.idempotency.finish(pending.keyId, pending.key, pending.fingerprint, apiError.status, JSON.stringify(body))
        state.idempotency = null
      }
      return body
    })
}
