import { Database } from 'bun:sqlite'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { CacheRegistry, describeCache } from '../cache-registry'
import { logger } from '../log'
import { createPrivateFile, restrictDatabaseFiles } from './file-modes'
import * as schema from './schema'
import type { CheckpointerStart } from './checkpointer.worker'

// Migrations live in ./migrate.ts; callers import them from here as before.
export { latestMigration, migrate, migratorOf } from './migrate'

export type Db = BunSQLiteDatabase<typeof schema>

// bun:sqlite's own statement cache behind the prepare proxy below; never stale, nothing to clear.
describeCache({
  name: 'drizzle-statements', holds: "Drizzle's compiled statements, by SQL text (bun:sqlite query())",
  bound: 'one per query shape in the code', clearedBy: 'nothing (pure)',
  gain: 'a key read by id, median 43 vs 74 µs (Drizzle compiles on every prepare)', source: 'pure',
})

/** One open database: the raw connection, the Drizzle handle and the unit-of-work helper. */
export interface DatabaseHandle {
  readonly sqlite: Database
  readonly db: Db
  /**
   * Runs `work` in one SQLite transaction (BEGIN IMMEDIATE), nested calls as savepoints.
   * `work` must be synchronous: bun:sqlite has one connection, so anything awaited inside
   * would interleave other requests' statements into this transaction.
   */
  transaction<T>(work: () => T): T
  /**
   * Like `transaction`, but never part of a group: the turn's open group is committed first,
   * then `work` commits on its own. For background batches that are large units of work
   * already (the scheduler's): inside a group they pay for an extra savepoint level.
   */
  standalone<T>(work: () => T): T
  /**
   * The in-memory caches of this database's data (src/cache-registry.ts): all emptied when a
   * transaction or savepoint rolls back, so none serves a write that did not happen.
   */
  readonly caches: CacheRegistry
  /**
   * Runs `effect` once the outermost transaction commits (at once outside a transaction);
   * dropped if it (or the savepoint it was registered in) rolls back. For effects inside the
   * process: in-memory indexes (the dial queues) follow SQLite this way. Grouped, "commits"
   * means released into the turn's group: replies built right after see the effect, and are
   * held until the group commits (a group that fails to commit stops the process, so no
   * client sees state that was not written). Anything the outside world sees goes through
   * `afterDurable` instead.
   */
  afterCommit(effect: () => void): void
  /**
   * Runs `effect` once the writes made so far are durable: after the real COMMIT of the turn's
   * group (or of the standalone or ungrouped transaction); at once when nothing is left
   * uncommitted. Dropped if its savepoint rolls back or the group is lost. For what the outside
   * world sees (a webhook send, a carrier dial): once seen it cannot be taken back, so it must
   * not start for writes a failed commit or a crash could still lose. An effect that throws is
   * logged; the commit stands and the others still run.
   */
  afterDurable(effect: () => void): void
  /**
   * With grouped commits: the commit that will make the writes done so far durable, or null
   * when everything is committed. A reply must wait for it (its promise rejects if the commit
   * failed). Without grouping, always null.
   */
  pendingCommit(): Promise<void> | null
  /** Commits the open group now (before closing, or for a caller that must not wait). */
  flush(): void
  close(): void
}

export interface OpenOptions {
  /** Unset: FULL (a power cut loses no commit a client was told about). */
  synchronous?: 'NORMAL' | 'FULL'
  /** The page cache of this connection in MB; unset: SQLite's default (2 MB). */
  cacheMb?: number
  /**
   * Grouped commits: the outermost transactions of one event-loop turn become savepoints of
   * one SQLite transaction, committed once at the end of that turn (setImmediate). Replies
   * wait for `pendingCommit()`. Off: every outermost transaction commits on its own.
   */
  groupCommits?: boolean
  /**
   * Called when a group's COMMIT fails or SQLite rolled the group back by itself (disk full,
   * I/O error): writes that requests were told are done are gone, and in-memory state built
   * from them is wrong. The default stops the process (a restart rebuilds that state from the
   * database); tests pass their own.
   */
  onGroupLost?: (error: unknown) => void
  /** WAL file size kept after writes pause, and the pause (tests use small ones). */
  wal?: { keepBytes?: number; idleMs?: number }
  /** Told how long each COMMIT took, in seconds (metrics). */
  onCommit?: (seconds: number) => void
}

function stopOnLostGroup(error: unknown): void {
  logger.error('commit_failed_stopping', { error: String(error instanceof Error ? error.message : error) })
  logger.flush()
  process.exit(70)
}

