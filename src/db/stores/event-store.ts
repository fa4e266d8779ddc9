import { and, desc, eq, inArray, lt, sql } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { Db } from '../client'
import { tableCodec } from '../table-codec'
import { events } from '../schema'

export type EventRow = typeof events.$inferSelect

export interface EventFilter {
  orgId: string
  livemode: boolean
  campaignIds: readonly string[] | null
  types?: readonly string[]
  campaignId?: string
  objectId?: string
  createdGte?: number
  createdLte?: number
  startingAfter?: string
}

export function eventStore(db: Db, sqlite: Database) {
  const rows = tableCodec(sqlite, events)
  return {
    insert(row: EventRow): void {
      rows.insert(row)
    },
    get(id: string): EventRow | undefined {
      return db.select().from(events).where(eq(events.id, id)).get()
    },
    /** Newest first. */
    list(filter: EventFilter, limit: number): EventRow[] {
      return db.select().from(events)
        .where(and(
          eq(events.orgId, filter.orgId),
          eq(events.livemode, filter.livemode),
          filter.campaignIds ? inArray(events.campaignId, [...filter.campaignIds]) : undefined,
          filter.types?.length ? inArray(events.type, [...filter.types]) : undefined,
          filter.campaignId ? eq(events.campaignId, filter.campaignId) : undefined,
          filter.objectId ? eq(events.objectId, filter.objectId) : undefined,
          filter.createdGte !== undefined ? sql`${events.created} >= ${filter.createdGte}` : undefined,
          filter.createdLte !== undefined ? sql`${events.created} <= ${filter.createdLte}` : undefined,
          filter.startingAfter ? lt(events.id, filter.startingAfter) : undefined,
        ))
        .orderBy(desc(events.id)).limit(limit).all()
    },
    forObject(objectId: string): EventRow[] {
      return db.select().from(events).where(eq(events.objectId, objectId)).orderBy(events.id).all()
    },
    purgeBefore(cutoff: number): number {
      return db.delete(events).where(lt(events.created, cutoff)).returning({ id: events.id }).all().length
    },
  }
}

export type EventStore = ReturnType<typeof eventStore>
