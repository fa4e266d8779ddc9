import { randomBytes, timingSafeEqual } from 'node:crypto'
import type { ConsoleStore, UserRow } from '../../db/stores/console-store'
import type { Clock } from '../../jobs/clock'
import type { AdminToken } from '../access/admin-token'
import { hashSecret } from '../access/api-keys'
import { ADMIN_ACCOUNT, emailAccount, type GuessGuard } from '../access/guess-guard'
import { decoyHash, normalizeEmail } from './accounts'

/**
 * Console sign-in and sessions. The cookie holds a random token; the database only
 * its SHA-256, so a copy of the database signs nobody in. A session idle for IDLE_MS is gone;
 * each carries a CSRF token the page sends back in X-CSRF-Token with every change.
 */

/** A working day's pause (lunch, a meeting) keeps one signed in; a night does not. */
export const IDLE_MS = 8 * 3_600_000
/** However active, a session ends this long after sign-in: the operator's (every organization) sooner. */
export const OPERATOR_LIFETIME_MS = 12 * 3_600_000
export const USER_LIFETIME_MS = 7 * 24 * 3_600_000
/** lastSeen is written at most this often: a page polling every second must not write every second. */
const TOUCH_MS = 60_000

export type ConsoleIdentity = { kind: 'operator' } | { kind: 'user'; user: UserRow }

export interface ConsoleSession {
  tokenHash: string
  csrfToken: string
  identity: ConsoleIdentity
}

/**
 * `wrong` covers a wrong secret, an unknown email and a disabled account alike; `limited`: the
 * address or the account is over its budget and nothing was checked (guess-guard.ts).
 */
export type SignInResult =
  | { ok: true; token: string; session: ConsoleSession }
  | { ok: false; reason: 'wrong' }
  | { ok: false; reason: 'limited'; scope: 'address' | 'account'; retryAfter: number }

const mint = () => randomBytes(32).toString('base64url')

export function sessionService(deps: { console: ConsoleStore; adminToken: AdminToken; guesses: GuessGuard; clock: Clock; transaction: <T>(work: () => T) => T }) {
  const store = deps.console
  const open = (userId: string | null, identity: ConsoleIdentity): SignInResult => {
    const token = mint()
    const session: ConsoleSession = { tokenHash: hashSecret(token), csrfToken: mint(), identity }
    const now = deps.clock.now()
    const adminEpoch = userId === null ? deps.adminToken.epoch() : null
    store.insertSession({ tokenHash: session.tokenHash, userId, csrfToken: session.csrfToken, adminEpoch, created: now, lastSeen: now })
    return { ok: true, token, session }
  }
  return {
    /**
     * Email and password, from a client address. A wrong email takes as long as a wrong password
     * (a decoy hash is verified), and a disabled account's right password answers as a wrong one.
     */
    async signIn(email: string, password: string, client: string): Promise<SignInResult> {
      const attempt = deps.guesses.begin(client, emailAccount(email))
      if (!attempt.allowed) return { ok: false, reason: 'limited', scope: attempt.scope, retryAfter: attempt.retryAfter }
      let address: string
      try {
        address = normalizeEmail(email)
      } catch {
        address = ''
      }
      const user = address ? store.userByEmail(address) : undefined
      const matches = await Bun.password.verify(password.slice(0, 200), user?.passwordHash ?? (await decoyHash()))
      if (!user || !matches || user.disabledAt !== null) return { ok: false, reason: 'wrong' }
      deps.guesses.succeeded(attempt)
      return deps.transaction(() => open(user.id, { kind: 'user', user }))
    },

    /** The operator, with the admin token (every organization). */
    signInOperator(token: string, client: string): SignInResult {
      const attempt = deps.guesses.begin(client, ADMIN_ACCOUNT)
      if (!attempt.allowed) return { ok: false, reason: 'limited', scope: attempt.scope, retryAfter: attempt.retryAfter }
      if (!deps.adminToken.matches(token)) return { ok: false, reason: 'wrong' }
      deps.guesses.succeeded(attempt)
      return deps.transaction(() => open(null, { kind: 'operator' }))
    },

    /**
     * The session of a cookie's token, or null: none, idle too long, past its lifetime, its
     * account disabled, or (the operator's) made with an admin token no longer in force.
     * `activity` false: a re-check not of the person's doing (a campaign stream's tick) leaves lastSeen alone.
     */
    resolve(token: string, activity = true): ConsoleSession | null {
      if (token.length === 0 || token.length > 100) return null
      const tokenHash = hashSecret(token)
      const row = store.session(tokenHash)
      if (!row) return null
      const now = deps.clock.now()
      const lifetime = row.userId === null ? OPERATOR_LIFETIME_MS : USER_LIFETIME_MS
      const staleToken = row.userId === null && row.adminEpoch !== deps.adminToken.epoch()
      if (now - row.lastSeen > IDLE_MS || now - row.created > lifetime || staleToken) {
        deps.transaction(() => store.deleteSession(tokenHash))
        return null
      }
      let identity: ConsoleIdentity = { kind: 'operator' }
      if (row.userId !== null) {
        const user = store.user(row.userId)
        if (!user || user.disabledAt !== null) return null
        identity = { kind: 'user', user }
      }
      if (activity && now - row.lastSeen >= TOUCH_MS) deps.transaction(() => store.touchSession(tokenHash, now))
      return { tokenHash, csrfToken: row.csrfToken, identity }
    },

    /** Whether a change carries the session's CSRF token (constant time). */
    csrfMatches(session: ConsoleSession, sent: string | null): boolean {
      if (!sent || sent.length !== session.csrfToken.length) return false
      return timingSafeEqual(Buffer.from(sent), Buffer.from(session.csrfToken))
    },

    signOut(session: ConsoleSession): void {
      deps.transaction(() => store.deleteSession(session.tokenHash))
    },

    /** Daily: sessions idle past IDLE_MS are deleted (those never seen again would stay otherwise). */
    purgeIdle(): number {
      return deps.transaction(() => store.purgeSessionsSeenBefore(deps.clock.now() - IDLE_MS))
    },
  }
}

export type SessionService = ReturnType<typeof sessionService>
