/**
 * The national Do Not Call registry file, read as bytes (docs/dnc-registry.md "Format"): one
 * number a line, as the FTC's download service gives it (`2015550123`, or `201,5550123` in the
 * comma-delimited flat file), also `+12015550123`, `12015550123`, `(201) 555-0123`. CR, blank
 * lines, spaces, a BOM and fields after the number (`2015550123,2024-01-01`) are tolerated.
 * Anything else is a bad line: skipped, its number reported.
 *
 * No strings are built: a 10-million-line file is 110-130 MB, and splitting it into strings
 * costs more time and memory than the whole import is allowed. Numbers are kept per area code
 * (area-buffers.ts); the sorted arrays are the ones the index and SQLite keep.
 */
import { AreaBuffers } from './area-buffers'

/** Rejected line numbers kept for the reply; the rest are only counted (`rejected_count`). */
export const MAX_REJECTED_LINES = 1000
/** Resizable buffers made in one `push` before it stops early (making one is slow enough to stall requests). */
const MAKE_BUDGET = 16

export interface ParsedRegistry {
  /** Area code -> its sorted, duplicate-free subscriber numbers (only area codes with numbers). */
  areas: Map<number, Uint32Array>
  /** Distinct numbers. */
  total: number
  /** Lines read, blank ones included (a last line without a newline counts). */
  lines: number
  /** The first MAX_REJECTED_LINES bad lines (1-based). */
  rejected: number[]
  rejectedCount: number
  /** Good lines that repeated a number already read. */
  duplicates: number
}

// Byte values.
const NL = 10, CR = 13, SPACE = 32, TAB = 9, PLUS = 43, COMMA = 44, ZERO = 48, NINE = 57
const DASH = 45, DOT = 46, OPEN = 40, CLOSE = 41, QUOTE = 34
const BOM = [0xef, 0xbb, 0xbf]

/** A 10-digit NANP number is good when its area code and exchange both start with 2-9. */
function nanp(n: number): boolean {
  return n >= 2_000_000_000 && n <= 9_999_999_999 && n % 10_000_000 >= 2_000_000
}

/** The number in bytes[at .. at + 10) when all ten are digits, else -1. */
function tenDigits(bytes: Uint8Array, at: number): number {
  let n = 0
  for (let k = at; k < at + 10; k++) {
    const d = bytes[k]! - ZERO
    if (d < 0 || d > 9) return -1
    n = n * 10 + d
  }
  return n
}

/**
 * Reads the file chunk by chunk (`push`), holding only the current line's state between
 * chunks, then `finish` sorts each area code's numbers and drops duplicates.
 */
export class RegistryParser {
  readonly #areas: AreaBuffers
  #line = 0
  #rejected: number[] = []
  #rejectedCount = 0
  // The current line.
  #field = 0
  #value = 0
  #digits = 0
  #firstValue = 0
  #firstDigits = 0
  #plus = false
  #content = false
  #bad = false
  /** Bytes of the byte order mark read; 3 once past it (or sure there is none). */
  #bomSeen = 0

  /** `areaCapacity`: tests make it small to reach the compaction. */
  constructor(options: { areaCapacity?: number } = {}) {
    this.#areas = new AreaBuffers(options.areaCapacity)
  }

