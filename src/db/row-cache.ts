import type { CacheInfo, CacheRegistry } from '../cache-registry'

/**
 * Rows read on nearly every request and written rarely, only through their store (campaigns,
 * organizations), cached by id and frozen. Registered with the database's caches, so a
 * rolled-back transaction empties it and a change that did not happen is never served from memory.
 */
export function rowCache<Row extends { id: string }>(caches: CacheRegistry, info: CacheInfo) {
  const rows = new Map<string, Row>()
  caches.register(info, () => rows.clear())
  return {
    get: (id: string): Row | undefined => rows.get(id),
    /** Keeps a row just read or written; passes it through. */
    remember(row: Row | undefined): Row | undefined {
      if (row) rows.set(row.id, Object.freeze(row))
      return row
    },
    forget: (id: string): void => void rows.delete(id),
  }
}
