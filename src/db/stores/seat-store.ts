import { and, asc, count, desc, eq, lt, ne, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { seats } from '../schema'

export type SeatRow = typeof seats.$inferSelect
export type SeatChanges = Partial<Pick<SeatRow,
  'state' | 'carrierCallId' | 'conferenceSid' | 'leadCallId' | 'carrierState' | 'endedReason' | 'updated' | 'seatedAt' | 'endedAt'>>

/** Seats of power/predictive campaigns (src/domain/seats/seat-board.ts): one row per seat, ended ones kept. */
export function seatStore(db: Db) {
  const countIn = (campaignId: string, state: SeatRow['state']) =>
    db.select({ n: count() }).from(seats).where(and(eq(seats.campaignId, campaignId), eq(seats.state, state))).get()?.n ?? 0
  return {
    insert(row: SeatRow): void {
      db.insert(seats).values(row).run()
    },
    get(id: string): SeatRow | undefined {
      return db.select().from(seats).where(eq(seats.id, id)).get()
    },
    update(id: string, changes: SeatChanges): void {
      db.update(seats).set(changes).where(eq(seats.id, id)).run()
    },
    /** A campaign's seats, newest first (ids are time-ordered). */
    list(campaignId: string, limit: number, startingAfter?: string): SeatRow[] {
      return db.select().from(seats)
        .where(and(eq(seats.campaignId, campaignId), startingAfter ? lt(seats.id, startingAfter) : undefined))
        .orderBy(desc(seats.id)).limit(limit).all()
    },
    /** An organization's seats that have not ended, oldest first. */
    live(orgId: string): SeatRow[] {
      return db.select().from(seats).where(and(eq(seats.orgId, orgId), ne(seats.state, 'ended'))).orderBy(asc(seats.id)).all()
    },
    count: countIn,
    /** Seats of a campaign with one of the dialer's calls: a lead who called in holds a seat but no outbound line. */
    onCallOutbound(campaignId: string): number {
      return db.select({ n: count() }).from(seats)
        .where(and(eq(seats.campaignId, campaignId), eq(seats.state, 'on_call'),
          sql`NOT EXISTS (SELECT 1 FROM calls WHERE calls.id = ${seats.leadCallId} AND calls.direction = 'inbound')`))
        .get()?.n ?? 0
    },
    /** The seat that has waited longest (its `updated` is when it last became free). */
    longestWaiting(campaignId: string): SeatRow | undefined {
      return db.select().from(seats).where(and(eq(seats.campaignId, campaignId), eq(seats.state, 'waiting')))
        .orderBy(asc(seats.updated), asc(seats.id)).limit(1).get()
    },
    /** The seat whose own leg the carrier knows by this id. */
    byCarrierCallId(carrierCallId: string): SeatRow | undefined {
      return db.select().from(seats).where(eq(seats.carrierCallId, carrierCallId)).get()
    },
    /** The seat on a call with this lead call now. */
    withLead(leadCallId: string): SeatRow | undefined {
      return db.select().from(seats).where(and(eq(seats.leadCallId, leadCallId), eq(seats.state, 'on_call'))).get()
    },
  }
}

export type SeatStore = ReturnType<typeof seatStore>
