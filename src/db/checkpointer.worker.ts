/**
 * Folds the WAL back into the database file from its own thread and connection. A checkpoint
 * syncs the disk twice; done on the main thread (SQLite's auto-checkpoint) it would stall a
 * commit for milliseconds every few dozen writes.
 */
import { Database } from 'bun:sqlite'

declare const self: Worker

let db: Database | null = null
let timer: ReturnType<typeof setInterval> | null = null
let closed: Int32Array | null = null

self.onmessage = (event: MessageEvent<{ path: string; intervalMs: number; synchronous: string; closed: Int32Array } | 'stop'>) => {
  if (event.data === 'stop') {
    if (timer) clearInterval(timer)
    db?.close()
    db = null
    // The main thread waits for this before its final checkpoint and close.
    if (closed) {
      Atomics.store(closed, 0, 1)
      Atomics.notify(closed, 0)
    }
    postMessage('stopped')
    return
  }
  const { path, intervalMs, synchronous } = event.data
  closed = event.data.closed
  db = new Database(path)
  db.run('PRAGMA busy_timeout = 5000')
  db.run(`PRAGMA synchronous = ${synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`)
  timer = setInterval(() => {
    try {
      db?.run('PRAGMA wal_checkpoint(PASSIVE)')
    } catch {
      // busy: the next tick tries again; the main connection's auto-checkpoint is the backstop
    }
  }, intervalMs)
}
