import { ApiError } from '../errors'
import type { BodyRule } from './body-reader'

/**
 * The national Do Not Call registry file (docs/dnc-registry.md), POST /api/v1/admin/dnc_registry:
 * the route declares `reads: REGISTRY_FILE`, so its body may run to REGISTRY_MAX_BODY_BYTES,
 * the pipeline leaves it unread, and the route streams it into the parser chunk by chunk: the
 * file is never held whole, as bytes or as a string.
 */
/** 256 MB: about 20 million lines of `+1XXXXXXXXXX`, twice the 10 million the service is sized for. */
export const REGISTRY_MAX_BODY_BYTES = 256 * 1024 * 1024

export const REGISTRY_FILE: BodyRule = {
  limit: REGISTRY_MAX_BODY_BYTES,
  tooLarge: () => new ApiError('invalid_request', `The registry file is larger than ${REGISTRY_MAX_BODY_BYTES / 1024 / 1024} MB.`, { param: 'body' }),
  parse: 'stream',
  accepts: { types: ['text/plain', 'text/csv'], ask: 'Send the registry file as text/plain (one 10-digit number per line)' },
}
