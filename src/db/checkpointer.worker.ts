/**
 * Folds the WAL back into the database file from its own thread and connection. A checkpoint
 * syncs the disk twice; done on the main thread (SQLite's auto-checkpoint) it would stall a
 * commit for milliseconds every few dozen writes.
 */
import { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'

declare const self: Worker

/** What the main thread sends to start the worker (see startCheckpointer in client.ts). */
export interface CheckpointerStart {
  path: string
  /** Pause between checkpoints while no new WAL frames come. */
  intervalMs: number
  synchronous: string
  /** Set to 1 by the worker once its connection is closed. */
  closed: Int32Array
  /** A WAL file larger than this is truncated once writes have paused for `idleMs`. */
  keepWalBytes: number
  idleMs: number
}

let db: Database | null = null
let timer: ReturnType<typeof setTimeout> | null = null
let closed: Int32Array | null = null

self.onmessage = (event: MessageEvent<CheckpointerStart | 'stop'>) => {
  if (event.data === 'stop') {
    if (timer) clearTimeout(timer)
    timer = null
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
  const start = event.data
  closed = start.closed
  const connection = new Database(start.path)
  db = connection
  connection.run('PRAGMA busy_timeout = 5000')
  connection.run(`PRAGMA synchronous = ${start.synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`)
  const passive = connection.query<{ busy: number; log: number; checkpointed: number }, []>('PRAGMA wal_checkpoint(PASSIVE)')
  const truncate = connection.query('PRAGMA wal_checkpoint(TRUNCATE)')
  const walPath = `${start.path}-wal`
  let lastLog = -1
  let idleSince = Date.now()

  const tick = () => {
    if (db !== connection) return
    let moved = false
    try {
      const result = passive.get()
      // `log` is the WAL's frame count: it changes whenever commits came since the last run.
      moved = result !== null && result.log > 0 && result.log !== lastLog
      lastLog = result?.log ?? -1
    } catch {
      // busy: the next run tries again; the main connection's auto-checkpoint is the backstop
    }
    const now = Date.now()
    if (moved) idleSince = now
    else if (now - idleSince >= start.idleMs) {
      idleSince = now
      shrinkWal(truncate, walPath, start.keepWalBytes)
    }
    // While commits keep coming, run again at once: a checkpoint that waits out the interval
    // leaves that much WAL to the backstop, which copies it on the main thread.
    timer = setTimeout(tick, moved ? 0 : start.intervalMs)
  }
  timer = setTimeout(tick, start.intervalMs)
}

/**
 * After a burst the WAL file keeps its largest size (SQLite reuses it from the start); once
 * writes pause, a TRUNCATE checkpoint gives the disk space back. It holds writers off for
 * the moment it takes, which is why it waits for a pause.
 */
function shrinkWal(truncate: ReturnType<Database['query']>, walPath: string, keepWalBytes: number): void {
  let size = 0
  try {
    size = statSync(walPath).size
  } catch {
    return
  }
  if (size <= keepWalBytes) return
  try {
    truncate.run()
  } catch {
    // busy: tried again after the next pause
  }
}