/**
 * The connection as Drizzle gets it. Drizzle prepares (compiles) every query's SQL anew
 * (Drizzle internal: its bun-sqlite session calls `client.prepare(sql)`, checked by
 * test/unit/drizzle-internals.test.ts); bun:sqlite's query() keeps compiled statements by SQL
 * text, so queries of the same shape compile once. Drizzle never finalizes its statements, and
 * everything runs synchronously, so sharing them is safe.
 */
export function withStatementCache(sqlite: Database): Database {
  return new Proxy(sqlite, {
    get(target, property, receiver) {
      if (property === 'prepare') return (sql: string) => target.query(sql)
      const value = Reflect.get(target, property, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

export function openDatabase(path: string, options: OpenOptions = {}): DatabaseHandle {
  if (path !== ':memory:') createPrivateFile(path)
  const sqlite = new Database(path, { create: true, strict: true })
  // WAL: readers never block the writer, and a reader (backup) can copy while we serve.
  sqlite.run('PRAGMA journal_mode = WAL')
  if (path !== ':memory:') restrictDatabaseFiles(path)
  const synchronous = options.synchronous ?? 'FULL'
  sqlite.run(`PRAGMA synchronous = ${synchronous}`)
  sqlite.run('PRAGMA foreign_keys = ON')
  // A second process (the backup command) may hold a lock briefly; wait rather than fail.
  sqlite.run('PRAGMA busy_timeout = 5000')
  sqlite.run('PRAGMA temp_store = MEMORY')
  // Negative: a size in KiB rather than in pages.
  if (options.cacheMb !== undefined) sqlite.run(`PRAGMA cache_size = -${Math.round(options.cacheMb * 1024)}`)
  const checkpointer = path === ':memory:' ? null : startCheckpointer(sqlite, path, synchronous, options.wal)
  const db = drizzle(withStatementCache(sqlite), { schema })
  const caches = new CacheRegistry()
  let depth = 0
  /** afterCommit and afterDurable effects of the outermost transaction, in registration order. */
  let pending: (() => void)[] = []
  let pendingDurable: (() => void)[] = []
  const grouping = options.groupCommits === true
  const onGroupLost = options.onGroupLost ?? stopOnLostGroup
  const onCommit = options.onCommit
  /** COMMIT, timed when someone listens. */
  function timedCommit(): void {
    if (!onCommit) return void commit.run()
    const started = performance.now()
    commit.run()
    onCommit((performance.now() - started) / 1000)
  }
  /** The open group: its SQLite transaction is begun, its commit due at the end of this turn. */
  let group: { committed: Promise<void>; resolve: () => void; reject: (error: unknown) => void; durable: (() => void)[] } | null = null
  /** Set while a standalone unit of work runs: its outermost transaction commits on its own. */
  let alone = false

  function openGroup(): void {
    begin.run()
    let resolve!: () => void
    let reject!: (error: unknown) => void
    const committed = new Promise<void>((res, rej) => {
      resolve = res
      reject = rej
    })
    // Nobody may be waiting; a lost group is reported through onGroupLost either way.
    committed.catch(() => {})
    group = { committed, resolve, reject, durable: [] }
    setImmediate(commitGroup)
  }

  function runDurable(effects: (() => void)[]): void {
    for (const effect of effects) {
      try {
        effect()
      } catch (error) {
        logger.error('after_durable_failed', { error: String(error instanceof Error ? error.stack : error) })
      }
    }
  }

  function commitGroup(): void {
    const open = group
    if (!open) return
    group = null
    try {
      if (!sqlite.inTransaction) throw new Error('SQLite rolled the group back before its commit')
      timedCommit()
    } catch (error) {
      lostGroup(open, error)
      return
    }
    runDurable(open.durable)
    open.resolve()
  }

  /** Commits the open group, and any group its durable effects opened in turn. */
  function commitAll(): void {
    while (group) commitGroup()
  }

  function lostGroup(open: NonNullable<typeof group>, error: unknown): void {
    if (group === open) group = null
    // What was to follow this group's commit never happens: the writes it stood on are gone.
    open.durable = []
    try {
      if (sqlite.inTransaction) rollback.run()
    } catch {
      // already rolled back
    }
    caches.clearAll()
    open.reject(error)
    onGroupLost(error)
  }
  // Cached statements: bun:sqlite's transaction() builds its statements on every call.
  const begin = sqlite.query('BEGIN IMMEDIATE')
  const commit = sqlite.query('COMMIT')
  const rollback = sqlite.query('ROLLBACK')
  const savepoint = sqlite.query('SAVEPOINT nested')
  const release = sqlite.query('RELEASE nested')
  const rollbackTo = sqlite.query('ROLLBACK TO nested')
  const handle: DatabaseHandle = {
    sqlite,
    db,
    caches,
    transaction<T>(work: () => T): T {
      const outer = depth === 0
      // Grouped, an outermost transaction is a savepoint of the turn's group.
      const ownCommit = outer && (!grouping || alone)
      if (outer && grouping && !alone) {
        if (group && !sqlite.inTransaction) lostGroup(group, new Error('SQLite rolled the group back'))
        if (group === null) openGroup()
      }
      // Effects registered from here on belong to this level: a rollback of it drops them.
      const effectsMark = pending.length
      const durableMark = pendingDurable.length
      depth++
      let result: T
      try {
        if (ownCommit) begin.run()
        else savepoint.run()
        result = work()
        if (ownCommit) timedCommit()
        else release.run()
      } catch (error) {
        depth--
        try {
          if (ownCommit) rollback.run()
          else {
            rollbackTo.run()
            release.run()
          }
        } catch {
          // SQLite may have rolled back already (e.g. after SQLITE_FULL)
        }
        pending.length = effectsMark
        pendingDurable.length = durableMark
        // The one rollback hook: every cache of this database's data forgets what it held.
        caches.clearAll()
        throw error
      }
      depth--
      if (depth === 0 && (pending.length > 0 || pendingDurable.length > 0)) {
        const effects = pending
        const durable = pendingDurable
        pending = []
        pendingDurable = []
        // Released into the group: durable only once the group commits.
        const committed = ownCommit || !group
        if (!committed) for (const effect of durable) group!.durable.push(effect)
        try {
          for (const effect of effects) effect()
        } finally {
          if (committed && durable.length > 0) runDurable(durable)
        }
      }
      return result
    },
    standalone<T>(work: () => T): T {
      if (depth > 0 || !grouping) return handle.transaction(work)
      commitAll()
      alone = true
      try {
        return handle.transaction(work)
      } finally {
        alone = false
      }
    },
    afterCommit(effect) {
      if (depth === 0) effect()
      else pending.push(effect)
    },
    afterDurable(effect) {
      if (depth > 0) pendingDurable.push(effect)
      // Writes of this turn are still uncommitted: the effect may stand on them.
      else if (group) group.durable.push(effect)
      else runDurable([effect])
    },
    pendingCommit: () => group?.committed ?? null,
    flush: commitAll,
    close() {
      commitAll()
      // The worker closes its connection itself (killing the thread could leave it open a while);
      // once close() returns no connection of ours is left to hold a lock on the file.
      checkpointer?.stop()
      // Folds the WAL back into the main file, so a stopped service leaves one file to copy.
      try {
        sqlite.run('PRAGMA wal_checkpoint(TRUNCATE)')
      } catch {
        // Another process may be reading; the WAL is folded on the next open instead.
      }
      sqlite.close()
    },
  }
  return handle
}

/** Pause between checkpoints once no new commits come; while they come the worker runs back to back. */
const CHECKPOINT_INTERVAL_MS = 100
/**
 * The main connection's own auto-checkpoint, a backstop: about 400 MB of WAL. Under steady
 * writes the worker never quite catches up, so SQLite cannot start the WAL afresh until the
 * backstop copies the last few megabytes on the main thread, stalling one commit 10-35 ms
 * (docs/decisions.md, "Where the slow commits come from"). At 20,000 pages that came about
 * once a second under POST /leads at 64 connections; at 100,000, every three to four seconds.
 */
const BACKSTOP_PAGES = 100_000
/** After writes pause this long, a WAL file over `KEEP_WAL_BYTES` is truncated (disk space back after a burst). */
const WAL_IDLE_MS = 2000
const KEEP_WAL_BYTES = 64 * 1024 * 1024

/** Checkpoints run on a worker thread; the main connection checkpoints only past the backstop. */
function startCheckpointer(sqlite: Database, path: string, synchronous: string, wal: OpenOptions['wal'] = {}): { stop(): void } | null {
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

const SYNCHRONOUS_NAMES = ['OFF', 'NORMAL', 'FULL', 'EXTRA']

/** The connection's `PRAGMA synchronous` as SQLite reports it (the start-up log line shows it). */
export function synchronousOf(sqlite: Database): string {
  const row = sqlite.query<{ synchronous: number }, []>('PRAGMA synchronous').get()
  return row ? (SYNCHRONOUS_NAMES[row.synchronous] ?? String(row.synchronous)) : 'unknown'
}
