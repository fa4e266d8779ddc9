import { and, desc, eq, lt, or, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { apiKeys } from '../schema'

export type ApiKeyRow = typeof apiKeys.$inferSelect
export type NewApiKey = typeof apiKeys.$inferInsert

export function keyStore(db: Db) {
  const byId = db.select().from(apiKeys).where(eq(apiKeys.id, sql.placeholder('id'))).prepare()
  return {
    insert(row: NewApiKey): ApiKeyRow {
      return db.insert(apiKeys).values(row).returning().get()
    },
    update(id: string, changes: Partial<NewApiKey>): ApiKeyRow | undefined {
      return db.update(apiKeys).set(changes).where(eq(apiKeys.id, id)).returning().get()
    },
    get(id: string): ApiKeyRow | undefined {
      return byId.get({ id })
    },
    /** Every key's name in the organization (usage groups by key). */
    namesOfOrg(orgId: string): { id: string; name: string }[] {
      return db.select({ id: apiKeys.id, name: apiKeys.name }).from(apiKeys).where(eq(apiKeys.orgId, orgId)).all()
    },
    /** Newest first. */
    listForOrg(orgId: string, limit: number, startingAfter?: string): ApiKeyRow[] {
      return db.select().from(apiKeys)
        .where(and(eq(apiKeys.orgId, orgId), startingAfter ? olderThan(db, startingAfter) : undefined))
        .orderBy(desc(apiKeys.created), desc(apiKeys.id)).limit(limit).all()
    },
  }
}

// Key ids are random, not time-ordered, so key lists page by (created, id).
function olderThan(db: Db, id: string) {
  const created = db.select({ created: apiKeys.created }).from(apiKeys).where(eq(apiKeys.id, id)).get()?.created ?? 0
  return or(lt(apiKeys.created, created), and(eq(apiKeys.created, created), lt(apiKeys.id, id)))
}

export type KeyStore = ReturnType<typeof keyStore>
