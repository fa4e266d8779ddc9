import { createHash } from 'node:crypto'
import type { IdempotencyStore } from '../db/stores/idempotency-store'
import { ApiError, invalid } from '../errors'
import type { Clock } from '../jobs/clock'

export const IDEMPOTENCY_MEMORY_MS = 24 * 60 * 60 * 1000
const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/

/** A piece of output text on canonicalJson's stack (values and text share it). */
class Text {
  constructor(readonly text: string) {}
}
const COMMA = new Text(',')
const CLOSE_ARRAY = new Text(']')
const CLOSE_OBJECT = new Text('}')

/**
 * Stable JSON: object keys sorted, so `{a,b}` and `{b,a}` are the same request. Walked with a
 * stack, not recursion, so no body is too deep for it; the text is the one stored
 * fingerprints were made from (a recursive version, kept in test/unit/json-depth.test.ts).
 */
export function canonicalJson(value: unknown): string {
  let out = ''
  const todo: unknown[] = [value]
  while (todo.length > 0) {
    const item = todo.pop()
    if (item instanceof Text) {
      out += item.text
    } else if (item === null || typeof item !== 'object') {
      out += JSON.stringify(item) ?? 'null'
    } else if (Array.isArray(item)) {
      out += '['
      todo.push(CLOSE_ARRAY)
      for (let i = item.length - 1; i >= 0; i--) {
        todo.push(item[i])
        if (i > 0) todo.push(COMMA)
      }
    } else {
      const record = item as Record<string, unknown>
      const keys = Object.keys(record).sort().filter((k) => record[k] !== undefined)
      out += '{'
      todo.push(CLOSE_OBJECT)
      for (let i = keys.length - 1; i >= 0; i--) {
        todo.push(record[keys[i]!], new Text(`${JSON.stringify(keys[i])}:`))
        if (i > 0) todo.push(COMMA)
      }
    }
  }
  return out
}

export function fingerprintOf(method: string, pathAndQuery: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${pathAndQuery}\n${canonicalJson(body ?? null)}`).digest('hex')
}

export function readIdempotencyKey(header: string | null): string | null {
  if (header === null) return null
  if (!VISIBLE_ASCII.test(header)) {
    throw invalid('Idempotency-Key must be 1 to 255 visible ASCII characters.', 'Idempotency-Key')
  }
  return header
}

/** `requestId`: the first request's, for the replay's Original-Request header (absent on records from before it was kept). */
export type Begin = { kind: 'replay'; status: number; body: string; requestId?: string } | { kind: 'proceed' }

/**
 * A stored reply as replayed: an error envelope's `request_id` becomes the replay's own, so the
 * body agrees with the reply's Request-Id header (spec "Errors").
 */
export function replayBody(body: string, requestId: string): string {
  if (!body.includes('"request_id"')) return body
  const parsed = JSON.parse(body) as { error?: { request_id?: unknown } }
  if (!parsed.error || typeof parsed.error !== 'object' || !('request_id' in parsed.error)) return body
  parsed.error.request_id = requestId
  return JSON.stringify(parsed)
}

// The first request's id is kept in front of the stored body ("req_...\n{...}"): bodies are JSON, so they never start with "req_".
const ID_PREFIX = 'req_'

function unpack(stored: string): { body: string; requestId?: string } {
  if (!stored.startsWith(ID_PREFIX)) return { body: stored }
  const end = stored.indexOf('\n')
  return { requestId: stored.slice(0, end), body: stored.slice(end + 1) }
}

/**
 * Remembers write replies by (API key, Idempotency-Key) for 24 hours (DESIGN.md "Idempotency").
 * Replies still being made are tracked in memory: one process owns the database.
 */
export class IdempotencyGuard {
  private readonly running = new Set<string>()

  constructor(private readonly store: IdempotencyStore, private readonly clock: Clock) {}

  begin(keyId: string, key: string, fingerprint: string): Begin {
    const slot = `${keyId}\n${key}`
    if (this.running.has(slot)) {
      throw new ApiError('idempotency_in_progress', 'A request with this Idempotency-Key is still running.', {
        param: 'Idempotency-Key',
        retryAfter: 1,
      })
    }
    const stored = this.store.get(keyId, key)
    if (stored && stored.created > this.clock.now() - IDEMPOTENCY_MEMORY_MS) {
      if (stored.fingerprint !== fingerprint) {
        throw new ApiError('idempotency_mismatch', 'This Idempotency-Key was used with a different request.', {
          param: 'Idempotency-Key',
        })
      }
      const { body, requestId } = unpack(stored.body)
      return requestId === undefined ? { kind: 'replay', status: stored.status, body } : { kind: 'replay', status: stored.status, body, requestId }
    }
    this.running.add(slot)
    return { kind: 'proceed' }
  }

  /** Stores a finished reply, with the id of the request that made it; 429s and 5xx are not stored, so a retry runs again. */
  finish(keyId: string, key: string, fingerprint: string, status: number, body: string, requestId?: string): void {
    this.running.delete(`${keyId}\n${key}`)
    if (status === 429 || status >= 500) return
    const stored = requestId?.startsWith(ID_PREFIX) && !requestId.includes('\n') ? `${requestId}\n${body}` : body
    this.store.put({ keyId, idempotencyKey: key, fingerprint, status, body: stored, created: this.clock.now() })
  }

  abandon(keyId: string, key: string): void {
    this.running.delete(`${keyId}\n${key}`)
  }

  purgeExpired(): number {
    return this.store.purgeBefore(this.clock.now() - IDEMPOTENCY_MEMORY_MS)
  }
}
