import type { ConsoleStore } from '../../db/stores/console-store'
import { logger } from '../../log'

/**
 * Keeps the console's lead search index (drizzle/0018_lead_search.sql) up with new leads, in
 * the background rather than in each lead's insert: a few hundred leads a transaction, with a
 * pause between, so a request never waits long behind it. Leads not yet indexed are still
 * found (the store reads them without the index), so how soon it runs only moves cost.
 */
export interface LeadSearchIndexerOptions {
  /** How often it looks for new leads. */
  everyMs: number
  /** Leads a transaction. */
  chunk: number
  /** Transactions a run at most (a big import is indexed over several runs). */
  chunksPerRun: number
}

export const INDEXER_DEFAULTS: LeadSearchIndexerOptions = { everyMs: 500, chunk: 500, chunksPerRun: 20 }

export function leadSearchIndexer(deps: { store: ConsoleStore; standalone: <T>(work: () => T) => T }, options: LeadSearchIndexerOptions = INDEXER_DEFAULTS) {
  let timer: ReturnType<typeof setTimeout> | null = null
  let stopped = false
  const step = () => deps.standalone(() => deps.store.indexLeadsForSearch(options.chunk))

  async function run(): Promise<void> {
    for (let i = 0; i < options.chunksPerRun && !stopped; i++) {
      if (step() < options.chunk) return
      // A turn for the requests waiting behind this chunk.
      await new Promise((resolve) => setTimeout(resolve, 1))
    }
  }

  const schedule = () => {
    if (stopped) return
    timer = setTimeout(() => {
      run().catch((error) => logger.error('lead_search_index_failed', { error: String(error) })).finally(schedule)
    }, options.everyMs)
    timer.unref?.()
  }

  return {
    start(): void {
      stopped = false
      schedule()
    },
    stop(): void {
      stopped = true
      if (timer) clearTimeout(timer)
      timer = null
    },
    /** Indexes every lead not yet indexed, now (tests, tools); how many. */
    catchUp(): number {
      let total = 0
      for (let n = step(); n > 0; n = step()) total += n
      return total
    },
  }
}

export type LeadSearchIndexer = ReturnType<typeof leadSearchIndexer>
