import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { api, errorText } from './api'

/** What a page reads from the API: the reply's `data`, the error text, and whether a read is under way. */
export interface ApiState<T> {
  data: T | null
  error: string | null
  loading: boolean
  /** Reads the same path again, keeping what is shown until the answer comes. */
  reload: () => Promise<void>
  /** Changes what is shown after a write answered, or a pushed update came (no read). */
  update: (change: (data: T) => T) => void
  set: (data: T) => void
}

/** A list read a page at a time: whether more follow, and the next page appended after the last row. */
export interface PagedState<T> extends ApiState<T[]> {
  hasMore: boolean
  loadMore: () => Promise<void>
}

interface Held<T> { data: T | null; error: string | null; loading: boolean; hasMore: boolean }
/** `{ data }`; a list says whether more follow as `meta.has_more` (the API's envelope) or `has_more` (leads, events). */
interface Reply<T> { data: T; has_more?: boolean; meta?: { has_more: boolean } }

/**
 * Reads `GET /console/api{path}` whenever the path changes (null: nothing to read yet). A new
 * path shows nothing until it answers; an answer for a path left meanwhile is dropped.
 */
export function useApi<T>(path: string | null): ApiState<T> {
  return useRead<T>(path)
}

/** useApi for a list paged with `starting_after` (the last row's id). */
export function usePagedApi<T extends { id: string }>(path: string): PagedState<T> {
  return useRead<T[]>(path, (current, next) => [...current, ...next])
}

function useRead<T>(path: string | null, append?: (current: T, next: T) => T): ApiState<T> & { hasMore: boolean; loadMore: () => Promise<void> } {
  const [held, setHeld] = useState<Held<T>>({ data: null, error: null, loading: path !== null, hasMore: false })
  const asked = useRef(0)

  const read = useCallback(async (readPath: string, after?: string) => {
    const ticket = ++asked.current
    setHeld((h) => ({ ...h, error: null, loading: true }))
    const query = after ? `${readPath}${readPath.includes('?') ? '&' : '?'}starting_after=${encodeURIComponent(after)}` : readPath
    try {
      const reply = await api<Reply<T>>('GET', query)
      if (ticket !== asked.current) return
      setHeld((h) => ({
        data: after && append && h.data !== null ? append(h.data, reply.data) : reply.data,
        error: null,
        loading: false,
        hasMore: reply.meta?.has_more ?? reply.has_more ?? false,
      }))
    } catch (e) {
      if (ticket !== asked.current) return
      setHeld((h) => ({ ...h, error: errorText(e), loading: false }))
    }
  }, [])

  useEffect(() => {
    setHeld({ data: null, error: null, loading: path !== null, hasMore: false })
    if (path !== null) void read(path)
    else asked.current++
  }, [path])

  const data = held.data
  const last = Array.isArray(data) ? (data[data.length - 1] as { id?: string } | undefined) : undefined
  return {
    ...held,
    reload: async () => {
      if (path !== null) await read(path)
    },
    update: (change) => setHeld((h) => (h.data === null ? h : { ...h, data: change(h.data) })),
    set: (data) => setHeld((h) => ({ ...h, data })),
    loadMore: async () => {
      if (path !== null && last?.id) await read(path, last.id)
    },
  }
}
