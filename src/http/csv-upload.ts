import { ApiError, invalid } from '../errors'

/**
 * Lead CSV imports (issue 19): POST /api/v1/admin/orgs/{id}/leads/import and its console twin
 * take a CSV body up to IMPORT_MAX_BODY_BYTES (100,000 leads are about 10 MB), where every other
 * body is JSON up to 1 MB. The gateway checks the declared size; the pipeline leaves the body
 * unread; the route reads it with readCsvText.
 */
// Spelled out, not built from the prefixes: the gateway imports this module.
const IMPORT_PATH = /^\/(api\/v1\/admin|console\/api)\/orgs\/[0-9a-fA-F-]{36}\/leads\/import\/*$/

export const IMPORT_MAX_BODY_BYTES = 20 * 1024 * 1024

/** What the pipeline gives Elysia as an import's body (the route reads the text itself). */
export const CSV_BODY = Object.freeze({ csv: true })

const tooLarge = () => new ApiError('invalid_request', `The CSV file is larger than ${IMPORT_MAX_BODY_BYTES / 1024 / 1024} MB; split it.`, { param: 'body' })

export const isCsvImport = (method: string, pathname: string): boolean => method === 'POST' && IMPORT_PATH.test(pathname)

/** The gateway's check of the declared size, before anything is read. */
export function checkImportSize(request: Request): void {
  if (Number(request.headers.get('content-length') ?? 0) > IMPORT_MAX_BODY_BYTES) throw tooLarge()
}

const ACCEPTED = ['text/csv', 'text/plain', 'application/csv']

/** The CSV text: 400 for another content type, or a body over the limit (also when sent chunked). */
export async function readCsvText(request: Request): Promise<string> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase()
  if (!ACCEPTED.includes(type)) {
    throw invalid(`Send the leads as a CSV file (Content-Type: text/csv), not ${type === '' ? 'without a Content-Type' : type}.`, 'Content-Type')
  }
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > IMPORT_MAX_BODY_BYTES) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  const bytes = Buffer.concat(chunks)
  const text = new TextDecoder('utf-8', { fatal: true })
  try {
    return text.decode(bytes)
  } catch {
    throw invalid('The file is not UTF-8 text; save the spreadsheet as "CSV UTF-8".', 'body')
  }
}
