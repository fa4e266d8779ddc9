/**
 * In-memory ordered dial queue with O(log n) rank, one per campaign and mode.
 *
 * Layout: a list of small sorted chunks (parallel `keys`/`ids` arrays) plus a Fenwick tree over
 * the chunk sizes.
 *  - Finding an entry is a binary search over the chunks' last entries, then one inside the chunk.
 *  - Its rank is "entries in earlier chunks" (a Fenwick prefix sum, O(log chunks)) plus its index
 *    in the chunk.
 *  - Inserting or removing shifts at most 2 * chunkSize array slots (a memmove) and updates the
 *    Fenwick tree in O(log chunks). Only a split, merge or dropped chunk changes the chunk list,
 *    and only then is the tree rebuilt (O(chunks)); that happens at most once every ~chunkSize/4
 *    operations on a chunk, so it is cheap amortised.
 *
 * Memory: no id -> key map (callers know each entry's key, it is stored on the lead row), so an
 * entry costs one id string reference (the string itself is shared with the caller) and one
 * 8-byte double, plus slack in the chunk arrays.
 */
import { appendChunk, before, checkKey, lowerBound, type Chunk } from './queue-chunks'

/** An entry as handed back to callers. */
export interface QueueEntry {
  id: string
  key: number
}

const DEFAULT_CHUNK_SIZE = 512

/**
 * Order: ascending key, then ascending id (string comparison).
 *
 * Duplicates: inserting an (id, key) pair that is already queued is ignored (a no-op), so
 * re-queueing a lead is idempotent. The same id with a different key is a different entry; callers
 * remove the old (id, key) before inserting the new one.
 *
 * Iterating with `entries()` while changing the queue gives unspecified results.
 */
export class RankedQueue {
  readonly #chunkSize: number
  #chunks: Chunk[] = []
  /** Fenwick tree over chunk sizes, 1-based: #tree[i] covers chunks (i - lowbit(i), i]. */
  #tree: Int32Array = new Int32Array(1)
  #size = 0

