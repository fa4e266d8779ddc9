import { and, eq, lt, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { idempotencyRecords } from '../schema'

export type IdempotencyRow = typeof idempotencyRecords.$inferSelect

export function idempotencyStore(db: Db) {
  const byKey = db.select().from(idempotencyRecords)
    .where(and(
      eq(idempotencyRecords.keyId, sql.placeholder('keyId')),
      eq(idempotencyRecords.idempotencyKey, sql.placeholder('idempotencyKey')),
    )).prepare()
  return {
    get(keyId: string, idempotencyKey: string): IdempotencyRow | undefined {
      return byKey.get({ keyId, idempotencyKey })
    },
    put(row: IdempotencyRow): void {
      db.insert(idempotencyRecords).values(row)
        .onConflictDoUpdate({
          target: [idempotencyRecords.keyId, idempotencyRecords.idempotencyKey],
          set: { fingerprint: row.fingerprint, status: row.status, body: row.body, created: row.created },
        }).run()
    },
    /** Removes records created before `cutoff`; returns how many. */
    purgeBefore(cutoff: number): number {
      return db.delete(idempotencyRecords).where(lt(idempotencyRecords.created, cutoff))
        .returning({ keyId: idempotencyRecords.keyId }).all().length
    },
  }
}

export type IdempotencyStore = ReturnType<typeof idempotencyStore>
