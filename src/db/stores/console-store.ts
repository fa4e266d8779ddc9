import { and, asc, eq, gt, isNull, lt } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { Db } from '../client'
import { consoleSessions, users } from '../schema'

export type UserRow = typeof users.$inferSelect
export type ConsoleSessionRow = typeof consoleSessions.$inferSelect

/** The console's accounts and sessions (src/domain/console/). Builder throughout: cold paths. */
export interface CampaignBoard {
  /** Live calls started since `since` (the organization's local midnight), and those a person answered. */
  callsToday: number
  connectsToday: number
  /** Live leads waiting in line: call-now ones, and those past the campaign's late minutes. */
  queuedCallNow: number
  late: number
}

/** A text search reads at most this many of the newest leads not yet in the index (the rest wait for it). */
export const UNINDEXED_SEARCH_DEPTH = 5_000
/** Terms shorter than this match external ids exactly: a trigram index needs three characters. */
export const MIN_TEXT_SEARCH = 3

/** The smallest uuid v7 made at `ms` or later (ids compare as text). */
const firstUuidAt = (ms: number): string => {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`
}

export function consoleStore(db: Db, sqlite: Database) {
  // Raw counts: one statement each, read every few seconds per open console page.
  // Call ids are uuid v7 (time first): today's calls are a range of calls_campaign_list, not a
  // scan of the campaign's history (docs/architecture.md, "Data access").
  const callsSince = sqlite.query<{ calls: number; connects: number | null }, [string, string, number]>(
    "SELECT count(*) AS calls, sum(answered_by = 'person') AS connects FROM calls WHERE campaign_id = ? AND livemode = 1 AND id >= ? AND started >= ?",
  )
  // Only queued leads, through their partial index (a campaign's done leads are not read).
  const waiting = sqlite.query<{ call_now: number | null; late: number | null }, [string]>(
    "SELECT sum(call_now) AS call_now, sum(late) AS late FROM leads INDEXED BY leads_queued WHERE status = 'queued' AND campaign_id = ? AND livemode = 1",
  )
  // Lead search: an exact phone or external id uses its index; a name, email or external id
  // (any part, three characters or more) the FTS5 trigram index lead_search (drizzle/0018),
  // newest first by rowid, plus the few newest leads the background indexing has not reached.
  const byPhone = sqlite.query<{ id: string }, [string, string]>('SELECT id FROM leads WHERE org_id = ? AND livemode = 1 AND phone = ? ORDER BY id DESC LIMIT 50')
  const byExternalId = sqlite.query<{ id: string }, [string, string, string]>(
    // The few leads with this external id: left to itself, SQLite walked the organization's leads
    // by leads_org_list for the id range instead.
    'SELECT id FROM leads INDEXED BY leads_org_external_campaign WHERE org_id = ? AND livemode = 1 AND external_id = ? AND id < ? ORDER BY id DESC LIMIT 50',
  )
  const indexedTo = sqlite.query<{ at: number }, []>('SELECT indexed_to AS at FROM lead_search_state WHERE id = 1')
  const newestRowid = sqlite.query<{ at: number | null }, []>('SELECT max(rowid) AS at FROM leads')
  const rowidOf = sqlite.query<{ at: number }, [string]>('SELECT rowid AS at FROM leads WHERE id = ?')
  const byIndex = sqlite.query<{ id: string }, [string, number, string, number]>(
    `SELECT l.id FROM lead_search s JOIN leads l ON l.rowid = s.rowid
     WHERE s.lead_search MATCH ? AND s.rowid < ? AND l.org_id = ? AND l.livemode = 1 ORDER BY s.rowid DESC LIMIT ?`,
  )
  const byScan = sqlite.query<{ id: string }, [number, number, string, string, string, string, number]>(
    `SELECT id FROM leads WHERE rowid > ? AND rowid < ? AND org_id = ? AND livemode = 1
       AND (name LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\' OR external_id LIKE ? ESCAPE '\\') ORDER BY rowid DESC LIMIT ?`,
  )
  // Background indexing: the next leads past the mark, in rowid order.
  const nextMark = sqlite.query<{ at: number | null }, [number, number]>('SELECT max(rowid) AS at FROM (SELECT rowid FROM leads WHERE rowid > ? ORDER BY rowid LIMIT ?)')
  const indexRange = sqlite.query<unknown, [number, number]>(
    'INSERT INTO lead_search (rowid, name, email, external_id) SELECT rowid, name, email, external_id FROM leads WHERE rowid > ? AND rowid <= ?',
  )
  const setMark = sqlite.query<unknown, [number]>('UPDATE lead_search_state SET indexed_to = ? WHERE id = 1')
  return {
    /**
     * Live lead ids of the organization matching a search, newest first: a phone exactly; a
     * shorter term than MIN_TEXT_SEARCH an external id exactly; else any part of a name, email or
     * external id. `before` is the id of the last lead of the previous page.
     */
    searchLeads(orgId: string, term: { e164: string | null; text: string }, limit: number, before: string | null): string[] {
      if (term.e164) return byPhone.all(orgId, term.e164).map((r) => r.id).filter((id) => before === null || id < before).slice(0, limit)
      if ([...term.text].length < MIN_TEXT_SEARCH) return byExternalId.all(orgId, term.text, before ?? '\uffff').map((r) => r.id).slice(0, limit)
      let upper = Number.MAX_SAFE_INTEGER
      if (before !== null) {
        const at = rowidOf.get(before)
        if (!at) return []
        upper = at.at
      }
      const mark = indexedTo.get()?.at ?? 0
      const newest = newestRowid.get()?.at ?? 0
      const pattern = `%${term.text.replace(/[%_\\]/g, (c) => `\\${c}`)}%`
      const recent = newest > mark && upper > mark
        ? byScan.all(Math.max(mark, newest - UNINDEXED_SEARCH_DEPTH), upper, orgId, pattern, pattern, pattern, limit).map((r) => r.id)
        : []
      if (recent.length >= limit) return recent
      const indexed = byIndex.all(`"${term.text.replaceAll('"', '""')}"`, Math.min(upper, mark + 1), orgId, limit - recent.length).map((r) => r.id)
      return [...recent, ...indexed]
    },
    /** Indexes up to `max` leads past the search index's mark (in the caller's transaction); how many. */
    indexLeadsForSearch(max: number): number {
      const mark = indexedTo.get()?.at ?? 0
      const next = nextMark.get(mark, max)?.at
      if (next === null || next === undefined) return 0
      const changes = indexRange.run(mark, next).changes
      setMark.run(next)
      return changes
    },
    board(campaignId: string, since: number): CampaignBoard {
      const calls = callsSince.get(campaignId, firstUuidAt(since), since)!
      const queued = waiting.get(campaignId)!
      return { callsToday: calls.calls, connectsToday: calls.connects ?? 0, queuedCallNow: queued.call_now ?? 0, late: queued.late ?? 0 }
    },
    insertUser(row: UserRow): UserRow {
      return db.insert(users).values(row).returning().get()
    },
    user(id: string): UserRow | undefined {
      return db.select().from(users).where(eq(users.id, id)).get()
    },
    userByEmail(email: string): UserRow | undefined {
      return db.select().from(users).where(eq(users.email, email)).get()
    },
    usersOf(orgId: string, limit: number, startingAfter?: string): UserRow[] {
      const where = startingAfter ? and(eq(users.orgId, orgId), gt(users.id, startingAfter)) : eq(users.orgId, orgId)
      return db.select().from(users).where(where).orderBy(asc(users.id)).limit(limit).all()
    },
    updateUser(id: string, changes: Partial<Pick<UserRow, 'name' | 'role' | 'passwordHash' | 'disabledAt' | 'updated'>>): UserRow | undefined {
      return db.update(users).set(changes).where(eq(users.id, id)).returning().get()
    },
    insertSession(row: ConsoleSessionRow): void {
      db.insert(consoleSessions).values(row).run()
    },
    session(tokenHash: string): ConsoleSessionRow | undefined {
      return db.select().from(consoleSessions).where(eq(consoleSessions.tokenHash, tokenHash)).get()
    },
    touchSession(tokenHash: string, lastSeen: number): void {
      db.update(consoleSessions).set({ lastSeen }).where(eq(consoleSessions.tokenHash, tokenHash)).run()
    },
    deleteSession(tokenHash: string): void {
      db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, tokenHash)).run()
    },
    /** Signs a person out everywhere (password changed, account disabled). */
    deleteSessionsOf(userId: string): void {
      db.delete(consoleSessions).where(eq(consoleSessions.userId, userId)).run()
    },
    /** The operator's sessions (the admin token was reset). */
    deleteOperatorSessions(): void {
      db.delete(consoleSessions).where(isNull(consoleSessions.userId)).run()
    },
    purgeSessionsSeenBefore(before: number): number {
      return db.delete(consoleSessions).where(lt(consoleSessions.lastSeen, before)).returning({ tokenHash: consoleSessions.tokenHash }).all().length
    },
  }
}

export type ConsoleStore = ReturnType<typeof consoleStore>
