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

export function consoleStore(db: Db, sqlite: Database) {
  // Raw counts: one statement each, read every few seconds per open console page.
  const callsSince = sqlite.query<{ calls: number; connects: number | null }, [string, number]>(
    "SELECT count(*) AS calls, sum(answered_by = 'person') AS connects FROM calls WHERE campaign_id = ? AND livemode = 1 AND started >= ?",
  )
  const waiting = sqlite.query<{ call_now: number | null; late: number | null }, [string]>(
    "SELECT sum(call_now) AS call_now, sum(late) AS late FROM leads WHERE campaign_id = ? AND livemode = 1 AND status = 'queued'",
  )
  // Lead search: an exact phone or external id uses its index; a name or email scans the
  // organization's leads newest first and stops at `limit` matches.
  const byPhone = sqlite.query<{ id: string }, [string, string]>('SELECT id FROM leads WHERE org_id = ? AND livemode = 1 AND phone = ? ORDER BY id DESC LIMIT 50')
  const byText = sqlite.query<{ id: string }, [string, string, string, string, string, number]>(
    "SELECT id FROM leads WHERE org_id = ? AND livemode = 1 AND id < ? AND (external_id = ? OR name LIKE ? ESCAPE '\\' OR email LIKE ? ESCAPE '\\') ORDER BY id DESC LIMIT ?",
  )
  return {
    /** Live lead ids of the organization matching a search, newest first. */
    searchLeads(orgId: string, term: { e164: string | null; text: string }, limit: number, before: string | null): string[] {
      if (term.e164) return byPhone.all(orgId, term.e164).map((r) => r.id).filter((id) => before === null || id < before).slice(0, limit)
      const pattern = `%${term.text.replace(/[%_\\]/g, (c) => `\\${c}`)}%`
      return byText.all(orgId, before ?? '\uffff', term.text, pattern, pattern, limit).map((r) => r.id)
    },
    board(campaignId: string, since: number): CampaignBoard {
      const calls = callsSince.get(campaignId, since)!
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
