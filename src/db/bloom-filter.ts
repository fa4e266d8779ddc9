/**
 * A Bloom filter over strings: "certainly absent" or "maybe present". Stores use one in
 * front of a table that is mostly asked about values it does not hold (the Do Not Call list:
 * nearly every number checked is not on it), so the common answer needs no SQLite read.
 *
 * About 10 bits and 7 probes per value give roughly 1% false "maybe". Values are never
 * removed (a deleted value stays a "maybe" and is looked up); past its capacity the owner
 * rebuilds a larger filter from the table.
 */
export class BloomFilter {
  static readonly BITS_PER_VALUE = 10
  static readonly PROBES = 7
  private readonly bits: Uint32Array
  private readonly size: number
  private added = 0

  constructor(readonly capacity: number) {
    // A power of two, so a probe is a mask rather than a modulo.
    this.size = 2 ** Math.ceil(Math.log2(Math.max(1024, capacity * BloomFilter.BITS_PER_VALUE)))
    this.bits = new Uint32Array(this.size / 32)
  }

  /** True once more values went in than it was sized for (false "maybe" grows quickly past it). */
  get full(): boolean {
    return this.added > this.capacity
  }

  add(value: string): void {
    this.probe(value, true)
    this.added++
  }

  mightContain(value: string): boolean {
    return this.probe(value, false)
  }

  /** Visits the value's bits: sets them (`set`), or says whether all of them are set. */
  private probe(value: string, set: boolean): boolean {
    const h1 = Bun.hash.murmur32v3(value, 0)
    const h2 = Bun.hash.murmur32v3(value, 0x9747b28c) | 1
    const mask = this.size - 1
    for (let i = 0; i < BloomFilter.PROBES; i++) {
      const bit = (h1 + Math.imul(i, h2)) & mask
      const flag = 1 << (bit & 31)
      if (set) this.bits[bit >>> 5]! |= flag
      else if ((this.bits[bit >>> 5]! & flag) === 0) return false
    }
    return true
  }
}
