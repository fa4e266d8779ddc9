import { and, count, desc, eq, like, lt, sql } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import { BloomFilter } from '../bloom-filter'
import type { Db } from '../client'
import { dncEntries } from '../schema'

export type DncEntryRow = typeof dncEntries.$inferSelect
export type NewDncEntry = typeof dncEntries.$inferInsert

export interface DncScope {
  orgId: string
  livemode: boolean
}

export function dncStore(db: Db, sqlite: Database) {
  // Membership is asked on every DNC check and lead intake; Drizzle's row mapping would cost
  // several times the lookup itself, so this one query goes to bun:sqlite directly.
  // Raw (hot: intake): faster than the builder (docs/architecture.md, "Data access").
  const listed = sqlite.query<{ one: number }, [string, number, string]>(
    'SELECT 1 AS one FROM dnc_entries WHERE org_id = ? AND livemode = ? AND phone = ? LIMIT 1',
  )
  const byPhone = db.select().from(dncEntries)
    .where(and(
      eq(dncEntries.orgId, sql.placeholder('orgId')),
      eq(dncEntries.livemode, sql.placeholder('livemode')),
      eq(dncEntries.phone, sql.placeholder('phone')),
    )).prepare()
  // Nearly every number asked about is not listed; the filter answers those without a read.
  // It only ever holds more than the table (a rolled-back or deleted entry stays a "maybe"),
  // so a "no" from it is always right. Built when the store opens (boot, not the first
  // request, pays for reading the list), rebuilt larger when full.
  // Raw (bulk: every entry, at boot): faster than the builder (docs/architecture.md, "Data access").
  const allEntries = sqlite.query<{ org_id: string; livemode: number; phone: string }, []>('SELECT org_id, livemode, phone FROM dnc_entries')
  const entryCount = db.select({ n: count() }).from(dncEntries).prepare()
  const filterKey = (orgId: string, livemode: boolean | number, phone: string) => `${orgId}|${livemode ? 1 : 0}|${phone}`
  let filter: BloomFilter | null = null
  function membership(): BloomFilter {
    if (filter && !filter.full) return filter
    const built = new BloomFilter(Math.max(65_536, entryCount.get()!.n * 2))
    for (const e of allEntries.iterate()) built.add(filterKey(e.org_id, e.livemode, e.phone))
    return (filter = built)
  }
  membership()
  const mightBeListed = (scope: DncScope, phone: string) => membership().mightContain(filterKey(scope.orgId, scope.livemode, phone))
  return {
    /** Inserts unless the number is already listed; undefined means it was. */
    insert(row: NewDncEntry): DncEntryRow | undefined {
      membership().add(filterKey(row.orgId, row.livemode, row.phone))
      return db.insert(dncEntries).values(row).onConflictDoNothing().returning().get()
    },
    isListed(scope: DncScope, phone: string): boolean {
      if (!mightBeListed(scope, phone)) return false
      return listed.get(scope.orgId, scope.livemode ? 1 : 0, phone) !== null
    },
    findByPhone(scope: DncScope, phone: string): DncEntryRow | undefined {
      if (!mightBeListed(scope, phone)) return undefined
      return byPhone.get({ orgId: scope.orgId, livemode: scope.livemode ? 1 : 0, phone })
    },
    get(scope: DncScope, id: string): DncEntryRow | undefined {
      return db.select().from(dncEntries)
        .where(and(eq(dncEntries.id, id), eq(dncEntries.orgId, scope.orgId), eq(dncEntries.livemode, scope.livemode)))
        .get()
    },
    /** Newest first; `digits` matches anywhere in the stored E.164 number. */
    list(scope: DncScope, limit: number, options: { startingAfter?: string; digits?: string } = {}): DncEntryRow[] {
      return db.select().from(dncEntries)
        .where(and(
          eq(dncEntries.orgId, scope.orgId),
          eq(dncEntries.livemode, scope.livemode),
          options.startingAfter ? lt(dncEntries.id, options.startingAfter) : undefined,
          options.digits ? like(dncEntries.phone, `%${options.digits}%`) : undefined,
        ))
        .orderBy(desc(dncEntries.id)).limit(limit).all()
    },
    delete(scope: DncScope, id: string): DncEntryRow | undefined {
      return db.delete(dncEntries)
        .where(and(eq(dncEntries.id, id), eq(dncEntries.orgId, scope.orgId), eq(dncEntries.livemode, scope.livemode)))
        .returning().get()
    },
  }
}

export type DncStore = ReturnType<typeof dncStore>
