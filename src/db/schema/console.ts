/** The console's people: an organization's accounts and the sessions signed in. */
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { orgs } from './access'

export const users = sqliteTable(
  'users',
  {
    id: text('id').primaryKey(),
    orgId: text('org_id').notNull().references(() => orgs.id),
    /** Lower-cased; one account per address across the service (sign-in asks only for it). */
    email: text('email').notNull(),
    name: text('name').notNull(),
    role: text('role', { enum: ['owner', 'sdr'] }).notNull(),
    /** Bun.password (argon2id) hash; the password itself is never stored. */
    passwordHash: text('password_hash').notNull(),
    disabledAt: integer('disabled_at'),
    created: integer('created').notNull(),
    updated: integer('updated').notNull(),
  },
  (t) => [uniqueIndex('users_email').on(t.email), index('users_org').on(t.orgId)],
)

/**
 * A signed-in browser: the cookie holds a random token, this row its SHA-256. `userId` null is
 * the operator (signed in with the admin token). Idle ones expire (src/domain/console/sessions.ts).
 */
export const consoleSessions = sqliteTable(
  'console_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    userId: text('user_id').references(() => users.id),
    /** Sent back in X-CSRF-Token with every change. */
    csrfToken: text('csrf_token').notNull(),
    /** The operator's: the admin token's epoch at sign-in; a new token (reset or DIALER_ADMIN_TOKEN) has a new one and ends it. */
    adminEpoch: text('admin_epoch'),
    created: integer('created').notNull(),
    lastSeen: integer('last_seen').notNull(),
  },
  (t) => [index('console_sessions_user').on(t.userId), index('console_sessions_seen').on(t.lastSeen)],
)
