/**
 * The national registry in memory: per area code, the sorted subscriber numbers (the Uint32
 * arrays SQLite keeps, not copied) and a direct-address bucket table over them. A lookup reads
 * the area code and number off the E.164 string, jumps to the number's bucket and looks at the
 * few numbers in it: O(1) expected. About 5 bytes a number (4 for the number, ~1 for buckets).
 */

/** Numbers per bucket on average: the table costs 4 bytes per this many numbers. */
const PER_BUCKET = 4
/** Subscriber numbers are 7 digits. */
const SPAN = 10_000_000

interface AreaIndex {
  subscribers: Uint32Array
  /** Bucket b holds subscribers[starts[b] .. starts[b + 1]). */
  starts: Uint32Array
  /** Buckets per subscriber value: bucket = floor(subscriber * scale). */
  scale: number
}

function indexArea(subscribers: Uint32Array): AreaIndex {
  const buckets = Math.max(1, Math.ceil(subscribers.length / PER_BUCKET))
  const scale = buckets / SPAN
  const starts = new Uint32Array(buckets + 1)
  // starts[b] = first position whose bucket is >= b (the numbers are sorted).
  let b = 0
  for (let i = 0; i < subscribers.length; i++) {
    const bucket = Math.floor(subscribers[i]! * scale)
    while (b <= bucket) starts[b++] = i
  }
  while (b <= buckets) starts[b++] = subscribers.length
  return { subscribers, starts, scale }
}

/** 10-digit number of a `+1XXXXXXXXXX` string, or -1. */
function nanpDigits(e164: string): number {
  if (e164.length !== 12 || e164.charCodeAt(0) !== 43 || e164.charCodeAt(1) !== 49) return -1
  let n = 0
  for (let i = 2; i < 12; i++) {
    const d = e164.charCodeAt(i) - 48
    if (d < 0 || d > 9) return -1
    n = n * 10 + d
  }
  return n
}

export class RegistryIndex {
  readonly #areas: (AreaIndex | undefined)[] = new Array(1000)
  #total = 0

  /** `areas`: area code -> sorted, duplicate-free subscriber numbers. */
  constructor(areas: Iterable<readonly [number, Uint32Array]> = []) {
    for (const [area, subscribers] of areas) this.add(area, subscribers)
  }

  /** Adds (or replaces) one area code's numbers; only while the index is being built, before anyone reads it. */
  add(area: number, subscribers: Uint32Array): void {
    if (area < 0 || area > 999) return
    this.#total -= this.#areas[area]?.subscribers.length ?? 0
    this.#areas[area] = subscribers.length === 0 ? undefined : indexArea(subscribers)
    this.#total += subscribers.length
  }

  /** Distinct numbers held. */
  get total(): number {
    return this.#total
  }

  static readonly empty = new RegistryIndex([])

  /** Whether a +1 number (E.164) is listed; any other number is not. */
  has(e164: string): boolean {
    if (this.total === 0) return false
    const n = nanpDigits(e164)
    if (n < 0) return false
    const area = Math.floor(n / SPAN)
    const index = this.#areas[area]
    if (!index) return false
    const subscriber = n - area * SPAN
    const bucket = Math.floor(subscriber * index.scale)
    let lo = index.starts[bucket]!
    let hi = index.starts[bucket + 1]!
    const numbers = index.subscribers
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      const at = numbers[mid]!
      if (at === subscriber) return true
      if (at < subscriber) lo = mid + 1
      else hi = mid
    }
    return false
  }

  /** Every area code with its numbers (tests). */
  *areas(): Generator<[number, Uint32Array]> {
    for (let area = 0; area < 1000; area++) {
      const index = this.#areas[area]
      if (index) yield [area, index.subscribers]
    }
  }
}
