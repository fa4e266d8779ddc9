import { desc, eq, lt, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { orgs } from '../schema'

export type OrgRow = typeof orgs.$inferSelect
export type NewOrg = typeof orgs.$inferInsert

/**
 * Organization rows are read on every lead placed and written rarely, only through this store,
 * so they are cached by id, frozen. A rolled-back transaction empties the cache (`onRollback`).
 */
export function orgStore(db: Db, onRollback: (listener: () => void) => void) {
  const byId = db.select().from(orgs).where(eq(orgs.id, sql.placeholder('id'))).prepare()
  const cache = new Map<string, OrgRow>()
  onRollback(() => cache.clear())
  const remember = (row: OrgRow | undefined) => {
    if (row) cache.set(row.id, Object.freeze(row))
    return row
  }
  return {
    insert(row: NewOrg): OrgRow {
      return remember(db.insert(orgs).values(row).returning().get())!
    },
    update(id: string, changes: Partial<NewOrg>): OrgRow | undefined {
      cache.delete(id)
      return remember(db.update(orgs).set(changes).where(eq(orgs.id, id)).returning().get())
    },
    get(id: string): OrgRow | undefined {
      return cache.get(id) ?? remember(byId.get({ id }))
    },
    /** Newest first. */
    list(limit: number, startingAfter?: string): OrgRow[] {
      return db.select().from(orgs)
        .where(startingAfter ? lt(orgs.id, startingAfter) : undefined)
        .orderBy(desc(orgs.id)).limit(limit).all()
    },
    count(): number {
      return db.select({ n: sql<number>`count(*)` }).from(orgs).get()?.n ?? 0
    },
  }
}

export type OrgStore = ReturnType<typeof orgStore>
