/**
 * RankedQueue benchmark: prints figures, asserts nothing.
 *
 *   bun run scripts/bench/queue.ts [--entries 1000000] [--lookups 10000] [--ops 100000] [--chunk 512]
 *
 * - time to build the full queue with fromSorted (the boot path, rows already sorted by SQLite)
 * - heap and RSS of the whole process after building (target: well under 400 MB at 1,000,000)
 * - rankOf p50/p99 in microseconds over random members, at 100,000 and at the full size
 * - insert, remove and shift throughput on the full queue
 *
 * Ids are uuid v7 strings and keys queueKey(2, now + i), as in the dial queue.
 */
import { parseArgs } from 'node:util'
import { queueKey } from '../../src/domain/queue/queue-key'
import { RankedQueue } from '../../src/domain/queue/ranked-queue'
import { percentile } from './lib'

const { values } = parseArgs({
  options: {
    entries: { type: 'string', default: '1000000' },
    lookups: { type: 'string', default: '10000' },
    ops: { type: 'string', default: '100000' },
    chunk: { type: 'string', default: '512' },
  },
})
const entries = Number(values.entries)
const lookups = Number(values.lookups)
const ops = Number(values.ops)
const chunkSize = Number(values.chunk)

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`
const ms = (ns: number) => `${(ns / 1e6).toFixed(1)} ms`
const perSecond = (count: number, ns: number) => `${Math.round(count / (ns / 1e9)).toLocaleString('en-US')} ops/s`

function memory(label: string): void {
  Bun.gc(true)
  const { heapUsed, rss } = process.memoryUsage()
  console.log(`${label.padEnd(34)} heapUsed ${mb(heapUsed).padStart(9)}   rss ${mb(rss).padStart(9)}`)
}

/** rankOf timed one call at a time (Bun.nanoseconds costs a few tens of ns, included). */
function rankLatency(queue: RankedQueue, ids: readonly string[], keys: readonly number[], size: number): void {
  const samples = new Float64Array(lookups)
  let check = 0
  for (let i = 0; i < lookups; i++) {
    const j = Math.floor(Math.random() * size)
    const id = ids[j]!
    const key = keys[j]!
    const start = Bun.nanoseconds()
    const rank = queue.rankOf(id, key)
    samples[i] = Bun.nanoseconds() - start
    if (rank !== j) check++
  }
  samples.sort()
  const us = (ns: number) => `${(ns / 1000).toFixed(2)} µs`
  console.log(
    `rankOf at ${size.toLocaleString('en-US').padStart(9)} entries      p50 ${us(percentile(samples, 0.5))}   p99 ${us(percentile(samples, 0.99))}` +
      (check > 0 ? `   (${check} wrong ranks!)` : ''),
  )
}

console.log(`RankedQueue, chunk size ${chunkSize}, Bun ${Bun.version}`)
memory('baseline')

const now = Date.now()
const ids = new Array<string>(entries)
const keys = new Array<number>(entries)
for (let i = 0; i < entries; i++) {
  ids[i] = Bun.randomUUIDv7()
  keys[i] = queueKey(2, now + i)
}
memory(`input arrays (${entries.toLocaleString('en-US')})`)

// Warm the code path on a small queue first so the figure is not the JIT's first pass.
RankedQueue.fromSorted(ids.slice(0, 10_000), keys.slice(0, 10_000), chunkSize)

let start = Bun.nanoseconds()
const queue = RankedQueue.fromSorted(ids, keys, chunkSize)
console.log(`fromSorted ${entries.toLocaleString('en-US')} entries: ${ms(Bun.nanoseconds() - start)}`)
memory('after fromSorted (input kept)')

const small = 100_000
if (entries > small) {
  const smallQueue = RankedQueue.fromSorted(ids.slice(0, small), keys.slice(0, small), chunkSize)
  rankLatency(smallQueue, ids, keys, small)
}
rankLatency(queue, ids, keys, entries)

// Inserts land at random places: random class, random time within the queue's span.
const insertIds = Array.from({ length: ops }, () => Bun.randomUUIDv7())
const insertKeys = Array.from({ length: ops }, () =>
  queueKey(Math.floor(Math.random() * 3) as 0 | 1 | 2, now + Math.floor(Math.random() * entries)),
)
start = Bun.nanoseconds()
for (let i = 0; i < ops; i++) queue.insert(insertIds[i]!, insertKeys[i]!)
console.log(`insert ${ops.toLocaleString('en-US')} random entries:   ${perSecond(ops, Bun.nanoseconds() - start)}   (size ${queue.size.toLocaleString('en-US')})`)

start = Bun.nanoseconds()
for (let i = 0; i < ops; i++) queue.remove(insertIds[i]!, insertKeys[i]!)
console.log(`remove ${ops.toLocaleString('en-US')} random entries:   ${perSecond(ops, Bun.nanoseconds() - start)}   (size ${queue.size.toLocaleString('en-US')})`)

start = Bun.nanoseconds()
for (let i = 0; i < ops; i++) queue.shift()
console.log(`shift ${ops.toLocaleString('en-US')} heads:             ${perSecond(ops, Bun.nanoseconds() - start)}   (size ${queue.size.toLocaleString('en-US')})`)
memory('end')
