import type { Database } from 'bun:sqlite'
import { and, count, desc, eq, inArray, lt, min, sql } from 'drizzle-orm'
import type { Db } from '../client'
import { webhookDeliveries, webhookEndpoints } from '../schema'
import { tableCodec } from '../table-codec'

export type EndpointRow = typeof webhookEndpoints.$inferSelect
export type NewEndpoint = typeof webhookEndpoints.$inferInsert
export type DeliveryRow = typeof webhookDeliveries.$inferSelect
export type NewDelivery = typeof webhookDeliveries.$inferInsert
export type DeliveryStatus = DeliveryRow['status']

export function webhookStore(db: Db, sqlite: Database) {
  // Each event makes a delivery per subscribed endpoint: the codec's cached statements.
  const deliveries = tableCodec(sqlite, webhookDeliveries)
  // The IN list as literals: the partial index webhook_deliveries_due covers only those.
  const toTry = sql`${webhookDeliveries.status} IN ('pending', 'failed')`
  return {
    // ---- endpoints ----
    insertEndpoint(row: NewEndpoint): EndpointRow {
      return db.insert(webhookEndpoints).values(row).returning().get()
    },
    updateEndpoint(id: string, changes: Partial<NewEndpoint>): EndpointRow | undefined {
      return db.update(webhookEndpoints).set(changes).where(eq(webhookEndpoints.id, id)).returning().get()
    },
    deleteEndpoint(id: string): EndpointRow | undefined {
      return db.delete(webhookEndpoints).where(eq(webhookEndpoints.id, id)).returning().get()
    },
    endpoint(id: string): EndpointRow | undefined {
      return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, id)).get()
    },
    /** Every endpoint of an organization (both modes), oldest first. */
    endpointsOf(orgId: string): EndpointRow[] {
      return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId)).orderBy(webhookEndpoints.id).all()
    },
    countEndpoints(orgId: string): number {
      return db.select({ n: sql<number>`count(*)` }).from(webhookEndpoints).where(eq(webhookEndpoints.orgId, orgId)).get()?.n ?? 0
    },
    listEndpoints(orgId: string, livemode: boolean, limit: number, startingAfter?: string): EndpointRow[] {
      return db.select().from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.orgId, orgId), eq(webhookEndpoints.livemode, livemode), startingAfter ? lt(webhookEndpoints.id, startingAfter) : undefined))
        .orderBy(desc(webhookEndpoints.id)).limit(limit).all()
    },

    // ---- deliveries ----
    // Codec (hot: one a subscribed endpoint an event): faster than the builder (docs/architecture.md, "Data access").
    insertDelivery(row: NewDelivery): DeliveryRow {
      return deliveries.insert(row)
    },
    // Codec (hot: every attempt): faster than the builder (docs/architecture.md, "Data access").
    updateDelivery(id: string, changes: Partial<NewDelivery>): DeliveryRow | undefined {
      return deliveries.update('id', id, changes)
    },
    // Codec (hot: every attempt): faster than the builder (docs/architecture.md, "Data access").
    delivery(id: string): DeliveryRow | undefined {
      return deliveries.selectOne('id = ?', [id])
    },
    /** Deliveries to try at or before `now`, oldest first (partial index webhook_deliveries_due). */
    // Codec (bulk: every delivery passes here or dueRetries): faster than the builder (docs/architecture.md, "Data access").
    due(now: number, limit: number): DeliveryRow[] {
      return deliveries.selectAll("status IN ('pending', 'failed') AND next_attempt_at <= ?", [now], `ORDER BY next_attempt_at, id LIMIT ${Math.floor(limit)}`)
    },
    /** Failed deliveries whose retry time has passed (the retry sweep; pending ones are in the sender's lines). */
    // Codec (bulk), as due.
    dueRetries(now: number, limit: number): DeliveryRow[] {
      return deliveries.selectAll("status IN ('pending', 'failed') AND next_attempt_at <= ? AND attempts > 0", [now], `ORDER BY next_attempt_at, id LIMIT ${Math.floor(limit)}`)
    },
    nextDueAt(): number | null {
      return db.select({ at: min(webhookDeliveries.nextAttemptAt) }).from(webhookDeliveries).where(toTry).get()?.at ?? null
    },
    /** Deliveries of an endpoint still waiting to be tried (they are skipped once it is paused). */
    waitingFor(endpointId: string): DeliveryRow[] {
      return db.select().from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.endpointId, endpointId), toTry)).orderBy(webhookDeliveries.id).all()
    },
    listDeliveries(endpointId: string, limit: number, options: { status?: DeliveryStatus; startingAfter?: string }): DeliveryRow[] {
      return db.select().from(webhookDeliveries)
        .where(and(
          eq(webhookDeliveries.endpointId, endpointId),
          options.status ? eq(webhookDeliveries.status, options.status) : undefined,
          options.startingAfter ? lt(webhookDeliveries.id, options.startingAfter) : undefined,
        ))
        .orderBy(desc(webhookDeliveries.id)).limit(limit).all()
    },
    /** Deliveries still to be tried (metrics: the backlog). */
    backlog(): number {
      return db.select({ n: count() }).from(webhookDeliveries).where(toTry).get()?.n ?? 0
    },
    /** Deliveries still to be tried per endpoint, every endpoint (0 included), by id (metrics). */
    backlogByEndpoint(): { id: string; n: number }[] {
      return db.select({ id: webhookEndpoints.id, n: count(webhookDeliveries.id) }).from(webhookEndpoints)
        .leftJoin(webhookDeliveries, and(eq(webhookDeliveries.endpointId, webhookEndpoints.id), toTry))
        .groupBy(webhookEndpoints.id).orderBy(webhookEndpoints.id).all()
    },
    purgeBefore(cutoff: number): number {
      return db.delete(webhookDeliveries).where(lt(webhookDeliveries.created, cutoff)).returning({ id: webhookDeliveries.id }).all().length
    },
    statusCounts(endpointIds: string[]): Record<string, number> {
      if (endpointIds.length === 0) return {}
      const rows = db.select({ status: webhookDeliveries.status, n: sql<number>`count(*)` }).from(webhookDeliveries)
        .where(inArray(webhookDeliveries.endpointId, endpointIds)).groupBy(webhookDeliveries.status).all()
      return Object.fromEntries(rows.map((r) => [r.status, r.n]))
    },
  }
}

export type WebhookStore = ReturnType<typeof webhookStore>
