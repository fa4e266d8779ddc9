import type { Task } from './scheduler-base'

/** A one-shot task waiting for its time on the real clock. */
export interface RealTimer {
  when: number
  seq: number
  task: Task
  cancelled: boolean
}

/** A binary min-heap of timers by time, then by order of scheduling. */
export class TimerHeap {
  private readonly items: RealTimer[] = []

  get size(): number {
    return this.items.length
  }

  push(timer: RealTimer): void {
    const items = this.items
    items.push(timer)
    let i = items.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!before(items[i]!, items[parent]!)) break
      ;[items[i], items[parent]] = [items[parent]!, items[i]!]
      i = parent
    }
  }

  /** The earliest timer not cancelled (cancelled ones at the top are dropped on the way). */
  peek(): RealTimer | undefined {
    while (this.items.length > 0 && this.items[0]!.cancelled) this.pop()
    return this.items[0]
  }

  pop(): RealTimer | undefined {
    const items = this.items
    const top = items[0]
    const last = items.pop()
    if (items.length > 0 && last) {
      items[0] = last
      let i = 0
      for (;;) {
        const left = 2 * i + 1
        const right = left + 1
        let least = i
        if (left < items.length && before(items[left]!, items[least]!)) least = left
        if (right < items.length && before(items[right]!, items[least]!)) least = right
        if (least === i) break
        ;[items[i], items[least]] = [items[least]!, items[i]!]
        i = least
      }
    }
    return top
  }

  clear(): void {
    this.items.length = 0
  }
}

const before = (a: RealTimer, b: RealTimer) => a.when < b.when || (a.when === b.when && a.seq < b.seq)
