import type { Database } from 'bun:sqlite'
import type { CacheRegistry } from '../cache-registry'
import { logger } from '../log'

/** The unit-of-work side of an open database (`DatabaseHandle`): transactions, grouped commits and their effects. */
export interface UnitsOfWork {
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
}

export interface CommitOptions {
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
  /** Told how long each COMMIT took, in seconds (metrics). */
  onCommit?: (seconds: number) => void
}

function stopOnLostGroup(error: unknown): void {
  logger.error('commit_failed_stopping', { error: String(error instanceof Error ? error.message : error) })
  logger.flush()
  process.exit(70)
}

/**
 * Transactions on one connection, nested ones as savepoints; with `groupCommits`, the outermost
 * ones of an event-loop turn as savepoints of one group committed at the end of the turn.
 * `caches` is emptied on every rollback (the one rollback hook).
 */
export function unitsOfWork(sqlite: Database, caches: CacheRegistry, options: CommitOptions = {}): UnitsOfWork {
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

  function transaction<T>(work: () => T): T {
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
  }

  return {
    transaction,
    standalone<T>(work: () => T): T {
      if (depth > 0 || !grouping) return transaction(work)
      commitAll()
      alone = true
      try {
        return transaction(work)
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
  }
}