  /**
   * @param chunkSize target chunk length: chunks split above 2x this and merge with a neighbour
   *   when they fall under a quarter of it. 512 keeps both the per-chunk memmove and the number
   *   of chunks (~2,000 at 1,000,000 entries) small.
   */
  constructor(chunkSize: number = DEFAULT_CHUNK_SIZE) {
    if (!Number.isInteger(chunkSize) || chunkSize < 1) {
      throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`)
    }
    this.#chunkSize = chunkSize
  }

  /**
   * Builds a queue in O(n) from entries already in queue order (as read from SQLite with
   * ORDER BY key, id). Chunks are filled to chunkSize, not 2x, so later inserts have room
   * before the first splits. Throws if the input is out of order or has a duplicate, since a
   * silently unsorted queue would answer every later rank wrongly.
   */
  static fromSorted(ids: readonly string[], keys: readonly number[], chunkSize?: number): RankedQueue {
    if (ids.length !== keys.length) {
      throw new RangeError(`ids (${ids.length}) and keys (${keys.length}) differ in length`)
    }
    const queue = new RankedQueue(chunkSize)
    const n = ids.length
    for (let i = 0; i < n; i++) {
      const key = keys[i]!
      checkKey(key)
      if (i > 0 && !before(keys[i - 1]!, ids[i - 1]!, key, ids[i]!)) {
        throw new RangeError(`fromSorted: entry ${i} (${ids[i]}, ${key}) is not after entry ${i - 1}`)
      }
    }
    const step = queue.#chunkSize
    for (let start = 0; start < n; start += step) {
      queue.#chunks.push({ keys: keys.slice(start, start + step), ids: ids.slice(start, start + step) })
    }
    queue.#size = n
    queue.#rebuildTree()
    return queue
  }

  get size(): number {
    return this.#size
  }

  /** Adds the entry; a no-op when the same (id, key) is already queued. O(log n + chunkSize). */
  insert(id: string, key: number): void {
    checkKey(key)
    const chunks = this.#chunks
    if (chunks.length === 0) {
      chunks.push({ keys: [key], ids: [id] })
      this.#size = 1
      this.#rebuildTree()
      return
    }
    // Past every chunk's last entry means "append to the last chunk".
    const ci = Math.min(this.#findChunk(id, key), chunks.length - 1)
    const chunk = chunks[ci]!
    const at = lowerBound(chunk, id, key)
    if (at < chunk.keys.length && chunk.keys[at] === key && chunk.ids[at] === id) return
    chunk.keys.splice(at, 0, key)
    chunk.ids.splice(at, 0, id)
    this.#size++
    if (chunk.keys.length > 2 * this.#chunkSize) {
      // Split in halves so both sides have room (and are far from the merge threshold).
      const half = chunk.keys.length >>> 1
      chunks.splice(ci + 1, 0, { keys: chunk.keys.splice(half), ids: chunk.ids.splice(half) })
      this.#rebuildTree()
    } else {
      this.#addToTree(ci, 1)
    }
  }

  /** Removes the entry; false when it is not queued. O(log n + chunkSize). */
  remove(id: string, key: number): boolean {
    const found = this.#locate(id, key)
    if (found === undefined) return false
    const [ci, at] = found
    const chunk = this.#chunks[ci]!
    chunk.keys.splice(at, 1)
    chunk.ids.splice(at, 1)
    this.#afterRemove(ci)
    return true
  }

  has(id: string, key: number): boolean {
    return this.#locate(id, key) !== undefined
  }

  /** 0-based place in line, -1 when absent. O(log n). */
  rankOf(id: string, key: number): number {
    const found = this.#locate(id, key)
    if (found === undefined) return -1
    const [ci, at] = found
    return this.#prefix(ci) + at
  }

  peek(): QueueEntry | undefined {
    const head = this.#chunks[0]
    if (head === undefined) return undefined
    return { id: head.ids[0]!, key: head.keys[0]! }
  }

  /** Removes and returns the head (what the dialer calls next). */
  shift(): QueueEntry | undefined {
    const head = this.#chunks[0]
    if (head === undefined) return undefined
    // Array#shift on a chunk is a memmove of at most 2 * chunkSize slots.
    const entry = { id: head.ids.shift()!, key: head.keys.shift()! }
    this.#afterRemove(0)
    return entry
  }

  /** All entries in queue order. */
  *entries(): IterableIterator<QueueEntry> {
    for (const chunk of this.#chunks) {
      const { keys, ids } = chunk
      for (let i = 0; i < keys.length; i++) yield { id: ids[i]!, key: keys[i]! }
    }
  }

  [Symbol.iterator](): IterableIterator<QueueEntry> {
    return this.entries()
  }

  /** [chunk index, index in chunk] of the entry, or undefined when absent. */
  #locate(id: string, key: number): [number, number] | undefined {
    const ci = this.#findChunk(id, key)
    const chunk = this.#chunks[ci]
    if (chunk === undefined) return undefined
    const at = lowerBound(chunk, id, key)
    return chunk.keys[at] === key && chunk.ids[at] === id ? [ci, at] : undefined
  }

  /** Index of the first chunk whose last entry is not before (key, id); chunks.length if none. */
  #findChunk(id: string, key: number): number {
    const chunks = this.#chunks
    let lo = 0
    let hi = chunks.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const { keys, ids } = chunks[mid]!
      const last = keys.length - 1
      if (before(keys[last]!, ids[last]!, key, id)) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** Bookkeeping after one entry left chunk `ci`: drop it if empty, merge it if small. */
  #afterRemove(ci: number): void {
    this.#size--
    const chunks = this.#chunks
    const chunk = chunks[ci]!
    const length = chunk.keys.length
    if (length === 0) {
      chunks.splice(ci, 1)
      this.#rebuildTree()
      return
    }
    // Merging keeps the chunk count near n / chunkSize after many removals, so the O(chunks)
    // rebuilds stay cheap. Only when the result fits in chunkSize: it then needs more than
    // chunkSize inserts to split again, so a chunk cannot flap between split and merge.
    if (length < this.#chunkSize >>> 2) {
      const next = chunks[ci + 1]
      const prev = chunks[ci - 1]
      if (next !== undefined && length + next.keys.length <= this.#chunkSize) {
        appendChunk(chunk, next)
        chunks.splice(ci + 1, 1)
        this.#rebuildTree()
        return
      }
      if (prev !== undefined && length + prev.keys.length <= this.#chunkSize) {
        appendChunk(prev, chunk)
        chunks.splice(ci, 1)
        this.#rebuildTree()
        return
      }
    }
    this.#addToTree(ci, -1)
  }

  /** O(chunks) Fenwick build: each node adds itself into its parent once. */
  #rebuildTree(): void {
    const chunks = this.#chunks
    const n = chunks.length
    const tree = new Int32Array(n + 1)
    for (let i = 1; i <= n; i++) tree[i] = chunks[i - 1]!.keys.length
    for (let i = 1; i <= n; i++) {
      const parent = i + (i & -i)
      if (parent <= n) tree[parent]! += tree[i]!
    }
    this.#tree = tree
  }

  #addToTree(ci: number, delta: number): void {
    const tree = this.#tree
    for (let i = ci + 1; i < tree.length; i += i & -i) tree[i]! += delta
  }

  /** Number of entries in chunks [0, ci). */
  #prefix(ci: number): number {
    const tree = this.#tree
    let sum = 0
    for (let i = ci; i > 0; i -= i & -i) sum += tree[i]!
    return sum
  }
}
