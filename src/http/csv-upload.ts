import { ApiError } from '../errors'
import type { BodyRule } from './body-reader'

/**
 * Lead CSV imports: POST /api/v1/admin/orgs/{id}/leads/import and its console twin take a CSV
 * body up to IMPORT_MAX_BODY_BYTES (100,000 leads are about 10 MB), where every other body is
 * JSON up to 1 MB. Both routes declare `reads: CSV_FILE`: the gateway refuses a declared size
 * over it (413) before reading, the pipeline leaves the body unread, and the route hands the
 * domain the body's chunks (readChunks), which stop with 413 once a chunked body passes the limit.
 */
export const IMPORT_MAX_BODY_BYTES = 20 * 1024 * 1024

export const CSV_FILE: BodyRule = {
  limit: IMPORT_MAX_BODY_BYTES,
  tooLarge: () => new ApiError('payload_too_large', `The CSV file is larger than ${IMPORT_MAX_BODY_BYTES / 1024 / 1024} MB; split it.`, { param: 'body' }),
  parse: 'stream',
  accepts: { types: ['text/csv', 'text/plain', 'application/csv'], ask: 'Send the leads as a CSV file (Content-Type: text/csv)' },
}
