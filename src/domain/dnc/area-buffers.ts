/**
 * The numbers read so far, per area code, as 7-digit subscriber numbers (a Uint32) in a
 * resizable ArrayBuffer that grows in place: no copies, no room left over, so the list costs
 * about 4 bytes a number while it is read and after.
 */

/** Growth step of an area code's buffer, in numbers (grown in place, so steps can be small). */
const STEP = 8192
/** Numbers an area code holds before it gets a resizable buffer. */
const FIRST = 1024
/**
 * Most numbers an area code's buffer holds before it is sorted and its repeats dropped (only a
 * file repeating numbers gets there): 7-digit numbers with an exchange of 2-9 are 8 million.
 */
const AREA_CAPACITY = 10_000_000

/** Sorts numbers[0 .. fill) in place and moves the distinct ones to the front; returns how many. */
function sortUnique(numbers: Uint32Array, fill: number): number {
  const part = numbers.subarray(0, fill)
  part.sort()
  let unique = 0
  for (let i = 0; i < fill; i++) {
    if (unique === 0 || part[i] !== part[unique - 1]) part[unique++] = part[i]!
  }
  return unique
}

/** The registry parser's store of numbers, by area code; `finish` takes each area sorted and without repeats. */
export class AreaBuffers {
  #buffers: (Uint32Array | undefined)[] = new Array(1000)
  #fill = new Uint32Array(1000)
  /** Repeats dropped while reading (an area code's buffer full). */
  #compacted = 0
  /** Resizable buffers made since the reader last reset it (it pauses after a few: each is slow to make). */
  made = 0
  readonly #capacity: number

  /** `areaCapacity`: tests make it small to reach the compaction. */
  constructor(areaCapacity = AREA_CAPACITY) {
    this.#capacity = Math.max(FIRST + STEP, areaCapacity)
  }

  add(number: number): void {
    const area = Math.floor(number / 10_000_000)
    const subscriber = number - area * 10_000_000
    let numbers = this.#buffers[area]
    // A small plain array first: a resizable buffer is slow to make, and a file's first lines
    // touch every area code at once.
    if (!numbers) numbers = this.#buffers[area] = new Uint32Array(FIRST)
    let fill = this.#fill[area]!
    if (fill === numbers.length) {
      if (fill === FIRST) {
        // Length-tracking view: it follows the buffer as it grows in place.
        const grown = new Uint32Array(new ArrayBuffer((FIRST + STEP) * 4, { maxByteLength: this.#capacity * 4 }))
        grown.set(numbers)
        numbers = this.#buffers[area] = grown
        this.made++
      } else {
        if (fill === this.#capacity) {
          const unique = sortUnique(numbers, fill)
          this.#compacted += fill - unique
          fill = unique
        }
        if (fill === numbers.length) (numbers.buffer as ArrayBuffer).resize(Math.min(this.#capacity, fill + STEP) * 4)
      }
    }
    numbers[fill] = subscriber
    this.#fill[area] = fill + 1
  }

  /** The area codes read so far (for `finish` to walk with pauses between them). */
  areaCodes(): number[] {
    const codes: number[] = []
    for (let area = 0; area < 1000; area++) if (this.#fill[area]! > 0) codes.push(area)
    return codes
  }

  /**
   * One area code's numbers, sorted and without repeats; its chunks are let go. The second
   * value is how many repeats were dropped.
   */
  takeArea(area: number): [Uint32Array, number] {
    const fill = this.#fill[area]!
    const numbers = this.#buffers[area]
    this.#buffers[area] = undefined
    this.#fill[area] = 0
    if (!numbers || fill === 0) return [new Uint32Array(0), 0]
    const unique = sortUnique(numbers, fill)
    const buffer = numbers.buffer as ArrayBuffer
    // A small area code's plain array is copied to its size; a resizable buffer is shrunk in place.
    if (!buffer.resizable) return [numbers.slice(0, unique), fill - unique]
    buffer.resize(unique * 4)
    return [new Uint32Array(buffer, 0, unique), fill - unique]
  }

  /** Repeats dropped while reading (counted in the duplicates). */
  get compacted(): number {
    return this.#compacted
  }
}
