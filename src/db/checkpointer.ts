import type { Database } from 'bun:sqlite'
import { logger } from '../log'
import type { CheckpointerStart } from './checkpointer.worker'

/** Pause between checkpoints once no new commits come; while they come the worker runs back to back. */
const CHECKPOINT_INTERVAL_MS = 100
/**
 * The main connection's own auto-checkpoint, a backstop: about 400 MB of WAL. Under steady
 * writes the worker never quite catches up, so SQLite cannot start the WAL afresh until the
 * backstop copies the last few megabytes on the main thread, stalling one commit; a high
 * backstop makes that rare (docs/decisions.md, "Where the slow commits come from").
 */
const BACKSTOP_PAGES = 100_000
/** After writes pause this long, a WAL file over `KEEP_WAL_BYTES` is truncated (disk space back after a burst). */
const WAL_IDLE_MS = 2000
const KEEP_WAL_BYTES = 64 * 1024 * 1024

/** Checkpoints run on a worker thread; the main connection checkpoints only past the backstop. */
export function startCheckpointer(sqlite: Database, path: string, synchronous: string, wal: { keepBytes?: number; idleMs?: number } = {}): { stop(): void } | null {
  sqlite.run(`PRAGMA wal_autocheckpoint = ${BACKSTOP_PAGES}`)
  // Compiled, the code is one bundle at the root of Bun's embedded file system (src/ is the
  // root there); from source, the worker file sits beside this one.
  const compiled = import.meta.url.includes('/$bunfs/')
  const url = new URL(compiled ? './db/checkpointer.worker.ts' : './checkpointer.worker.ts', import.meta.url)
  const fallBack = () => {
    try {
      sqlite.run('PRAGMA wal_autocheckpoint = 1000')
    } catch {
      // closed meanwhile: nothing left to checkpoint
    }
  }
  try {
    const worker = new Worker(url.href)
    worker.addEventListener('error', (event) => {
      logger.warn('checkpointer_failed', { error: String((event as ErrorEvent).message) })
      fallBack()
    })
    const closed = new Int32Array(new SharedArrayBuffer(4))
    const start: CheckpointerStart = {
      path, intervalMs: CHECKPOINT_INTERVAL_MS, synchronous, closed,
      keepWalBytes: wal.keepBytes ?? KEEP_WAL_BYTES, idleMs: wal.idleMs ?? WAL_IDLE_MS,
    }
    worker.postMessage(start)
    // The worker must not keep a finished CLI command (migrate, backup) alive.
    worker.unref()
    return {
      stop() {
        worker.postMessage('stop')
        // At most a checkpoint's length; a worker that failed to start is not waited for long.
        Atomics.wait(closed, 0, 0, 1000)
      },
    }
  } catch {
    fallBack()
    return null
  }
}
