import { ApiError, invalid } from '../errors'

/**
 * Lead CSV imports: POST /api/v1/admin/orgs/{id}/leads/import and its console twin take a CSV
 * body up to IMPORT_MAX_BODY_BYTES (100,000 leads are about 10 MB), where every other body is
 * JSON up to 1 MB. The gateway refuses a declared size over it (413) before reading; the
 * pipeline leaves the body unread; the route hands the domain the body's chunks (csvBody),
 * which stop with 413 as soon as a chunked body passes the limit.
 */
// Spelled out, not built from the prefixes: the gateway imports this module.
const IMPORT_PATH = /^\/(api\/v1\/admin|console\/api)\/orgs\/[0-9a-fA-F-]{36}\/leads\/import\/*$/

export const IMPORT_MAX_BODY_BYTES = 20 * 1024 * 1024

/** What the pipeline gives Elysia as an import's body (the route reads the stream itself). */
export const CSV_BODY = Object.freeze({ csv: true })

const tooLarge = () => new ApiError('payload_too_large', `The CSV file is larger than ${IMPORT_MAX_BODY_BYTES / 1024 / 1024} MB; split it.`, { param: 'body' })

export const isCsvImport = (method: string, pathname: string): boolean => method === 'POST' && IMPORT_PATH.test(pathname)

/** The gateway's check of the declared size, before anything is read. */
export function checkImportSize(request: Request): void {
  if (Number(request.headers.get('content-length') ?? 0) > IMPORT_MAX_BODY_BYTES) throw tooLarge()
}

const ACCEPTED = ['text/csv', 'text/plain', 'application/csv']

/**
 * The CSV file's bytes as they arrive: 400 (before reading) for another content type, 413 once
 * a body sent without a Content-Length passes the limit. Nothing is kept here.
 */
export function csvBody(request: Request): AsyncGenerator<Uint8Array> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (!ACCEPTED.includes(type)) {
    throw invalid(`Send the leads as a CSV file (Content-Type: text/csv), not ${type === '' ? 'without a Content-Type' : type}.`, 'Content-Type')
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
      if (size > IMPORT_MAX_BODY_BYTES) throw tooLarge()
      yield value
    }
  } finally {
    // Stopped early (too large, bad CSV, too many rows): the rest is not read.
    await reader.cancel().catch(() => {})
  }
}
