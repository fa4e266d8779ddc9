import { and, eq, isNull, lt, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { carrierCalls } from '../schema'
import type { CarrierCallPort } from '../../telephony/ports'

export type CarrierCallRow = typeof carrierCalls.$inferSelect

/**
 * Calls placed through a real carrier (the port src/telephony/ports.ts declares): its call id,
 * what the dial asked for and the callback state. Builder throughout: a callback's read and write
 * here are far inside its budget (docs/architecture.md, "Data access").
 */
export function carrierCallStore(db: Db) {
  const store = {
    insert(row: CarrierCallRow): void {
      db.insert(carrierCalls).values(row).run()
    },
    get(callId: string): CarrierCallRow | undefined {
      return db.select().from(carrierCalls).where(eq(carrierCalls.callId, callId)).get()
    },
    bySid(carrierCallId: string): CarrierCallRow | undefined {
      return db.select().from(carrierCalls).where(eq(carrierCalls.carrierCallId, carrierCallId)).get()
    },
    update(callId: string, changes: Partial<Pick<CarrierCallRow, 'carrierCallId' | 'state' | 'open' | 'updated'>>): void {
      db.update(carrierCalls).set(changes).where(eq(carrierCalls.callId, callId)).run()
    },
    /** Forgets a call's row its carrier never placed (no carrier call id): the call is dialed again through another carrier. */
    dropUnplaced(callId: string): void {
      db.delete(carrierCalls).where(and(eq(carrierCalls.callId, callId), isNull(carrierCalls.carrierCallId))).run()
    },
    /** How many of an organization's calls (through `kind`, when given) are open (its carrier settings cannot change under them). */
    openCount(orgId: string, kind?: string): number {
      const ofKind = kind === undefined ? undefined : eq(carrierCalls.carrier, kind)
      return db.select({ n: sql<number>`count(*)` }).from(carrierCalls).where(and(sql`open = 1`, eq(carrierCalls.orgId, orgId), ofKind)).get()?.n ?? 0
    },
    /** Open calls not updated since `before` (the watchdog asks the carrier about them). */
    openSince(before: number, limit: number): CarrierCallRow[] {
      return db
        .select()
        .from(carrierCalls)
        .where(and(sql`open = 1`, lt(carrierCalls.updated, before)))
        .limit(limit)
        .all()
    },
  }
  return store satisfies CarrierCallPort
}

export type CarrierCallStore = ReturnType<typeof carrierCallStore>
