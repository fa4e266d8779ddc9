/**
 * A bounded memo for pure answers (phone classification, decoded Authorization headers):
 * two generations; when the newer fills up it becomes the older and the older is dropped.
 * Deleting a Map's oldest keys one at a time instead leaves holes that its iterator walks
 * again on every delete, which cost more than the answers it kept.
 */
export class BoundedMemo<K, V> {
  private recent = new Map<K, V>()
  private older = new Map<K, V>()

  /** Holds between `generation` and twice that many answers. */
  constructor(private readonly generation: number) {}

  get(key: K): V | undefined {
    // Not `??`: a kept null answer must not fall through to the older generation.
    const value = this.recent.get(key)
    return value !== undefined ? value : this.older.get(key)
  }

  clear(): void {
    this.recent = new Map()
    this.older = new Map()
  }

  set(key: K, value: V): void {
    if (this.recent.size >= this.generation) {
      this.older = this.recent
      this.recent = new Map()
    }
    this.recent.set(key, value)
  }
}
