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

/** How many of an organization's newest leads a name or email search reads. */
export const TEXT_SEARCH_DEPTH = 50_000

/** The smallest uuid v7 made at `ms` or later (ids compare as text). */
const firstUuidAt = (ms: number): string => {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-0000-0000-000000000000`
}

export function consoleStore(db: Db, sqlite: Database) {
  // Raw counts: one statement each, read every few seconds per open console page.
  // Call ids are uuid v7 (time first): today's calls are a range of calls_campaign_list, not a
  // scan of the campaign's history (bench:console, 1,000,000 calls: about 1 s a poll before).
  const callsSince = sqlite.query<{ calls: number; connects: number | null }, [string, string, number]>(
    "SELECT count(*) AS calls, sum(answered_by = 'person') AS connects FROM calls WHERE campaign_id = ? AND livemode = 1 AND id >= ? AND started >= ?",
  )
  // Only queued leads, through their partial index (a campaign's done leads are not read).
  const waiting = sqlite.query<{ call_now: number | null; late: number | null }, [string]>(
    "SELECT sum(call_now) AS call_now, sum(late) AS late FROM leads INDEXED BY leads_queued WHERE status = 'queued' AND campaign_id = ? AND livemode = 1",
  )
  // Lead search: an exact phone or external id uses its index; a name or email scans the
  // organization's leads newest first and stops at `limit` matches.
  const byPhone = sqlite.query<{ id: string }, [string, string]>('SELECT id FROM leads WHERE org_id = ? AND livemode = 1 AND phone = ? ORDER BY id DESC LIMIT 50')
  const byExternalId = sqlite.query<{ id: string }, [string, string, string]>(
    'SELECT id FROM leads WHERE org_id = ? AND livemode = 1 AND external_id = ? AND id < ? ORDER BY id DESC LIMIT 50',
  )
  // Name and email: a LIKE over the newest TEXT_SEARCH_DEPTH leads only (an index range walked
  // newest first). Unbounded, a rare name scanned every lead: about 0.6 s with 1,000,000
  // (bench:console); older leads are found by phone or external id.
  const byText = sqlite.query<{ id: string }, [string, string, number, string, string, number]>(
    `SELECT id FROM (SELECT id, name, email FROM leads WHERE org_id = ? AND livemode = 1 AND id < ? ORDER BY id DESC LIMIT ?)
     WHERE name LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\' LIMIT ?`,
  )
  return {
    /** Live lead ids of the organization matching a search, newest first (name and email: among the newest TEXT_SEARCH_DEPTH). */
    searchLeads(orgId: string, term: { e164: string | null; text: string }, limit: number, before: string | null): string[] {
      if (term.e164) return byPhone.all(orgId, term.e164).map((r) => r.id).filter((id) => before === null || id < before).slice(0, limit)
      const upper = before ?? '\uffff'
      const exact = byExternalId.all(orgId, term.text, upper).map((r) => r.id)
      const pattern = `%${term.text.replace(/[%_\\]/g, (c) => `\\${c}`)}%`
      const found = byText.all(orgId, upper, TEXT_SEARCH_DEPTH, pattern, pattern, limit).map((r) => r.id)
      return [...new Set([...exact, ...found])].sort().reverse().slice(0, limit)
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
