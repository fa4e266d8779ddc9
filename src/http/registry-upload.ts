import { ApiError, invalid } from '../errors'

/**
 * The one route whose body is not JSON and may exceed 1 MB: POST /api/v1/admin/dnc_registry,
 * the national Do Not Call registry file (docs/dnc-registry.md). The gateway lets its body
 * run to REGISTRY_MAX_BODY_BYTES, the pipeline leaves the body unread, and the route streams
 * it into the parser chunk by chunk: the file is never held whole, as bytes or as a string.
 */
// Spelled out, not built from gateway.ts's ADMIN_PREFIX: the gateway imports this module.
export const REGISTRY_PATH = '/api/v1/admin/dnc_registry'

/** 256 MB: about 20 million lines of `+1XXXXXXXXXX`, twice the 10 million the service is sized for. */
export const REGISTRY_MAX_BODY_BYTES = 256 * 1024 * 1024

const registryTooLarge = () =>
  new ApiError('invalid_request', `The registry file is larger than ${REGISTRY_MAX_BODY_BYTES / 1024 / 1024} MB.`, { param: 'body' })

/** What the pipeline gives Elysia as the registry upload's body (the route reads the stream itself). */
export const REGISTRY_BODY = Object.freeze({ streamed: true })

/** Whether a request is the registry upload (trailing slashes ignored, as the router does). */
export function isRegistryUpload(method: string, pathname: string): boolean {
  if (method !== 'POST') return false
  let end = pathname.length
  while (end > 1 && pathname.charCodeAt(end - 1) === 47) end--
  return end === REGISTRY_PATH.length && pathname.startsWith(REGISTRY_PATH)
}

/** The gateway's check of the declared size, before anything is read. */
export function checkRegistrySize(request: Request): void {
  if (Number(request.headers.get('content-length') ?? 0) > REGISTRY_MAX_BODY_BYTES) throw registryTooLarge()
}

const ACCEPTED = ['text/plain', 'text/csv']

/**
 * The registry file's bytes as they arrive. Refuses (400, before reading) a body that is not
 * text/plain or text/csv, and stops reading one that runs over the limit (a chunked body).
 */
export function registryBody(request: Request): AsyncGenerator<Uint8Array> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (!ACCEPTED.includes(type)) {
    throw invalid(
      `Send the registry file as text/plain (one 10-digit number per line), not ${type === '' ? 'without a Content-Type' : type}.`,
      'Content-Type',
    )
  }
  return chunksOf(request.body)
}

async function* chunksOf(body: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!body) return
  const reader = body.getReader()
  let size = 0
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return
      size += value.byteLength
      if (size > REGISTRY_MAX_BODY_BYTES) throw registryTooLarge()
      yield value
    }
  } finally {
    await reader.cancel().catch(() => {})
  }
}