  /**
   * Reads bytes; returns how many it took. It stops early (fewer than all) once it has made
   * MAKE_BUDGET new buffers, so the caller can let other work run before passing the rest.
   */
  push(bytes: Uint8Array): number {
    let i = 0
    // A UTF-8 byte order mark before the first line (possibly split across chunks).
    while (this.#bomSeen < 3 && i < bytes.length) {
      if (bytes[i] !== BOM[this.#bomSeen]) {
        // Part of a BOM and then something else: the first line is not a number.
        if (this.#bomSeen > 0) this.#content = this.#bad = true
        this.#bomSeen = 3
        break
      }
      this.#bomSeen++
      i++
    }
    const n = bytes.length
    for (; i < n; i++) {
      // The FTC's own format, nearly every line: 10 digits and a newline, read in one go.
      if (!this.#content && i + 10 < n && bytes[i + 10] === NL) {
        const number = tenDigits(bytes, i)
        if (number >= 0) {
          this.#line++
          if (nanp(number)) this.#areas.add(number)
          else this.#reject()
          i += 10
          if (this.#areas.made >= MAKE_BUDGET) return this.#stopAt(i + 1)
          continue
        }
      }
      const b = bytes[i]!
      if (b === NL) {
        this.#endLine()
        if (this.#areas.made >= MAKE_BUDGET) return this.#stopAt(i + 1)
        continue
      }
      if (this.#bad) continue
      if (b >= ZERO && b <= NINE) {
        this.#content = true
        // Fields after the number (field 1 when the number was whole, 2 and on) are not read.
        if (this.#field === 0 || (this.#field === 1 && this.#firstDigits === 3)) {
          if (++this.#digits > 11) this.#bad = true
          else this.#value = this.#value * 10 + (b - ZERO)
        }
      } else if (b === COMMA) {
        this.#content = true
        if (this.#field === 0) {
          this.#firstValue = this.#value
          this.#firstDigits = this.#digits
          this.#value = 0
          this.#digits = 0
        }
        this.#field++
      } else if (b === SPACE || b === TAB || b === CR || b === QUOTE) {
        // Around or inside the number: ignored.
      } else if (this.#field >= 2 || (this.#field === 1 && this.#firstDigits !== 3)) {
        // Anything goes in the fields after the number.
      } else if (b === DASH || b === DOT || b === OPEN || b === CLOSE) {
        this.#content = true
      } else if (b === PLUS && this.#digits === 0 && this.#field === 0 && !this.#plus) {
        this.#content = true
        this.#plus = true
      } else {
        this.#content = true
        this.#bad = true
      }
    }
    return n
  }

  #stopAt(taken: number): number {
    this.#areas.made = 0
    return taken
  }

  #endLine(): void {
    this.#line++
    if (this.#content) {
      const number = this.#bad ? -1 : this.#number()
      if (number < 0) {
        this.#reject()
      } else {
        this.#areas.add(number)
      }
    }
    this.#field = 0
    this.#value = 0
    this.#digits = 0
    this.#firstValue = 0
    this.#firstDigits = 0
    this.#plus = false
    this.#content = false
    this.#bad = false
  }

  #reject(): void {
    this.#rejectedCount++
    if (this.#rejected.length < MAX_REJECTED_LINES) this.#rejected.push(this.#line)
  }

  /** The line's 10-digit number, or -1. */
  #number(): number {
    let n = -1
    const whole = this.#field === 0 ? this.#value : this.#firstValue
    const digits = this.#field === 0 ? this.#digits : this.#firstDigits
    if (this.#field >= 1 && this.#firstDigits === 3 && !this.#plus) {
      // `201,5550123`: area code, then the 7-digit number.
      if (this.#digits === 7) n = this.#firstValue * 10_000_000 + this.#value
    } else if (digits === 10 && !this.#plus) {
      n = whole
    } else if (digits === 11 && whole >= 10_000_000_000 && whole < 20_000_000_000) {
      n = whole - 10_000_000_000
    }
    return n >= 0 && nanp(n) ? n : -1
  }

  /** The area codes read so far (for `finish` to walk with pauses between them). */
  areaCodes(): number[] {
    return this.#areas.areaCodes()
  }

  /** One area code's numbers, sorted and without repeats, and how many repeats were dropped. */
  takeArea(area: number): [Uint32Array, number] {
    return this.#areas.takeArea(area)
  }

  /** Repeats dropped while reading (counted in the duplicates). */
  get compacted(): number {
    return this.#areas.compacted
  }

  /** Ends the file (a last line without a newline counts) and returns what it held. */
  finish(): ParsedRegistry {
    this.end()
    const areas = new Map<number, Uint32Array>()
    let total = 0
    let duplicates = this.#areas.compacted
    for (const area of this.areaCodes()) {
      const [numbers, repeats] = this.takeArea(area)
      areas.set(area, numbers)
      total += numbers.length
      duplicates += repeats
    }
    return { areas, total, duplicates, ...this.counts() }
  }

  /** Ends the last line if the file did not end with a newline. */
  end(): void {
    if (this.#content || this.#digits > 0 || this.#field > 0) this.#endLine()
  }

  counts(): { lines: number; rejected: number[]; rejectedCount: number } {
    return { lines: this.#line, rejected: this.#rejected, rejectedCount: this.#rejectedCount }
  }
}

/** Parses a whole file in memory (tests, small files). */
export function parseRegistry(text: string | Uint8Array): ParsedRegistry {
  const parser = new RegistryParser()
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text
  for (let at = 0; at < bytes.length;) at += parser.push(bytes.subarray(at))
  return parser.finish()
}
