import { createHash } from 'node:crypto'
import type { IdempotencyStore } from '../db/stores/idempotency-store'
import { ApiError, invalid } from '../errors'
import type { Clock } from '../jobs/clock'

export const IDEMPOTENCY_MEMORY_MS = 24 * 60 * 60 * 1000
const VISIBLE_ASCII = /^[\x21-\x7e]{1,255}$/

/** Stable JSON: object keys sorted, so `{a,b}` and `{b,a}` are the same request. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const entries = Object.keys(value as object)
    .sort()
    .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
  return `{${entries.join(',')}}`
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

export type Begin = { kind: 'replay'; status: number; body: string } | { kind: 'proceed' }

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
      return { kind: 'replay', status: stored.status, body: stored.body }
    }
    this.running.add(slot)
    return { kind: 'proceed' }
  }

  /** Stores a finished reply; 429s and 5xx are not stored, so a retry runs again. */
  finish(keyId: string, key: string, fingerprint: string, status: number, body: string): void {
    this.running.delete(`${keyId}\n${key}`)
    if (status === 429 || status >= 500) return
    this.store.put({ keyId, idempotencyKey: key, fingerprint, status, body, created: this.clock.now() })
  }

  abandon(keyId: string, key: string): void {
    this.running.delete(`${keyId}\n${key}`)
  }

  purgeExpired(): number {
    return this.store.purgeBefore(this.clock.now() - IDEMPOTENCY_MEMORY_MS)
  }
}
