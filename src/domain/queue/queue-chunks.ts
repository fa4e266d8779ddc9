/** The sorted chunks a RankedQueue is made of, and their order. */

export interface Chunk {
  /** Ascending (key, id); never empty while the chunk is in the list. */
  keys: number[]
  ids: string[]
}

/** Queue order: ascending key, then ascending id by UTF-16 code units (plain `<`, not locale). */
export function before(aKey: number, aId: string, bKey: number, bId: string): boolean {
  return aKey < bKey || (aKey === bKey && aId < bId)
}

/** NaN would break every comparison (and so the sort invariant), so keys must be finite. */
export function checkKey(key: number): void {
  if (!Number.isFinite(key)) throw new RangeError(`queue key must be a finite number, got ${key}`)
}

/** First index in the chunk whose entry is not before (key, id); chunk length if none. */
export function lowerBound(chunk: Chunk, id: string, key: number): number {
  const { keys, ids } = chunk
  let lo = 0
  let hi = keys.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (before(keys[mid]!, ids[mid]!, key, id)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Appends `from` to `into` (adjacent chunks, `from` after `into`). A loop, not push(...spread),
 * so no argument-count limit applies. */
export function appendChunk(into: Chunk, from: Chunk): void {
  for (let i = 0; i < from.keys.length; i++) {
    into.keys.push(from.keys[i]!)
    into.ids.push(from.ids[i]!)
  }
}
