import { RankedQueue } from './ranked-queue'

/** Told when a queue gains a lead, so the dialer can look for a free line. */
export type QueueListener = (campaignId: string, livemode: boolean) => void

const slot = (campaignId: string, livemode: boolean) => `${campaignId}:${livemode ? 'live' : 'test'}`

/**
 * The dial queues: one RankedQueue per campaign and mode, holding the queued leads (status
 * queued) by their queue key. SQLite is the truth; this is an index rebuilt on boot.
 */
export class DialQueues {
  private readonly queues = new Map<string, RankedQueue>()
  private readonly listeners: QueueListener[] = []

  onWork(listener: QueueListener): void {
    this.listeners.push(listener)
  }

  add(campaignId: string, livemode: boolean, id: string, key: number): void {
    const name = slot(campaignId, livemode)
    let queue = this.queues.get(name)
    if (!queue) {
      queue = new RankedQueue()
      this.queues.set(name, queue)
    }
    if (queue.has(id, key)) return
    queue.insert(id, key)
    for (const listener of this.listeners) listener(campaignId, livemode)
  }

  remove(campaignId: string, livemode: boolean, id: string, key: number): boolean {
    return this.queues.get(slot(campaignId, livemode))?.remove(id, key) ?? false
  }

  /** 1 = next; null when the lead is not in this queue. */
  placeInLine(campaignId: string, livemode: boolean, id: string, key: number): number | null {
    const rank = this.queues.get(slot(campaignId, livemode))?.rankOf(id, key) ?? -1
    return rank < 0 ? null : rank + 1
  }

  /** Takes the head of a queue (the dialer). */
  take(campaignId: string, livemode: boolean): { id: string; key: number } | undefined {
    return this.queues.get(slot(campaignId, livemode))?.shift()
  }

  peek(campaignId: string, livemode: boolean): { id: string; key: number } | undefined {
    return this.queues.get(slot(campaignId, livemode))?.peek()
  }

  /** The queue's entries from the head (call_now leads first, oldest first). */
  *entries(campaignId: string, livemode: boolean): Generator<{ id: string; key: number }> {
    const queue = this.queues.get(slot(campaignId, livemode))
    if (queue) yield* queue.entries()
  }

  size(campaignId: string, livemode: boolean): number {
    return this.queues.get(slot(campaignId, livemode))?.size ?? 0
  }

  /** Every campaign and mode with leads in line. */
  nonEmpty(): { campaignId: string; livemode: boolean }[] {
    const out: { campaignId: string; livemode: boolean }[] = []
    for (const [name, queue] of this.queues) {
      if (queue.size === 0) continue
      const [campaignId, mode] = name.split(':') as [string, string]
      out.push({ campaignId, livemode: mode === 'live' })
    }
    return out
  }

  /**
   * Replaces everything with rows read in queue order. Campaigns and modes may come
   * interleaved (SQLite reads them in one queue order across campaigns); each one's own
   * rows must be in its order.
   */
  rebuild(rows: Iterable<{ campaignId: string; livemode: boolean; id: string; queueKey: number }>): number {
    this.queues.clear()
    const lines = new Map<string, { ids: string[]; keys: number[] }>()
    let total = 0
    for (const row of rows) {
      const name = slot(row.campaignId, row.livemode)
      let line = lines.get(name)
      if (!line) {
        line = { ids: [], keys: [] }
        lines.set(name, line)
      }
      line.ids.push(row.id)
      line.keys.push(row.queueKey)
      total++
    }
    for (const [name, line] of lines) this.queues.set(name, RankedQueue.fromSorted(line.ids, line.keys))
    return total
  }
}

/** Seconds until a lead at `place` is dialed: whole rounds of the campaign's lines, each one handle time. */
export function estimatedWaitSeconds(place: number, lines: number, averageHandleSeconds: number): number {
  if (place <= 0) return 0
  return Math.ceil(place / Math.max(1, lines)) * Math.round(averageHandleSeconds)
}
